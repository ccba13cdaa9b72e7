package eventlog_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/eventlog"
)

var errDisk = errors.New("disk on fire")

// gatedStore is a BatchStore over a MemStore that counts its writes,
// holds each until gate lets it through (when gate is set), and fails the
// writes fail names (counting from 1).
type gatedStore struct {
	eventlog.MemStore
	gate  chan bool // true: store, false: fail; nil: no gate
	fail  map[int]bool
	mu    sync.Mutex
	sizes []int
}

func (g *gatedStore) AppendBatch(ctx context.Context, events []eventlog.Event) error {
	g.mu.Lock()
	g.sizes = append(g.sizes, len(events))
	n := len(g.sizes)
	g.mu.Unlock()
	if g.gate != nil && !<-g.gate || g.fail[n] {
		return errDisk
	}
	return g.MemStore.AppendBatch(ctx, events)
}

func (g *gatedStore) writes() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.sizes...)
}

// plainStore is a Store without AppendBatch that fails its fail'th
// append.
type plainStore struct {
	mem   eventlog.MemStore
	fail  int
	calls int
}

func (p *plainStore) Append(ctx context.Context, e eventlog.Event) error {
	p.calls++
	if p.calls == p.fail {
		return errDisk
	}
	return p.mem.Append(ctx, e)
}

func (p *plainStore) Scan(ctx context.Context, fn func(eventlog.Event) error) error {
	return p.mem.Scan(ctx, fn)
}

func seqs(t *testing.T, s eventlog.Store) []int64 {
	t.Helper()
	events, err := eventlog.ReadAll(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, e := range events {
		out = append(out, e.Seq)
	}
	return out
}

func entry(i int) eventlog.Entry {
	return eventlog.Entry{Producer: "p", Time: int64(i), Payload: abstain("q")}
}

// TestLog_GroupCommit: appends that arrive while a write is in flight
// are stored together by the next write, and every one is acknowledged
// with a dense seq.
func TestLog_GroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &gatedStore{gate: make(chan bool)}
		l, err := eventlog.NewLog(t.Context(), s, &eventlog.Options{Deterministic: true})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 9)
		wg.Go(func() {
			_, err := l.Append(t.Context(), entry(0))
			errs <- err
		})
		synctest.Wait() // the first write is in flight, held by the gate
		for range 8 {
			wg.Go(func() {
				_, err := l.Append(t.Context(), entry(0)) // time 0: any order
				errs <- err
			})
		}
		synctest.Wait() // eight more wait behind it
		s.gate <- true
		s.gate <- true
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("append: %v", err)
			}
		}
		if got := s.writes(); len(got) != 2 || got[0] != 1 || got[1] != 8 {
			t.Errorf("writes of %v events; want [1 8]", got)
		}
		if got := seqs(t, s); len(got) != 9 || got[8] != 9 {
			t.Errorf("stored seqs %v; want 1 to 9", got)
		}
	})
}

// TestLog_FailedWriteAbortsWhatFollows: a failed write fails its events
// and those queued behind it, an event submitted after a failed one
// refuses, and the seqs are not used up.
func TestLog_FailedWriteAbortsWhatFollows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &gatedStore{gate: make(chan bool)}
		l, err := eventlog.NewLog(t.Context(), s, &eventlog.Options{Deterministic: true})
		if err != nil {
			t.Fatal(err)
		}
		_, p1, err := l.Submit(t.Context(), entry(0), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, p2, err := l.Submit(t.Context(), entry(1), p1)
		if err != nil {
			t.Fatal(err)
		}
		first := make(chan error, 1)
		go func() { first <- p2.Wait(t.Context()) }()
		synctest.Wait() // [p1 p2] in flight
		e3, p3, err := l.Submit(t.Context(), entry(2), p2)
		if err != nil || e3.Seq != 3 {
			t.Fatalf("submit behind the write: seq %d, %v; want 3", e3.Seq, err)
		}
		s.gate <- false
		if err := <-first; !errors.Is(err, errDisk) {
			t.Errorf("wait on the failed write = %v; want its error", err)
		}
		if err := p1.Wait(t.Context()); !errors.Is(err, errDisk) {
			t.Errorf("wait on the first event of the failed write = %v; want its error", err)
		}
		if err := p3.Wait(t.Context()); !errors.Is(err, eventlog.ErrAborted) || !errors.Is(err, errDisk) {
			t.Errorf("wait on the event queued behind = %v; want ErrAborted and the write's error", err)
		}
		if _, _, err := l.Submit(t.Context(), entry(3), p3); !errors.Is(err, eventlog.ErrAborted) {
			t.Errorf("submit after a failed event = %v; want ErrAborted", err)
		}
		e, p, err := l.Submit(t.Context(), entry(4), nil)
		if err != nil || e.Seq != 1 {
			t.Fatalf("submit after the failure: seq %d, %v; want 1 (not used up)", e.Seq, err)
		}
		go func() { s.gate <- true }()
		if err := p.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := seqs(t, s); len(got) != 1 || got[0] != 1 {
			t.Errorf("stored seqs %v; want [1]", got)
		}
	})
}

