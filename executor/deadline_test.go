package executor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/provenant/provenant/executor"
	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/internal/deadline/deadlinetest"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

// TestExecute_Deadline checks that every long loop of the executor looks
// at the request's context at least once every deadline.Every steps and
// stops at the first look that finds it expired: a question over a large
// store returns the context's error instead of finishing late. The store
// has one store and 16*Every events, and the sweep has no checkpoints, so
// a window question and a store-count question each walk thousands of
// events.
func TestExecute_Deadline(t *testing.T) {
	d, err := demo.Generate(demo.Options{Seed: 3, Version: "deadline-v1", Stores: 1, Products: 10,
		Events: 16 * deadline.Every, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Days: 7})
	if err != nil {
		t.Fatal(err)
	}
	wall := tool.NewWall(retail.Registry(), retail.DeclaredIDs(d))
	x := executor.New(d, &executor.Options{CheckpointEvery: 1 << 30})
	const asOf, start, end = "2026-01-09T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-09T00:00:00Z"
	tests := []struct {
		name   string
		call   call
		checks int // the look that expires; the loop must reach it
	}{
		{"window", call{retail.CountEventsInWindow, map[string]any{"store_id": "st-001", "state": "IN_STOCK", "start": start, "end": end}}, 3},
		{"store count", call{retail.CountStoresWithCondition, map[string]any{"condition": "OUT_OF_STOCK", "as_of": asOf}}, 3},
		{"product list", call{retail.ListProductsInState, map[string]any{"store_id": "st-001", "state": "IN_STOCK", "as_of": asOf}}, 2},
		{"point", call{retail.GetPrice, map[string]any{"store_id": "st-001", "product_id": "pr-001", "as_of": asOf}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := wall.Check(tool.Proposal{Tool: tt.call.tool, Params: tt.call.params})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.Execute(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			ctx := deadlinetest.AfterChecks(tt.checks)
			if _, err := x.Execute(ctx, c); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Execute(expiring at look %d) = %v, want an error wrapping context.DeadlineExceeded", tt.checks, err)
			}
			if ctx.Checks() != tt.checks {
				t.Errorf("looked %d times, want %d: it must stop at the first look that finds the context expired", ctx.Checks(), tt.checks)
			}
		})
	}
}
