// Package eventlogtest is the contract suite every eventlog.Store passes:
// MemStore, FileStore, eventlog/duckdb and eventlog/postgres run the same
// Run. It checks append order, dense sequences under concurrent writers,
// the refusal of a stale writer's event, reopening and continuing a run,
// and that a reopened store verifies to the hash it had.
package eventlogtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/internal/contract"
)

// Opener opens a handle on one store's place (a file, a database
// schema). Each call opens the same place anew; for an in-memory store
// it returns the one store. The suite closes a handle that has a Close
// method before it opens the next, and at the end of the test.
type Opener func(t *testing.T) eventlog.Store

// Run runs the suite. newPlace makes a fresh, empty place for one test
// and returns its Opener.
func Run(t *testing.T, newPlace func(t *testing.T) Opener) {
	contract.Run(t, newPlace, []contract.Case[Opener]{
		{Name: "AppendScanOrder", Fn: testAppendScanOrder},
		{Name: "DenseSequencesConcurrent", Fn: testDense},
		{Name: "ConcurrentLogs", Fn: testConcurrentLogs},
		{Name: "StaleWriterRefused", Fn: testStale},
		{Name: "ReopenAndContinue", Fn: testReopen},
		{Name: "VerifyAfterReopen", Fn: testVerifyAfterReopen},
		{Name: "ScanStopsAtError", Fn: testScanStops},
		{Name: "CancelledAppendStoresNothing", Fn: testCancelled},
		{Name: "Batch", Fn: testBatch},
		{Name: "BatchRefusedStoresNothing", Fn: testBatchRefused},
		{Name: "LogSubmitsTogether", Fn: testSubmitTogether},
	})
}

// Payload returns the i'th of a few valid payloads of different types.
func Payload(i int) eventlog.Payload {
	q := fmt.Sprintf("q-%d", i)
	switch i % 4 {
	case 0:
		return eventlog.QuestionReceived{QuestionID: q, Session: "s-1", Surface: "http", Question: "How many stores are out of stock?"}
	case 1:
		return eventlog.ToolReturned{QuestionID: q, CallID: "c-1", Tool: "count_stores_with_condition", Outcome: "ok", ResultID: "res-1", RowsScanned: int64(i)}
	case 2:
		return eventlog.Abstained{QuestionID: q, Reason: "budget_exhausted"}
	default:
		return eventlog.ElevationRequested{Session: "s-1", QuestionID: q, Tool: "open_restock_task", TierNeeded: "L3", TierCurrent: "L1"}
	}
}

func fixedNow() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }

// logOptions: a deterministic run with a fixed clock and identity, so
// that every field of the envelope round-trips.
func logOptions(run string) *eventlog.Options {
	return &eventlog.Options{Run: run, Seed: 7, Deterministic: true, Now: fixedNow, Host: "host-a", PID: 41}
}

