package engine

import (
	"context"
	"errors"
	"testing"
)

func TestSlots(t *testing.T) {
	s := newSlots(2)
	r1, err := s.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Full: a third waits, and gives up when its context ends.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire on full slots with a cancelled context = %v, want context.Canceled", err)
	}
	r1()
	r1() // a second release of the same slot frees nothing more
	r3, err := s.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatal("a double release freed a second slot")
	}
	r2()
	r3()
	if got := s.highWater(); got != 2 {
		t.Errorf("high water %d, want 2", got)
	}
}
