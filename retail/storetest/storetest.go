// Package storetest is the contract every retail.EventStore backend must
// pass. A backend's test calls Run with a function that loads a dataset
// into a fresh store.
package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/internal/deadline/deadlinetest"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
)

// Open loads d into a fresh store; the backend registers its cleanup.
type Open func(t *testing.T, d *retail.Dataset) retail.EventStore

// Fixture is the small hand-written dataset the contract is stated over.
// Pair (st-001, pr-001) has a timestamp tie at 09:00 (evt-000003 and
// evt-000004: the higher id is later).
func Fixture() *retail.Dataset {
	ev := func(id, store, product, ts string, s retail.State, f retail.Flag, cents int64) retail.Event {
		return retail.Event{ID: id, StoreID: store, ProductID: product, Timestamp: ts, State: s, Flag: f, PriceCents: cents}
	}
	return &retail.Dataset{
		Version:  "contract-v1",
		Stores:   []retail.Store{{ID: "st-001", Name: "A"}, {ID: "st-002", Name: "B"}, {ID: "st-003", Name: "C"}},
		Products: []retail.Product{{ID: "pr-001", Name: "X", Category: "c"}, {ID: "pr-002", Name: "Y", Category: "c"}},
		Events: []retail.Event{
			ev("evt-000001", "st-001", "pr-001", "2026-01-01T08:00:00Z", retail.InStock, retail.Compliant, 299),
			ev("evt-000002", "st-001", "pr-002", "2026-01-01T08:30:00Z", retail.OutOfStock, retail.PriceMismatch, 150),
			ev("evt-000003", "st-001", "pr-001", "2026-01-01T09:00:00Z", retail.LowStock, retail.Compliant, 299),
			ev("evt-000004", "st-001", "pr-001", "2026-01-01T09:00:00Z", retail.OutOfStock, retail.ExpiredProduct, 299),
			ev("evt-000005", "st-002", "pr-001", "2026-01-01T10:00:00Z", retail.OutOfStock, retail.Compliant, 310),
			ev("evt-000006", "st-002", "pr-001", "2026-01-02T10:00:00Z", retail.InStock, retail.Compliant, 310),
		},
	}
}

