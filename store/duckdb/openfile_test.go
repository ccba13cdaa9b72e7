package duckdb_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/internal/duckfile"
	"github.com/provenant/provenant/store/duckdb"
)

// TestOpenFile_NotDuckDB: an existing file that is not a DuckDB database
// is refused, by OpenFile (import, the memory journal) and by
// OpenFileReadOnly (ask, serve, mcp), and left as it was. Before, DuckDB
// opened a CSV, Parquet or JSON file given as the database as an
// in-memory database with a view over the file: import reported its rows
// imported and they were gone when it ended, and ask failed with
// "Cannot launch in-memory database in read-only mode".
func TestOpenFile_NotDuckDB(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "good.parquet")
	writeParquet(t, `SELECT 'XYZZY' AS event_id, 1 AS n`, pq)
	parquet, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	// DuckDB's own error refuses other files (it names the file "not a
	// valid DuckDB database file"); these it opened.
	tests := []struct {
		name string
		body []byte
	}{
		{"events.csv", []byte("event_id,n\nXYZZY,1\n")},
		{"events.parquet", parquet},
		{"events.json", []byte(`[{"event_id":"XYZZY","n":1}]`)},
		{"events.jsonl", []byte(`{"event_id":"XYZZY","n":1}` + "\n")},
	}
	open := map[string]func(*testing.T, string) error{
		"OpenFile": func(t *testing.T, path string) error {
			db, err := duckdb.OpenFile(t.Context(), path)
			if err == nil {
				db.Close()
			}
			return err
		},
		"OpenFileReadOnly": func(t *testing.T, path string) error {
			db, err := duckdb.OpenFileReadOnly(t.Context(), path)
			if err == nil {
				db.Close()
			}
			return err
		},
	}
	for _, tt := range tests {
		for name, open := range open {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				path := filepath.Join(dir, tt.name)
				if err := os.WriteFile(path, tt.body, 0o644); err != nil {
					t.Fatal(err)
				}
				err := open(t, path)
				if !errors.Is(err, duckfile.ErrNotDatabase) {
					t.Errorf("%s = %v, want ErrNotDatabase", name, err)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, tt.body) {
					t.Error("the file changed")
				}
			})
		}
	}
	// A DuckDB file, and one that does not exist yet, open.
	path := filepath.Join(dir, "new.csv")
	for _, name := range []string{"OpenFile", "OpenFileReadOnly"} {
		if err := open[name](t, path); err != nil {
			t.Errorf("%s of a DuckDB file: %v", name, err)
		}
	}
}
