package memorytest

import (
	"context"
	"fmt"
	"math/rand/v2"
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
// visibility read, and chains against the transitive closure of targets.
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
