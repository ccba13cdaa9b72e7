package postgres_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/budget/budgettest"
	"github.com/provenant/provenant/budget/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestStore_Contract runs the contract with each handle its own
// connection pool on one throwaway schema, as another process's would
// be.
func TestStore_Contract(t *testing.T) {
	budgettest.Run(t, func(t *testing.T) budgettest.Opener {
		dsn, schema := pgtest.SchemaNamed(t)
		return func(t *testing.T) budget.Store {
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}

// TestStore_ManyGoroutinesNeverOverGrant: 32 goroutines over four
// connection pools (four processes' worth) each reserve one tool call at
// a time, keeping every grant, until denied: exactly the total is
// granted, and the row holds it all reserved with nothing remaining.
func TestStore_ManyGoroutinesNeverOverGrant(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	const (
		pools      = 4
		goroutines = 32
		calls      = 150
	)
	stores := make([]*postgres.Store, pools)
	for i := range stores {
		s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	total := budget.Amount{ToolCalls: calls, Tokens: 10 * calls}
	if _, err := stores[0].Open(t.Context(), "s", total); err != nil {
		t.Fatal(err)
	}
	var (
		granted atomic.Int64
		wg      sync.WaitGroup
	)
	one := budget.Amount{ToolCalls: 1, Tokens: 10}
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[g%pools]
			for {
				_, err := s.Reserve(t.Context(), "s", one)
				if errors.Is(err, budget.ErrExhausted) {
					return
				}
				if err != nil {
					t.Errorf("reserve: %v", err)
					return
				}
				granted.Add(1)
			}
		}()
	}
	wg.Wait()
	acct, err := stores[1].Account(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if granted.Load() != calls || acct.Reserved != total || !acct.Remaining.IsZero() {
		t.Errorf("granted %d of %d calls; account %+v, want all reserved and nothing remaining", granted.Load(), calls, acct)
	}
}
