package memorytest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/provenant/provenant/memory"
)

// Journal returns a seeded journal of n entries: claims, observations,
// notes and supersedes over a few subjects and tags, confirms and
// retracts of earlier records, chains of corrections, scoped and tagged
// visibilities, open and closed validity intervals, and relevance with and
// without decay. The same seed gives the same journal; every entry passes
// memory.Validate, and every target is an earlier key.
func Journal(seed uint64, n int) []memory.Entry {
	rng := rand.New(rand.NewPCG(seed, 0x6d656d6f7279))
	subjects := []string{"pr-007@st-003", "pr-007", "st-003", "pr-101@st-001"}
	tags := []string{"pr-007", "st-003", "stock", "price"}
	agents := []string{"stock-bot", "pricing-bot", "planner"}
	var out []memory.Entry
	for i := range n {
		r := memory.Record{
			Key:   fmt.Sprintf("m-%06d", i),
			Agent: agents[rng.IntN(len(agents))],
			Time:  int64(i/3) + int64(rng.IntN(3)),
		}
		r.Valid.From = r.Time
		if rng.IntN(8) == 0 {
			r.Valid.To = r.Time + 1 + int64(rng.IntN(50))
		}
		kind := []memory.Kind{memory.KindClaim, memory.KindObservation, memory.KindNote, memory.KindSupersede,
			memory.KindConfirm, memory.KindRetract}[rng.IntN(6)]
		if i == 0 || kind.Targeted() && rng.IntN(2) == 0 {
			kind = memory.KindClaim
		}
		r.Kind = kind
		if kind.Targeted() {
			// mostly recent targets, so that chains grow deep
			lo := max(0, i-20)
			r.Target = fmt.Sprintf("m-%06d", lo+rng.IntN(i-lo))
			r.Stated = rng.IntN(3) == 0
		}
		if kind != memory.KindConfirm && kind != memory.KindRetract {
			r.Subject = subjects[rng.IntN(len(subjects))]
			r.Text = fmt.Sprintf("%s statement %d", r.Subject, i)
			r.Tags = []string{tags[rng.IntN(len(tags))]}
			if rng.IntN(2) == 0 {
				r.Relevance = &memory.Relevance{Score: float64(rng.IntN(101)) / 100, HalfLife: int64(rng.IntN(3) * 100)}
			}
			if rng.IntN(10) == 0 {
				r.Class = fmt.Sprintf("q-%d", rng.IntN(3))
			}
		}
		var v memory.Visibility
		switch rng.IntN(6) {
		case 0:
			v.Agent = agents[rng.IntN(len(agents))]
		case 1:
			v.Tags = []string{"finance"}
		case 2:
			v.Purposes = []string{"audit"}
		}
		out = append(out, memory.Entry{Record: r, Visibility: v})
	}
	return out
}

