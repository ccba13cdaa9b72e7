package main

import (
	"log/slog"
	"runtime"
	"strconv"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/store/duckdb"
)

// TestDuckDBThreads_Applied: --duckdb-threads sets the worker threads of
// the DuckDB database the engine reads (here the warehouse demo), on every
// connection of it; without the flag one thread; 0 leaves DuckDB's own
// default. The count asked for is one no machine's default is likely to
// be, so that the test fails when the flag is ignored.
func TestDuckDBThreads_Applied(t *testing.T) {
	cat, err := loadCatalog(t.Context(), "warehouse")
	if err != nil {
		t.Fatal(err)
	}
	threads := func(t *testing.T, flag duckdbThreadsFlag) string {
		f := &engineFlags{catalog: "warehouse", duckdbThreads: flag}
		e, src, _, err := f.openCatalogOn(t.Context(), cat, engine.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		// Two connections at once: the setting is the database's, not
		// the one connection's that set it.
		c1, err := src.DB.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer c1.Close()
		c2, err := src.DB.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		var a, b string
		if err := c1.QueryRowContext(t.Context(), "SELECT current_setting('threads')").Scan(&a); err != nil {
			t.Fatal(err)
		}
		if err := c2.QueryRowContext(t.Context(), "SELECT current_setting('threads')").Scan(&b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("threads %s on one connection, %s on another", a, b)
		}
		return a
	}
	const asked = 13
	if got := threads(t, duckdbThreadsFlag{n: asked, given: true}); got != strconv.Itoa(asked) {
		t.Errorf("--duckdb-threads %d: DuckDB runs %s threads", asked, got)
	}
	if got := threads(t, duckdbThreadsFlag{}); got != "1" {
		t.Errorf("no --duckdb-threads: DuckDB runs %s threads, want 1", got)
	}
	if got := threads(t, duckdbThreadsFlag{n: 0, given: true}); got == strconv.Itoa(asked) || got == "1" && runtime.NumCPU() > 1 {
		t.Errorf("--duckdb-threads 0: DuckDB runs %s threads, not its default", got)
	}
}

// TestDuckDBThreads_Turns: calls answered by SQL take turns with one
// thread a query (the default, or --duckdb-threads 1) and not with more
// or with DuckDB's own default.
func TestDuckDBThreads_Turns(t *testing.T) {
	tests := []struct {
		flag duckdbThreadsFlag
		want bool
	}{
		{duckdbThreadsFlag{}, true},
		{duckdbThreadsFlag{n: 1, given: true}, true},
		{duckdbThreadsFlag{n: 2, given: true}, false},
		{duckdbThreadsFlag{n: 0, given: true}, false},
	}
	for _, tt := range tests {
		if got := tt.flag.turns(); got != tt.want {
			t.Errorf("%+v: turns %t, want %t", tt.flag, got, tt.want)
		}
	}
}

// TestDuckDBFile_VersionReadOnce: a DuckDB file is served with its data
// version read once, when it opens (shape.Source.Versions), because no
// writer can open the file while it is open read-only: the test holds
// DuckDB to that, and the version to the table's greatest ingestion
// sequence.
func TestDuckDBFile_VersionReadOnce(t *testing.T) {
	cat, err := loadCatalog(t.Context(), "warehouse")
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	path, err := warehouseDemoDB(t.Context(), cat, logger.Info)
	if err != nil {
		t.Fatal(err)
	}
	f := &engineFlags{catalog: "warehouse"}
	e, src, _, err := f.openCatalogOn(t.Context(), cat, engine.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var seq int64
	if err := src.DB.QueryRowContext(t.Context(), "SELECT MAX(_ingest_seq) FROM status_events").Scan(&seq); err != nil {
		t.Fatal(err)
	}
	if got, want := src.Versions["status_events"], "seq:"+strconv.FormatInt(seq, 10); got != want {
		t.Errorf("fixed version %q, want %q", got, want)
	}
	if w, err := duckdb.OpenFile(t.Context(), path); err == nil {
		w.Close()
		t.Fatal("a writer opened the served DuckDB file: its data version could change under the engine")
	}
}
