package duckdb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/internal/deadline/deadlinetest"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
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

// TestOpen_StopsWhenCancelled: loading looks at the context at least once
// every deadline.Every rows it appends (a shutdown while loading stops it
// within that many rows), and stops at the first look that finds it
// expired.
func TestOpen_StopsWhenCancelled(t *testing.T) {
	looks := func(events int) (*retail.Dataset, int) {
		d, err := demo.Generate(demo.Options{Seed: 5, Version: "load-v1", Stores: 2, Products: 5,
			Events: events, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Days: 2})
		if err != nil {
			t.Fatal(err)
		}
		ctx := deadlinetest.AfterChecks(1 << 30)
		s, err := duckdb.Open(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		return d, ctx.Checks()
	}
	_, small := looks(2 * deadline.Every)
	d, large := looks(10 * deadline.Every)
	if large-small < 8 {
		t.Fatalf("loading %d more rows added %d looks at the context, want at least one per %d rows", 8*deadline.Every, large-small, deadline.Every)
	}
	n := small + (large-small)/2 // a look while appending events
	ctx := deadlinetest.AfterChecks(n)
	if s, err := duckdb.Open(ctx, d); !errors.Is(err, context.DeadlineExceeded) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open(expiring at look %d of %d) = %v, want an error wrapping context.DeadlineExceeded", n, large, err)
	}
	if ctx.Checks() != n {
		t.Errorf("Open looked %d times, want it to stop at look %d", ctx.Checks(), n)
	}
}