func newLog(t *testing.T, s eventlog.Store, run string) *eventlog.Log {
	t.Helper()
	l, err := eventlog.NewLog(t.Context(), s, logOptions(run))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func readAll(t *testing.T, s eventlog.Store) []eventlog.Event {
	t.Helper()
	got, err := eventlog.ReadAll(t.Context(), s)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return got
}

// verify exports s and verifies the export, returning its report.
func verify(t *testing.T, s eventlog.Store) eventlog.Report {
	t.Helper()
	var buf bytes.Buffer
	exp, err := eventlog.Export(t.Context(), &buf, s)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	rep, err := eventlog.Verify(t.Context(), &buf, &eventlog.VerifyOptions{Canonical: true, Want: &exp.Hash})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return rep
}

// CheckDense fails t unless events hold, for each (run, producer), the
// seqs 1, 2, ..., n in order, and no id twice.
func CheckDense(t testing.TB, events []eventlog.Event) {
	t.Helper()
	type key struct{ run, producer string }
	last := map[key]int64{}
	ids := map[string]bool{}
	for i, e := range events {
		k := key{e.Run, e.Producer}
		if e.Seq != last[k]+1 {
			t.Fatalf("event %d: seq %d of (%s, %s); want %d", i, e.Seq, e.Run, e.Producer, last[k]+1)
		}
		last[k] = e.Seq
		if ids[e.ID] {
			t.Fatalf("event %d: id repeats", i)
		}
		ids[e.ID] = true
	}
}

func testAppendScanOrder(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	if got := readAll(t, s); len(got) != 0 {
		t.Fatalf("a new store holds %d events", len(got))
	}
	l := newLog(t, s, "run-order")
	var want []eventlog.Event
	for i := range 12 {
		e, err := l.Append(t.Context(), eventlog.Entry{Producer: []string{"pipeline", "budget", "gate"}[i%3], Time: int64(i / 2), Correlation: "q-1", Payload: Payload(i)})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		want = append(want, e)
	}
	if got := readAll(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("scan returned %d events that differ from the %d appended, or in another order", len(got), len(want))
	}
}

func testDense(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	l := newLog(t, s, "run-dense")
	const producers, each = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, producers)
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				if _, err := l.Append(t.Context(), eventlog.Entry{Producer: fmt.Sprintf("p%d", p), Time: int64(i), Payload: Payload(i)}); err != nil {
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
	got := readAll(t, s)
	if len(got) != producers*each {
		t.Fatalf("%d events stored; want %d", len(got), producers*each)
	}
	CheckDense(t, got)
	if rep := verify(t, s); rep.Events != producers*each || rep.Producers != producers {
		t.Errorf("verify: %d events of %d producers; want %d of %d", rep.Events, rep.Producers, producers*each, producers)
	}
}

// testConcurrentLogs: several Logs (runs) append to one store at once, as
// the writers of several requests or processes do; the store keeps every
// event, each (run, producer) dense.
func testConcurrentLogs(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	const logs, each = 4, 12
	var wg sync.WaitGroup
	errs := make(chan error, logs)
	for r := range logs {
		l := newLog(t, s, fmt.Sprintf("run-%d", r))
		wg.Go(func() {
			for i := range each {
				if _, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: int64(i), Payload: Payload(i)}); err != nil {
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
	got := readAll(t, s)
	if len(got) != logs*each {
		t.Fatalf("%d events stored; want %d", len(got), logs*each)
	}
	CheckDense(t, got)
	if rep := verify(t, s); rep.Runs != logs {
		t.Errorf("verify: %d runs; want %d", rep.Runs, logs)
	}
}

func testStale(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	// Two writers of one run and producer: a appends, b appends after it,
	// and a, which last saw its own append, is now stale: its next seq is
	// one b already used. (A log reads where a producer stands when it
	// opens or, over a LastReader, at the producer's first append: either
	// way b sees a's event and a does not see b's.)
	a := newLog(t, s, "run-shared")
	first, err := a.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: 5, Payload: Payload(0)})
	if err != nil {
		t.Fatal(err)
	}
	b := newLog(t, s, "run-shared")
	second, err := b.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: 5, Payload: Payload(1)})
	if err != nil || second.Seq != 2 {
		t.Fatalf("second writer's append = seq %d, %v; want seq 2", second.Seq, err)
	}
	if _, err := a.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: 5, Payload: Payload(1)}); !errors.Is(err, eventlog.ErrSequence) {
		t.Errorf("stale writer's append = %v; want ErrSequence", err)
	}
	next := func(seq, tm int64) eventlog.Event {
		env := first.Envelope()
		env.Seq, env.Time = seq, tm
		env.ID = eventlog.EventID(env.Seed, env.Run, env.Producer, seq)
		e, err := eventlog.NewEvent(env, Payload(2))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, tt := range []struct {
		name string
		e    eventlog.Event
		want error
	}{
		{"seq repeated", next(2, 5), eventlog.ErrSequence},
		{"seq skipped", next(4, 5), eventlog.ErrSequence},
		{"seq from zero again", func() eventlog.Event { e := next(3, 5); e.Producer = "other"; return e }(), eventlog.ErrSequence},
		{"logical time back", next(3, 4), eventlog.ErrSequence},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Append(t.Context(), tt.e); !errors.Is(err, tt.want) {
				t.Errorf("append = %v; want %v", err, tt.want)
			}
		})
	}
	got := readAll(t, s)
	if len(got) != 2 || got[0].ID != first.ID || got[1].ID != second.ID {
		t.Fatalf("after refused appends the store holds %d events; want the 2 acknowledged", len(got))
	}
	// The next seq in order is accepted.
	if err := s.Append(t.Context(), next(3, 5)); err != nil {
		t.Errorf("append seq 3 = %v", err)
	}
	verify(t, s)
}

func testReopen(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	l := newLog(t, s, "run-reopen")
	for i := range 5 {
		if _, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: int64(i), Payload: Payload(i)}); err != nil {
			t.Fatal(err)
		}
	}
	before := readAll(t, s)
	contract.Close(t, s)
	s = contract.Handle(t, open)
	if got := readAll(t, s); !reflect.DeepEqual(got, before) {
		t.Fatalf("reopened store holds %d events differing from the %d appended", len(got), len(before))
	}
	l = newLog(t, s, "run-reopen")
	e, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: 9, Payload: Payload(9)})
	if err != nil || e.Seq != 6 {
		t.Fatalf("append after reopen: seq %d, %v; want 6", e.Seq, err)
	}
	got := readAll(t, s)
	if len(got) != 6 {
		t.Fatalf("%d events after reopen and append; want 6", len(got))
	}
	CheckDense(t, got)
}

