package duckdb_test

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/duckdb"
)

func TestPhases(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	body := ingesttest.DemoCSV(t, 1_000_000)
	t0 := time.Now()
	r := ingest.NewCSV("x", l, bytes.NewReader(body))
	n := 0
	for {
		_, _, err := r.Next()
		if err == io.EOF {
			break
		}
		n++
	}
	t.Logf("read+validate %d: %v", n, time.Since(t0))
	db, _ := duckdb.OpenFile(t.Context(), filepath.Join(t.TempDir(), "x.duckdb"))
	defer db.Close()
	sink := duckdb.NewSink(db)
	t0 = time.Now()
	b, err := sink.Begin(t.Context(), l)
	if err != nil {
		t.Fatal(err)
	}
	r = ingest.NewCSV("x", l, bytes.NewReader(body))
	for {
		vals, row, err := r.Next()
		if err == io.EOF {
			break
		}
		b.Append(t.Context(), 0, row, vals)
	}
	t.Logf("read+append: %v", time.Since(t0))
	t0 = time.Now()
	_, err = b.Commit(t.Context(), []string{"x"})
	t.Logf("commit: %v %v", time.Since(t0), err)
}
