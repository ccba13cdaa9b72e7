package duckdb_test

import (
	"testing"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/memstore"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, d *retail.Dataset) retail.EventStore {
		s, err := duckdb.Open(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestContract_Snapshot runs the store contract on a memstore built from
// DuckDB's SQL-derived intervals: the engine's default verification path.
func TestContract_Snapshot(t *testing.T) {
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
}

func TestOpen_EmptyDataset(t *testing.T) {
	s, err := duckdb.Open(t.Context(), &retail.Dataset{Version: "empty"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in, err := s.Info(t.Context())
	if err != nil || in.Events != 0 || in.First != "" {
		t.Fatalf("Info() = %+v, %v", in, err)
	}
	got, err := s.Select(t.Context(), retail.Selection{Latest: true, AsOf: "2026-01-01T00:00:00Z"})
	if err != nil || len(got) != 0 {
		t.Fatalf("Select() = %v, %v", got, err)
	}
}

func TestDeadline(t *testing.T) {
	storetest.RunDeadline(t, func(t *testing.T, d *retail.Dataset) retail.EventStore {
		s, err := duckdb.Open(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
