package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/eventlog/duckdb"
	"github.com/provenant/provenant/internal/govchild"
)

func benchStore(b *testing.B) *duckdb.Store {
	b.Helper()
	s, err := duckdb.Open(b.Context(), filepath.Join(b.TempDir(), "state.duckdb"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkEventDuckDBAppend: one writer's committed appends.
func BenchmarkEventDuckDBAppend(b *testing.B) { govchild.BenchAppendEvents(b, benchStore(b), 1) }

// BenchmarkEventDuckDBVerify: read back, export and verify 1,000 events.
func BenchmarkEventDuckDBVerify(b *testing.B) { govchild.BenchVerifyEvents(b, benchStore(b)) }
