package engine_test

// Benchmarks of the retail engine: the store file imported into an
// in-memory DuckDB and held in memory, every call executed through the
// in-memory indexes and re-derived by a scan of the rows the resolver's
// own groupings pick (every row for a store-wide count). Run them with
//
//	go test -run XXX -bench . -benchtime 2000x ./engine/
//
// and, on a generated store of a million events,
//
//	PROVENANT_BENCH_EVENTS=999999 go test -run XXX -bench ToolLarge -benchtime 50x ./engine/

import (
	"os"
	"strconv"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

// benchCalls is one call per tool, valid on the demo store and on any
// store demo.Generate makes with at least 3 stores and 7 products.
var benchCalls = []tool.Proposal{
	{Tool: "get_stock_state", Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: "get_price", Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: "get_compliance_flag", Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: "list_products_in_state", Params: map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": "2026-01-06T08:00:00Z"}},
	{Tool: "count_events_in_window", Params: map[string]any{"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}},
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

func benchDemo(b *testing.B) *retail.Dataset {
	d, err := demo.Load()
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func openBench(b *testing.B, d *retail.Dataset) *engine.Engine {
	e, err := engine.Open(b.Context(), d, enginetest.OpenDuckDB, &engine.Options{Provider: rules.Provider{}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// spans measures one call per tool through the pipeline's Call: the wall,
// the executor's query, the resolver's, the staple and the sentence.
func spans(b *testing.B, e *engine.Engine) {
	for _, p := range benchCalls {
		b.Run(p.Tool, func(b *testing.B) {
			ctx := b.Context()
			for b.Loop() {
				if a := e.Pipeline.Call(ctx, p); a.Outcome() != answer.Answered {
					b.Fatalf("outcome %s: %s", a.Outcome(), a.Reason())
				}
			}
		})
	}
}

// BenchmarkTool measures each tool's call on the demo store.
func BenchmarkTool(b *testing.B) { spans(b, openBench(b, benchDemo(b))) }

// BenchmarkToolLarge measures the calls on a generated store of
// $PROVENANT_BENCH_EVENTS events (100 stores, 200 products, 7 days).
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
	spans(b, openBench(b, d))
}

func benchEngine(b *testing.B) *engine.Engine { return openBench(b, benchDemo(b)) }

// BenchmarkAsk is one question through the full pipeline (rules select,
// wall, execute, resolve, rules compose, staple, log line to discard),
// cycling through the six templates.
func BenchmarkAsk(b *testing.B) {
	e := benchEngine(b)
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
	e := benchEngine(b)
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
