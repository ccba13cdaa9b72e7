package memstore

import (
	"testing"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
)

// demoStore is a store over the embedded demo dataset.
func demoStore(t *testing.T) *Store {
	t.Helper()
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCandidates_StoreScopedAsOf guards the cost of a one-store as-of
// question (list_products_in_state's re-derivation): it examines that
// store's intervals only, never the other stores' in the time bucket.
func TestCandidates_StoreScopedAsOf(t *testing.T) {
	s := demoStore(t)
	tests := []struct {
		name string
		sel  retail.Selection
	}{
		{"inside the span", retail.Selection{StoreID: "st-003", Latest: true, AsOf: "2026-01-06T08:00:00Z"}},
		{"after the span", retail.Selection{StoreID: "st-007", Latest: true, AsOf: "2027-01-01T00:00:00Z"}},
		{"pair", retail.Selection{StoreID: "st-003", ProductID: "pr-007", Latest: true, AsOf: "2026-01-06T08:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, all, _, err := s.candidates(tt.sel)
			if err != nil || all {
				t.Fatalf("candidates() = all %t, %v", all, err)
			}
			if len(c) == 0 {
				t.Fatal("no candidates")
			}
			for _, i := range c {
				if got := s.ivs[i].e.StoreID; got != tt.sel.StoreID {
					t.Fatalf("examines an interval of %s for a question about %s (%d candidates)", got, tt.sel.StoreID, len(c))
				}
			}
		})
	}
}

// TestCandidates_StoreStateWindow guards the cost of a window count's
// re-derivation: a one-store, one-state window examines that store's
// events in that state only.
func TestCandidates_StoreStateWindow(t *testing.T) {
	s := demoStore(t)
	for _, state := range retail.States {
		t.Run(string(state), func(t *testing.T) {
			sel := retail.Selection{StoreID: "st-003", Start: "2026-01-01T00:00:00Z", End: "2026-01-08T00:00:00Z",
				Match: retail.Match{States: []retail.State{state}}}
			c, all, _, err := s.candidates(sel)
			if err != nil || all {
				t.Fatalf("candidates() = all %t, %v", all, err)
			}
			for _, i := range c {
				if e := s.ivs[i].e; e.StoreID != sel.StoreID || e.State != state {
					t.Fatalf("examines %s in %s for a window of %s in %s (%d candidates)", e.StoreID, e.State, sel.StoreID, state, len(c))
				}
			}
			got, err := s.Select(t.Context(), sel)
			if err != nil || len(got) != len(c) {
				t.Errorf("Select() = %d events, %v; want the %d candidates", len(got), err, len(c))
			}
		})
	}
}

// TestSelect_OneAllocation guards the price of a window's re-derivation:
// Select allocates its result once, at its size.
func TestSelect_OneAllocation(t *testing.T) {
	s := demoStore(t)
	sel := retail.Selection{StoreID: "st-003", Start: "2026-01-01T00:00:00Z", End: "2026-01-08T00:00:00Z"}
	got, err := s.Select(t.Context(), sel)
	if err != nil || len(got) < 50 {
		t.Fatalf("Select() = %d events, %v; want a window of at least 50", len(got), err)
	}
	if cap(got) != len(got) {
		t.Errorf("Select() result has capacity %d for %d events", cap(got), len(got))
	}
	if a := testing.AllocsPerRun(20, func() { s.Select(t.Context(), sel) }); a > 3 {
		t.Errorf("Select allocates %.0f times; want at most 3 (the result and the closures)", a)
	}
}
