package duckdialect_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/internal/duckfile"
	"github.com/provenant/provenant/internal/sqlstore/duckdialect"
)

// TestOpen_NotDuckDB: an existing file that is not a DuckDB database
// (a --state-db given a CSV file) is refused and left as it was. Before,
// DuckDB opened a CSV or JSON file as an in-memory database with a view
// over it, and the events, decisions and budgets written to it were lost
// at exit.
func TestOpen_NotDuckDB(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		body []byte
	}{
		{"state.csv", []byte("a,b\nXYZZY,1\n")},
		{"state.json", []byte(`[{"a":"XYZZY"}]`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.body, 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := duckdialect.Open(t.Context(), path)
			if err == nil {
				db.Close()
			}
			if !errors.Is(err, duckfile.ErrNotDatabase) {
				t.Errorf("Open = %v, want ErrNotDatabase", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, tt.body) {
				t.Error("the file changed")
			}
		})
	}
	for _, path := range []string{"", filepath.Join(dir, "new.csv")} {
		db, err := duckdialect.Open(t.Context(), path)
		if err != nil {
			t.Errorf("Open(%q): %v", path, err)
			continue
		}
		db.Close()
	}
}
