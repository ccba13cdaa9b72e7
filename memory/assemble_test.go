package memory_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memorytest"
	"github.com/provenant/provenant/memory/memstore"
)

var update = flag.Bool("update", false, "rewrite the golden sheet in testdata")

func claim(key, agent string, tm int64, score float64) memory.Record {
	return memory.Record{Key: key, Agent: agent, Kind: memory.KindClaim, Text: "stock of pr-007 " + key,
		Subject: "pr-007", Tags: []string{"pr-007"}, Time: tm, Relevance: &memory.Relevance{Score: score}}
}

func annot(kind memory.Kind, key, target string, tm int64) memory.Record {
	r := memory.Record{Key: key, Agent: "bot", Kind: kind, Target: target, Time: tm}
	if kind == memory.KindSupersede {
		r.Text, r.Subject, r.Tags = "correction "+key, "pr-007", []string{"pr-007"}
	}
	return r
}

func mustAppend(t testing.TB, st *memstore.Store, r memory.Record, v memory.Visibility) {
	t.Helper()
	if err := st.Append(context.Background(), r, v); err != nil {
		t.Fatalf("append %s: %v", r.Key, err)
	}
}

var stockQuery = memory.Query{Cues: memory.Cues{Subject: "pr-007"}, AsOf: 1000, MaxItems: 5}

func TestRead_CallerErrors(t *testing.T) {
	st := memstore.New()
	mustAppend(t, st, claim("a", "bot", 1, 0.5), memory.Visibility{})
	ok := &memory.Reader{Agent: "bot"}
	tests := []struct {
		name    string
		reader  *memory.Reader
		edit    func(*memory.Query)
		wantErr error
	}{
		{"nil reader", nil, func(*memory.Query) {}, memory.ErrNoReader},
		{"reader without agent", &memory.Reader{Purpose: "x"}, func(*memory.Query) {}, memory.ErrNoReader},
		{"reader with a bad match", &memory.Reader{Agent: "bot", Match: "most"}, func(*memory.Query) {}, memory.ErrCaller},
		{"no cues", ok, func(q *memory.Query) { q.Cues = memory.Cues{Text: " ,, "} }, memory.ErrCaller},
		{"max_items zero", ok, func(q *memory.Query) { q.MaxItems = 0 }, memory.ErrCaller},
		{"max_items too many", ok, func(q *memory.Query) { q.MaxItems = memory.MaxItemsLimit + 1 }, memory.ErrCaller},
		{"negative as_of", ok, func(q *memory.Query) { q.AsOf = -1 }, memory.ErrCaller},
		{"bad partition", ok, func(q *memory.Query) { q.Partition = []string{"a", "a"} }, memory.ErrCaller},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := stockQuery
			tt.edit(&q)
			c := memorytest.NewCounting(st)
			s, err := memory.Read(t.Context(), c, tt.reader, q, memory.DefaultPolicy())
			var ce *memory.CallerError
			if !errors.Is(err, tt.wantErr) || !errors.As(err, &ce) || s != nil {
				t.Fatalf("Read = %v, %v; want a *CallerError wrapping %v", s, err, tt.wantErr)
			}
			if got := c.Calls(); got != (memorytest.Calls{}) {
				t.Errorf("a refused read touched the store: %+v", got)
			}
		})
	}
}

// faulty is a store whose visibility or chains go wrong on demand.
type faulty struct {
	memory.Store
	visErr     error
	dropVis    bool // leave the first key out of the visibility answer
	badVis     bool // answer an invalid visibility
	badChain   bool // give chain entries an invalid visibility
	chainErr   error
	retrieveEr error
}

func (f *faulty) Retrieve(ctx context.Context, q memory.Retrieval) ([]memory.Record, error) {
	if f.retrieveEr != nil {
		return nil, f.retrieveEr
	}
	return f.Store.Retrieve(ctx, q)
}

func (f *faulty) Visibility(ctx context.Context, keys []string) (map[string]memory.Visibility, error) {
	if f.visErr != nil {
		return nil, f.visErr
	}
	m, err := f.Store.Visibility(ctx, keys)
	if f.dropVis {
		delete(m, keys[0])
	}
	if f.badVis {
		m[keys[len(keys)-1]] = memory.Visibility{Tags: []string{"two words"}}
	}
	return m, err
}