func testVerifyAfterReopen(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	l := newLog(t, s, "run-verify")
	for i := range 8 {
		if _, err := l.Append(t.Context(), eventlog.Entry{Producer: []string{"a", "b"}[i%2], Time: int64(i), Payload: Payload(i)}); err != nil {
			t.Fatal(err)
		}
	}
	before := verify(t, s)
	contract.Close(t, s)
	s = contract.Handle(t, open)
	var buf bytes.Buffer
	if _, err := eventlog.Export(t.Context(), &buf, s); err != nil {
		t.Fatal(err)
	}
	rep, err := eventlog.Verify(t.Context(), &buf, &eventlog.VerifyOptions{Canonical: true, Want: &before.Hash, Chain: before.Chain})
	if err != nil {
		t.Fatalf("verify after reopen: %v", err)
	}
	if rep.Events != 8 {
		t.Errorf("verify after reopen: %d events; want 8", rep.Events)
	}
}

func testScanStops(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	l := newLog(t, s, "run-stop")
	for i := range 3 {
		if _, err := l.Append(t.Context(), eventlog.Entry{Producer: "p", Time: int64(i), Payload: Payload(i)}); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("stop")
	n := 0
	err := s.Scan(t.Context(), func(eventlog.Event) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("scan = %v after %d calls; want fn's error after 1", err, n)
	}
}

func testCancelled(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	l := newLog(t, s, "run-cancel")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := l.Append(ctx, eventlog.Entry{Producer: "p", Payload: Payload(0)}); !errors.Is(err, context.Canceled) {
		t.Errorf("append with a cancelled context = %v; want context.Canceled", err)
	}
	if got := readAll(t, s); len(got) != 0 {
		t.Errorf("a cancelled append stored %d events", len(got))
	}
	// The seq was not used up.
	if e, err := l.Append(t.Context(), eventlog.Entry{Producer: "p", Payload: Payload(0)}); err != nil || e.Seq != 1 {
		t.Errorf("append after the cancelled one: seq %d, %v; want 1", e.Seq, err)
	}
}

// event builds the seq'th event of (run, producer) at logical time tm,
// its id derived as a deterministic Log's would be.
func event(t *testing.T, run, producer string, seq, tm int64) eventlog.Event {
	t.Helper()
	e, err := eventlog.NewEvent(eventlog.Envelope{
		ID: eventlog.EventID(7, run, producer, seq), Run: run, Producer: producer, Seq: seq, Seed: 7, Time: tm,
		Correlation: "q-1", WallTime: fixedNow().Format(time.RFC3339Nano), Host: "host-a", PID: 41,
	}, Payload(int(seq)))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func batchStore(t *testing.T, s eventlog.Store) eventlog.BatchStore {
	t.Helper()
	bs, ok := s.(eventlog.BatchStore)
	if !ok {
		t.Skipf("%T is not an eventlog.BatchStore", s)
	}
	return bs
}

// testBatch: batches holding several events of one (run, producer), and
// of several, are stored in order after what was there, and a batch
// continues where single appends left off.
func testBatch(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	bs := batchStore(t, s)
	if err := bs.AppendBatch(t.Context(), nil); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	first := []eventlog.Event{
		event(t, "run-batch", "pipeline", 1, 1), event(t, "run-batch", "pipeline", 2, 1),
		event(t, "run-batch", "budget", 1, 2), event(t, "run-batch", "pipeline", 3, 3),
	}
	if err := bs.AppendBatch(t.Context(), first); err != nil {
		t.Fatalf("first batch: %v", err)
	}
	single := event(t, "run-batch", "pipeline", 4, 3)
	if err := s.Append(t.Context(), single); err != nil {
		t.Fatalf("single append after a batch: %v", err)
	}
	second := []eventlog.Event{event(t, "run-batch", "budget", 2, 4), event(t, "run-batch", "pipeline", 5, 4), event(t, "run-other", "pipeline", 1, 0)}
	if err := bs.AppendBatch(t.Context(), second); err != nil {
		t.Fatalf("second batch: %v", err)
	}
	want := append(append(append([]eventlog.Event(nil), first...), single), second...)
	if got := readAll(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("scan returned %d events that differ from the %d appended, or in another order", len(got), len(want))
	}
	verify(t, s)
}

// testBatchRefused: a batch with one bad event, wherever it is, stores
// nothing, and the store then takes the right next events.
func testBatchRefused(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	bs := batchStore(t, s)
	const run = "run-refuse"
	if err := bs.AppendBatch(t.Context(), []eventlog.Event{event(t, run, "p", 1, 5), event(t, run, "p", 2, 5)}); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, s)
	dup := event(t, run, "q", 1, 5)
	dup.ID = before[0].ID
	for _, tt := range []struct {
		name  string
		batch []eventlog.Event
		want  error
	}{
		{"seq repeated last", []eventlog.Event{event(t, run, "p", 3, 5), event(t, run, "p", 4, 5), event(t, run, "p", 4, 5)}, eventlog.ErrSequence},
		{"seq skipped midway", []eventlog.Event{event(t, run, "p", 3, 5), event(t, run, "p", 5, 5), event(t, run, "p", 6, 5)}, eventlog.ErrSequence},
		{"stale first", []eventlog.Event{event(t, run, "p", 2, 5), event(t, run, "p", 3, 5)}, eventlog.ErrSequence},
		{"other producer from two", []eventlog.Event{event(t, run, "p", 3, 5), event(t, run, "q", 2, 5)}, eventlog.ErrSequence},
		{"logical time back midway", []eventlog.Event{event(t, run, "p", 3, 6), event(t, run, "p", 4, 5)}, eventlog.ErrSequence},
		{"id repeated in the batch", func() []eventlog.Event {
			a, b := event(t, run, "p", 3, 5), event(t, run, "q", 1, 5)
			b.ID = a.ID
			return []eventlog.Event{a, b}
		}(), eventlog.ErrOrder},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := bs.AppendBatch(t.Context(), tt.batch); !errors.Is(err, tt.want) {
				t.Errorf("append batch = %v; want %v", err, tt.want)
			}
			if got := readAll(t, s); !reflect.DeepEqual(got, before) {
				t.Errorf("a refused batch left %d events; want the %d stored before", len(got), len(before))
			}
		})
	}
	if _, ok := s.(eventlog.LastReader); ok {
		// The database stores also refuse an id stored before.
		if err := bs.AppendBatch(t.Context(), []eventlog.Event{event(t, run, "p", 3, 5), dup}); !errors.Is(err, eventlog.ErrOrder) {
			t.Errorf("a batch repeating a stored id = %v; want ErrOrder", err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := bs.AppendBatch(ctx, []eventlog.Event{event(t, run, "p", 3, 5)}); !errors.Is(err, context.Canceled) {
		t.Errorf("append batch with a cancelled context = %v; want context.Canceled", err)
	}
	if got := readAll(t, s); !reflect.DeepEqual(got, before) {
		t.Fatalf("refused batches left %d events; want the %d stored before", len(got), len(before))
	}
	if err := bs.AppendBatch(t.Context(), []eventlog.Event{event(t, run, "p", 3, 5), event(t, run, "q", 1, 5), event(t, run, "p", 4, 6)}); err != nil {
		t.Fatalf("the right next batch: %v", err)
	}
	got := readAll(t, s)
	if len(got) != 5 {
		t.Fatalf("%d events stored; want 5", len(got))
	}
	CheckDense(t, got)
	verify(t, s)
}

// testSubmitTogether: a Log's events submitted without waiting are stored
// by one Wait, in submission order, exactly as Append would store them.
func testSubmitTogether(t *testing.T, open Opener) {
	s := contract.Handle(t, open)
	l := newLog(t, s, "run-together")
	var (
		want []eventlog.Event
		last *eventlog.Pending
	)
	for i := range 9 {
		e, p, err := l.Submit(t.Context(), eventlog.Entry{Producer: []string{"pipeline", "budget"}[i%2], Time: int64(i), Correlation: "q-1", Payload: Payload(i)}, last)
		if err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
		want, last = append(want, e), p
	}
	if got := readAll(t, s); len(got) != 0 {
		t.Fatalf("%d events stored before any Wait", len(got))
	}
	if err := last.Wait(t.Context()); err != nil {
		t.Fatalf("wait: %v", err)
	}
	if got := readAll(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("scan returned %d events that differ from the %d submitted, or in another order", len(got), len(want))
	}
	e, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: 9, Payload: Payload(9)})
	if err != nil || e.Seq != 6 {
		t.Fatalf("append after the batch: seq %d, %v; want 6", e.Seq, err)
	}
	verify(t, s)
}