// RunStore is the contract every memory.Store passes: open returns a
// store holding exactly the given entries. It checks retrieval pages
// against Retrieval.Admits and the declared rank order, the batched
// visibility read, retrieval with visibility (an EntryRetriever's) against
// both, and chains against the transitive closure of targets.
func RunStore(t *testing.T, open func(t *testing.T, entries []memory.Entry) memory.Store) {
	entries := Journal(1, 400)
	st := open(t, entries)
	ctx := t.Context()

	t.Run("retrieve", func(t *testing.T) {
		for _, q := range []memory.Retrieval{
			{Cues: memory.Cues{Subject: "pr-007@st-003"}, AsOf: 100},
			{Cues: memory.Cues{Subject: " PR-007@ST-003 "}, AsOf: 150},
			{Cues: memory.Cues{Tags: []string{"STOCK", "price"}}, AsOf: 60, Partition: []string{"planner", "stock-bot"}},
			{Cues: memory.Cues{Text: "statement pr-007"}, AsOf: 130, Exclude: []string{"m-000010", "m-000011"}},
			{Cues: memory.Cues{Subject: "st-003", Text: "statement"}, AsOf: 20},
			{Cues: memory.Cues{Subject: "nothing"}, AsOf: 100},
		} {
			var want []memory.Record
			for _, e := range entries {
				if q.Admits(e.Record) {
					want = append(want, e.Record)
				}
			}
			memory.SortRank(want, q.AsOf)
			if len(want) == 0 && q.Cues.Subject != "nothing" {
				t.Fatalf("retrieval %+v admits nothing of the journal: the contract checks nothing", q.Cues)
			}
			for _, limit := range []int{1, 7, 1000} {
				var got []memory.Record
				for off := 0; off <= len(want); off += limit {
					q.Offset, q.Limit = off, limit
					page, err := st.Retrieve(ctx, q)
					if err != nil {
						t.Fatalf("retrieve: %v", err)
					}
					if len(page) > limit {
						t.Fatalf("page of %d records, limit %d", len(page), limit)
					}
					got = append(got, page...)
				}
				if !slices.EqualFunc(got, want, func(a, b memory.Record) bool { return a.Key == b.Key }) {
					t.Fatalf("retrieval %+v with limit %d: got %d records, want %d (or another order)", q.Cues, limit, len(got), len(want))
				}
			}
		}
	})

	t.Run("retrieve entries", func(t *testing.T) {
		er, ok := st.(memory.EntryRetriever)
		if !ok {
			t.Skip("not an EntryRetriever")
		}
		vis := map[string]memory.Visibility{}
		for _, e := range entries {
			vis[e.Record.Key] = e.Visibility
		}
		for _, q := range []memory.Retrieval{
			{Cues: memory.Cues{Subject: "pr-007@st-003"}, AsOf: 100, Offset: 3, Limit: 20},
			{Cues: memory.Cues{Tags: []string{"stock"}}, AsOf: 60, Limit: 1000},
		} {
			recs, err := st.Retrieve(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			es, err := er.RetrieveEntries(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) == 0 || len(es) != len(recs) {
				t.Fatalf("RetrieveEntries gave %d entries, Retrieve %d records", len(es), len(recs))
			}
			for i, e := range es {
				if e.Record.Key != recs[i].Key || !equalVisibility(e.Visibility, vis[e.Record.Key]) {
					t.Errorf("entry %d: %s with %+v, want %s with %+v", i, e.Record.Key, e.Visibility, recs[i].Key, vis[recs[i].Key])
				}
			}
		}
	})

	t.Run("visibility", func(t *testing.T) {
		keys := []string{"m-000000", "m-000005", "m-000399", "m-999999"}
		got, err := st.Visibility(ctx, keys)
		if err != nil {
			t.Fatalf("visibility: %v", err)
		}
		if len(got) != 3 {
			t.Fatalf("visibility of %d keys, want 3 (an unknown key is left out)", len(got))
		}
		for _, e := range entries {
			if v, ok := got[e.Record.Key]; ok && !equalVisibility(v, e.Visibility) {
				t.Errorf("visibility of %s is %+v, want %+v", e.Record.Key, v, e.Visibility)
			}
		}
	})

	t.Run("chain", func(t *testing.T) {
		for _, root := range []string{"m-000000", "m-000001", "m-000100", "m-000399"} {
			want := closure(entries, root)
			es, err := st.Chain(ctx, root)
			if err != nil {
				t.Fatalf("chain: %v", err)
			}
			var got []string
			for _, e := range es {
				got = append(got, e.Record.Key)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("chain of %s: %v, want %v", root, got, want)
			}
		}
	})

	t.Run("chains", func(t *testing.T) {
		cr, ok := st.(memory.ChainsReader)
		if !ok {
			t.Skip("the store reads chains one at a time")
		}
		roots := []string{"m-000000", "m-000001", "m-000100", "m-000399", "m-999999"}
		got, err := cr.Chains(ctx, roots)
		if err != nil {
			t.Fatalf("chains: %v", err)
		}
		for _, root := range roots {
			var keys []string
			for _, e := range got[root] {
				keys = append(keys, e.Record.Key)
			}
			slices.Sort(keys)
			if want := closure(entries, root); !slices.Equal(keys, want) {
				t.Errorf("batched chain of %s: %v, want %v", root, keys, want)
			}
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := st.Retrieve(cctx, memory.Retrieval{Cues: memory.Cues{Subject: "st-003"}, Limit: 1}); err == nil {
			t.Error("retrieve with a cancelled context succeeded")
		}
		if _, err := st.Chain(cctx, "m-000000"); err == nil {
			t.Error("chain with a cancelled context succeeded")
		}
	})
}

func equalVisibility(a, b memory.Visibility) bool {
	return a.Agent == b.Agent && slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Purposes, b.Purposes)
}

func closure(entries []memory.Entry, root string) []string {
	seen := map[string]bool{root: true}
	var out []string
	for changed := true; changed; {
		changed = false
		for _, e := range entries {
			if e.Record.Target != "" && seen[e.Record.Target] && !seen[e.Record.Key] {
				seen[e.Record.Key] = true
				out = append(out, e.Record.Key)
				changed = true
			}
		}
	}
	slices.Sort(out)
	return out
}

// RunJournal is the append contract every memory.Journal passes: open
// returns an empty journal. An invalid record, a repeated key and an
// unknown target are refused with their sentinels; what is appended reads
// back whole (provenance and visibility included), and an annotation
// joins its target's chain.
func RunJournal(t *testing.T, open func(t *testing.T) memory.Journal) {
	j := open(t)
	ctx := t.Context()
	claim := memory.Record{
		Key: "m-1", Agent: "stock-bot", Kind: memory.KindClaim, Text: "pr-007 is OUT_OF_STOCK at st-003",
		Subject: "pr-007@st-003", Tags: []string{"pr-007", "stock"}, Time: 10, Valid: memory.Interval{From: 10},
		Relevance: &memory.Relevance{Score: 0.9, HalfLife: 100},
		Provenance: &memory.Provenance{
			ResultIDs: []string{"r-1"}, RowKeys: []string{"ev-1"}, DataVersion: "v1",
			ToolCall: &memory.ToolCall{Tool: "get_stock_state", Arguments: []byte(`{"product_id":"pr-007","store_id":"st-003"}`)},
			Value:    []byte(`"OUT_OF_STOCK"`),
		},
	}
	vis := memory.Visibility{Agent: "stock-bot", Tags: []string{"ops"}, Purposes: []string{"restock"}}
	if err := j.Append(ctx, claim, vis); err != nil {
		t.Fatalf("append a claim: %v", err)
	}
	confirm := memory.Record{Key: "m-2", Agent: "planner", Kind: memory.KindConfirm, Target: "m-1", Time: 11, Valid: memory.Interval{From: 11}}
	if err := j.Append(ctx, confirm, memory.Visibility{}); err != nil {
		t.Fatalf("append a confirm: %v", err)
	}

	for _, tt := range []struct {
		name string
		rec  memory.Record
		vis  memory.Visibility
		want error
	}{
		{"repeated key", claim, memory.Visibility{}, memory.ErrDuplicateKey},
		{"unknown target", memory.Record{Key: "m-3", Agent: "a", Kind: memory.KindRetract, Target: "m-404", Time: 12}, memory.Visibility{}, memory.ErrUnknownTarget},
		{"no target", memory.Record{Key: "m-3", Agent: "a", Kind: memory.KindRetract, Time: 12}, memory.Visibility{}, memory.ErrMissingTarget},
		{"invalid record", memory.Record{Key: "m 3", Agent: "a", Kind: memory.KindClaim, Text: "x"}, memory.Visibility{}, memory.ErrInvalidRecord},
		{"invalid visibility", memory.Record{Key: "m-3", Agent: "a", Kind: memory.KindClaim, Text: "x"}, memory.Visibility{Tags: []string{"a b"}}, memory.ErrInvalidRecord},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := j.Append(ctx, tt.rec, tt.vis); !errors.Is(err, tt.want) {
				t.Errorf("append: %v, want %v", err, tt.want)
			}
		})
	}

	got, err := j.Retrieve(ctx, memory.Retrieval{Cues: memory.Cues{Subject: "pr-007@st-003"}, AsOf: 20, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], claim) {
		t.Fatalf("retrieved %+v, want the claim as appended", got)
	}
	vs, err := j.Visibility(ctx, []string{"m-1", "m-2", "m-3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || !equalVisibility(vs["m-1"], vis) {
		t.Fatalf("visibility %+v", vs)
	}
	chain, err := j.Chain(ctx, "m-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) != 1 || !reflect.DeepEqual(chain[0].Record, confirm) {
		t.Fatalf("chain %+v, want the confirm", chain)
	}

	// Chains built append by append are the transitive closure of
	// targets, as from a snapshot.
	deep := Journal(2, 150)
	for _, e := range deep {
		if err := j.Append(ctx, e.Record, e.Visibility); err != nil {
			t.Fatalf("append %s: %v", e.Record.Key, err)
		}
	}
	deepest := 0
	for _, e := range deep {
		root := e.Record.Key
		es, err := j.Chain(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, e := range es {
			keys = append(keys, e.Record.Key)
		}
		slices.Sort(keys)
		want := closure(deep, root)
		if !slices.Equal(keys, want) {
			t.Errorf("chain of %s after appends: %v, want %v", root, keys, want)
		}
		deepest = max(deepest, len(want))
	}
	if deepest < 3 {
		t.Fatalf("the longest chain holds %d records: the contract checks no depth", deepest)
	}
}
