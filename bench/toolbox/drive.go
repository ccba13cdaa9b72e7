package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// workload is what a run measures: its tools, in the order the results
// list them, the calls to make, and each server's answer as canonical
// text, equal for equal answers.
type workload struct {
	tools     []string
	args      func(tool string, n int, seed uint64) []map[string]any
	provenant func(tool string, structured []byte) (string, error)
	toolbox   func(tool string, texts []string) (string, error)
}

// target is one server under test.
type target struct {
	name string
	url  string
	proc *proc
	// pgApp is the application_name of the PostgreSQL backends doing the
	// server's queries, whose CPU counts as the server's ("" for none).
	pgApp   string
	dsn     string
	toolbox bool // answers as the toolbox does (rows as text)
}

// httpClient keeps one idle connection per session, as separate clients
// would.
func httpClient(sessions int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * sessions, MaxIdleConnsPerHost: 4 * sessions, IdleConnTimeout: time.Minute}}
}

func connect(ctx context.Context, url string, hc *http.Client) (*mcp.ClientSession, error) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "provenant-bench", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", url, err)
	}
	return cs, nil
}

// errTool means a server answered a call with a tool error.
var errTool = errors.New("tool error")

// callValue makes one call and returns the canonical value it carries.
func callValue(ctx context.Context, w *workload, t *target, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("%w: %.200q", errTool, texts)
	}
	if t.toolbox {
		return w.toolbox(name, texts)
	}
	b, err := jsonBytes(res.StructuredContent)
	if err != nil {
		return "", err
	}
	return w.provenant(name, b)
}

// checkEqual makes n calls per tool on every target and requires equal
// values; it returns how many calls it compared.
func checkEqual(ctx context.Context, w *workload, targets []*target, n int, seed uint64) (int, error) {
	sessions := make([]*mcp.ClientSession, len(targets))
	hc := httpClient(1)
	for i, t := range targets {
		cs, err := connect(ctx, t.url, hc)
		if err != nil {
			return 0, err
		}
		defer cs.Close()
		sessions[i] = cs
	}
	compared := 0
	for _, name := range w.tools {
		for _, args := range w.args(name, n, seed) {
			var first string
			for i, t := range targets {
				v, err := callValue(ctx, w, t, sessions[i], name, args)
				if err != nil {
					return compared, fmt.Errorf("check %s on %s %v: %w", name, t.name, args, err)
				}
				if i == 0 {
					first = v
				} else if v != first {
					return compared, fmt.Errorf("check %s %v: %s says %q, %s says %q", name, args, targets[0].name, first, t.name, v)
				}
			}
			compared++
		}
	}
	return compared, nil
}

// cell is one measurement: a server, a tool, a number of sessions.
type cell struct {
	Server        string  `json:"server"`
	Tool          string  `json:"tool"`
	Sessions      int     `json:"sessions"`
	Calls         int     `json:"calls"`
	Seconds       float64 `json:"seconds"`
	CallsPerSec   float64 `json:"calls_per_s"`
	P50ms         float64 `json:"p50_ms"`
	P95ms         float64 `json:"p95_ms"`
	CPUmsPerCall  float64 `json:"cpu_ms_per_call"`
	ProcCPUms     float64 `json:"process_cpu_ms_per_call"`
	PostgresCPUms float64 `json:"postgres_cpu_ms_per_call,omitempty"`
	// Backends is how many PostgreSQL backends served the server during
	// the cell, BackendsOpened how many of them it connected during it.
	Backends       int     `json:"postgres_backends,omitempty"`
	BackendsOpened int     `json:"postgres_backends_opened,omitempty"`
	ClientCPUms    float64 `json:"client_cpu_ms_per_call"` // this process: the SDK clients, both servers alike
	Load1          float64 `json:"loadavg_1m"`             // the machine's 1-minute load average as the cell began
	Rounds         []cell  `json:"rounds,omitempty"`
}