func (f *faulty) Chain(ctx context.Context, key string) ([]memory.Entry, error) {
	if f.chainErr != nil {
		return nil, f.chainErr
	}
	es, err := f.Store.Chain(ctx, key)
	if f.badChain {
		for i := range es {
			es[i].Visibility.Agent = "\x00"
		}
	}
	return es, err
}

// TestRead_FailClosed: any failure while deciding visibility gives an
// empty sheet and a warning, never the unscoped records.
func TestRead_FailClosed(t *testing.T) {
	st := memstore.New()
	mustAppend(t, st, claim("a", "bot", 1, 0.9), memory.Visibility{})
	mustAppend(t, st, claim("b", "bot", 2, 0.8), memory.Visibility{Agent: "other"})
	mustAppend(t, st, annot(memory.KindConfirm, "c", "a", 3), memory.Visibility{})
	tests := []struct {
		name    string
		store   *faulty
		wantErr bool
	}{
		{"visibility read fails", &faulty{visErr: errors.New("connection reset")}, false},
		{"a key missing from the visibility read", &faulty{dropVis: true}, false},
		{"an invalid visibility", &faulty{badVis: true}, false},
		{"an annotation with an invalid visibility", &faulty{badChain: true}, false},
		{"retrieval fails: an error, not a sheet", &faulty{retrieveEr: errors.New("disk")}, true},
		{"chain read fails: an error, not a sheet", &faulty{chainErr: errors.New("disk")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.store.Store = st
			s, err := memory.Read(t.Context(), tt.store, &memory.Reader{Agent: "bot"}, stockQuery, memory.DefaultPolicy())
			if tt.wantErr {
				if err == nil || s != nil {
					t.Fatalf("Read = %v, %v; want an error", s, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if len(s.Claims) != 0 || len(s.Trace) != 0 {
				t.Errorf("a failed gate showed %d claims and %d trace entries", len(s.Claims), len(s.Trace))
			}
			if len(s.Warnings) != 1 || s.Warnings[0].Code != memory.WarnVisibility {
				t.Errorf("warnings %v, want one %s", s.Warnings, memory.WarnVisibility)
			}
			if strings.Contains(s.Warnings[0].Message, "connection reset") {
				t.Errorf("warning %q repeats the store's error", s.Warnings[0].Message)
			}
		})
	}
	// The same store without faults shows the claim: the failures above
	// are what emptied the sheet.
	s, err := memory.Read(t.Context(), st, &memory.Reader{Agent: "bot"}, stockQuery, memory.DefaultPolicy())
	if err != nil || len(s.Claims) != 1 || s.Claims[0].Key != "a" || s.Claims[0].Confirmations != 1 {
		t.Fatalf("control read = %+v, %v; want claim a with one confirmation", s, err)
	}
}

// TestRead_Gate: who sees what, annotations included.
func TestRead_Gate(t *testing.T) {
	st := memstore.New()
	mustAppend(t, st, claim("shared", "stock-bot", 1, 0.9), memory.Visibility{})
	mustAppend(t, st, claim("mine", "stock-bot", 2, 0.8), memory.Visibility{Agent: "stock-bot"})
	mustAppend(t, st, claim("theirs", "pricing-bot", 3, 0.7), memory.Visibility{Agent: "pricing-bot"})
	mustAppend(t, st, claim("finance", "pricing-bot", 4, 0.6), memory.Visibility{Tags: []string{"finance"}})
	// pricing-bot corrects the shared claim privately, and confirms it privately.
	mustAppend(t, st, annot(memory.KindSupersede, "fix", "shared", 5), memory.Visibility{Agent: "pricing-bot"})
	mustAppend(t, st, annot(memory.KindConfirm, "ok", "mine", 6), memory.Visibility{Agent: "pricing-bot"})
	// pricing-bot retracts its finance claim privately: it drops for every reader.
	mustAppend(t, st, claim("finance2", "pricing-bot", 4, 0.55), memory.Visibility{Tags: []string{"finance"}})
	mustAppend(t, st, annot(memory.KindRetract, "oops", "finance2", 7), memory.Visibility{Agent: "pricing-bot"})

	tests := []struct {
		reader *memory.Reader
		want   []string
	}{
		{&memory.Reader{Agent: "stock-bot"}, []string{"shared", "mine"}},
		{&memory.Reader{Agent: "stock-bot", Tags: []string{"finance"}}, []string{"shared", "mine", "finance"}},
		{&memory.Reader{Agent: "pricing-bot"}, []string{"fix", "theirs"}},
		{&memory.Reader{Agent: "auditor", Tags: []string{"finance", "eu"}, Match: memory.MatchAny}, []string{"shared", "finance"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.reader.Agent, tt.reader.Tags), func(t *testing.T) {
			q := stockQuery
			q.MaxItems = 10
			s, err := memory.Read(t.Context(), st, tt.reader, q, memory.DefaultPolicy())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range s.Claims {
				got = append(got, c.Key)
				if c.Key == "mine" && c.Confirmations != 0 {
					t.Errorf("a confirmation the reader cannot see was counted")
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("claims %v, want %v", got, tt.want)
			}
			for _, e := range s.Trace {
				vis, err := st.Visibility(t.Context(), []string{e.Key})
				if err != nil {
					t.Fatal(err)
				}
				if ok, err := memory.Visible(vis[e.Key], tt.reader); !ok || err != nil {
					t.Errorf("trace names %s, which the reader may not see", e.Key)
				}
			}
		})
	}
}

// TestRead_Backfill: when the gate rejects the first pages, back-fill
// pulls fetch more, bounded by the policy; a sheet still short says so.
func TestRead_Backfill(t *testing.T) {
	st := memstore.New()
	for i := range 30 {
		v := memory.Visibility{}
		if i < 20 {
			v.Agent = "other"
		}
		mustAppend(t, st, claim(fmt.Sprintf("k%02d", i), "bot", int64(i), 1-float64(i)/100), v)
	}
	tests := []struct {
		name     string
		pulls    int
		claims   int
		gotPulls int
		rejected int
		short    bool
	}{
		{"enough pulls", 2, 5, 2, 20, false},
		{"one pull", 1, 0, 1, 20, true},
		{"no pulls", 0, 0, 0, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := memory.DefaultPolicy()
			p.GateOverfetchMultiplier, p.MaxBackfillPulls = 2, tt.pulls
			c := memorytest.NewCounting(st)
			s, err := memory.Read(t.Context(), c, &memory.Reader{Agent: "bot"}, stockQuery, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Claims) != tt.claims || s.Counts.BackfillPulls != tt.gotPulls || s.Counts.GateRejected != tt.rejected {
				t.Errorf("claims %d pulls %d rejected %d; want %d %d %d",
					len(s.Claims), s.Counts.BackfillPulls, s.Counts.GateRejected, tt.claims, tt.gotPulls, tt.rejected)
			}
			if calls := c.Calls(); calls.Retrievals != 1+tt.gotPulls {
				t.Errorf("retrievals %d, want %d", calls.Retrievals, 1+tt.gotPulls)
			}
			short := slices.ContainsFunc(s.Warnings, func(w memory.Warning) bool { return w.Code == memory.WarnShortSheet })
			if short != tt.short {
				t.Errorf("short-sheet warning %v, want %v (%v)", short, tt.short, s.Warnings)
			}
			if tt.short {
				want := fmt.Sprintf("0 of 5 candidates selected: the reader gate rejected %d after %d back-fill pulls", tt.rejected, tt.gotPulls)
				if !slices.Contains(s.Warnings, memory.Warning{Code: memory.WarnShortSheet, Message: want}) {
					t.Errorf("warnings %v, want %q", s.Warnings, want)
				}
			}
			if tt.claims > 0 && s.Trace[0].Source != "backfill-2" {
				t.Errorf("trace source %q, want backfill-2", s.Trace[0].Source)
			}
		})
	}
}

// TestRead_IOBudget holds every read to its budget: 1 retrieval, at most
// 1 batched visibility read, at most max_items chain reads, and one more
// retrieval per back-fill pull (which brings its candidates' visibility:
// the store is an EntryRetriever).
func TestRead_IOBudget(t *testing.T) {
	st := memstore.New()
	for i := range 200 {
		v := memory.Visibility{}
		if i%3 == 0 {
			v.Agent = "other"
		}
		r := claim(fmt.Sprintf("c%03d", i), "bot", int64(i), float64(i%10)/10)
		mustAppend(t, st, r, v)
		// a chain of up to 20 annotations under every fifth claim
		if i%5 == 0 {
			target := r.Key
			for j := range 20 {
				kind := []memory.Kind{memory.KindConfirm, memory.KindSupersede}[j%2]
				a := annot(kind, fmt.Sprintf("%s-a%02d", r.Key, j), target, int64(i+j+1))
				mustAppend(t, st, a, memory.Visibility{})
				if kind == memory.KindSupersede {
					target = a.Key
				}
			}
		}
	}
	reader := &memory.Reader{Agent: "bot"}
	sawPull := false
	for _, k := range []int{1, 5, 50} {
		for _, mult := range []int{1, 2, 4} {
			for _, pulls := range []int{0, 1, 3} {
				t.Run(fmt.Sprintf("k%d-x%d-pulls%d", k, mult, pulls), func(t *testing.T) {
					p := memory.DefaultPolicy()
					p.GateOverfetchMultiplier, p.MaxBackfillPulls = mult, pulls
					q := stockQuery
					q.MaxItems = k
					c := memorytest.NewCounting(st)
					s, err := memory.Read(t.Context(), c, reader, q, p)
					if err != nil {
						t.Fatal(err)
					}
					got := c.Calls()
					n := s.Counts.BackfillPulls
					sawPull = sawPull || n > 0
					if n > pulls {
						t.Errorf("%d back-fill pulls, policy allows %d", n, pulls)
					}
					if got.Retrievals != 1+n {
						t.Errorf("retrievals %d, want 1 + %d pulls", got.Retrievals, n)
					}
					if got.Visibility > 1 {
						t.Errorf("visibility reads %d, want at most 1 (after %d pulls)", got.Visibility, n)
					}
					if got.Chains > k || got.Chains != s.Counts.Selected {
						t.Errorf("chain reads %d, want one per selected candidate (%d), at most %d", got.Chains, s.Counts.Selected, k)
					}
					if len(s.Claims) == 0 {
						t.Error("empty sheet: the budget test reads nothing")
					}
				})
			}
		}
	}
	if !sawPull {
		t.Error("no read back-filled: the budget of a pull went untested")
	}
}

func readExample(t *testing.T, stamp bool) []byte {
	t.Helper()
	f, err := os.Open("testdata/journal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := memory.ReadJournal(f)
	if err != nil {
		t.Fatal(err)
	}
	if stamp { // wall-clock times differ between two appends of one journal
		for i := range entries {
			entries[i].Record.Recorded = time.Now().Add(time.Duration(i) * time.Second)
		}
	}
	st, err := memstore.Load(entries)
	if err != nil {
		t.Fatal(err)
	}
	policy, _ := memory.ParsePolicy([]byte(`{"prefer":"self-stated"}`))
	q := memory.Query{Cues: memory.Cues{Tags: []string{"pr-007"}}, AsOf: 500, MaxItems: 10}
	s, err := memory.Read(t.Context(), st, &memory.Reader{Agent: "stock-bot", Purpose: "replenishment"}, q, policy)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRead_Replay: the same journal snapshot and policy give the same
// bytes, whatever the wall clock said when the records were appended,
// and the bytes the committed golden sheet holds.
func TestRead_Replay(t *testing.T) {
	a, b := readExample(t, false), readExample(t, true)
	if !bytes.Equal(a, b) {
		t.Fatalf("two replays differ:\n%s\n%s", a, b)
	}
	if bytes.Contains(a, []byte(`"recorded"`)) {
		t.Fatalf("the canonical sheet holds a wall-clock field: %s", a)
	}
	const golden = "testdata/example-sheet.json"
	if *update {
		if err := os.WriteFile(golden, append(a, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to write it): %v", err)
	}
	if !bytes.Equal(append(a, '\n'), want) {
		t.Errorf("sheet differs from %s (run with -update if the change is intended):\n got %s\nwant %s", golden, a, want)
	}
}

// lateRetract appends a retract of the first candidate right after the
// retrieval, before any chain is read.
type lateRetract struct {
	*memstore.Store
	done bool
}

func (l *lateRetract) Retrieve(ctx context.Context, q memory.Retrieval) ([]memory.Record, error) {
	rs, err := l.Store.Retrieve(ctx, q)
	if err == nil && len(rs) > 0 && !l.done {
		l.done = true
		err = l.Store.Append(ctx, annot(memory.KindRetract, "late", rs[0].Key, 999), memory.Visibility{Agent: "someone-else"})
	}
	return rs, err
}

// TestRead_RetractAfterRetrieval: a retract that arrives between the
// retrieval and the chain reads still drops its claim, whoever may read it.
func TestRead_RetractAfterRetrieval(t *testing.T) {
	st := memstore.New()
	mustAppend(t, st, claim("a", "bot", 1, 0.9), memory.Visibility{})
	mustAppend(t, st, claim("b", "bot", 1, 0.5), memory.Visibility{})
	s, err := memory.Read(t.Context(), &lateRetract{Store: st}, &memory.Reader{Agent: "bot"}, stockQuery, memory.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Claims) != 1 || s.Claims[0].Key != "b" || s.Counts.Retracted != 1 {
		t.Fatalf("claims %+v, counts %+v; want b alone, a retracted", s.Claims, s.Counts)
	}
}

// BenchmarkRead resolves a sheet over a journal of 100,000 records with
// max_items 50 and chains of up to 20 annotations
// (memorytest.BenchJournal), on the in-memory store, reporting p50 and
// p95.
func BenchmarkRead(b *testing.B) {
	st, err := memstore.Load(memorytest.BenchJournal(100_000))
	if err != nil {
		b.Fatal(err)
	}
	memorytest.BenchRead(b, st)
}

// pulling is a store whose back-fill retrieval (RetrieveEntries) fails to
// decide visibility, or returns an invalid one.
type pulling struct {
	memory.Store
	undecided, invalid bool
}

func (p *pulling) RetrieveEntries(ctx context.Context, q memory.Retrieval) ([]memory.Entry, error) {
	if p.undecided {
		return nil, fmt.Errorf("retrieve: %w", memory.ErrUndecided)
	}
	es, err := p.Store.(memory.EntryRetriever).RetrieveEntries(ctx, q)
	if p.invalid {
		for i := range es {
			es[i].Visibility.Tags = []string{"two words"}
		}
	}
	return es, err
}

// TestRead_FailClosedOnPull: a back-fill pull that cannot say, or says
// nonsense about, its candidates' visibility empties the sheet with a
// warning, as the first retrieval's visibility read does.
func TestRead_FailClosedOnPull(t *testing.T) {
	st := memstore.New()
	mustAppend(t, st, claim("hidden", "bot", 3, 0.9), memory.Visibility{Agent: "other"})
	mustAppend(t, st, claim("seen", "bot", 2, 0.8), memory.Visibility{})
	q := stockQuery
	q.MaxItems = 1
	p := memory.DefaultPolicy()
	p.GateOverfetchMultiplier, p.MaxBackfillPulls = 1, 1
	reader := &memory.Reader{Agent: "bot"}
	// Without faults the pull finds the visible claim.
	s, err := memory.Read(t.Context(), &pulling{Store: st}, reader, q, p)
	if err != nil || len(s.Claims) != 1 || s.Counts.BackfillPulls != 1 {
		t.Fatalf("Read = %+v, %v; want the claim the pull found", s, err)
	}
	for _, tt := range []struct {
		name  string
		store *pulling
	}{
		{"undecided", &pulling{Store: st, undecided: true}},
		{"invalid", &pulling{Store: st, invalid: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := memory.Read(t.Context(), tt.store, reader, q, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Claims) != 0 || len(s.Warnings) != 1 || s.Warnings[0].Code != memory.WarnVisibility {
				t.Errorf("sheet with %d claims, warnings %v; want none and one %s", len(s.Claims), s.Warnings, memory.WarnVisibility)
			}
		})
	}
}
