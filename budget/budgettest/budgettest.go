// Package budgettest is the contract suite every budget.Store passes:
// budget.MemStore, budget/duckdb and budget/postgres run the same Run. It
// checks that an account is created once and resized by Open, that a
// reservation is granted only when every component fits and a denial
// takes nothing, that settling returns the unused part and refuses an
// overrun or a settlement of nothing reserved, that concurrent
// reservations from many goroutines over several handles never grant
// beyond the total (remaining + live + spent == total at the end), and
// that a reopened store keeps its accounts.
package budgettest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/internal/contract"
)

// Opener opens a handle on one store's place (a database schema, a
// file). Each call opens the same place anew; for an in-memory store it
// returns the one store. The suite closes a handle that has a Close
// method at the end of the test (or before reopening).
type Opener func(t *testing.T) budget.Store

// Run runs the suite. newPlace makes a fresh, empty place for one test
// and returns its Opener.
func Run(t *testing.T, newPlace func(t *testing.T) Opener) {
	contract.Run(t, newPlace, []contract.Case[Opener]{
		{Name: "OpenCreatesOnce", Fn: testOpen},
		{Name: "OpenResizes", Fn: testResize},
		{Name: "ReserveAndSettle", Fn: testReserveSettle},
		{Name: "DeniedTakesNothing", Fn: testDenied},
		{Name: "SettleRefusals", Fn: testSettleRefusals},
		{Name: "UnknownScope", Fn: testUnknown},
		{Name: "ConcurrentNeverOverGrants", Fn: testConcurrent},
		{Name: "Reopen", Fn: testReopen},
	})
}

func amt(usd budget.Micros, tokens, calls int64) budget.Amount {
	return budget.Amount{USD: usd, Tokens: tokens, ToolCalls: calls}
}

var total = amt(5*budget.Dollar, 1000, 20).With(budget.SimSeconds, 60).With(budget.RowsScanned, 1000)

func handle(t *testing.T, open Opener) budget.Store {
	t.Helper()
	return contract.Handle(t, open)
}

func account(t *testing.T, s budget.Store, scope string) budget.Account {
	t.Helper()
	a, err := s.Account(t.Context(), scope)
	if err != nil {
		t.Fatalf("account: %v", err)
	}
	if a.Remaining.Add(a.Reserved).Add(a.Spent) != a.Total {
		t.Errorf("account %+v: remaining + reserved + spent != total", a)
	}
	return a
}

func testOpen(t *testing.T, open Opener) {
	s := handle(t, open)
	ctx := t.Context()
	got, err := s.Open(ctx, "s1", total)
	if want := (budget.Account{Total: total, Remaining: total}); err != nil || got != want {
		t.Fatalf("Open = %+v, %v; want %+v", got, err, want)
	}
	if _, err := s.Reserve(ctx, "s1", amt(budget.Dollar, 100, 2)); err != nil {
		t.Fatal(err)
	}
	got, err = s.Open(ctx, "s1", total) // the same total: nothing changes
	want := budget.Account{Total: total, Remaining: total.Sub(amt(budget.Dollar, 100, 2)), Reserved: amt(budget.Dollar, 100, 2)}
	if err != nil || got != want {
		t.Errorf("Open again = %+v, %v; want %+v", got, err, want)
	}
	if _, err := s.Open(ctx, "s1", amt(-1, 0, 0)); !errors.Is(err, budget.ErrNegative) {
		t.Errorf("Open negative: %v, want ErrNegative", err)
	}
}

func testResize(t *testing.T, open Opener) {
	s := handle(t, open)
	ctx := t.Context()
	if _, err := s.Open(ctx, "s1", total); err != nil {
		t.Fatal(err)
	}
	res := amt(budget.Dollar, 400, 4)
	if _, err := s.Reserve(ctx, "s1", res); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Settle(ctx, "s1", res, amt(budget.Dollar/2, 300, 3)); err != nil {
		t.Fatal(err)
	}
	// Raised: remaining grows by the difference.
	bigger := total.Add(amt(budget.Dollar, 100, 10))
	got, err := s.Open(ctx, "s1", bigger)
	if err != nil || got.Total != bigger || got.Remaining != bigger.Sub(amt(budget.Dollar/2, 300, 3)) {
		t.Errorf("raised: %+v, %v", got, err)
	}
	// Lowered below what was spent: nothing remains, and the total is
	// what was spent.
	got, err = s.Open(ctx, "s1", amt(0, 100, 1))
	spent := amt(budget.Dollar/2, 300, 3)
	if err != nil || !got.Remaining.IsZero() || got.Total != spent || got.Spent != spent {
		t.Errorf("lowered: %+v, %v", got, err)
	}
	account(t, s, "s1")
}

