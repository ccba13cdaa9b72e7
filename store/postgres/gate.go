package postgres

import (
	"context"

	"golang.org/x/sync/semaphore"
)

// gate admits at most n callers at once; the others wait in arrival
// order (semaphore.Weighted serves its waiters first in, first out) until
// one leaves or their context ends.
type gate struct {
	sem *semaphore.Weighted
}

func newGate(n int) *gate { return &gate{sem: semaphore.NewWeighted(int64(n))} }

// enter waits for a place: nil once the caller holds one, which it must
// give back with leave; the context's error if it ends first (the caller
// then holds none).
func (g *gate) enter(ctx context.Context) error { return g.sem.Acquire(ctx, 1) }

// leave gives a place back, to the longest waiter if any.
func (g *gate) leave() { g.sem.Release(1) }
