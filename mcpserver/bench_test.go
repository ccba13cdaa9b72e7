package mcpserver_test

// Benchmarks of the protocol's price: one scalar tool call (get_price)
// in-process through the pipeline, and as an MCP tool call over the
// streamable HTTP transport on loopback, from one client and from 16
// concurrent clients. Run them with
//
//	go test -run XXX -bench CallTool -benchtime 2000x -count 3 ./mcpserver/
//
// Besides ns/op each reports p50_us and p95_us (nearest-rank percentiles
// of the per-call latency) and calls/s. Wall-clock time is measured and
// reported here, never used in a decision.

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

// benchArgs is the scalar call every variant makes; the demo store
// answers 781 cents.
var benchArgs = map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}

// benchClients is the number of concurrent clients of
// BenchmarkCallToolParallel.
const benchClients = 16

func openBenchEngine(b *testing.B) *engine.Engine {
	b.Helper()
	d, err := demo.Load()
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.Open(b.Context(), d, engine.OpenMemory, &engine.Options{Provider: rules.Provider{}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// serveBench serves e as `provenant serve` does (httpapi with /mcp) on a
// loopback httptest server.
func serveBench(b *testing.B, e *engine.Engine) *httptest.Server {
	b.Helper()
	api := httpapi.New(nil)
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.Info.Version, Provider: "rules",
		MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e.Store, nil), nil)})
	srv := httptest.NewServer(api)
	b.Cleanup(srv.Close)
	return srv
}

// benchTransport keeps one idle keep-alive connection per client, as
// separate clients would, instead of http.DefaultTransport's two per host.
func benchTransport(b *testing.B) *http.Client {
	tr := &http.Transport{MaxIdleConns: 4 * benchClients, MaxIdleConnsPerHost: 4 * benchClients, IdleConnTimeout: time.Minute}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func connectBench(b *testing.B, ctx context.Context, url string, hc *http.Client) *mcp.ClientSession {
	b.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

// benchParams returns the call's parameters, new for every call: the
// client writes request metadata into them.
func benchParams() *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: tool.GetPrice, Arguments: benchArgs}
}

// callOverMCP makes the benchmark call and reports what went wrong, if
// anything; it checks the outcome, not the value, to keep decoding out of
// the measured span beyond what the client itself does.
func callOverMCP(ctx context.Context, cs *mcp.ClientSession) (string, bool) {
	res, err := cs.CallTool(ctx, benchParams())
	if err != nil {
		return err.Error(), false
	}
	if res.IsError {
		return "tool error: " + text(res), false
	}
	return "", true
}

// checkPrice makes the call once, outside the timed loop, and checks the
// value it carries.
func checkPrice(b *testing.B, cs *mcp.ClientSession) {
	b.Helper()
	res, err := cs.CallTool(b.Context(), benchParams())
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var a struct {
		Outcome string `json:"outcome"`
		Value   int    `json:"value"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.Outcome != "answered" || a.Value != 781 {
		b.Fatalf("get_price over MCP = %s (%v); want answered, 781", raw, err)
	}
}

// latencies collects per-call durations and reports their percentiles
// and the call rate.
type latencies struct {
	mu   sync.Mutex
	durs []time.Duration
}

func (l *latencies) add(d []time.Duration) {
	l.mu.Lock()
	l.durs = append(l.durs, d...)
	l.mu.Unlock()
}

func (l *latencies) report(b *testing.B) {
	b.Helper()
	slices.Sort(l.durs)
	n := len(l.durs)
	if n == 0 {
		return
	}
	b.ReportMetric(nearestRank(l.durs, 0.50), "p50_us")
	b.ReportMetric(nearestRank(l.durs, 0.95), "p95_us")
	if el := b.Elapsed(); el > 0 {
		b.ReportMetric(float64(n)/el.Seconds(), "calls/s")
	}
}

// nearestRank returns the nearest-rank percentile p of sorted, in
// microseconds.
func nearestRank(sorted []time.Duration, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return float64(sorted[max(0, min(i, len(sorted)-1))].Nanoseconds()) / 1e3
}

// BenchmarkCallTool is one get_price call per iteration: inprocess through
// Pipeline.Call (wall, execute, resolve, staple, log line to discard), and
// streamable_http as an MCP tool call from one SDK client session over
// loopback HTTP to the same pipeline (JSON-RPC encoding, HTTP round trip,
// the SDK's server and client, the result's JSON).
func BenchmarkCallTool(b *testing.B) {
	e := openBenchEngine(b)
	b.Run("inprocess", func(b *testing.B) {
		ctx := b.Context()
		p := tool.Proposal{Tool: tool.GetPrice, Params: benchArgs}
		var lat latencies
		durs := make([]time.Duration, 0, 1<<12)
		b.ReportAllocs()
		for b.Loop() {
			start := time.Now()
			a := e.Pipeline.Call(ctx, p)
			durs = append(durs, time.Since(start))
			if a.Outcome() != answer.Answered {
				b.Fatalf("outcome %s: %s", a.Outcome(), a.Reason())
			}
		}
		lat.add(durs)
		lat.report(b)
	})
	srv := serveBench(b, e)
	hc := benchTransport(b)
	b.Run("streamable_http", func(b *testing.B) {
		ctx := b.Context()
		cs := connectBench(b, ctx, srv.URL, hc)
		defer cs.Close()
		checkPrice(b, cs)
		var lat latencies
		durs := make([]time.Duration, 0, 1<<12)
		b.ReportAllocs()
		for b.Loop() {
			start := time.Now()
			msg, ok := callOverMCP(ctx, cs)
			durs = append(durs, time.Since(start))
			if !ok {
				b.Fatal(msg)
			}
		}
		lat.add(durs)
		lat.report(b)
	})
}

// BenchmarkCallToolParallel is BenchmarkCallTool/streamable_http from 16
// concurrent clients, each its own SDK client session, sharing one server.
// ns/op is the inverse of throughput; p50_us and p95_us are per call, so
// they include queueing behind the other clients on the machine's cores.
func BenchmarkCallToolParallel(b *testing.B) {
	e := openBenchEngine(b)
	srv := serveBench(b, e)
	hc := benchTransport(b)
	b.Run("streamable_http", func(b *testing.B) {
		ctx := b.Context()
		// RunParallel starts parallelism×GOMAXPROCS goroutines: exactly
		// 16 on this project's 2-core machine; the clients metric says how
		// many ran elsewhere.
		par := (benchClients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0)
		clients := par * runtime.GOMAXPROCS(0)
		pool := make(chan *mcp.ClientSession, clients)
		for i := range clients {
			cs := connectBench(b, ctx, srv.URL, hc)
			defer cs.Close()
			if i == 0 {
				checkPrice(b, cs)
			}
			pool <- cs
		}
		var (
			lat     latencies
			errOnce sync.Once
			failure string
		)
		b.SetParallelism(par)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			cs := <-pool
			durs := make([]time.Duration, 0, 1<<10)
			for pb.Next() {
				start := time.Now()
				msg, ok := callOverMCP(ctx, cs)
				durs = append(durs, time.Since(start))
				if !ok {
					errOnce.Do(func() { failure = msg })
					break
				}
			}
			lat.add(durs)
		})
		b.StopTimer()
		if failure != "" {
			b.Fatal(strings.TrimSpace(failure))
		}
		lat.report(b)
		b.ReportMetric(float64(clients), "clients")
	})
}
