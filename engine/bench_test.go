package engine_test

// Benchmarks of the deterministic span. Run them with
//
//	go test -run XXX -bench . -benchtime 2000x ./engine/
//
// and, on a generated store of a million events,
//
//	PROVENANT_BENCH_EVENTS=999999 go test -run XXX -bench ToolLarge -benchtime 50x ./engine/
//
// BenchmarkTool and BenchmarkAsk verify as the engine does by default
// (engine.VerifySnapshot); the SQL variants ask DuckDB per question.

import (
	"os"
	"strconv"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/executor"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/resolver"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/memstore"
	"github.com/provenant/provenant/tool"
)

// benchCalls is one call per tool, valid on the demo store and on any
// store demo.Generate makes with at least 3 stores and 7 products.
var benchCalls = []tool.Proposal{
	{Tool: retail.GetStockState, Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: retail.GetPrice, Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: retail.GetComplianceFlag, Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: retail.CountStoresWithCondition, Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: retail.ListProductsInState, Params: map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: retail.CountEventsInWindow, Params: map[string]any{"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}},
}

// benchQuestions are the six documented question templates.
var benchQuestions = []string{
	"What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"What is the compliance flag of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
	"How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?",
	"Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?",
	"How many OUT_OF_STOCK events were recorded for st-003 in [2026-01-01T00:00:00Z, 2026-01-07T00:00:00Z)?",
}

// benchSetup is the deterministic span's parts over one dataset, built
// as engine.Open builds them, with a resolver for each verify mode.
type benchSetup struct {
	wall      *tool.Wall
	ex        *executor.Index
	resolvers map[string]*resolver.Resolver // by engine.Verify* mode
}

func newBenchSetup(b *testing.B, d *retail.Dataset) *benchSetup {
	ctx := b.Context()
	store, err := duckdb.Open(ctx, d)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	snapshot, err := memstore.Load(ctx, store)
	if err != nil {
		b.Fatal(err)
	}
	return &benchSetup{
		wall: tool.NewWall(retail.Registry(), retail.DeclaredIDs(d)),
		ex:   executor.New(d, nil),
		resolvers: map[string]*resolver.Resolver{
			engine.VerifySnapshot: resolver.New(snapshot),
			engine.VerifySQL:      resolver.New(store),
		},
	}
}

// execute runs one proposal through the wall and the executor.
func (s *benchSetup) execute(b *testing.B, p tool.Proposal) (tool.Call, fact.Result) {
	call, err := s.wall.Check(p)
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.ex.Execute(b.Context(), call)
	if err != nil {
		b.Fatal(err)
	}
	return call, r
}

func (s *benchSetup) resolve(b *testing.B, verify string, call tool.Call, r fact.Result) {
	v, err := s.resolvers[verify].Resolve(b.Context(), call, r)
	if err != nil {
		b.Fatal(err)
	}
	if !v.OK() {
		b.Fatalf("verdict failed: %+v", v)
	}
}

// spans runs one sub-benchmark per tool: per iteration, one proposal
// through the wall, the executor and the resolver of the verify mode (the
// deterministic span without the staple, which copies a few fields).
func (s *benchSetup) spans(b *testing.B, verify string) {
	for _, p := range benchCalls {
		b.Run(p.Tool, func(b *testing.B) {
			for b.Loop() {
				call, r := s.execute(b, p)
				s.resolve(b, verify, call, r)
			}
		})
	}
}

// stages times the parts of each tool's span apart: wall+execute, and
// each verify mode's resolve.
func (s *benchSetup) stages(b *testing.B) {
	for _, p := range benchCalls {
		b.Run("execute/"+p.Tool, func(b *testing.B) {
			for b.Loop() {
				s.execute(b, p)
			}
		})
	}
	for _, verify := range []string{engine.VerifySnapshot, engine.VerifySQL} {
		for _, p := range benchCalls {
			b.Run("resolve_"+verify+"/"+p.Tool, func(b *testing.B) {
				call, r := s.execute(b, p)
				for b.Loop() {
					s.resolve(b, verify, call, r)
				}
			})
		}
	}
}

func benchDemo(b *testing.B) *retail.Dataset {
	d, err := demo.Load()
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkTool measures each tool's deterministic span on the demo store,
// verified as the engine does by default (engine.VerifySnapshot).
func BenchmarkTool(b *testing.B) { newBenchSetup(b, benchDemo(b)).spans(b, engine.VerifySnapshot) }

// BenchmarkToolSQL is BenchmarkTool with a DuckDB SQL query per
// re-derivation (engine.VerifySQL).
func BenchmarkToolSQL(b *testing.B) { newBenchSetup(b, benchDemo(b)).spans(b, engine.VerifySQL) }

// BenchmarkToolStages splits each tool's span on the demo store into
// wall+execute and resolve (per verify mode).
func BenchmarkToolStages(b *testing.B) { newBenchSetup(b, benchDemo(b)).stages(b) }

// BenchmarkToolLarge measures the spans in both verify modes, and their
// stages, on a generated store of $PROVENANT_BENCH_EVENTS events (100
// stores, 200 products, 7 days).
func BenchmarkToolLarge(b *testing.B) {
	env := os.Getenv("PROVENANT_BENCH_EVENTS")
	if env == "" {
		b.Skip("set PROVENANT_BENCH_EVENTS (e.g. 999999) to benchmark a generated store of that many events")
	}
	n, err := strconv.Atoi(env)
	if err != nil {
		b.Fatalf("parse PROVENANT_BENCH_EVENTS: want an integer from 0 to 999999")
	}
	o := demo.DefaultOptions()
	o.Stores, o.Products, o.Events, o.Version = 100, 200, n, "retail-bench-"+strconv.Itoa(n)
	d, err := demo.Generate(o)
	if err != nil {
		b.Fatal(err)
	}
	s := newBenchSetup(b, d)
	for _, verify := range []string{engine.VerifySnapshot, engine.VerifySQL} {
		b.Run(verify, func(b *testing.B) { s.spans(b, verify) })
	}
	b.Run("stages", s.stages)
}

func benchEngine(b *testing.B, verify string) *engine.Engine {
	e, err := engine.Open(b.Context(), benchDemo(b), openDuckDB, &engine.Options{Provider: rules.Provider{}, Verify: verify})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkAsk is one question through the full pipeline (rules select,
// wall, execute, resolve, rules compose, staple, log line to discard),
// cycling through the six templates, with the default verify mode.
func BenchmarkAsk(b *testing.B) { benchAsk(b, engine.VerifySnapshot) }

// BenchmarkAskSQL is BenchmarkAsk with engine.VerifySQL.
func BenchmarkAskSQL(b *testing.B) { benchAsk(b, engine.VerifySQL) }

func benchAsk(b *testing.B, verify string) {
	e := benchEngine(b, verify)
	ctx := b.Context()
	i := 0
	for b.Loop() {
		if a := e.Pipeline.Ask(ctx, benchQuestions[i%len(benchQuestions)]); a.Outcome() != answer.Answered {
			b.Fatalf("outcome %s: %s", a.Outcome(), a.Reason())
		}
		i++
	}
}

// BenchmarkAskParallel is BenchmarkAsk from GOMAXPROCS goroutines; its
// ns/op is the inverse of throughput.
func BenchmarkAskParallel(b *testing.B) {
	e := benchEngine(b, engine.VerifySnapshot)
	ctx := b.Context()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if a := e.Pipeline.Ask(ctx, benchQuestions[i%len(benchQuestions)]); a.Outcome() != answer.Answered {
				b.Errorf("outcome %s: %s", a.Outcome(), a.Reason())
				return
			}
			i++
		}
	})
}