func testReserveSettle(t *testing.T, open Opener) {
	s := handle(t, open)
	ctx := t.Context()
	if _, err := s.Open(ctx, "s1", total); err != nil {
		t.Fatal(err)
	}
	a := amt(2*budget.Dollar, 500, 10)
	rem, err := s.Reserve(ctx, "s1", a)
	if err != nil || rem != total.Sub(a) {
		t.Fatalf("Reserve = %+v, %v; want %+v", rem, err, total.Sub(a))
	}
	used := amt(budget.Dollar, 200, 3)
	rem, err = s.Settle(ctx, "s1", a, used)
	if err != nil || rem != total.Sub(used) {
		t.Fatalf("Settle = %+v, %v; want %+v", rem, err, total.Sub(used))
	}
	got := account(t, s, "s1")
	if got.Spent != used || !got.Reserved.IsZero() {
		t.Errorf("account %+v, want spent %+v and nothing reserved", got, used)
	}
	// The whole remainder fits exactly.
	if _, err := s.Reserve(ctx, "s1", got.Remaining); err != nil {
		t.Errorf("reserve exactly what remains: %v", err)
	}
}

func testDenied(t *testing.T, open Opener) {
	s := handle(t, open)
	ctx := t.Context()
	if _, err := s.Open(ctx, "s1", total); err != nil {
		t.Fatal(err)
	}
	ask := amt(6*budget.Dollar, 10, 21).With(budget.RowsScanned, 1000)
	_, err := s.Reserve(ctx, "s1", ask)
	var d *budget.DeniedError
	if !errors.As(err, &d) || !errors.Is(err, budget.ErrExhausted) {
		t.Fatalf("Reserve = %v, want a *DeniedError", err)
	}
	if want := []budget.Component{budget.USD, budget.ToolCalls}; !slices.Equal(d.Components, want) || d.Requested != ask || d.Remaining != total || d.Budget != "s1" {
		t.Errorf("denial %+v, want components %v, requested %+v, remaining %+v", d, want, ask, total)
	}
	if got := account(t, s, "s1"); got.Remaining != total {
		t.Errorf("a denial took something: %+v", got)
	}
	if _, err := s.Reserve(ctx, "s1", amt(-1, 0, 0)); !errors.Is(err, budget.ErrNegative) {
		t.Errorf("negative: %v, want ErrNegative", err)
	}
}

