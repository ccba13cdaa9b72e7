package duckdb

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/internal/duckfile"
)

// TestSnapshotFile_NotDuckDB: a source file that is not a DuckDB database
// is refused before DuckDB attaches it. Before, a SQLite file made DuckDB
// try to download and load its sqlite_scanner extension from the network
// (the attaching connection does not turn autoinstall off), and a CSV
// file was attached as an in-memory database with a view over it.
func TestSnapshotFile_NotDuckDB(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		body []byte
	}{
		{"sqlite.db", append([]byte("SQLite format 3\x00"), make([]byte, 4080)...)},
		{"events.csv", []byte("event_id,n\nXYZZY,1\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.body, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := SnapshotFile(t.Context(), path, []string{"events"})
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, duckfile.ErrNotDatabase) {
				t.Errorf("SnapshotFile = %v, want ErrNotDatabase", err)
			}
		})
	}
}
