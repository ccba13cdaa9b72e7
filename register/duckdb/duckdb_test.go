package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/duckdb"
	"github.com/provenant/provenant/register/registertest"
)

func TestStore_Contract(t *testing.T) {
	registertest.Run(t, func(t *testing.T) registertest.Opener {
		path := filepath.Join(t.TempDir(), "state.duckdb")
		return func(t *testing.T) register.Store {
			s, err := duckdb.Open(t.Context(), path, &duckdb.Options{Schema: "audit"})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
