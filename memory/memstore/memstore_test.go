package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memorytest"
	"github.com/provenant/provenant/memory/memstore"
)

func claim(key string, tm int64, score float64) memory.Record {
	return memory.Record{Key: key, Agent: "bot", Kind: memory.KindClaim, Text: "text " + key, Subject: "s",
		Time: tm, Relevance: &memory.Relevance{Score: score}}
}

func TestStore_Append(t *testing.T) {
	st := memstore.New()
	ctx := t.Context()
	if err := st.Append(ctx, claim("a", 1, 0.5), memory.Visibility{}); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		rec     memory.Record
		vis     memory.Visibility
		wantErr error
	}{
		{"duplicate key", ctx, claim("a", 2, 0.5), memory.Visibility{}, memstore.ErrDuplicateKey},
		{"unknown target", ctx, memory.Record{Key: "c", Agent: "bot", Kind: memory.KindConfirm, Target: "zz"}, memory.Visibility{}, memstore.ErrUnknownTarget},
		{"targeted without target", ctx, memory.Record{Key: "c", Agent: "bot", Kind: memory.KindRetract}, memory.Visibility{}, memory.ErrMissingTarget},
		{"invalid visibility", ctx, claim("d", 1, 0.5), memory.Visibility{Agent: "two words"}, memory.ErrInvalidRecord},
		{"cancelled", cancelled, claim("e", 1, 0.5), memory.Visibility{}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := st.Append(tt.ctx, tt.rec, tt.vis); !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
		})
	}
	if st.Len() != 1 {
		t.Errorf("len %d after refused appends, want 1", st.Len())
	}
}

func TestStore_RetrievePages(t *testing.T) {
	st := memstore.New()
	var all []memory.Record
	for i := range 25 {
		r := claim(fmt.Sprintf("k%02d", i), int64(i%7), float64(i%4)/4)
		all = append(all, r)
		if err := st.Append(t.Context(), r, memory.Visibility{}); err != nil {
			t.Fatal(err)
		}
	}
	// a retract is read with chains, never retrieved
	if err := st.Append(t.Context(), memory.Record{Key: "r", Agent: "bot", Kind: memory.KindRetract, Target: "k00", Subject: "s"}, memory.Visibility{}); err != nil {
		t.Fatal(err)
	}
	q := memory.Retrieval{Cues: memory.Cues{Subject: "S"}, AsOf: 5, Exclude: []string{"k03"}}
	var want []memory.Record
	for _, r := range all {
		if q.Admits(r) {
			want = append(want, r)
		}
	}
	memory.SortRank(want, q.AsOf)
	var got []memory.Record
	for off := 0; ; off += 4 {
		q.Offset, q.Limit = off, 4
		page, err := st.Retrieve(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if len(page) < 4 {
			break
		}
	}
	keys := func(rs []memory.Record) []string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, r.Key)
		}
		return ks
	}
	if !slices.Equal(keys(got), keys(want)) {
		t.Errorf("pages\n got %v\nwant %v", keys(got), keys(want))
	}
	if len(want) == 0 || slices.Contains(keys(got), "k03") || slices.Contains(keys(got), "r") {
		t.Errorf("retrieved %v: want some, without the excluded k03 and the retract", keys(got))
	}
}

func TestStore_ChainAndVisibility(t *testing.T) {
	st := memstore.New()
	ctx := t.Context()
	for _, e := range []memory.Entry{
		{Record: claim("a", 1, 0.5)},
		{Record: memory.Record{Key: "s1", Agent: "bot", Kind: memory.KindSupersede, Target: "a", Text: "x"}, Visibility: memory.Visibility{Agent: "bot"}},
		{Record: memory.Record{Key: "c1", Agent: "bot", Kind: memory.KindConfirm, Target: "s1"}},
		{Record: memory.Record{Key: "r1", Agent: "bot", Kind: memory.KindRetract, Target: "c1"}},
		{Record: claim("b", 1, 0.5)},
		{Record: memory.Record{Key: "c2", Agent: "bot", Kind: memory.KindConfirm, Target: "b"}},
	} {
		if err := st.Append(ctx, e.Record, e.Visibility); err != nil {
			t.Fatal(err)
		}
	}
	chain, err := st.Chain(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range chain {
		keys = append(keys, e.Record.Key)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"c1", "r1", "s1"}) {
		t.Errorf("chain of a %v, want c1 r1 s1", keys)
	}
	if chain[0].Visibility.Agent != "bot" {
		t.Errorf("chain entry s1 lost its visibility: %+v", chain[0])
	}
	vis, err := st.Visibility(ctx, []string{"a", "s1", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vis) != 2 || vis["s1"].Agent != "bot" {
		t.Errorf("visibility %v, want a and s1 only", vis)
	}
}

func TestLoad(t *testing.T) {
	corrupt := memory.Entry{Record: memory.Record{Key: "x", Agent: "bot", Kind: memory.KindSupersede, Text: "t"}}
	st, err := memstore.Load([]memory.Entry{corrupt})
	if err != nil || st.Len() != 1 {
		t.Fatalf("Load of a corrupt record = %v; want it held as it is", err)
	}
	if _, err := memstore.Load([]memory.Entry{corrupt, corrupt}); !errors.Is(err, memstore.ErrDuplicateKey) {
		t.Fatalf("err %v, want ErrDuplicateKey", err)
	}
}

func TestStore_Contract(t *testing.T) {
	memorytest.RunStore(t, func(t *testing.T, entries []memory.Entry) memory.Store {
		st := memstore.New()
		for _, e := range entries {
			if err := st.Append(t.Context(), e.Record, e.Visibility); err != nil {
				t.Fatalf("append %s: %v", e.Record.Key, err)
			}
		}
		return st
	})
}

// TestJournal runs the append contract against the in-memory journal.
func TestJournal(t *testing.T) {
	memorytest.RunJournal(t, func(t *testing.T) memory.Journal { return memstore.New() })
}
