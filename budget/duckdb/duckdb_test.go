package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/budget/budgettest"
	"github.com/provenant/provenant/budget/duckdb"
	"github.com/provenant/provenant/internal/sqlstore/duckdialect"
)

// TestStore_Contract runs the contract with every handle a store of its
// own on one database file (DuckDB's one process), so they meet only in
// the database.
func TestStore_Contract(t *testing.T) {
	budgettest.Run(t, func(t *testing.T) budgettest.Opener {
		db, err := duckdialect.Open(t.Context(), filepath.Join(t.TempDir(), "state.duckdb"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return func(t *testing.T) budget.Store {
			s, err := duckdb.New(t.Context(), db, &duckdb.Options{Schema: "audit"})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}

// TestStore_ReopenFile runs the contract with every handle the file
// opened anew (Reopen: a closed and reopened file keeps the account).
func TestStore_ReopenFile(t *testing.T) {
	budgettest.Run(t, func(t *testing.T) budgettest.Opener {
		path := filepath.Join(t.TempDir(), "state.duckdb")
		return func(t *testing.T) budget.Store {
			s, err := duckdb.Open(t.Context(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
