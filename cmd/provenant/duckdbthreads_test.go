package main

import (
	"log/slog"
	"strconv"
	"testing"

	"github.com/provenant/provenant/engine"
)

// TestDuckDBThreads_Applied: --duckdb-threads sets the worker threads of
// the DuckDB database the engine reads (here the warehouse demo), on every
// connection of it; 0 leaves DuckDB's own default. The count asked for is
// one no machine's default is likely to be, so that the test fails when
// the flag is ignored.
func TestDuckDBThreads_Applied(t *testing.T) {
	cat, err := loadCatalog("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	threads := func(t *testing.T, n int) string {
		f := &engineFlags{catalog: "warehouse", duckdbThreads: n}
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
	if got := threads(t, asked); got != strconv.Itoa(asked) {
		t.Errorf("--duckdb-threads %d: DuckDB runs %s threads", asked, got)
	}
	if got := threads(t, 0); got == strconv.Itoa(asked) {
		t.Errorf("--duckdb-threads 0: DuckDB runs %s threads, the count a previous engine set", got)
	}
}
