package duckdb_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
)

// TestDerive_DefaultSpacing: with no spacing given, checkpoints on DuckDB
// fall every twice as many rows as there are series, at least twice
// shape.MinEvery (PostgreSQL: store/postgres's test), on a first import and
// on an append of later rows.
func TestDerive_DefaultSpacing(t *testing.T) {
	const n = 40000
	db, sink := openFile(t, shape.ImportOptions(nil))
	series, got := ingesttest.ImportInTwo(t, db, sink, n, 3000)
	every := max(2*shape.MinEvery, 2*series)
	if every == 2*shape.MinEvery {
		t.Fatalf("%d series: the test does not reach past the minimum spacing", series)
	}
	// Distinct checkpoint times: rows sharing a time share a checkpoint.
	if upper := n / every; got > upper || got < upper-1 {
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
	// DuckDB reports the limit in MiB ("183.1 MiB" for 192MB).
	mb, err := strconv.ParseInt(strings.TrimSuffix(duckdb.ServeMemoryLimit, "MB"), 10, 64)
	if err != nil {
		t.Fatalf("ServeMemoryLimit %q is not a number of MB", duckdb.ServeMemoryLimit)
	}
	want := mb * 1000 * 1000 >> 20
	if _, err := fmt.Sscanf(limit, "%d", &mib); err != nil || !strings.Contains(limit, "MiB") || mib < want-1 || mib > want+1 {
		t.Errorf("memory_limit = %q, want about %s (%d MiB)", limit, duckdb.ServeMemoryLimit, want)
	}
}
