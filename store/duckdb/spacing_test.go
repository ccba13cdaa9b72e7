package duckdb_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/warehouse/demo"
)

// TestDerive_DefaultSpacing: with no spacing given, checkpoints fall every
// as many rows as there are series, at least shape.MinEvery, on a first import and
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
	every := max(shape.MinEvery, series)
	if every == shape.MinEvery {
		t.Fatalf("%d series: the test does not reach past the minimum spacing", series)
	}
	// Distinct checkpoint times: rows sharing a time share a checkpoint.
	got, upper := count(`SELECT COUNT(*) FROM status_events__cpi`), n/every
	if got > upper || got < upper-1 {
		t.Errorf("%d checkpoints over %d rows of %d series, want %d (one every %d rows)", got, n, series, upper, every)
	}
}

// TestOpenFileReadOnly_MemoryLimit: a database opened to be served runs
// under ServeMemoryLimit, not DuckDB's default of most of the machine.
func TestOpenFileReadOnly_MemoryLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "served.duckdb")
	db, err := duckdb.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := duckdb.OpenFileReadOnly(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var mib int64
	var limit string
	if err := ro.QueryRowContext(t.Context(), `SELECT CAST(current_setting('memory_limit') AS VARCHAR)`).Scan(&limit); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscanf(limit, "%d", &mib); err != nil || !strings.Contains(limit, "MiB") || mib < 200 || mib > 260 {
		t.Errorf("memory_limit = %q, want about %s", limit, duckdb.ServeMemoryLimit)
	}
}