// Run runs the contract against a backend.
func Run(t *testing.T, open Open) {
	t.Helper()
	s := open(t, Fixture())
	all := retail.Match{}
	oos := retail.Match{States: []retail.State{retail.OutOfStock}}
	tests := []struct {
		name string
		sel  retail.Selection
		want []string
	}{
		{"latest per pair, tie broken by id", retail.Selection{Latest: true, AsOf: "2026-01-01T09:00:00Z", Match: all},
			[]string{"evt-000002", "evt-000004"}},
		{"as_of is inclusive", retail.Selection{Latest: true, AsOf: "2026-01-01T08:00:00Z"},
			[]string{"evt-000001"}},
		{"before every event", retail.Selection{Latest: true, AsOf: "2026-01-01T07:59:59Z"}, nil},
		{"filter applies after the latest choice", retail.Selection{Latest: true, AsOf: "2026-01-03T00:00:00Z", Match: oos},
			[]string{"evt-000002", "evt-000004"}},
		{"one pair", retail.Selection{Latest: true, AsOf: "2026-01-01T10:30:00Z", StoreID: "st-002", ProductID: "pr-001"},
			[]string{"evt-000005"}},
		{"one store", retail.Selection{Latest: true, AsOf: "2026-01-03T00:00:00Z", StoreID: "st-001"},
			[]string{"evt-000002", "evt-000004"}},
		{"store without events", retail.Selection{Latest: true, AsOf: "2026-01-03T00:00:00Z", StoreID: "st-003"}, nil},
		{"flag filter", retail.Selection{Latest: true, AsOf: "2026-01-03T00:00:00Z", Match: retail.CondNonCompliant.Match()},
			[]string{"evt-000002", "evt-000004"}},
		{"window is half-open", retail.Selection{StoreID: "st-001", Start: "2026-01-01T08:30:00Z", End: "2026-01-01T09:00:00Z"},
			[]string{"evt-000002"}},
		{"window counts every event, not just latest", retail.Selection{StoreID: "st-001", Start: "2026-01-01T00:00:00Z", End: "2026-01-02T00:00:00Z", Match: oos},
			[]string{"evt-000002", "evt-000004"}},
		{"empty window", retail.Selection{StoreID: "st-001", Start: "2026-01-01T09:00:00Z", End: "2026-01-01T09:00:00Z"}, nil},
		{"scope restricts stores", retail.Selection{Latest: true, AsOf: "2026-01-01T10:00:00Z", Stores: []string{"st-002", "st-003"}},
			[]string{"evt-000005"}},
		{"an empty scope selects nothing", retail.Selection{Latest: true, AsOf: "2026-01-03T00:00:00Z", Stores: []string{}}, nil},
		{"scope and window", retail.Selection{StoreID: "st-001", Stores: []string{"st-002"}, Start: "2026-01-01T00:00:00Z", End: "2026-01-03T00:00:00Z"}, nil},
	}
	for _, tt := range tests {
		t.Run("Select/"+tt.name, func(t *testing.T) {
			got, err := s.Select(t.Context(), tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			if ids := eventIDs(got); !slices.Equal(ids, tt.want) {
				t.Errorf("Select() = %v, want %v", ids, tt.want)
			}
		})
	}
	t.Run("Select/returns whole events", func(t *testing.T) {
		got, err := s.Select(t.Context(), retail.Selection{Latest: true, AsOf: "2026-01-01T08:00:00Z"})
		if err != nil || len(got) != 1 {
			t.Fatalf("Select() = %v, %v", got, err)
		}
		if want := Fixture().Events[0]; got[0] != want {
			t.Errorf("Select() event = %+v, want %+v", got[0], want)
		}
	})
	t.Run("Lookup", func(t *testing.T) {
		got, err := s.Lookup(t.Context(), []string{"evt-000005", "evt-999999", "evt-000001", "evt-000005"})
		if err != nil {
			t.Fatal(err)
		}
		if ids := eventIDs(got); !slices.Equal(ids, []string{"evt-000001", "evt-000005"}) {
			t.Errorf("Lookup() = %v", ids)
		}
		none, err := s.Lookup(t.Context(), nil)
		if err != nil || len(none) != 0 {
			t.Errorf("Lookup(nil) = %v, %v", none, err)
		}
	})
	t.Run("Info", func(t *testing.T) {
		got, err := s.Info(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want := retail.Info{Version: "contract-v1", Stores: 3, Products: 2, Events: 6, First: "2026-01-01T08:00:00Z", Last: "2026-01-02T10:00:00Z"}
		if got != want {
			t.Errorf("Info() = %+v, want %+v", got, want)
		}
	})
}

// RunDeadline checks that a backend honours the request's context: every
// method refuses an already-cancelled context with an error wrapping
// context.Canceled, and a long scan looks at the context at least once
// every deadline.Every events and stops at the first look that finds it
// expired, returning an error wrapping context.DeadlineExceeded.
func RunDeadline(t *testing.T, open Open) {
	t.Helper()
	d, err := demo.Generate(demo.Options{Seed: 7, Version: "deadline-v1", Stores: 3, Products: 20,
		Events: 8 * deadline.Every, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Days: 7})
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, d)
	// A window over every store: the longest scan a selection asks for.
	window := retail.Selection{Start: "2026-01-01T00:00:00Z", End: "2026-01-09T00:00:00Z"}

	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	calls := []struct {
		name string
		f    func(ctx context.Context) error
	}{
		{"Select", func(ctx context.Context) error { _, err := s.Select(ctx, window); return err }},
		{"Lookup", func(ctx context.Context) error { _, err := s.Lookup(ctx, []string{d.Events[0].ID}); return err }},
		{"Info", func(ctx context.Context) error { _, err := s.Info(ctx); return err }},
	}
	for _, c := range calls {
		t.Run(c.name+"/cancelled", func(t *testing.T) {
			if err := c.f(cancelled); !errors.Is(err, context.Canceled) {
				t.Errorf("%s(cancelled) = %v, want an error wrapping context.Canceled", c.name, err)
			}
		})
	}
	t.Run("Select/stops at the first expired check", func(t *testing.T) {
		all, err := s.Select(t.Context(), window)
		if err != nil || len(all) < 4*deadline.Every {
			t.Fatalf("Select(window) = %d events, %v; want at least %d", len(all), err, 4*deadline.Every)
		}
		const n = 3
		ctx := deadlinetest.AfterChecks(n)
		if _, err := s.Select(ctx, window); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Select(expiring after %d checks) = %v, want an error wrapping context.DeadlineExceeded", n, err)
		}
		if ctx.Checks() != n {
			t.Errorf("Select looked at the context %d times, want %d: it must stop at the first look that finds it expired", ctx.Checks(), n)
		}
	})
}

func eventIDs(es []retail.Event) []string {
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}
