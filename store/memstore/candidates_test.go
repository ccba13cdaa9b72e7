package memstore

import (
	"testing"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
)

// TestCandidates_StoreScopedAsOf guards the cost of a one-store as-of
// question (list_products_in_state's re-derivation): it examines that
// store's intervals only, never the other stores' in the time bucket.
func TestCandidates_StoreScopedAsOf(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
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
