package shape

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestMemTurn: as many turns at once as the engine has, a call that finds
// none waits until one is released or its context ends, and a call whose
// context has ended gets none.
func TestMemTurn(t *testing.T) {
	e := &Engine{memTurns: make(chan struct{}, 2)}
	ctx := context.Background()
	r1, err := e.memTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := e.memTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := e.memTurn(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third turn: %v, want the deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		r3, err := e.memTurn(ctx)
		if err == nil {
			r3()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("a third turn while two are held: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	r1()
	if err := <-got; err != nil {
		t.Fatalf("turn after a release: %v", err)
	}
	r2()
	done, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := e.memTurn(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("turn with an ended context: %v, want canceled", err)
	}
	if n := len(e.memTurns); n != 0 {
		t.Fatalf("%d turns held after every release", n)
	}
}
