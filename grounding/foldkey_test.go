package grounding

import (
	"strings"
	"testing"
)

// FuzzFoldKey holds foldKey to strings.EqualFold: two strings share a
// key exactly when EqualFold holds of them, so that a set lookup by key
// (bareIDs) answers as comparing with each bare identifier did.
func FuzzFoldKey(f *testing.F) {
	for _, p := range [][2]string{
		{"dev-0001", "DEV-0001"}, {"st-003", "ST-003"}, {"k", "\u212a"}, {"s", "\u017f"},
		{"\xff", "\xfe"}, {"\xff", "\ufffd"}, {"ß", "SS"}, {"Σ", "ς"}, {"ﬃ", "FFI"},
		{"dev-0001", "dev-0002"}, {"", ""}, {"a", ""}, {"İ", "i"}, {"ǅ", "ǆ"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := foldKey(a) == foldKey(b), strings.EqualFold(a, b); got != want {
			t.Fatalf("foldKey(%q) == foldKey(%q) is %v, EqualFold %v", a, b, got, want)
		}
	})
}

// TestBareIDs: a found identifier matches a bare identifier of the
// ledger by EqualFold on their normalized texts, and nothing else does.
func TestBareIDs(t *testing.T) {
	l := Ledger{Numerals: []Numeral{
		{ID: "dev-0001", Unit: UnitID},
		{ID: "ＤＥＶ－０００２", Unit: UnitID},                              // normalized to DEV-0002
		{ID: "dev-0003", Unit: UnitCount, Value: 3},                 // not bare: a value
		{ID: "dev-0004", Unit: UnitID, Window: [2]string{"a", "b"}}, // not bare: a window
	}}
	for _, tc := range []struct {
		found string
		want  bool
	}{
		{"dev-0001", true}, {"DEV-0001", true}, {"dev-0002", true}, {"dev-0003", false},
		{"dev-0004", false}, {"dev-0005", false}, {"", false},
	} {
		t.Run(tc.found, func(t *testing.T) {
			norm := normText(tc.found)
			// By comparing with each (the first lookups), and by the set.
			var b bareIDs
			for i := range bareIDScans + 2 {
				if got := b.has(norm, l); got != tc.want {
					t.Fatalf("lookup %d: has(%q) = %v, want %v", i, tc.found, got, tc.want)
				}
			}
			// The reference: EqualFold against each bare identifier.
			ref := false
			for _, n := range l.Numerals {
				ref = ref || bareID(n) && n.ID != "" && strings.EqualFold(norm, normText(n.ID))
			}
			if ref != tc.want {
				t.Fatalf("reference for %q = %v, want %v", tc.found, ref, tc.want)
			}
		})
	}
}
