package shape

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestDistinctSorted: the distinct values, sorted, whatever the order
// and repeats of the input; an input already strictly increasing is
// returned as it is (no copy), and the input is never changed.
func TestDistinctSorted(t *testing.T) {
	tests := []struct {
		name  string
		in    []string
		want  []string
		alias bool
	}{
		{"none", nil, nil, true},
		{"one", []string{"a"}, []string{"a"}, true},
		{"increasing", []string{"wh-evt-00000001", "wh-evt-00000002", "wh-evt-00000010"}, []string{"wh-evt-00000001", "wh-evt-00000002", "wh-evt-00000010"}, true},
		{"repeat at the end", []string{"a", "b", "b"}, []string{"a", "b"}, false},
		{"descending", []string{"c", "b", "a"}, []string{"a", "b", "c"}, false},
		{"bytewise, not by length", []string{"k10", "k9"}, []string{"k10", "k9"}, true},
		{"one out of place", []string{"a", "c", "b", "d"}, []string{"a", "b", "c", "d"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			got := distinctSorted(in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("distinctSorted(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !slices.Equal(in, tt.in) {
				t.Errorf("the input changed to %q", in)
			}
			if aliased := len(got) > 0 && &got[0] == &in[0]; aliased != (tt.alias && len(in) > 0) {
				t.Errorf("returned the input itself: %v, want %v", aliased, tt.alias)
			}
		})
	}
	rapid.Check(t, func(rt *rapid.T) {
		in := rapid.SliceOf(rapid.StringMatching(`[a-c]{0,3}`)).Draw(rt, "in")
		if rapid.Bool().Draw(rt, "sorted") {
			slices.Sort(in)
		}
		orig := slices.Clone(in)
		want := slices.Compact(slices.Sorted(slices.Values(in)))
		if got := distinctSorted(in); !slices.Equal(got, want) || !slices.Equal(in, orig) {
			rt.Fatalf("distinctSorted(%q) = %q (input now %q), want %q", orig, got, in, want)
		}
	})
}

// TestKeyWalk: whatever the order keys are asked in (increasing as a
// window's rows mostly come, repeated, or back and forth), keyWalk finds
// what a binary search finds: the first position of an equal key, and
// whether there is one.
func TestKeyWalk(t *testing.T) {
	keys := []string{"k02", "k04", "k04", "k06"}
	tests := []struct {
		name string
		ask  []string
	}{
		{"none asked", nil},
		{"increasing", []string{"k01", "k02", "k03", "k04", "k05", "k06", "k07"}},
		{"repeated", []string{"k02", "k02", "k04", "k04", "k06", "k06"}},
		{"back after the last", []string{"k07", "k06", "k02"}},
		{"back and forth", []string{"k04", "k02", "k06", "k04", "k01"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := keyWalk{keys: keys}
			for _, k := range tt.ask {
				gi, gok := w.find(k)
				wi, wok := slices.BinarySearch(keys, k)
				if gok != wok || gok && gi != wi {
					t.Fatalf("find(%q) = %d, %v; want %d, %v", k, gi, gok, wi, wok)
				}
			}
		})
	}
	if i, ok := (&keyWalk{}).find("k"); ok {
		t.Errorf("find among no keys = %d, true", i)
	}
	rapid.Check(t, func(rt *rapid.T) {
		keys := rapid.SliceOf(rapid.StringMatching(`[a-d]{0,2}`)).Draw(rt, "keys")
		slices.Sort(keys)
		ask := rapid.SliceOf(rapid.StringMatching(`[a-d]{0,2}`)).Draw(rt, "ask")
		if rapid.Bool().Draw(rt, "increasing") {
			slices.Sort(ask)
		}
		w := keyWalk{keys: keys}
		for _, k := range ask {
			gi, gok := w.find(k)
			wi, wok := slices.BinarySearch(keys, k)
			if gok != wok || gok && gi != wi {
				rt.Fatalf("find(%q) in %q = %d, %v; want %d, %v", k, keys, gi, gok, wi, wok)
			}
		}
	})
}
