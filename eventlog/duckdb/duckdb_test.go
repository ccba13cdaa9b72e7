package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/duckdb"
	"github.com/provenant/provenant/eventlog/eventlogtest"
)

func TestStore_Contract(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlogtest.Opener {
		path := filepath.Join(t.TempDir(), "state.duckdb")
		return func(t *testing.T) eventlog.Store {
			s, err := duckdb.Open(t.Context(), path, &duckdb.Options{Schema: "audit"})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
