package duckdb_test

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/duckdb"
)

func openFile(t *testing.T, o *ingest.SinkOptions) (*sql.DB, ingest.Sink) {
	t.Helper()
	db, err := duckdb.OpenFile(t.Context(), filepath.Join(t.TempDir(), "test.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, duckdb.NewSink(db, o)
}

func TestSink_Contract(t *testing.T) {
	ingesttest.Run(t, openFile)
}

// TestAppender_Transaction pins why the sink stages rows: whether or not
// DuckDB's appender takes part in the connection's transaction, rows
// appended to the staging table reach the table only through the
// INSERT ... SELECT inside the transaction, so a rollback after a failed
// check leaves nothing behind, even when the file is reopened.
func TestSink_RollbackSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.duckdb")
	db, err := duckdb.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	l := ingesttest.WarehouseLayout(t)
	sink := duckdb.NewSink(db, nil)
	if _, err := ingest.Import(t.Context(), sink, l, ingest.NewJSONL("a.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, 100)))); err != nil {
		t.Fatal(err)
	}
	// 200 events: the first 100 repeat stored keys.
	_, err = ingest.Import(t.Context(), sink, l, ingest.NewJSONL("b.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, 200))))
	if err == nil || !strings.Contains(err.Error(), "b.jsonl:row 1: field event_id: key already stored") {
		t.Fatalf("import = %v, want the stored keys reported", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = duckdb.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, maxSeq int64
	if err := db.QueryRowContext(t.Context(), `SELECT count(*), max(_ingest_seq) FROM status_events`).Scan(&n, &maxSeq); err != nil {
		t.Fatal(err)
	}
	if n != 100 || maxSeq != 100 {
		t.Errorf("after reopen: %d rows, max seq %d; want 100, 100", n, maxSeq)
	}
}

// TestSetThreads: the database's worker threads are the count asked for,
// read on another connection; a count below 1 is refused and changes
// nothing.
func TestSetThreads(t *testing.T) {
	db, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	read := func() string {
		c, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var s string
		if err := c.QueryRowContext(t.Context(), "SELECT current_setting('threads')").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := duckdb.SetThreads(t.Context(), db, 11); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "11" {
		t.Errorf("threads %s after SetThreads(11)", got)
	}
	for _, n := range []int{0, -3, duckdb.MaxThreads + 1, 1 << 40} {
		if err := duckdb.SetThreads(t.Context(), db, n); err == nil {
			t.Errorf("SetThreads(%d): no error", n)
		}
	}
	if got := read(); got != "11" {
		t.Errorf("threads %s after refused counts, want 11", got)
	}
}
