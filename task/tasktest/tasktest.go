// Package tasktest is the contract every task.Store passes: the same
// suite runs on DuckDB and PostgreSQL (package engine's tests).
package tasktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/provenant/provenant/task"
)

// Counter is implemented by a store that can count the rows of a key
// (task/sqlstore's Store).
type Counter interface {
	Count(ctx context.Context, key string) (int, error)
}

// Store is a task.Store that can count its rows.
type Store interface {
	task.Store
	Counter
}

func request(key string, qty int64) task.Request {
	return task.Request{Tool: "open_restock_task", Kind: "restock",
		Subject:  map[string]string{"store_id": "st-003", "product_id": "pr-007"},
		Quantity: qty, Key: key, Session: "alice-session", Approver: "alice"}
}

// Run runs the contract on stores open returns, one per subtest, each
// empty.
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Run("append then replay", func(t *testing.T) {
		s := open(t)
		ctx := t.Context()
		first, created, err := s.Append(ctx, request("k-1", 12))
		if err != nil || !created {
			t.Fatalf("Append = %+v, %t, %v; want a new task", first, created, err)
		}
		if first.ID != task.ID("k-1") || !task.ValidID(first.ID) {
			t.Errorf("id = %s; want task.ID(k-1) = %s", first.ID, task.ID("k-1"))
		}
		again, created, err := s.Append(ctx, request("k-1", 12))
		if err != nil || created || again.ID != first.ID {
			t.Fatalf("replay = %+v, %t, %v; want the same task, not created", again, created, err)
		}
		if n, err := s.Count(ctx, "k-1"); err != nil || n != 1 {
			t.Errorf("rows of k-1 = %d, %v; want 1", n, err)
		}
		got, err := s.Get(ctx, first.ID)
		if err != nil || !got.Same(request("k-1", 12)) || got.Approver != "alice" || got.Session != "alice-session" {
			t.Errorf("Get = %+v, %v", got, err)
		}
	})
	t.Run("same key other arguments", func(t *testing.T) {
		s := open(t)
		ctx := t.Context()
		if _, _, err := s.Append(ctx, request("k-2", 5)); err != nil {
			t.Fatal(err)
		}
		for name, r := range map[string]task.Request{
			"quantity": request("k-2", 6),
			"subject": func() task.Request {
				r := request("k-2", 5)
				r.Subject = map[string]string{"store_id": "st-004", "product_id": "pr-007"}
				return r
			}(),
			"kind": func() task.Request { r := request("k-2", 5); r.Kind = "recount"; return r }(),
		} {
			_, created, err := s.Append(ctx, r)
			if !errors.Is(err, task.ErrKeyReused) || created {
				t.Errorf("%s: Append = %t, %v; want ErrKeyReused", name, created, err)
			}
		}
		if n, err := s.Count(ctx, "k-2"); err != nil || n != 1 {
			t.Errorf("rows of k-2 = %d, %v; want 1", n, err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		s := open(t)
		if _, err := s.Get(t.Context(), task.ID("never")); !errors.Is(err, task.ErrNotFound) {
			t.Errorf("Get = %v; want ErrNotFound", err)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		s := open(t)
		for name, r := range map[string]task.Request{
			"key":      request("bad key", 1),
			"quantity": request("k-3", 0),
		} {
			if _, _, err := s.Append(t.Context(), r); !errors.Is(err, task.ErrInvalid) {
				t.Errorf("%s: Append = %v; want ErrInvalid", name, err)
			}
		}
	})
	t.Run("concurrent appends of one key", func(t *testing.T) {
		s := open(t)
		const n = 8
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created int
			errs    []error
		)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, c, err := s.Append(context.WithoutCancel(t.Context()), request("k-race", 3))
				mu.Lock()
				defer mu.Unlock()
				if c {
					created++
				}
				if err != nil {
					errs = append(errs, fmt.Errorf("writer %d: %w", i, err))
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Errorf("errors: %v", errs)
		}
		if created != 1 {
			t.Errorf("%d writers say they created the task; want 1", created)
		}
		if c, err := s.Count(t.Context(), "k-race"); err != nil || c != 1 {
			t.Errorf("rows = %d, %v; want 1", c, err)
		}
	})
}
