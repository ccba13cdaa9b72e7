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
//
// BenchmarkServeCall and BenchmarkServeCallParallel price the server alone
// on the same get_price call over REST (POST /v1/tools/get_price), over MCP
// through HTTPHandler (handler=fast), and over MCP through the SDK's own
// stateless handler (handler=sdk, what HTTPHandler was before its fast
// lane): the first in process (B/op is the server's allocation per call),
// the second over loopback from 16 plain HTTP clients sending pre-encoded
// bodies, so no client library's cost is counted. Both report cpu_us/op,
// the process's CPU time per call (getrusage), which a loaded machine
// disturbs far less than ns/op. Compare the handlers with
//
//	go test -run XXX -bench ServeCall -benchtime 2000x -count 6 ./mcpserver/ > new.txt
//	benchstat -col /handler new.txt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail"
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
	return openEngineOver(b, d)
}

// openEngineOver is an in-memory engine over d with the rules provider.
func openEngineOver(b *testing.B, d *retail.Dataset) *engine.Engine {
	b.Helper()
	e, err := engine.Open(b.Context(), d, enginetest.OpenDuckDB, &engine.Options{Provider: rules.Provider{}})
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
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules",
		MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, nil), nil)})
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
	return &mcp.CallToolParams{Name: "get_price", Arguments: benchArgs}
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
		p := tool.Proposal{Tool: "get_price", Params: benchArgs}
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

// serveHandlers are the servers BenchmarkServeCall compares, by name: the
// same httpapi server with HTTPHandler, or with the SDK's own handler, on
// /mcp.
func serveHandlers(b *testing.B, e *engine.Engine) map[string]http.Handler {
	b.Helper()
	out := map[string]http.Handler{}
	for name, mcpHandler := range map[string]func(*mcpserver.Server) http.Handler{
		"fast": func(s *mcpserver.Server) http.Handler { return mcpserver.HTTPHandler(s, nil) },
		"sdk":  mcpserver.SDKHandler,
	} {
		api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
		api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules",
			MCP: mcpHandler(mcpserver.New(e.Pipeline, e, nil))})
		out[name] = api
	}
	return out
}

// serveCases are BenchmarkServeCall's variants: the handler, the path and
// the body and headers of the get_price call.
var serveCases = []struct {
	handler, server, path string
	c                     wireCase
}{
	{"rest", "fast", "/v1/tools/get_price", wireCase{body: `{"as_of":"2026-01-06T08:00:00Z","product_id":"pr-007","store_id":"st-003"}`}},
	{"fast", "fast", "/mcp", wireCases[0]},
	{"sdk", "sdk", "/mcp", wireCases[0]},
}

// answered reports whether a REST or MCP response body is get_price's
// answer.
func answered(body []byte) bool {
	return bytes.Contains(body, []byte(`"outcome":"answered"`)) && bytes.Contains(body, []byte(`"value":781`))
}

// BenchmarkServeCall is one get_price call per iteration, handed to the
// server in process (no network, no client): B/op is what the server
// allocates per call.
func BenchmarkServeCall(b *testing.B) {
	e := openBenchEngine(b)
	servers := serveHandlers(b, e)
	for _, sc := range serveCases {
		b.Run("handler="+sc.handler, func(b *testing.B) {
			h := servers[sc.server]
			var lat latencies
			durs := make([]time.Duration, 0, 1<<12)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				r := wireRequest(sc.c)
				r.URL.Path = sc.path
				w := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(w, r)
				durs = append(durs, time.Since(start))
				if w.Code != http.StatusOK || !answered(w.Body.Bytes()) {
					b.Fatalf("%s: %d %s", sc.handler, w.Code, w.Body.Bytes())
				}
			}
			reportCPU(b, processCPU()-cpu0, len(durs))
			lat.add(durs)
			lat.report(b)
		})
	}
}

// processCPU is the user and system CPU time this process has used so far
// (getrusage): unlike wall time, it does not count time the machine gave to
// other processes.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports cpu_us/op: the process's CPU time per call, garbage
// collection included. In BenchmarkServeCall the process is the server
// alone; in BenchmarkServeCallParallel it is the server and its clients.
func reportCPU(b *testing.B, cpu time.Duration, calls int) {
	if calls > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(calls), "cpu_us/op")
	}
}

