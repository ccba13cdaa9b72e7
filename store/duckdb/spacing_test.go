package duckdb_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/warehouse/demo"
)

// TestDerive_DefaultSpacing: with no spacing given, checkpoints fall every
// twice-the-series rows, at least shape.MinEvery, on a first import and
// on an append of later rows.
func TestDerive_DefaultSpacing(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	const n = 40000
	o := demo.DefaultOptions()
	o.Events, o.Devices = n, 3000
	var csv bytes.Buffer
	if err := demo.WriteCSV(t.Context(), &csv, o); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(csv.Bytes(), []byte("\n"))
	head, body := lines[0], lines[1:]
	part := func(lo, hi int) []byte { return append(append([]byte{}, head...), bytes.Join(body[lo:hi], nil)...) }
	db, sink := openFile(t, shape.ImportOptions(nil))
	count := func(q string) int {
		var c int
		if err := db.QueryRowContext(t.Context(), q).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for i, p := range [][]byte{part(0, n/2), part(n/2, n)} {
		if _, err := ingest.Import(t.Context(), sink, l, ingest.NewCSV(fmt.Sprint("part", i), l, bytes.NewReader(p))); err != nil {
			t.Fatal(err)
		}
	}
	series := count(`SELECT COUNT(*) FROM status_events__series`)
	every := max(shape.MinEvery, 2*series)
	if every == shape.MinEvery {
		t.Fatalf("%d series: the test does not reach past the minimum spacing", series)
	}
	// Distinct checkpoint times: rows sharing a time share a checkpoint.
	got, upper := count(`SELECT COUNT(*) FROM status_events__cpi`), n/every
	if got > upper || got < upper-1 {
		t.Errorf("%d checkpoints over %d rows of %d series, want %d (one every %d rows)", got, n, series, upper, every)
	}
}
