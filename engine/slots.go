package engine

import (
	"context"
	"sync"
)

// slots bounds how many reads of one kind run at once: a read waits for a
// slot within its context's deadline. It records the most ever in use, for
// tests and for the operator's gauge.
type slots struct {
	ch   chan struct{}
	mu   sync.Mutex
	high int
}

func newSlots(n int) *slots {
	return &slots{ch: make(chan struct{}, n)}
}

// acquire waits for a slot, or for ctx to end (its error, unwrapped, so the
// pipeline reports a timeout as a timeout).
func (s *slots) acquire(ctx context.Context) (release func(), err error) {
	select {
	case s.ch <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	s.high = max(s.high, len(s.ch))
	s.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { <-s.ch }) }, nil
}

// highWater is the most slots ever held at once.
func (s *slots) highWater() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.high
}
