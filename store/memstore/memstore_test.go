package memstore_test

import (
	"testing"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/store/memstore"
)

// TestContract runs the store contract on both ways of building a
// memstore in Go: from a dataset, and from another store's intervals (the
// engine's way; store/duckdb's tests run it on DuckDB's SQL-derived
// intervals).
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
	t.Run("FromIntervals", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, d *retail.Dataset) retail.EventStore {
			src, err := memstore.FromDataset(d)
			if err != nil {
				t.Fatal(err)
			}
			s, err := memstore.Load(t.Context(), src)
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
