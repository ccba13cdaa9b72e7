package memstore_test

import (
	"testing"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/memstore"
)

// TestContract runs the store contract on both ways of building a
// memstore: intervals derived in Go, and intervals derived by DuckDB's SQL
// (the engine's way).
func TestContract(t *testing.T) {
	t.Run("FromDataset", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, d *retail.Dataset) retail.EventStore {
			s, err := memstore.FromDataset(d)
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
	t.Run("FromDuckDB", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, d *retail.Dataset) retail.EventStore {
			db, err := duckdb.Open(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			s, err := memstore.Load(t.Context(), db)
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
}

func TestNew_RejectsBadIntervals(t *testing.T) {
	e := retail.Event{ID: "evt-000001", StoreID: "st-001", ProductID: "pr-001", Timestamp: "2026-01-02T00:00:00Z"}
	tests := []struct {
		name string
		ivs  []retail.Interval
	}{
		{"end before start", []retail.Interval{{Event: e, Until: "2026-01-01T00:00:00Z"}}},
		{"bad timestamp", []retail.Interval{{Event: retail.Event{ID: "evt-000001", Timestamp: "yesterday"}}}},
		{"duplicate id", []retail.Interval{{Event: e}, {Event: e}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := memstore.New(retail.Info{}, tt.ivs); err == nil {
				t.Error("New() succeeded")
			}
		})
	}
}

func TestDeadline(t *testing.T) {
	storetest.RunDeadline(t, func(t *testing.T, d *retail.Dataset) retail.EventStore {
		s, err := memstore.FromDataset(d)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
