package ledger_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/ledger"
)

// TestNumerals_OneAllocation guards the price of a window's ledger, which
// lists every event behind the answer: Numerals allocates its list once,
// and Grounding gathers a request's numerals into one allocation.
func TestNumerals_OneAllocation(t *testing.T) {
	ids := make([]string, 150)
	for i := range ids {
		ids[i] = fmt.Sprintf("evt-%06d", 1000+i)
	}
	r := result(t, "count_events_in_window", map[string]string{"store_id": "st-003", "state": "LOW_STOCK", "start": "2026-01-08T00:00:00Z", "end": "2026-01-15T00:00:00Z"},
		fact.RowCount(len(ids)), ids)
	d := def(t, r.Tool)
	if got := len(ledger.Numerals(r, d)); got != len(ids)+6 {
		t.Fatalf("Numerals lists %d numerals; want %d (count, store, %d events, event count, 2 instants, window)", got, len(ids)+6, len(ids))
	}
	if a := testing.AllocsPerRun(20, func() { ledger.Numerals(r, d) }); a > 1 {
		t.Errorf("Numerals allocates %.0f times; want 1", a)
	}
	one := ledger.New(&ledger.Sequence{})
	one.Record(r, d)
	if a := testing.AllocsPerRun(20, func() { one.Grounding() }); a > 0 {
		t.Errorf("Grounding of one result allocates %.0f times; want 0 (its numerals as recorded)", a)
	}
	l := ledger.New(&ledger.Sequence{})
	l.Record(r, d)
	l.Record(r, d)
	if got := len(l.Grounding().Numerals); got != 2*(len(ids)+6) {
		t.Fatalf("Grounding lists %d numerals; want %d", got, 2*(len(ids)+6))
	}
	if a := testing.AllocsPerRun(20, func() { l.Grounding() }); a > 1 {
		t.Errorf("Grounding allocates %.0f times; want 1", a)
	}
}

// TestNumerals_PartialProvenanceSizedByListed guards a query_metric
// answer over millions of rows, whose provenance lists its first keys and
// sums the rest (fact.EventsInPart): Numerals sized its list by the total
// (2,000,000 events: about 150 MB allocated and cleared a call) where only
// the listed ones are numerals.
func TestNumerals_PartialProvenanceSizedByListed(t *testing.T) {
	first := make([]string, 1000)
	for i := range first {
		first[i] = fmt.Sprintf("evt-%08d", i)
	}
	const total = 2_000_000
	p, err := fact.EventsInPart(first, total, fact.LtHashScheme+strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	r, err := fact.NewResult("count_events_in_window", map[string]string{"store_id": "st-003", "state": "LOW_STOCK", "start": "2026-01-08T00:00:00Z", "end": "2026-01-15T00:00:00Z"}, fact.RowCount(total), p)
	if err != nil {
		t.Fatal(err)
	}
	got := ledger.Numerals(r, def(t, r.Tool))
	if len(got) != len(first)+6 {
		t.Fatalf("Numerals lists %d numerals; want %d (count, store, %d listed events, event count, 2 instants, window)", len(got), len(first)+6, len(first))
	}
	if c := cap(got); c > 2*len(first) {
		t.Errorf("Numerals allocated room for %d numerals; want at most %d (the listed events, not the %d in total)", c, 2*len(first), total)
	}
}
