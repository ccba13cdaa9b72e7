package duckdb_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/warehouse/demo"
)

// benchRows is the size of the import benchmarks' input.
const benchRows = 1_000_000

// BenchmarkImport imports 1,000,000 warehouse demo events into a new
// DuckDB file per iteration, from CSV and from Parquet, and reports
// rows/s (the target is 500,000 on two cores).
func BenchmarkImport(b *testing.B) {
	l := ingesttest.WarehouseLayout(b)
	csvBody := ingesttest.DemoCSV(b, benchRows)
	dir := b.TempDir()
	csvPath := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csvPath, csvBody, 0o644); err != nil {
		b.Fatal(err)
	}
	parquetPath := filepath.Join(dir, "events.parquet")
	csvToParquet(b, csvPath, parquetPath)
	b.Run("csv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			db, err := duckdb.OpenFile(b.Context(), filepath.Join(b.TempDir(), "bench.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			res, err := ingest.Import(b.Context(), duckdb.NewSink(db, nil), l, ingest.NewCSV("events.csv", l, bytes.NewReader(csvBody)))
			if err != nil || res.Rows != benchRows {
				b.Fatalf("import = %+v, %v", res, err)
			}
			db.Close()
		}
		b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("parquet", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			db, err := duckdb.OpenFile(b.Context(), filepath.Join(b.TempDir(), "bench.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			recs, err := duckdb.ReadParquet(b.Context(), db, parquetPath)
			if err != nil {
				b.Fatal(err)
			}
			res, err := ingest.Import(b.Context(), duckdb.NewSink(db, nil), l, ingest.NewRecords("events.parquet", l, recs))
			if err != nil || res.Rows != benchRows {
				b.Fatalf("import = %+v, %v", res, err)
			}
			recs.Close()
			db.Close()
		}
		b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkImportDerived imports 1,000,000 warehouse demo events from
// CSV into a new DuckDB file per iteration as `provenant import` does,
// deriving the shapes' structures (validity intervals, census,
// checkpoints) in the import's transaction, and reports rows/s.
func BenchmarkImportDerived(b *testing.B) {
	l := ingesttest.WarehouseLayout(b)
	csvBody := ingesttest.DemoCSV(b, benchRows)
	for i := 0; b.Loop(); i++ {
		db, err := duckdb.OpenFile(b.Context(), filepath.Join(b.TempDir(), "bench.duckdb"))
		if err != nil {
			b.Fatal(err)
		}
		res, err := ingest.Import(b.Context(), duckdb.NewSink(db, shape.ImportOptions(nil)), l, ingest.NewCSV("events.csv", l, bytes.NewReader(csvBody)))
		if err != nil || res.Rows != benchRows {
			b.Fatalf("import = %+v, %v", res, err)
		}
		db.Close()
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkDerive derives the shapes' structures (validity intervals,
// census, checkpoints) over 1,000,000 warehouse demo events imported
// once without them, in a transaction rolled back after each iteration:
// the derivation of BenchmarkImportDerived alone, without the append and
// the commit. With the demo's default 40 devices, and with 2,000 (the
// scale benchmark's), whose checkpoints hold half the table; each by
// DuckDB's own derivation (form=duckdb: set-based checkpoints) and by the
// reference formulation (form=reference: one statement per checkpoint).
func BenchmarkDerive(b *testing.B) {
	l := ingesttest.WarehouseLayout(b)
	for _, devices := range []int{40, 2000} {
		b.Run(fmt.Sprintf("devices=%d", devices), func(b *testing.B) {
			o := demo.DefaultOptions()
			o.Events, o.Devices = benchRows, devices
			var csvBody bytes.Buffer
			if err := demo.WriteCSV(b.Context(), &csvBody, o); err != nil {
				b.Fatal(err)
			}
			db, err := duckdb.OpenFile(b.Context(), filepath.Join(b.TempDir(), "bench.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := ingest.Import(b.Context(), duckdb.NewSink(db, nil), l, ingest.NewCSV("events.csv", l, &csvBody)); err != nil {
				b.Fatal(err)
			}
			for _, form := range []struct {
				name string
				ref  bool
			}{{"duckdb", false}, {"reference", true}} {
				b.Run("form="+form.name, func(b *testing.B) {
					for b.Loop() {
						tx, err := db.BeginTx(b.Context(), nil)
						if err != nil {
							b.Fatal(err)
						}
						if err := shape.Derive(b.Context(), tx, l.Dataset, l.Table, &shape.DeriveOptions{Reference: form.ref}); err != nil {
							b.Fatal(err)
						}
						if err := tx.Rollback(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		})
	}
}
