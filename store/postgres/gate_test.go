package postgres

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/shape"
)

// TestGate_AtMostN: of ten callers at once, a gate of three lets three
// in and keeps the others waiting until one leaves.
func TestGate_AtMostN(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, callers = 3, 10
		g := newGate(n)
		var mu sync.Mutex
		inside, most := 0, 0
		release := make(chan struct{})
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				if err := g.enter(t.Context()); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				<-release
				mu.Lock()
				inside--
				mu.Unlock()
				g.leave()
			})
		}
		synctest.Wait() // every caller inside or waiting
		if inside != n {
			t.Errorf("%d callers inside a gate of %d, want %d", inside, n, n)
		}
		for range callers {
			release <- struct{}{}
			synctest.Wait()
		}
		wg.Wait()
		if most != n {
			t.Errorf("at most %d callers were inside at once, want %d", most, n)
		}
	})
}

// TestGate_FirstComeFirstServed: callers that wait are let in in the
// order they arrived, not at random (as database/sql hands a free
// connection to its waiters).
func TestGate_FirstComeFirstServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const waiters = 8
		g := newGate(1)
		if err := g.enter(t.Context()); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := range waiters {
			wg.Go(func() {
				if err := g.enter(t.Context()); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				g.leave()
			})
			synctest.Wait() // waiter i queued before waiter i+1 arrives
		}
		g.leave()
		wg.Wait()
		want := make([]int, waiters)
		for i := range want {
			want[i] = i
		}
		if !slices.Equal(order, want) {
			t.Errorf("waiters let in in order %v, want %v", order, want)
		}
	})
}

// TestGate_ContextEnds: a caller whose context ends while it waits gets
// the context's error and no place; the waiters behind it are still
// served, in order, and every place comes back.
func TestGate_ContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(1)
		if err := g.enter(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		var gone error
		var wg sync.WaitGroup
		wg.Go(func() { gone = g.enter(ctx) })
		synctest.Wait()
		var order []string
		var mu sync.Mutex
		for _, name := range []string{"second", "third"} {
			wg.Go(func() {
				if err := g.enter(t.Context()); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				g.leave()
			})
			synctest.Wait()
		}
		time.Sleep(2 * time.Second) // the first waiter's deadline passes
		synctest.Wait()
		if !errors.Is(gone, context.DeadlineExceeded) {
			t.Errorf("enter with an ended context = %v, want %v", gone, context.DeadlineExceeded)
		}
		g.leave()
		wg.Wait()
		if !slices.Equal(order, []string{"second", "third"}) {
			t.Errorf("after a waiter left, the others were let in as %v", order)
		}
		// Every place came back: one caller enters at once.
		now, cancel2 := context.WithTimeout(t.Context(), time.Millisecond)
		defer cancel2()
		if err := g.enter(now); err != nil {
			t.Errorf("enter an empty gate = %v", err)
		}
	})
}

// TestPipeliner_WaitsAtGate: a pipeline past MaxInFlight waits at the
// gate, before it takes a connection, and gives up when its context
// ends. The database does not exist: a pipeline that did not wait would
// fail to connect at once.
func TestPipeliner_WaitsAtGate(t *testing.T) {
	cfg, err := pgx.ParseConfig("postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	p := NewPipeliner(db, &PipelinerOptions{MaxInFlight: 1})
	if err := p.gate.enter(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer p.gate.leave()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = p.Pipeline(ctx, nil, []shape.Stmt{{SQL: "SELECT 1"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("pipeline past the gate = %v, want it to wait until %v", err, context.DeadlineExceeded)
	}
}

// TestNewPipeliner_MaxInFlight: the gate's size for each option.
func TestNewPipeliner_MaxInFlight(t *testing.T) {
	tests := []struct {
		name string
		o    *PipelinerOptions
		want int // 0: no gate
	}{
		{"nil options", nil, 2 * runtime.GOMAXPROCS(0)},
		{"zero", &PipelinerOptions{}, 2 * runtime.GOMAXPROCS(0)},
		{"three", &PipelinerOptions{MaxInFlight: 3}, 3},
		{"no bound", &PipelinerOptions{MaxInFlight: -1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPipeliner(nil, tt.o)
			got := 0
			if p.gate != nil {
				for p.gate.sem.TryAcquire(1) {
					got++
				}
			}
			if got != tt.want {
				t.Errorf("gate admits %d, want %d", got, tt.want)
			}
		})
	}
}