// measure drives t with calls to name from n sessions until maxCalls calls
// or maxTime, after warmup unmeasured calls. Server CPU per call is the
// server process's CPU time over the measured span, plus, for the
// toolbox, that of the PostgreSQL backends serving it.
func measure(ctx context.Context, w *workload, t *target, name string, calls []map[string]any, n, maxCalls int, maxTime time.Duration, warmup int) (cell, error) {
	hc := httpClient(n)
	defer hc.CloseIdleConnections()
	sessions := make([]*mcp.ClientSession, n)
	for i := range sessions {
		cs, err := connect(ctx, t.url, hc)
		if err != nil {
			return cell{}, err
		}
		defer cs.Close()
		sessions[i] = cs
	}
	run := func(limit int, deadline time.Time) ([]time.Duration, error) {
		var (
			next   atomic.Int64
			mu     sync.Mutex
			all    []time.Duration
			first  error
			errMu  sync.Mutex
			failed atomic.Bool
			wg     sync.WaitGroup
		)
		for _, cs := range sessions {
			wg.Go(func() {
				var durs []time.Duration
				for !failed.Load() && time.Now().Before(deadline) {
					i := int(next.Add(1)) - 1
					if i >= limit {
						break
					}
					start := time.Now()
					_, err := callValue(ctx, w, t, cs, name, calls[i%len(calls)])
					durs = append(durs, time.Since(start))
					if err != nil {
						errMu.Lock()
						if first == nil {
							first = err
						}
						errMu.Unlock()
						failed.Store(true)
					}
				}
				mu.Lock()
				all = append(all, durs...)
				mu.Unlock()
			})
		}
		wg.Wait()
		return all, first
	}
	if _, err := run(max(warmup, n), time.Now().Add(maxTime)); err != nil {
		return cell{}, err
	}
	load1 := loadAvg1()
	client0, err := cpuTime(os.Getpid())
	if err != nil {
		return cell{}, err
	}
	proc0, err := cpuTime(t.proc.cmd.Process.Pid)
	if err != nil {
		return cell{}, err
	}
	var watch *backendWatch
	if t.pgApp != "" {
		if watch, err = watchBackends(ctx, t.dsn, t.pgApp, 50*time.Millisecond); err != nil {
			return cell{}, err
		}
	}
	start := time.Now()
	durs, err := run(maxCalls, start.Add(maxTime))
	elapsed := time.Since(start)
	if err != nil {
		if watch != nil {
			watch.finish(ctx)
		}
		return cell{}, err
	}
	proc1, err := cpuTime(t.proc.cmd.Process.Pid)
	if err != nil {
		return cell{}, err
	}
	var pg time.Duration
	var backends, opened int
	if watch != nil {
		if pg, backends, opened, err = watch.finish(ctx); err != nil {
			return cell{}, err
		}
	}
	client1, err := cpuTime(os.Getpid())
	if err != nil {
		return cell{}, err
	}
	slices.Sort(durs)
	k := float64(len(durs))
	c := cell{
		Server: t.name, Tool: name, Sessions: n, Calls: len(durs), Seconds: round(elapsed.Seconds(), 3),
		CallsPerSec: round(k/elapsed.Seconds(), 1),
		P50ms:       round(ms(nearestRank(durs, 0.50)), 3),
		P95ms:       round(ms(nearestRank(durs, 0.95)), 3),
		ProcCPUms:   round(ms(proc1-proc0)/k, 3),
		ClientCPUms: round(ms(client1-client0)/k, 3),
		Load1:       load1,
	}
	c.CPUmsPerCall = c.ProcCPUms
	if t.pgApp != "" {
		c.PostgresCPUms = round(ms(pg)/k, 3)
		c.CPUmsPerCall = round(ms(proc1-proc0+pg)/k, 3)
		c.Backends, c.BackendsOpened = backends, opened
	}
	return c, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// nearestRank is the nearest-rank percentile p of sorted.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
