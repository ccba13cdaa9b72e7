package grounding

import (
	"fmt"
	"testing"
)

// windowLedger is what a window count's ledger holds: the count, the
// store, the window and n event ids (every event behind the answer).
func windowLedger(n int) Ledger {
	l := Ledger{Numerals: []Numeral{
		{Value: float64(n), Unit: UnitCount},
		{ID: "st-003", Unit: UnitID},
		{Unit: UnitTimestamp, Window: [2]string{"2026-01-08T00:00:00Z", "2026-01-15T00:00:00Z"}},
	}}
	for i := range n {
		l.Numerals = append(l.Numerals, Numeral{ID: fmt.Sprintf("evt-%06d", 1000+i), Unit: UnitID})
	}
	return l
}

// TestCheck_IdentifiersCostNoAllocation guards the price of grounding a
// window's answer: the ledger's identifiers (one per event behind it) are
// read only when the sentence names one, so a ledger of a thousand of them
// costs Check no more allocations than one of ten.
func TestCheck_IdentifiersCostNoAllocation(t *testing.T) {
	text := "There were 1000 LOW_STOCK events at st-003 between 2026-01-08T00:00:00Z and 2026-01-15T00:00:00Z."
	p := DefaultPolicy()
	allocs := func(n int) float64 {
		l := windowLedger(n)
		l.Numerals[0].Value = 1000
		if r := Check(text, l, "", p); r.Verdict != Pass {
			t.Fatalf("%d ids: refused %v", n, r.Unmatched)
		}
		return testing.AllocsPerRun(50, func() { Check(text, l, "", p) })
	}
	if small, large := allocs(10), allocs(1000); large > small {
		t.Errorf("Check allocates %.0f times with 1000 ids in the ledger, %.0f with 10", large, small)
	}
}

// TestCheck_IdentifiersOfALargeLedger checks that every identifier of a
// large ledger still backs what it backed: by its text (case and width
// folded), and under the identifier allowance by its digits.
func TestCheck_IdentifiersOfALargeLedger(t *testing.T) {
	ident := DefaultPolicy()
	ident.Allow[AllowIdentifier] = true
	tests := []struct {
		name, text string
		p          Policy
		want       Verdict
	}{
		{"last id named", "Read evt-001149 first.", DefaultPolicy(), Pass},
		{"first id named, strict policy", "Read evt-001000 now.", StrictPolicy(), Pass},
		{"id in other case", "Read EVT-001010 first.", DefaultPolicy(), Pass},
		{"fullwidth id", "Read evt-００１０１０ first.", DefaultPolicy(), Pass},
		{"id not in the ledger", "Read evt-001150 first.", DefaultPolicy(), Refuse},
		{"identifier digits allowed", "Event 1149 is the last.", ident, Pass},
		{"identifier digits off", "Event 1149 is the last.", DefaultPolicy(), Refuse},
		{"digits of no id", "Event 1150 is the last.", ident, Refuse},
	}
	l := windowLedger(150)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := Check(tt.text, l, "", tt.p); r.Verdict != tt.want {
				t.Errorf("Check(%q) = %s %v; want %s", tt.text, r.Verdict, r.Unmatched, tt.want)
			}
		})
	}
}
