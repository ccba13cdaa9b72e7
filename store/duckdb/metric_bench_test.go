package duckdb_test

import (
	"io"
	"testing"
	"time"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/warehouse/demo"
)

// BenchmarkMetric_Availability: availability by zone over the week of a
// generated warehouse (events: -events, default the demo's 20,000), the
// compiled query alone and with its Go re-derivation and Verify.
func BenchmarkMetric_Availability(b *testing.B) {
	for _, events := range []int{20_000, 200_000} {
		cat, err := catalogs.Load("warehouse")
		if err != nil {
			b.Fatal(err)
		}
		db, err := duckdb.OpenMemory(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		o := demo.DefaultOptions()
		o.Events = events
		l, err := ingest.NewLayout(cat, "status_events")
		if err != nil {
			b.Fatal(err)
		}
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(demo.WriteJSONL(b.Context(), pw, o)) }()
		if _, err := ingest.Import(b.Context(), duckdb.NewSink(db, nil), l, ingest.NewJSONL("demo", l, pr)); err != nil {
			b.Fatal(err)
		}
		req := metric.Request{Metric: "availability", Dimensions: []string{"zone"}, Scope: metric.All(),
			Start: o.Start.Add(24 * time.Hour), End: o.Start.Add(6 * 24 * time.Hour)}
		run := func(b *testing.B, rederive bool) {
			for b.Loop() {
				q, err := metric.Compile(cat, req, nil)
				if err != nil {
					b.Fatal(err)
				}
				got, err := q.Run(b.Context(), db)
				if err != nil {
					b.Fatal(err)
				}
				if !rederive {
					continue
				}
				re, err := metric.Rederive(b.Context(), db, cat, req, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := metric.Verify(req, got, re, 1e-9); err != nil {
					b.Fatal(err)
				}
			}
		}
		name := map[int]string{20_000: "20k", 200_000: "200k"}[events]
		b.Run(name+"/compiled", func(b *testing.B) { run(b, false) })
		b.Run(name+"/compiled+rederived", func(b *testing.B) { run(b, true) })
	}
}
