package shape

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
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

// TestMemTurn_ArrivalOrder: calls that wait for a turn get one in the
// order they began to wait.
func TestMemTurn_ArrivalOrder(t *testing.T) {
	e := &Engine{memTurns: make(chan struct{}, 1)}
	ctx := context.Background()
	release, err := e.memTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const waiters = 6
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for i := range waiters {
		wg.Go(func() {
			r, err := e.memTurn(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			r()
		})
		// The next waiter begins to wait only once this one waits.
		waitUntil(t, func() bool { return waitingForTurns() == i+1 })
	}
	release()
	wg.Wait()
	for i, got := range order {
		if got != i {
			t.Fatalf("turns went in the order %v, want the order of waiting", order)
		}
	}
	if len(order) != waiters {
		t.Fatalf("%d of %d waiters got a turn", len(order), waiters)
	}
}

// waitingForTurns counts the goroutines waiting in memTurn.
func waitingForTurns() int {
	buf := make([]byte, 1<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "[select") && strings.Contains(g, ").memTurn(") {
			n++
		}
	}
	return n
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(time.Millisecond)
	}
}
