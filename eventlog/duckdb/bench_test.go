package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/eventlog"

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

// BenchmarkEventDuckDBRequest: requests of 9 events through one Log,
// waiting for each event (mode=append) or once per request
// (mode=submit), from 1 and 4 writers.
func BenchmarkEventDuckDBRequest(b *testing.B) {
	govchild.BenchRequestModes(b, func(b *testing.B) eventlog.Store { return benchStore(b) })
}
