package engine_test

import (
	"testing"

	"github.com/provenant/provenant/resolver/resolvertest"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/memstore"
)

// TestResolve_DefectInjection runs the resolver's defect suite over both
// verification paths the command uses: DuckDB asked with SQL, and the
// memstore built from DuckDB's SQL-derived intervals.
func TestResolve_DefectInjection(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	db, err := duckdb.Open(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	snap, err := memstore.Load(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("sql", func(t *testing.T) { resolvertest.RunDefects(t, d, db) })
	t.Run("snapshot", func(t *testing.T) { resolvertest.RunDefects(t, d, snap) })
}
