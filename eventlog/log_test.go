package eventlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/eventlog"
)

func abstain(q string) eventlog.Payload {
	return eventlog.Abstained{QuestionID: q, Reason: "not_understood"}
}

func TestLog_DenseSeqsUnderConcurrency(t *testing.T) {
	store := &eventlog.MemStore{}
	l, err := eventlog.NewLog(t.Context(), store, nil)
	if err != nil {
		t.Fatal(err)
	}
	const producers, each = 8, 50
	var wg sync.WaitGroup
	for p := range producers {
		for range 2 { // two goroutines share each producer
			wg.Go(func() {
				for i := range each {
					if _, err := l.Append(t.Context(), eventlog.Entry{Producer: fmt.Sprintf("p%d", p), Time: 0, Payload: abstain(fmt.Sprintf("q-%d", i))}); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
	wg.Wait()
	events, _ := eventlog.ReadAll(t.Context(), store)
	if len(events) != producers*each*2 {
		t.Fatalf("%d events; want %d", len(events), producers*each*2)
	}
	rep, err := eventlog.VerifyEvents(t.Context(), events, nil)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if rep.Producers != producers || rep.Runs != 1 {
		t.Errorf("report %+v", rep)
	}
}

func TestLog_Refusals(t *testing.T) {
	l, err := eventlog.NewLog(t.Context(), &eventlog.MemStore{}, &eventlog.Options{Deterministic: true, Anonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(t.Context(), eventlog.Entry{Producer: "a", Time: 5, Payload: abstain("q")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		e    eventlog.Entry
		want error
	}{
		{"time goes back", eventlog.Entry{Producer: "a", Time: 4, Payload: abstain("q")}, eventlog.ErrSequence},
		{"bad producer", eventlog.Entry{Producer: "A B", Time: 5, Payload: abstain("q")}, eventlog.ErrInvalid},
		{"no payload", eventlog.Entry{Producer: "a", Time: 5}, eventlog.ErrInvalid},
		{"invalid payload", eventlog.Entry{Producer: "a", Time: 5, Payload: eventlog.Abstained{QuestionID: "q"}}, eventlog.ErrInvalid},
		{"pointer payload", eventlog.Entry{Producer: "a", Time: 5, Payload: &eventlog.Abstained{QuestionID: "q", Reason: "x"}}, eventlog.ErrUnknownType},
		{"a null inside tool arguments", eventlog.Entry{Producer: "a", Time: 5, Payload: eventlog.ToolInvoked{QuestionID: "q", CallID: "c", Tool: "t",
			Arguments: []byte(`{"as_of":null}`), ProposedBy: "model", Effect: "none"}}, eventlog.ErrInvalid},
		{"causation not an id", eventlog.Entry{Producer: "a", Time: 5, Causation: "q", Payload: abstain("q")}, eventlog.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := l.Append(t.Context(), tt.e); !errors.Is(err, tt.want) {
				t.Errorf("Append = %v; want %v", err, tt.want)
			}
		})
	}
	// No refusal used up a seq.
	e, err := l.Append(t.Context(), eventlog.Entry{Producer: "a", Time: 5, Payload: abstain("q")})
	if err != nil || e.Seq != 2 {
		t.Errorf("next append: seq %d, %v; want 2", e.Seq, err)
	}
	if _, err := eventlog.NewLog(t.Context(), &eventlog.MemStore{}, &eventlog.Options{Seed: -1}); !errors.Is(err, eventlog.ErrInvalid) {
		t.Errorf("negative seed: %v", err)
	}
	if _, err := eventlog.NewLog(t.Context(), &eventlog.MemStore{}, &eventlog.Options{Run: "a run"}); !errors.Is(err, eventlog.ErrInvalid) {
		t.Errorf("bad run id: %v", err)
	}
}

// TestLog_Resume: a Log over a store that already holds the run continues
// each producer's seqs.
func TestLog_Resume(t *testing.T) {
	store := &eventlog.MemStore{}
	opts := &eventlog.Options{Seed: 3, Deterministic: true}
	for range 2 {
		l, err := eventlog.NewLog(t.Context(), store, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"a", "b"} {
			if _, err := l.Append(t.Context(), eventlog.Entry{Producer: p, Payload: abstain("q")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	events, _ := eventlog.ReadAll(t.Context(), store)
	if _, err := eventlog.VerifyEvents(t.Context(), events, nil); err != nil {
		t.Fatal(err)
	}
	if got := events[3].Seq; got != 2 {
		t.Errorf("second log's seq for b = %d; want 2", got)
	}
}

// TestLog_DeterministicIDs: ids derive from (seed, run, producer, seq);
// another seed gives other ids; random mode gives ids a second log does
// not repeat.
func TestLog_DeterministicIDs(t *testing.T) {
	ids := func(opts *eventlog.Options) []string {
		l, err := eventlog.NewLog(t.Context(), &eventlog.MemStore{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for range 3 {
			e, err := l.Append(t.Context(), eventlog.Entry{Producer: "p", Payload: abstain("q")})
			if err != nil {
				t.Fatal(err)
			}
			if e.ID != eventlog.EventID(e.Seed, e.Run, e.Producer, e.Seq) && opts.Deterministic {
				t.Errorf("id %s is not EventID of its envelope", e.ID)
			}
			out = append(out, e.ID)
		}
		return out
	}
	a := ids(&eventlog.Options{Seed: 1, Deterministic: true})
	if b := ids(&eventlog.Options{Seed: 1, Deterministic: true}); !slices.Equal(a, b) {
		t.Errorf("same seed, ids %v and %v", a, b)
	}
	if c := ids(&eventlog.Options{Seed: 2, Deterministic: true}); slices.Equal(a, c) {
		t.Errorf("another seed, same ids")
	}
	if r1, r2 := ids(&eventlog.Options{Seed: 1}), ids(&eventlog.Options{Seed: 1}); slices.Equal(r1, r2) {
		t.Errorf("random mode repeats ids")
	}
}

// TestLog_Profile: the append's wall-clock time goes to the profile keyed
// by event id, and nowhere in the event.
func TestLog_Profile(t *testing.T) {
	var buf bytes.Buffer
	prof := eventlog.NewProfileWriter(&buf)
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { tick = tick.Add(time.Millisecond); return tick }
	l, err := eventlog.NewLog(t.Context(), &eventlog.MemStore{}, &eventlog.Options{Profile: prof, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	e, err := l.Append(t.Context(), eventlog.Entry{Producer: "p", Payload: abstain("q")})
	if err != nil {
		t.Fatal(err)
	}
	l.Profile(e.ID, "tool", 3*time.Second)
	var got []eventlog.Timing
	for _, ln := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var tm eventlog.Timing
		if err := json.Unmarshal(ln, &tm); err != nil {
			t.Fatal(err)
		}
		got = append(got, tm)
	}
	want := []eventlog.Timing{{Event: e.ID, Name: "append", Nanos: 1e6}, {Event: e.ID, Name: "tool", Nanos: 3e9}}
	if !slices.Equal(got, want) || prof.Err() != nil {
		t.Errorf("profile %v, %v; want %v", got, prof.Err(), want)
	}
}

// TestLog_HashIndependentOfScheduling (rapid): any number of producers,
// each appending its own events in order from its own goroutine, give
// dense seqs and one log hash whatever the scheduling, equal to the hash
// of the same events appended one producer after another.
func TestLog_HashIndependentOfScheduling(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nProducers := rapid.IntRange(1, 5).Draw(rt, "producers")
		plans := make([][]int64, nProducers) // logical times per producer
		for p := range plans {
			steps := rapid.SliceOfN(rapid.Int64Range(0, 3), 0, 12).Draw(rt, fmt.Sprintf("steps%d", p))
			var tm int64
			for _, s := range steps {
				tm += s
				plans[p] = append(plans[p], tm)
			}
		}
		seed := rapid.Int64Range(0, 1<<40).Draw(rt, "seed")
		run := func(concurrent bool) (eventlog.Report, []eventlog.Event) {
			store := &eventlog.MemStore{}
			l, err := eventlog.NewLog(context.Background(), store, &eventlog.Options{Seed: seed, Deterministic: true})
			if err != nil {
				rt.Fatal(err)
			}
			produce := func(p int) {
				for i, tm := range plans[p] {
					_, err := l.Append(context.Background(), eventlog.Entry{
						Producer: fmt.Sprintf("producer-%d", p), Time: tm,
						Payload: eventlog.ToolReturned{QuestionID: fmt.Sprintf("q-%d", i), CallID: fmt.Sprintf("c-%d-%d", p, i), Tool: "t", Outcome: "ok", RowsScanned: int64(i)},
					})
					if err != nil {
						rt.Error(err)
					}
				}
			}
			if concurrent {
				var wg sync.WaitGroup
				for p := range plans {
					wg.Go(func() {
						time.Sleep(time.Duration(p%3) * time.Microsecond)
						produce(p)
					})
				}
				wg.Wait()
			} else {
				for p := len(plans) - 1; p >= 0; p-- {
					produce(p)
				}
			}
			events, _ := eventlog.ReadAll(context.Background(), store)
			rep, err := eventlog.VerifyEvents(context.Background(), events, nil)
			if err != nil {
				rt.Fatalf("verify: %v", err)
			}
			return rep, events
		}
		seqRep, _ := run(false)
		conRep, events := run(true)
		if seqRep.Hash != conRep.Hash {
			rt.Fatalf("hash %s concurrently, %s sequentially", conRep.Hash, seqRep.Hash)
		}
		var buf bytes.Buffer
		exp, err := eventlog.Export(context.Background(), &buf, storeOf(events))
		if err != nil || exp.Hash != conRep.Hash {
			rt.Fatalf("export hash %s, %v; want %s", exp.Hash, err, conRep.Hash)
		}
		if _, err := eventlog.Verify(context.Background(), &buf, &eventlog.VerifyOptions{Canonical: true, Want: &seqRep.Hash, Chain: seqRep.Chain}); err != nil {
			rt.Fatalf("verify export: %v", err)
		}
	})
}

func storeOf(events []eventlog.Event) *eventlog.MemStore {
	s := &eventlog.MemStore{}
	for _, e := range events {
		if err := s.Append(context.Background(), e); err != nil {
			panic(err)
		}
	}
	return s
}

// countingStore counts a MemStore's scans and, when it reads lasts, its
// per-producer reads.
type countingStore struct {
	*eventlog.MemStore
	scans int
}

func (s *countingStore) Scan(ctx context.Context, fn func(eventlog.Event) error) error {
	s.scans++
	return s.MemStore.Scan(ctx, fn)
}

type lastStore struct {
	countingStore
	lasts int
}

func (s *lastStore) Last(ctx context.Context, run, producer string) (seq, t int64, err error) {
	s.lasts++
	err = s.MemStore.Scan(ctx, func(e eventlog.Event) error {
		if e.Run == run && e.Producer == producer {
			seq, t = max(seq, e.Seq), max(t, e.Time)
		}
		return nil
	})
	return seq, t, err
}

// TestLog_OpenReadsWhatItNeeds: a run drawn at random reads nothing of
// the store; a named run scans a plain store once, or asks a LastReader
// once per producer at its first append, and continues its seqs either
// way.
func TestLog_OpenReadsWhatItNeeds(t *testing.T) {
	ctx := t.Context()
	appendTwo := func(t *testing.T, l *eventlog.Log) []int64 {
		var seqs []int64
		for _, p := range []string{"a", "a", "b"} {
			e, err := l.Append(ctx, eventlog.Entry{Producer: p, Payload: abstain("q")})
			if err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, e.Seq)
		}
		return seqs
	}
	t.Run("random run", func(t *testing.T) {
		s := &countingStore{MemStore: &eventlog.MemStore{}}
		for range 2 {
			l, err := eventlog.NewLog(ctx, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := appendTwo(t, l); !slices.Equal(got, []int64{1, 2, 1}) {
				t.Errorf("seqs %v, want a new run's 1 2 1", got)
			}
		}
		if s.scans != 0 {
			t.Errorf("%d scans for random runs, want none", s.scans)
		}
	})
	t.Run("named run, plain store", func(t *testing.T) {
		s := &countingStore{MemStore: &eventlog.MemStore{}}
		var got []int64
		for range 2 {
			l, err := eventlog.NewLog(ctx, s, &eventlog.Options{Run: "run-x"})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, appendTwo(t, l)...)
		}
		if !slices.Equal(got, []int64{1, 2, 1, 3, 4, 2}) || s.scans != 2 {
			t.Errorf("seqs %v after %d scans, want 1 2 1 3 4 2 after 2", got, s.scans)
		}
	})
	t.Run("named run, LastReader", func(t *testing.T) {
		s := &lastStore{countingStore: countingStore{MemStore: &eventlog.MemStore{}}}
		var got []int64
		for range 2 {
			l, err := eventlog.NewLog(ctx, s, &eventlog.Options{Run: "run-x"})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, appendTwo(t, l)...)
		}
		if !slices.Equal(got, []int64{1, 2, 1, 3, 4, 2}) || s.scans != 0 || s.lasts != 4 {
			t.Errorf("seqs %v after %d scans and %d last reads, want 1 2 1 3 4 2 after 0 and 4", got, s.scans, s.lasts)
		}
	})
}
