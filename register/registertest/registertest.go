// Package registertest is the contract suite every register.Store
// passes: MemStore, register/duckdb and register/postgres run the same
// Run. It checks append order and Scan from an index, the refusal of a
// stale head, several writers keeping one linear chain, reopening and
// continuing, and that a reopened store verifies to the head it had.
package registertest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/provenant/provenant/internal/contract"
	"github.com/provenant/provenant/register"
)

// Opener opens a handle on one register's place (a database schema).
// Each call opens the same place anew; for an in-memory store it returns
// the one store. The suite closes a handle that has a Close method when
// it reopens, and at the end of the test.
type Opener func(t *testing.T) register.Store

// Run runs the suite. newPlace makes a fresh, empty place for one test
// and returns its Opener.
func Run(t *testing.T, newPlace func(t *testing.T) Opener) {
	contract.Run(t, newPlace, []contract.Case[Opener]{
		{Name: "AppendScanOrder", Fn: testAppendScan},
		{Name: "StaleHeadRefused", Fn: testStale},
		{Name: "WritersKeepOneChain", Fn: testWriters},
		{Name: "ReopenAndContinue", Fn: testReopen},
		{Name: "VerifyAfterReopen", Fn: testVerifyAfterReopen},
		{Name: "ScanStopsAtError", Fn: testScanStops},
	})
}

// Decision returns a valid decision record with the given id and logical
// time.
func Decision(id string, time uint64) register.Record {
	return register.Record{
		ID: id, Kind: register.KindDecision, Time: time, Question: "q-" + id, Actor: "pipeline", Tier: register.L2,
		Decision: &register.Decision{
			Alternatives: []register.Alternative{
				{ID: "a", Description: "restock 40 units", Change: "open a restock task for store 3, product 17, 40 units",
					Effect: register.Effect{Estimate: 0.92, Low: 0.85, High: 0.97, Unit: "fill rate"}, Cost: 312.5, Score: 0.81},
				{ID: "b", Description: "do nothing", Change: "none",
					Effect: register.Effect{Estimate: 0.6, Low: 0.4, High: 0.75, Unit: "fill rate"}, Cost: 0, Score: -1e-7},
			},
			Chosen: "a", Inputs: []string{"res-000001"}, Expected: "fill rate above 0.85 by Friday",
			Constraints: []string{"quantity <= 50"},
		},
		Approver: "human:alice@example.com", ModelVersion: "rules-1", PolicyVersion: "policy-2026-11", Seed: 42,
	}
}

// Outcome returns a valid outcome record of decision ref.
func Outcome(id, ref string, time uint64) register.Record {
	return register.Record{
		ID: id, Kind: register.KindOutcome, Time: time, Task: "task-" + ref, Actor: "pipeline", Tier: register.L1,
		Outcome:      &register.Outcome{Decision: ref, Observed: "fill rate 0.9", Inputs: []string{"res-000009"}},
		ModelVersion: "rules-1", PolicyVersion: "policy-2026-11", Seed: 42,
	}
}

func openRegister(t *testing.T, s register.Store) *register.Register {
	t.Helper()
	g, err := register.Open(t.Context(), s)
	if err != nil {
		t.Fatalf("open register: %v", err)
	}
	return g
}

