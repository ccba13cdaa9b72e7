package duckdb_test

import (
	"bytes"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
)

// BenchmarkCall: one call of a point question and of two windows (a
// week, past the provenance limit, and two hours), executed and
// re-derived on one snapshot (Begin, Execute, Resolve, Close), one
// client, over 100,000 warehouse demo events (40 devices, 6 zones, 7
// days) in a DuckDB file: store/postgres's BenchmarkCall on DuckDB,
// which has no pipeline (each statement its own query).
func BenchmarkCall(b *testing.B) {
	const asOf = "2026-01-09T12:00:00Z"
	calls := []struct {
		name string
		call shape.Call
	}{
		{"latest_value", shape.Call{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0001", "as_of": asOf}, Scope: shape.All()}},
		{"count_rows_in_window", shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "start": "2026-01-05T00:00:00Z", "end": "2026-01-12T00:00:00Z"}, Scope: shape.All()}},
		{"count_rows_in_window_small", shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "start": "2026-01-06T08:00:00Z", "end": "2026-01-06T10:00:00Z"}, Scope: shape.All()}},
	}
	db, err := duckdb.OpenFile(b.Context(), filepath.Join(b.TempDir(), "bench.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	l := ingesttest.WarehouseLayout(b)
	if _, err := ingest.Import(b.Context(), duckdb.NewSink(db, shape.ImportOptions(nil)), l, ingest.NewCSV("events.csv", l, bytes.NewReader(ingesttest.DemoCSV(b, 100_000)))); err != nil {
		b.Fatal(err)
	}
	eng, err := shape.New(b.Context(), ingesttest.WarehouseCatalog(b), shape.Source{DB: db}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	for _, tt := range calls {
		b.Run("shape="+tt.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				snap, err := eng.Begin(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				r, err := snap.Execute(b.Context(), tt.call)
				if err != nil {
					b.Fatal(err)
				}
				if v, err := snap.Resolve(b.Context(), tt.call, r); err != nil || !v.OK() || (tt.name == "count_rows_in_window" && r.Rows <= shape.DefaultMaxKeys) {
					b.Fatalf("%d rows, verdict %+v, %v", r.Rows, v, err)
				}
				snap.Close()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system CPU time (the engine's, its
// garbage collector's and DuckDB's, which runs in the process): on a
// shared machine a steadier cost per call than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
