package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestOpen_NoTable: a database that holds no table for a catalog's
// dataset (nothing was imported into it) is refused at start, naming the
// dataset and the table, on DuckDB as on PostgreSQL: on PostgreSQL every
// call failed as an internal error until an import, and on DuckDB the
// start failed with DuckDB's message ("Did you mean …").
func TestOpen_NoTable(t *testing.T) {
	// serve listens before it loads the engine ("load engine: …").
	const want = "check dataset status_events: table status_events: the dataset's table does not exist; import into it first\n"
	question := "what is the status of dev-0001 as of 2026-01-06T00:00:00Z"
	for _, tt := range []struct {
		name string
		db   func(t *testing.T) []string
	}{
		{"duckdb", func(t *testing.T) []string {
			path := filepath.Join(t.TempDir(), "empty.duckdb")
			db, err := duckdb.OpenFile(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			// A table of another name, so the file is a database.
			if _, err := db.ExecContext(t.Context(), "CREATE TABLE other (x INTEGER)"); err != nil {
				t.Fatal(err)
			}
			db.Close()
			return []string{"--db", path}
		}},
		{"postgres", func(t *testing.T) []string { return []string{"--postgres", pgtest.Schema(t)} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range []string{"ask", "serve"} {
				args := append([]string{cmd, "--catalog", "warehouse"}, tt.db(t)...)
				if cmd == "ask" {
					args = append(args, question)
				} else {
					args = append(args, "--addr", "127.0.0.1:0")
				}
				// A serve that started would run until this deadline.
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				var stdout, stderr bytes.Buffer
				code := runMain(ctx, args, &stdout, &stderr)
				if code != 1 || !strings.HasSuffix(stderr.String(), want) || strings.Count(stderr.String(), "provenant: ") != 1 {
					t.Errorf("%s: exit code %d, stderr %q; want 1 and %q", cmd, code, stderr.String(), want)
				}
			}
		})
	}
}