func records(t *testing.T, s register.Store, from int) []register.Record {
	t.Helper()
	var out []register.Record
	err := s.Scan(t.Context(), from, func(i int, r register.Record) error {
		if i != from+len(out) {
			return fmt.Errorf("scan passed index %d; want %d", i, from+len(out))
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return out
}

// appendSome appends n decisions (ids prefix1..prefixn) and an outcome of
// each odd one.
func appendSome(t *testing.T, g *register.Register, prefix string, n int) []register.Record {
	t.Helper()
	var out []register.Record
	for i := 1; i <= n; i++ {
		r, err := g.Append(t.Context(), Decision(fmt.Sprint(prefix, i), uint64(2*i)))
		if err != nil {
			t.Fatalf("append: %v", err)
		}
		out = append(out, r)
		if i%2 == 1 {
			r, err := g.Append(t.Context(), Outcome(fmt.Sprint(prefix, "o", i), fmt.Sprint(prefix, i), uint64(2*i+1)))
			if err != nil {
				t.Fatalf("append outcome: %v", err)
			}
			out = append(out, r)
		}
	}
	return out
}

func testAppendScan(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	if got := records(t, s, 0); len(got) != 0 {
		t.Fatalf("a new store holds %d records", len(got))
	}
	want := appendSome(t, openRegister(t, s), "d", 5)
	if got := records(t, s, 0); !reflect.DeepEqual(got, want) {
		t.Fatalf("scan returned %d records that differ from the %d appended, or in another order", len(got), len(want))
	}
	if got := records(t, s, 3); !reflect.DeepEqual(got, want[3:]) {
		t.Errorf("scan from 3 returned %d records; want the last %d", len(got), len(want)-3)
	}
	if got := records(t, s, len(want)); len(got) != 0 {
		t.Errorf("scan from the end returned %d records", len(got))
	}
}

func testStale(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	want := appendSome(t, openRegister(t, s), "d", 2)
	head := want[len(want)-1]
	link := func(r register.Record, prev string) register.Record {
		r.Prev = prev
		h, err := register.ComputeHash(r)
		if err != nil {
			t.Fatal(err)
		}
		r.Hash = h
		return r
	}
	for _, tt := range []struct {
		name string
		prev string
	}{
		{"genesis again", register.GenesisHash},
		{"an older record", want[0].Hash},
		{"no such record", "f" + head.Hash[1:]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Append(t.Context(), link(Decision("x-"+tt.name[:2], 9), tt.prev)); !errors.Is(err, register.ErrStale) {
				t.Errorf("append on a stale head = %v; want ErrStale", err)
			}
		})
	}
	if got := records(t, s, 0); !reflect.DeepEqual(got, want) {
		t.Fatalf("refused appends changed the store: %d records; want %d", len(got), len(want))
	}
	if err := s.Append(t.Context(), link(Decision("x-ok", 9), head.Hash)); err != nil {
		t.Errorf("append on the head = %v", err)
	}
	if h, err := register.Verify(t.Context(), s); err != nil || h.Len != len(want)+1 {
		t.Errorf("verify = %+v, %v; want %d records", h, err, len(want)+1)
	}
}

func testWriters(t *testing.T, open Opener) {
	const writers, each = 3, 8
	stores := make([]register.Store, writers)
	for w := range stores {
		stores[w] = contract.Handle(t, open)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w, s := range stores {
		wg.Go(func() {
			g, err := register.Open(t.Context(), s)
			if err != nil {
				errs <- err
				return
			}
			for i := range each {
				if _, err := g.Append(t.Context(), Decision(fmt.Sprintf("w%d-%d", w, i), uint64(i))); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append: %v", err)
	}
	h, err := register.Verify(t.Context(), stores[0])
	if err != nil || h.Len != writers*each {
		t.Fatalf("verify = %+v, %v; want one chain of %d records", h, err, writers*each)
	}
}

func testReopen(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	before := appendSome(t, openRegister(t, s), "d", 3)
	contract.Close(t, s)
	s = contract.Handle(t, open)
	if got := records(t, s, 0); !reflect.DeepEqual(got, before) {
		t.Fatalf("reopened store holds %d records differing from the %d appended", len(got), len(before))
	}
	g := openRegister(t, s)
	if h := g.Head(); h.Len != len(before) || h.Hash != before[len(before)-1].Hash {
		t.Fatalf("reopened head %+v; want %d records ending in the last appended", h, len(before))
	}
	r, err := g.Append(t.Context(), Outcome("o-late", "d2", 99))
	if err != nil || r.Prev != before[len(before)-1].Hash {
		t.Fatalf("append after reopen: %v; want linked to the last record", err)
	}
	if _, err := g.Append(t.Context(), Decision("d1", 100)); !errors.Is(err, register.ErrDuplicateID) {
		t.Errorf("append of an id stored before the reopen = %v; want ErrDuplicateID", err)
	}
}

func testVerifyAfterReopen(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	appendSome(t, openRegister(t, s), "d", 4)
	want, err := register.Verify(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	contract.Close(t, s)
	s = contract.Handle(t, open)
	got, err := register.Verify(t.Context(), s)
	if err != nil || got != want {
		t.Errorf("verify after reopen = %+v, %v; want %+v", got, err, want)
	}
}

func testScanStops(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	appendSome(t, openRegister(t, s), "d", 2)
	stop := errors.New("stop")
	n := 0
	err := s.Scan(context.WithoutCancel(t.Context()), 0, func(int, register.Record) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("scan = %v after %d calls; want fn's error after 1", err, n)
	}
}