// TestLog_PlainStoreStopsAtTheFailedAppend: through a Store without
// AppendBatch, a write stores its events one by one up to the first
// failure; what follows fails, and the next event takes the failed seq.
func TestLog_PlainStoreStopsAtTheFailedAppend(t *testing.T) {
	s := &plainStore{fail: 2}
	l, err := eventlog.NewLog(t.Context(), s, &eventlog.Options{Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	var ps []*eventlog.Pending
	for i := range 3 {
		_, p, err := l.Submit(t.Context(), entry(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if err := ps[2].Wait(t.Context()); !errors.Is(err, errDisk) {
		t.Errorf("wait on the third = %v; want the second's error", err)
	}
	if err := ps[0].Wait(t.Context()); err != nil {
		t.Errorf("wait on the first = %v; want nil (stored before the failure)", err)
	}
	e, err := l.Append(t.Context(), entry(3))
	if err != nil || e.Seq != 2 {
		t.Fatalf("append after the failure: seq %d, %v; want 2", e.Seq, err)
	}
	if got := seqs(t, s); len(got) != 2 || got[1] != 2 {
		t.Errorf("stored seqs %v; want [1 2]", got)
	}
}

// switchStore is a BatchStore over a MemStore whose writes fail while
// failing is set.
type switchStore struct {
	eventlog.MemStore
	failing bool
}

func (s *switchStore) AppendBatch(ctx context.Context, events []eventlog.Event) error {
	if s.failing {
		return errDisk
	}
	return s.MemStore.AppendBatch(ctx, events)
}

// TestLog_GroupCommitProperties (rapid): any sequence of submits (each
// chained to an earlier event, or not), waits and failing writes leaves
// the store holding exactly the events whose Wait returned nil, in
// submission order, with dense seqs; an event chained to one that failed
// is never stored; a Wait gives the same answer every time; and once the
// store takes writes again, a new event is stored.
func TestLog_GroupCommitProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := &switchStore{}
		l, err := eventlog.NewLog(context.Background(), s, &eventlog.Options{Deterministic: true, Seed: 3})
		if err != nil {
			rt.Fatal(err)
		}
		type sub struct {
			p     *eventlog.Pending
			after int // index of the event it follows, -1 for none
		}
		var subs []sub
		ctx := context.Background()
		for range rapid.IntRange(0, 40).Draw(rt, "steps") {
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0, 1:
				after := -1
				var ap *eventlog.Pending
				if len(subs) > 0 && rapid.Bool().Draw(rt, "chained") {
					after = rapid.IntRange(0, len(subs)-1).Draw(rt, "after")
					ap = subs[after].p
				}
				producer := []string{"a", "b"}[rapid.IntRange(0, 1).Draw(rt, "producer")]
				_, p, err := l.Submit(ctx, eventlog.Entry{Producer: producer, Payload: abstain("q")}, ap)
				if err != nil {
					if !errors.Is(err, eventlog.ErrAborted) || ap == nil || ap.Wait(ctx) == nil {
						rt.Fatalf("submit refused with %v, its cause not failed", err)
					}
					continue
				}
				subs = append(subs, sub{p, after})
			case 2:
				if len(subs) > 0 {
					subs[rapid.IntRange(0, len(subs)-1).Draw(rt, "wait")].p.Wait(ctx)
				}
			case 3:
				s.failing = !s.failing
			}
		}
		s.failing = false
		// Whatever failed before, an event of its own is stored now.
		_, fresh, err := l.Submit(ctx, eventlog.Entry{Producer: "a", Payload: abstain("q")}, nil)
		if err != nil {
			rt.Fatal(err)
		}
		if err := fresh.Wait(ctx); err != nil {
			rt.Fatalf("an event after the store recovered: %v", err)
		}
		subs = append(subs, sub{fresh, -1})
		var acked []string
		ok := make([]bool, len(subs))
		for i, sb := range subs {
			err := sb.p.Wait(ctx)
			if again := sb.p.Wait(ctx); (err == nil) != (again == nil) {
				rt.Fatalf("event %d: Wait gave %v, then %v", i, err, again)
			}
			ok[i] = err == nil
			if ok[i] {
				acked = append(acked, sb.p.Event().ID)
				if sb.after >= 0 && !ok[sb.after] {
					rt.Fatalf("event %d stored though its cause %d failed", i, sb.after)
				}
			}
		}
		events, err := eventlog.ReadAll(ctx, s)
		if err != nil {
			rt.Fatal(err)
		}
		var got []string
		for _, e := range events {
			got = append(got, e.ID)
		}
		if !slices.Equal(got, acked) {
			rt.Fatalf("store holds %d events; want the %d acknowledged, in submission order", len(got), len(acked))
		}
		if _, err := eventlog.VerifyEvents(ctx, events, nil); err != nil {
			rt.Fatalf("verify: %v", err)
		}
	})
}
