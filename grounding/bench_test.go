package grounding

import (
	"strings"
	"testing"
)

// benchAnswer is a typical composed answer of about 300 bytes.
const benchAnswer = "As of 2026-01-06T08:00:00Z, 3 stores have condition OUT_OF_STOCK: st-003, st-007 and st-012. " +
	"At st-003 the price of pr-007 is $7.81 (781 cents), 12% below last week; " +
	"between 2026-01-01 and 2026-01-05 there were 14 scans, 1,234 in all. " +
	"Two products, pr-021 and pr-024, are LOW_STOCK. None expired."

// benchLedger holds 20 numerals, the ones the answer cites among them.
func benchLedger() Ledger {
	l := Ledger{Numerals: []Numeral{
		{Value: ts0800, Unit: UnitTimestamp, Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"}},
		{Value: 3, Unit: UnitCount},
		{ID: "st-003", Unit: UnitID}, {ID: "st-007", Unit: UnitID}, {ID: "st-012", Unit: UnitID},
		{ID: "pr-007", Unit: UnitID}, {ID: "pr-021", Unit: UnitID}, {ID: "pr-024", Unit: UnitID},
		{Value: 781, Unit: UnitCents},
		{Value: 0.12, Unit: UnitRatio},
		{Value: 14, Unit: UnitCount},
		{Value: 1234, Unit: UnitCount},
		{Value: 2, Unit: UnitCount},
	}}
	for i := len(l.Numerals); i < 20; i++ {
		l.Numerals = append(l.Numerals, Numeral{Value: float64(1000 + 37*i), Unit: UnitCents})
	}
	return l
}

func BenchmarkCheck(b *testing.B) {
	l, p := benchLedger(), DefaultPolicy()
	q := "How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?"
	if r := Check(benchAnswer, l, q, p); r.Verdict != Pass {
		b.Fatalf("benchmark answer is refused: %v", r.Unmatched)
	}
	b.SetBytes(int64(len(benchAnswer)))
	b.ReportAllocs()
	for b.Loop() {
		Check(benchAnswer, l, q, p)
	}
}

func BenchmarkExtract(b *testing.B) {
	text := strings.Repeat(benchAnswer+"\n", 4000) // about 1.2 MB
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(text)
	}
}
