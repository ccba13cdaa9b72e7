package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/internal/govchild"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/duckdb"
)

func benchStore(b *testing.B) register.Store {
	b.Helper()
	s, err := duckdb.Open(b.Context(), filepath.Join(b.TempDir(), "state.duckdb"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkRecordDuckDBAppend: one writer's committed appends.
func BenchmarkRecordDuckDBAppend(b *testing.B) {
	govchild.BenchAppendRecords(b, []register.Store{benchStore(b)})
}

// BenchmarkRecordDuckDBVerify: register.Verify over 1,000 records.
func BenchmarkRecordDuckDBVerify(b *testing.B) { govchild.BenchVerifyRecords(b, benchStore(b)) }
