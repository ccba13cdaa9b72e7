package mcpserver_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/postgres/pgtest"
	"github.com/provenant/provenant/tool"
)

// appendOnly is an EventLog without Submit: the pipeline waits for each
// event as it appends it, as it did before group commit.
type appendOnly struct{ l *eventlog.Log }

func (a appendOnly) Append(ctx context.Context, e eventlog.Entry) (eventlog.Event, error) {
	return a.l.Append(ctx, e)
}
func (a appendOnly) Profile(id, name string, d time.Duration) { a.l.Profile(id, name, d) }
func (a appendOnly) Run() string                              { return a.l.Run() }

// BenchmarkCallToolAudited is BenchmarkCallTool/inprocess (get_price
// through Pipeline.Call) with serve's audit state in PostgreSQL: the
// event log in eventlog/postgres and budgets (each call writes
// budget.reserved twice, tool.invoked, tool.returned, answer.emitted).
// mode=none writes no events (the ceiling), mode=append waits for each
// event (the pipeline before group commit),
// mode=submit once per request; clients=16 runs 16 goroutines at once
// on one pipeline, as a serve process's concurrent requests. calls/s is
// the throughput. Needs PostgreSQL (store/postgres/pgtest).
//
//	CI=true go test -run XXX -bench CallToolAudited -benchtime 300x -count 6 ./mcpserver/
func BenchmarkCallToolAudited(b *testing.B) {
	d, err := demo.Load()
	if err != nil {
		b.Fatal(err)
	}
	big := budget.Amount{USD: 1 << 40, Tokens: 1 << 40, ToolCalls: 1 << 40, SimSeconds: 1 << 30, RowsScanned: 1 << 40}
	cfg := &budget.Config{Session: big, Question: budget.Amount{USD: budget.Dollar, Tokens: 1000, ToolCalls: 4, SimSeconds: 60, RowsScanned: 1_000_000}}
	for _, mode := range []string{"none", "append", "submit"} {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("mode=%s/clients=%d", mode, clients), func(b *testing.B) {
				dsn, schema := pgtest.SchemaNamed(b)
				store, err := postgres.Open(b.Context(), dsn, &postgres.Options{Schema: schema})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { store.Close() })
				l, err := eventlog.NewLog(b.Context(), store, nil)
				if err != nil {
					b.Fatal(err)
				}
				var log pipeline.EventLog = l
				if mode == "append" {
					log = appendOnly{l}
				}
				opts := &engine.Options{Provider: rules.Provider{}, Budget: cfg, Events: &pipeline.Events{Log: log, Surface: pipeline.SurfaceMCP}}
				if mode == "none" {
					opts.Events = nil
				}
				e, err := engine.Open(b.Context(), d, enginetest.OpenDuckDB, opts)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { e.Close() })
				p := tool.Proposal{Tool: "get_price", Params: benchArgs}
				call := func() {
					if a := e.Pipeline.Call(b.Context(), p); a.Outcome() != answer.Answered {
						b.Errorf("outcome %s: %s", a.Outcome(), a.Reason())
					}
				}
				if clients == 1 {
					for b.Loop() {
						call()
					}
				} else {
					b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							call()
						}
					})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
				n, err := store.Len(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(n)/float64(b.N), "events/call")
			})
		}
	}
}