// BenchmarkServeCallParallel is BenchmarkServeCall over loopback HTTP from
// 16 concurrent plain HTTP clients: calls/s is the server's throughput on
// the call, REST and MCP alike.
func BenchmarkServeCallParallel(b *testing.B) {
	e := openBenchEngine(b)
	servers := map[string]*httptest.Server{}
	for name, h := range serveHandlers(b, e) {
		srv := httptest.NewServer(h)
		b.Cleanup(srv.Close)
		servers[name] = srv
	}
	hc := benchTransport(b)
	for _, sc := range serveCases {
		b.Run("handler="+sc.handler, func(b *testing.B) {
			url := servers[sc.server].URL + sc.path
			post := func(buf *bytes.Buffer) (time.Duration, string) {
				req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, url, strings.NewReader(sc.c.body))
				req.Header = wireRequest(sc.c).Header
				start := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					return 0, err.Error()
				}
				buf.Reset()
				_, err = buf.ReadFrom(resp.Body)
				resp.Body.Close()
				d := time.Since(start)
				if err != nil || resp.StatusCode != http.StatusOK || !answered(buf.Bytes()) {
					return d, fmt.Sprintf("%d %s", resp.StatusCode, buf.Bytes())
				}
				return d, ""
			}
			if _, msg := post(new(bytes.Buffer)); msg != "" {
				b.Fatal(msg)
			}
			par := (benchClients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0)
			var (
				lat     latencies
				errOnce sync.Once
				failure string
			)
			b.SetParallelism(par)
			b.ReportAllocs()
			var calls atomic.Int64
			b.ResetTimer()
			cpu0 := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				buf := new(bytes.Buffer)
				durs := make([]time.Duration, 0, 1<<10)
				for pb.Next() {
					d, msg := post(buf)
					durs = append(durs, d)
					if msg != "" {
						errOnce.Do(func() { failure = msg })
						break
					}
				}
				calls.Add(int64(len(durs)))
				lat.add(durs)
			})
			cpu := processCPU() - cpu0
			b.StopTimer()
			if failure != "" {
				b.Fatal(failure)
			}
			reportCPU(b, cpu, int(calls.Load()))
			lat.report(b)
			b.ReportMetric(float64(par*runtime.GOMAXPROCS(0)), "clients")
		})
	}
}

// openToolboxStore is an engine over the store bench/toolbox serves (its
// default flags: seed 20260101, 100,000 events, 40 stores, 120 products,
// 28 days).
func openToolboxStore(b *testing.B) *engine.Engine {
	b.Helper()
	o := demo.DefaultOptions()
	o.Seed, o.Events, o.Stores, o.Products, o.Days = 20260101, 100_000, 40, 120, 28
	o.Version = "retail-bench-s20260101-e100000"
	d, err := demo.Generate(o)
	if err != nil {
		b.Fatal(err)
	}
	return openEngineOver(b, d)
}

// toolCases are BenchmarkServeTool's calls on the bench/toolbox store: a
// week's window count (about 150 events in its provenance) and a product
// list.
var toolCases = []struct {
	tool, args string
}{
	{"count_events_in_window", `{"end":"2026-01-15T00:00:00Z","start":"2026-01-08T00:00:00Z","state":"LOW_STOCK","store_id":"st-003"}`},
	{"list_products_in_state", `{"as_of":"2026-01-20T08:00:00Z","state":"LOW_STOCK","store_id":"st-003"}`},
}

// BenchmarkServeTool is BenchmarkServeCall's fast lane on the two tools
// whose answers are longest (every event id of a window is in its
// provenance), on the store bench/toolbox compares: cpu_us/op is the
// server's CPU per call. Compare before and after a change with
//
//	go test -run XXX -bench ServeTool -benchtime 2000x -count 6 ./mcpserver/ > new.txt
func BenchmarkServeTool(b *testing.B) {
	e := openToolboxStore(b)
	h := serveHandlers(b, e)["fast"]
	for _, tc := range toolCases {
		b.Run("tool="+tc.tool, func(b *testing.B) {
			c := wireCase{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + newMeta + `,"name":"` + tc.tool + `","arguments":` + tc.args + `}}`,
				headers: newHeaders("tools/call", tc.tool)}
			var lat latencies
			durs := make([]time.Duration, 0, 1<<12)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				w := httptest.NewRecorder()
				r := wireRequest(c)
				start := time.Now()
				h.ServeHTTP(w, r)
				durs = append(durs, time.Since(start))
				if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"outcome":"answered"`)) {
					b.Fatalf("%s: %d %s", tc.tool, w.Code, w.Body.Bytes())
				}
			}
			reportCPU(b, processCPU()-cpu0, len(durs))
			lat.add(durs)
			lat.report(b)
		})
	}
}
