package postgres_test

import (
	"bytes"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// BenchmarkImport imports 1,000,000 warehouse demo events from CSV into
// a new schema per iteration (COPY into staging, key checks, INSERT, then
// the tool shapes' indexes) and reports rows/s.
func BenchmarkImport(b *testing.B) {
	const rows = 1_000_000
	l := ingesttest.WarehouseLayout(b)
	body := ingesttest.DemoCSV(b, rows)
	for b.Loop() {
		b.StopTimer()
		db, err := postgres.Open(b.Context(), pgtest.Schema(b))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := ingest.Import(b.Context(), postgres.NewSink(db, nil), l, ingest.NewCSV("events.csv", l, bytes.NewReader(body)))
		if err != nil || res.Rows != rows {
			b.Fatalf("import = %+v, %v", res, err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkImportDerived imports 1,000,000 warehouse demo events from
// CSV into a new schema per iteration as `provenant import` does: the
// rows moved in with their validity intervals (shape.MoveStaged), then
// the shapes' census and checkpoints (shape.Derive), in the import's
// transaction. It reports rows/s.
func BenchmarkImportDerived(b *testing.B) {
	const rows = 1_000_000
	l := ingesttest.WarehouseLayout(b)
	body := ingesttest.DemoCSV(b, rows)
	for b.Loop() {
		b.StopTimer()
		db, err := postgres.Open(b.Context(), pgtest.Schema(b))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := ingest.Import(b.Context(), postgres.NewSink(db, shape.ImportOptions(nil)), l, ingest.NewCSV("events.csv", l, bytes.NewReader(body)))
		if err != nil || res.Rows != rows {
			b.Fatalf("import = %+v, %v", res, err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
