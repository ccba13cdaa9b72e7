package grounding

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"",
	"The price of pr-007 at st-003 as of 2026-01-06T08:00:00Z is $7.81 (781 cents).",
	"3 stores: 1,234 and 12,345.67, -3, −3, 12%, 12 percent, 12 per cent, $3.49, 3.49 USD, USD 3.49, EUR 12, €12, £5, 3 dollars, 299 cents",
	"12 to 15, 12-15, 12–15, 1.2e3, 3E-2, three stores, twenty-one, one of them, 2026-01-06, evt-000123",
	"1. First item\n2) second item\n3. third\n1st, 2nd, 23rd, e.g. 3.49. Next sentence.",
	"$12-15, 12-15%, 1.2 million dollars, 50 pence, 50 to 60 pence, 3.",
	"1e999 -1e999 $-.5 .5. 2026-02-30 2026-01-06T25:00:00Z 2026-01-06T08:00:00.1234567891Z",
	"ab-1a st-003- --3 -$ $ - 1 to to 2 twenty- twenty one- 1,23,456 1,234,5678",
	"\u00a0\u00a012\u00a0%\u00a0 \xff\xfe 1\xe2\x88 \xe2\x82\xac",
	// Scale words and suffixes, money-only letters, metres.
	"9 hundred stores, 9k, 9K, 9 k, nine dozen, thirteen hundred, two hundred thousand, 1.2 million, 3mn, 2bn, 5 lakh, 2 crore, a dozen",
	"one hundred and twenty-three, a hundred and two, one hundred and first, two hundred and five thousand, hundred and and, one hundred and 5",
	"$1.2M $1.2m $1.2bn $3B €5k £3m 5m dollars 5 m of shelf 5m aisle 3B $1-2m 1e999k 9km st-003 k mp3k",
	// Digits outside ASCII, superscripts, fullwidth forms, Arabic separators.
	"１４ stores, $９.８１, １２．５％, ٣٫٥, ۱۲, १३, ৪২, 𝟕, footnote¹, x⁴⁵, 10², CO₂, ｓｔ－００３, ٪٥, ￡５, ５￠",
	"\uff10\u0660\u06f0\u0966\u09e6\u0e50\U0001d7ce \u00b9\u00b2\u00b3\u2070\u2074\u2089 1\u00b9 \u00b91",
	// Honest rounding.
	"3.14 3.15 $7.8 $8 12.3% 12.4% 0.123 4,000 3,990 2.4e3 2.41e3 -100.1 1050 pence 7.805",
	// Inline lists.
	"Two products: 1. oat milk 2. rye bread; 1) a, 2) b, 3) c\nwe saw 1) oat 2) rye 3) tea\nStores: 3. Products: 4.\nTwo: 1. oat\n2. rye\nwe saw 2. rye 1) x",
}

// FuzzExtract: no panic; every numeral's span is inside the text, in order,
// and its Text is exactly the text there; values are finite (a report
// always encodes); units are in the vocabulary; the output is bounded by
// the input's length.
func FuzzExtract(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ns := extract(text)
		if len(ns) > len(text) {
			t.Fatalf("%d numerals from %d bytes", len(ns), len(text))
		}
		prev := 0
		for _, n := range ns {
			if n.Start < 0 || n.End > len(text) || n.Start >= n.End {
				t.Fatalf("numeral %q has span [%d:%d] in %d bytes", n.Text, n.Start, n.End, len(text))
			}
			if n.Text != text[n.Start:n.End] {
				t.Fatalf("numeral text %q is not the text at [%d:%d] (%q)", n.Text, n.Start, n.End, text[n.Start:n.End])
			}
			if n.Start < prev {
				t.Fatalf("numeral %q at %d comes before the previous at %d", n.Text, n.Start, prev)
			}
			prev = n.Start
			if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
				t.Fatalf("numeral %q has value %v", n.Text, n.Value)
			}
			if !knownUnit(n.Unit) || n.Unit == UnitCount || n.Unit == UnitRatio {
				t.Fatalf("numeral %q has unit %q", n.Text, n.Unit)
			}
			if n.Unit == UnitID && !strings.Contains(n.Text, "-") && !strings.Contains(n.Text, "\uff0d") {
				t.Fatalf("identifier %q has no hyphen", n.Text)
			}
			if n.sentence < 0 {
				t.Fatalf("numeral %q in sentence %d", n.Text, n.sentence)
			}
		}
		if utf8.ValidString(text) {
			for _, n := range ns {
				if !utf8.ValidString(n.Text) {
					t.Fatalf("numeral %q splits a character", n.Text)
				}
			}
		}
	})
}

// FuzzCheck: no panic, and the report is consistent and encodes as JSON,
// for any text and question against a fixed ledger under both policies.
func FuzzCheck(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?")
	}
	l := Ledger{Numerals: []Numeral{
		{Value: 781, Unit: UnitCents},
		{Value: 3, Unit: UnitCount},
		{Value: 0.12, Unit: UnitRatio},
		{Value: ts0800, Unit: UnitTimestamp, Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"}},
		{ID: "st-003"},
		{ID: "evt-000123", Unit: UnitID},
	}}
	f.Fuzz(func(t *testing.T, text, question string) {
		for _, p := range []Policy{DefaultPolicy(), StrictPolicy(), {MatchRelTol: 0.5, Allow: map[Allowance]bool{AllowIdentifier: true}}} {
			outs, r := check(text, l, question, p)
			if r.NumeralsTotal != len(outs) {
				t.Fatalf("total %d, %d outcomes", r.NumeralsTotal, len(outs))
			}
			hits := 0
			for _, n := range r.AllowanceHits {
				hits += n
			}
			matched := 0
			for _, o := range outs {
				if o.matched {
					matched++
				}
			}
			if len(r.AllowanceHits) != 4 || hits+matched+len(r.Unmatched) != r.NumeralsTotal {
				t.Fatalf("hits %v, matched %d, unmatched %d, total %d", r.AllowanceHits, matched, len(r.Unmatched), r.NumeralsTotal)
			}
			if (r.Verdict == Pass) != (len(r.Unmatched) == 0) || r.Unmatched == nil {
				t.Fatalf("verdict %s with unmatched %v", r.Verdict, r.Unmatched)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("report does not encode: %v", err)
			}
		}
	})
}

// FuzzParseLedger: no panic; a ledger that parses is valid, and its error
// messages never repeat a long run of the input.
func FuzzParseLedger(f *testing.F) {
	f.Add(`{"numerals": [{"value": 781, "unit": "cents", "id": "res-000001", "window": ["2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"]}]}`)
	f.Add(`{"numerals": [{"value": "2026-01-06T08:00:00Z", "unit": "timestamp"}, {"id": "st-003"}]}`)
	f.Add(`{"numerals": [{"valu": 3}]}`)
	f.Add(`{"numerals": [{"value": "SECRETSECRETSECRET"}]}`)
	f.Add(`{"numerals": [{"SECRETSECRETSECRET": 1}]}`)
	f.Add(`{"numerals": [}`)
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ParseLedger(strings.NewReader(in))
		if err != nil {
			// Neither values nor keys are ever repeated.
			if strings.Contains(err.Error(), "SECRETSECRETSECRET") {
				t.Fatalf("error %q echoes a value", err)
			}
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("parsed ledger is invalid: %v", err)
		}
		Check("3 stores at $7.81", l, "", DefaultPolicy())
	})
}