func testSettleRefusals(t *testing.T, open Opener) {
	s := handle(t, open)
	ctx := t.Context()
	if _, err := s.Open(ctx, "s1", total); err != nil {
		t.Fatal(err)
	}
	a := amt(budget.Dollar, 100, 1)
	if _, err := s.Reserve(ctx, "s1", a); err != nil {
		t.Fatal(err)
	}
	before := account(t, s, "s1")
	if _, err := s.Settle(ctx, "s1", a, amt(budget.Dollar, 101, 1)); !errors.Is(err, budget.ErrOverrun) {
		t.Errorf("overrun: %v, want ErrOverrun", err)
	}
	if _, err := s.Settle(ctx, "s1", a.Add(a), a); !errors.Is(err, budget.ErrUnreserved) {
		t.Errorf("beyond reserved: %v, want ErrUnreserved", err)
	}
	if _, err := s.Settle(ctx, "s1", a, amt(-1, 0, 0)); !errors.Is(err, budget.ErrNegative) {
		t.Errorf("negative: %v, want ErrNegative", err)
	}
	if got := account(t, s, "s1"); got != before {
		t.Errorf("a refused settlement changed the account: %+v, want %+v", got, before)
	}
	if _, err := s.Settle(ctx, "s1", a, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Settle(ctx, "s1", a, a); !errors.Is(err, budget.ErrUnreserved) {
		t.Errorf("settled twice: %v, want ErrUnreserved", err)
	}
}

func testUnknown(t *testing.T, open Opener) {
	s := handle(t, open)
	ctx := t.Context()
	if _, err := s.Open(ctx, "s1", total); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(ctx, "s2", amt(0, 1, 0)); !errors.Is(err, budget.ErrNoAccount) {
		t.Errorf("reserve: %v, want ErrNoAccount", err)
	}
	if _, err := s.Settle(ctx, "s2", amt(0, 1, 0), amt(0, 1, 0)); !errors.Is(err, budget.ErrNoAccount) {
		t.Errorf("settle: %v, want ErrNoAccount", err)
	}
	if _, err := s.Account(ctx, "s2"); !errors.Is(err, budget.ErrNoAccount) {
		t.Errorf("account: %v, want ErrNoAccount", err)
	}
	// Scopes are apart.
	if _, err := s.Open(ctx, "s2", amt(0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(ctx, "s2", amt(0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if got := account(t, s, "s1"); got.Remaining != total {
		t.Errorf("s1 changed by s2: %+v", got)
	}
}

// Workers and rounds of the concurrent test.
const (
	workers = 8
	rounds  = 25
)

func testConcurrent(t *testing.T, open Opener) {
	handles := []budget.Store{handle(t, open), handle(t, open)}
	ctx := t.Context()
	tot := amt(3*budget.Dollar, 2000, 60)
	if _, err := handles[0].Open(ctx, "s1", tot); err != nil {
		t.Fatal(err)
	}
	var (
		mu              sync.Mutex
		live, spent     budget.Amount
		granted, denied int
		wg              sync.WaitGroup
		firstErr        error
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 11)) // seeded per worker
			s := handles[w%len(handles)]
			var held []budget.Amount
			for range rounds {
				a := amt(budget.Micros(rng.Int64N(int64(budget.Dollar)/2)), rng.Int64N(200), rng.Int64N(4))
				_, err := s.Reserve(ctx, "s1", a)
				mu.Lock()
				switch {
				case err == nil:
					granted++
					live = live.Add(a)
					held = append(held, a)
				case errors.Is(err, budget.ErrExhausted):
					denied++
				default:
					firstErr = cmpErr(firstErr, err)
				}
				mu.Unlock()
				// Settle about two in three, using part; the rest stay live.
				if len(held) > 0 && rng.IntN(3) > 0 {
					r := held[0]
					held = held[1:]
					used := budget.Amount{USD: r.USD / 2, Tokens: r.Tokens / 3, ToolCalls: r.ToolCalls}
					if _, err := s.Settle(ctx, "s1", r, used); err != nil {
						mu.Lock()
						firstErr = cmpErr(firstErr, err)
						mu.Unlock()
						continue
					}
					mu.Lock()
					live, spent = live.Sub(r), spent.Add(used)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("a reservation or settlement failed: %v", firstErr)
	}
	got := account(t, handles[1], "s1")
	if got.Reserved != live || got.Spent != spent || got.Remaining.Add(live).Add(spent) != tot {
		t.Errorf("account %+v; want reserved %+v (live), spent %+v, remaining + live + spent == %+v", got, live, spent, tot)
	}
	if neg := got.Remaining.Negative(); neg != nil {
		t.Errorf("remaining went below zero on %v", neg)
	}
	if granted == 0 || denied == 0 {
		t.Errorf("granted %d, denied %d: want both, so the limit was met", granted, denied)
	}
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return fmt.Errorf("concurrent: %w", err)
}

func testReopen(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	if _, err := s.Open(ctx, "s1", total); err != nil {
		t.Fatal(err)
	}
	a := amt(budget.Dollar, 100, 2)
	if _, err := s.Reserve(ctx, "s1", a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Settle(ctx, "s1", a, amt(budget.Dollar/4, 50, 1)); err != nil {
		t.Fatal(err)
	}
	live := amt(0, 10, 1)
	if _, err := s.Reserve(ctx, "s1", live); err != nil { // held when the process "dies"
		t.Fatal(err)
	}
	want := account(t, s, "s1")
	contract.Close(t, s)
	s2 := handle(t, open)
	got, err := s2.Open(ctx, "s1", total)
	if err != nil || got != want {
		t.Errorf("after reopening: %+v, %v; want %+v", got, err, want)
	}
	if got.Reserved != live {
		t.Errorf("a reservation never settled: reserved %+v, want %+v kept (lost, not returned)", got.Reserved, live)
	}
}
