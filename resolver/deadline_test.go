package resolver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/provenant/provenant/executor"
	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/internal/deadline/deadlinetest"
	"github.com/provenant/provenant/resolver"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/memstore"
	"github.com/provenant/provenant/tool"
)

// deafStore answers without looking at the context, so that only the
// resolver's own checks can stop it.
type deafStore struct{ retail.EventStore }

func (s deafStore) Select(_ context.Context, sel retail.Selection) ([]retail.Event, error) {
	return s.EventStore.Select(context.Background(), sel)
}

func (s deafStore) Lookup(_ context.Context, ids []string) ([]retail.Event, error) {
	return s.EventStore.Lookup(context.Background(), ids)
}

// TestResolve_Deadline checks that the resolver refuses a done context
// and that its own loops over a large re-derived set look at the context
// every deadline.Every steps and stop at the first look that finds it
// expired.
func TestResolve_Deadline(t *testing.T) {
	d, err := demo.Generate(demo.Options{Seed: 3, Version: "deadline-v1", Stores: 1, Products: 10,
		Events: 16 * deadline.Every, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Days: 7})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := memstore.FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tool.NewWall(retail.Registry(), retail.DeclaredIDs(d)).Check(tool.Proposal{Tool: retail.CountEventsInWindow, Params: map[string]any{
		"store_id": "st-001", "state": "IN_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-09T00:00:00Z"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := executor.New(d, nil).Execute(t.Context(), c)
	if err != nil || r.Value.Count < 2*deadline.Every {
		t.Fatalf("Execute() = %d events, %v; want at least %d", r.Value.Count, err, 2*deadline.Every)
	}

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := resolver.New(snap).Resolve(ctx, c, r); !errors.Is(err, context.Canceled) {
			t.Errorf("Resolve(cancelled) = %v, want an error wrapping context.Canceled", err)
		}
	})
	t.Run("stops at the first expired check", func(t *testing.T) {
		const n = 2
		ctx := deadlinetest.AfterChecks(n)
		if _, err := resolver.New(deafStore{snap}).Resolve(ctx, c, r); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Resolve(expiring at look %d) = %v, want an error wrapping context.DeadlineExceeded", n, err)
		}
		if ctx.Checks() != n {
			t.Errorf("looked %d times, want %d", ctx.Checks(), n)
		}
	})
}
