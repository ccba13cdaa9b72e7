package grounding

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The property tests render ledger numerals as text in every format the
// checker must read as the same quantity, and build fresh numerals that
// no ledger numeral backs. The oracle for "backs" is deliberately cruder
// than the matcher: it compares every reading of a numeral (as written and
// in its canonical unit) with every reading of a ledger numeral, so a
// fresh numeral is far from the ledger however the checker reads it.

const tol = DefaultMatchRelTol

var numberWordsTest = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// valueUnits are the units the generators draw ledger values from.
var valueUnits = []Unit{UnitNone, UnitCount, UnitCents, UnitUSD, UnitEUR, UnitGBP, UnitRatio, UnitPercent}

func drawNumeral(t *rapid.T, label string) Numeral {
	u := rapid.SampledFrom(valueUnits).Draw(t, label+".unit")
	var v float64
	switch u {
	case UnitNone, UnitCount:
		v = float64(rapid.IntRange(0, 5_000_000).Draw(t, label+".value"))
	case UnitCents:
		v = float64(rapid.IntRange(1, 10_000_000).Draw(t, label+".value"))
	case UnitUSD, UnitEUR, UnitGBP:
		v = float64(rapid.IntRange(1, 10_000_000).Draw(t, label+".value")) / 100
	case UnitRatio:
		v = float64(rapid.IntRange(1, 10_000).Draw(t, label+".value")) / 10_000
	case UnitPercent:
		v = float64(rapid.IntRange(1, 10_000).Draw(t, label+".value")) / 100
	}
	return Numeral{Value: v, Unit: u}
}

// readings are the numbers a numeral may be read as: its value as written
// and its value in the canonical unit.
func readings(v float64, u Unit) []float64 {
	c := canonicalOf(v, u)
	return []float64{c.raw, c.v}
}

// farFrom reports whether every reading of (v, u) is more than k × tol
// (relative) from every reading of every ledger value.
func farFrom(v float64, u Unit, l Ledger, k float64) bool {
	for _, n := range l.Numerals {
		if n.Unit == UnitID || n.Unit == UnitTimestamp || n.Unit == UnitDate {
			continue
		}
		for _, a := range readings(v, u) {
			for _, b := range readings(n.Value, n.Unit) {
				if math.Abs(a-b) <= k*tol*math.Max(math.Max(math.Abs(a), math.Abs(b)), tiny) {
					return false
				}
			}
		}
	}
	return true
}

// groupThousands writes a non-negative integer with thousands separators.
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// money writes a major-unit amount with two decimals, grouped or not.
func money(cents int64, grouped bool) string {
	whole := strconv.FormatInt(cents/100, 10)
	if grouped {
		whole = groupThousands(cents / 100)
	}
	return fmt.Sprintf("%s.%02d", whole, cents%100)
}

func short(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// roundSig rounds v to k significant digits.
func roundSig(v float64, k int) float64 {
	if v == 0 {
		return 0
	}
	// Divide by an exact power of ten rather than multiply by an inexact
	// one: 2,888,447 to two digits is 2,900,000, never 2,899,999.99….
	e := int(math.Ceil(math.Log10(math.Abs(v)))) - k
	if e > 0 {
		p := math.Pow10(e)
		return math.Round(v/p) * p
	}
	p := math.Pow10(-e)
	return math.Round(v*p) / p
}

// within reports whether a rounded value is inside the tolerance with a
// margin, so float noise never decides a property.
func within(rounded, exact float64) bool {
	return math.Abs(rounded-exact) <= 0.8*tol*math.Abs(exact)
}

// renderings returns every text the checker must read as n.
func renderings(n Numeral) []string {
	var out []string
	switch n.Unit {
	case UnitNone, UnitCount:
		i := int64(n.Value)
		out = append(out, strconv.FormatInt(i, 10), strconv.FormatInt(i, 10)+".0")
		if i >= 1000 {
			out = append(out, groupThousands(i))
		}
		if i <= 20 {
			out = append(out, numberWordsTest[i], strings.ToUpper(numberWordsTest[i][:1])+numberWordsTest[i][1:])
		}
		for k := 2; k <= 4; k++ {
			if r := roundSig(n.Value, k); r != n.Value && within(r, n.Value) {
				out = append(out, groupThousands(int64(r)))
			}
		}
		if n.Value >= 1e6 {
			if r := roundSig(n.Value, 3); within(r, n.Value) {
				out = append(out, short(r/1e6)+" million", short(r/1e6)+"M", short(r/1e6)+"mn")
			}
		}
		if n.Value >= 1e4 {
			if r := roundSig(n.Value, 3); within(r, n.Value) {
				out = append(out, short(r/1e3)+"k", short(r/1e3)+" thousand")
			}
		}
	case UnitCents, UnitUSD, UnitEUR, UnitGBP:
		c := canonicalOf(n.Value, n.Unit)
		cents := int64(math.Round(c.v))
		major := []string{money(cents, false), money(cents, true)}
		if r := roundSig(float64(cents), 3); r != float64(cents) && within(r, float64(cents)) {
			major = append(major, short(r/100)) // honest rounding: $7.8 for 781 cents
		}
		if cents >= 1e8 { // a million or more: "$1.23M", "$1.23m", "$1.23 million"
			if r := roundSig(float64(cents), 3); within(r, float64(cents)) {
				for _, sfx := range []string{"M", "m", "mn", " million"} {
					major = append(major, short(r/1e8)+sfx)
				}
			}
		}
		out = append(out, strconv.FormatInt(cents, 10)) // a bare number in canonical cents
		for _, m := range major {
			switch c.cur {
			case curUSD:
				out = append(out, "$"+m, m+" dollars", "USD "+m, m+" USD")
			case curEUR:
				out = append(out, "€"+m, "EUR "+m, m+" EUR", m+" euros", m+" €")
			case curGBP:
				out = append(out, "£"+m, "GBP "+m, m+" pounds", m+" GBP")
			}
		}
		switch c.cur {
		case curUSD:
			out = append(out, strconv.FormatInt(cents, 10)+" cents", strconv.FormatInt(cents, 10)+"¢")
		case curGBP:
			out = append(out, strconv.FormatInt(cents, 10)+" pence")
		}
	case UnitRatio, UnitPercent:
		c := canonicalOf(n.Value, n.Unit)
		pct := math.Round(c.v*1e6) / 1e4 // percent, up to two decimals
		p := short(pct)
		out = append(out, p+"%", p+" percent", p+" per cent", short(math.Round(c.v*1e6)/1e6))
		for k := 2; k <= 3; k++ {
			if r := roundSig(pct, k); r != pct && within(r, pct) {
				out = append(out, short(r)+"%")
			}
		}
	}
	return out
}

// sentenceOf puts a numeral's text in a sentence that adds no numeral.
func sentenceOf(s string) string { return "The figure is " + s + "." }

// TestProperty_StrictRefusesFresh: under StrictPolicy a numeral that no
// ledger numeral backs is refused, whatever else the text cites.
func TestProperty_StrictRefusesFresh(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l Ledger
		n := rapid.IntRange(0, 8).Draw(t, "ledger size")
		for i := range n {
			l.Numerals = append(l.Numerals, drawNumeral(t, fmt.Sprintf("n%d", i)))
		}
		l.Numerals = append(l.Numerals, Numeral{ID: "st-003", Unit: UnitID}, Numeral{Value: ts0800, Unit: UnitTimestamp})
		// Cite some ledger numerals, matched.
		var parts []string
		for i, ln := range l.Numerals[:n] {
			if rapid.Bool().Draw(t, fmt.Sprintf("cite%d", i)) {
				r := renderings(ln)
				parts = append(parts, sentenceOf(r[rapid.IntRange(0, len(r)-1).Draw(t, fmt.Sprintf("format%d", i))]))
			}
		}
		fresh, freshText := drawFresh(t, l)
		at := rapid.IntRange(0, len(parts)).Draw(t, "position")
		parts = slices.Insert(parts, at, sentenceOf(freshText))
		text := strings.Join(parts, " ")

		r := Check(text, l, "", StrictPolicy())
		if r.Verdict != Refuse || len(r.Unmatched) != 1 || r.Unmatched[0].Text != freshText {
			t.Fatalf("Check(%q) = %s, unmatched %v; want REFUSE with exactly %q (%v)", text, r.Verdict, r.Unmatched, freshText, fresh)
		}
	})
}

// drawFresh draws a numeral no ledger numeral backs, in one of many
// formats, and returns its value and its text.
func drawFresh(t *rapid.T, l Ledger) (Numeral, string) {
	kind := rapid.SampledFrom([]string{"int", "grouped", "decimal", "negative", "usd", "eur", "gbp", "cents", "percent", "ratio", "spelled", "scientific", "timestamp", "date", "id"}).Draw(t, "fresh kind")
	switch kind {
	case "timestamp":
		sec := rapid.Int64Range(0, 4e9).Draw(t, "fresh seconds")
		if sec == ts0800 {
			sec++
		}
		return Numeral{Value: float64(sec), Unit: UnitTimestamp}, time.Unix(sec, 0).UTC().Format(time.RFC3339)
	case "date":
		d := rapid.Int64Range(0, 40000).Draw(t, "fresh day") * 86400
		return Numeral{Value: float64(d), Unit: UnitDate}, time.Unix(d, 0).UTC().Format(time.DateOnly)
	case "id":
		k := rapid.IntRange(0, 99999).Draw(t, "fresh id")
		if k == 3 {
			k = 4
		}
		return Numeral{Value: float64(k), Unit: UnitID}, fmt.Sprintf("st-%03d", k)
	case "spelled":
		for _, k := range rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}).Draw(t, "fresh words") {
			if farFrom(float64(k), UnitNone, l, 2) {
				return Numeral{Value: float64(k)}, numberWordsTest[k]
			}
		}
		kind = "int" // every small number is taken: fall back to digits
	}
	// A seed value, bumped by 3.7% at a time until it is more than twice
	// the tolerance from every ledger reading (the forbidden bands are
	// narrower than a bump, so a few bumps always escape).
	x := math.Pow(10, rapid.Float64Range(-1, 7).Draw(t, "fresh magnitude"))
	for range 1000 {
		var n Numeral
		var s string
		switch kind {
		case "int":
			i := int64(math.Round(x))
			n, s = Numeral{Value: float64(i)}, strconv.FormatInt(i, 10)
		case "grouped":
			i := int64(math.Round(x)) + 1000
			n, s = Numeral{Value: float64(i)}, groupThousands(i)
		case "decimal":
			v := math.Round(x*100) / 100
			n, s = Numeral{Value: v}, strconv.FormatFloat(v, 'f', 2, 64)
		case "negative":
			i := int64(math.Round(x)) + 1
			n, s = Numeral{Value: float64(-i)}, "-"+strconv.FormatInt(i, 10)
		case "usd", "eur", "gbp", "cents":
			cents := int64(math.Round(x*100)) + 1
			switch kind {
			case "usd":
				n, s = Numeral{Value: float64(cents) / 100, Unit: UnitUSD}, "$"+money(cents, true)
			case "eur":
				n, s = Numeral{Value: float64(cents) / 100, Unit: UnitEUR}, "€"+money(cents, false)
			case "gbp":
				n, s = Numeral{Value: float64(cents) / 100, Unit: UnitGBP}, money(cents, false)+" pounds"
			case "cents":
				n, s = Numeral{Value: float64(cents), Unit: UnitCents}, strconv.FormatInt(cents, 10)+" cents"
			}
		case "percent":
			p := math.Round(x*100) / 100
			n, s = Numeral{Value: p, Unit: UnitPercent}, short(p)+"%"
		case "ratio":
			r := math.Round(x*1e4) / 1e6
			n, s = Numeral{Value: r}, short(r)
		case "scientific":
			m := math.Round(x*100) / 100
			n, s = Numeral{Value: m * 1e3}, short(m)+"e3"
		}
		if n.Value != 0 && farFrom(n.Value, n.Unit, l, 2) {
			return n, s
		}
		x *= 1.037
	}
	t.Fatalf("no fresh %s numeral found near %v", kind, x)
	return Numeral{}, ""
}

// TestProperty_ReformattingKeepsPass: a text citing ledger numerals passes
// in every format of each (separators, percent or ratio, symbol, code or
// word, cents or major units, rounding within tolerance).
func TestProperty_ReformattingKeepsPass(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l Ledger
		for i := range rapid.IntRange(1, 8).Draw(t, "ledger size") {
			l.Numerals = append(l.Numerals, drawNumeral(t, fmt.Sprintf("n%d", i)))
		}
		policy := rapid.SampledFrom([]string{"strict", "default"}).Draw(t, "policy")
		p := StrictPolicy()
		if policy == "default" {
			p = DefaultPolicy()
		}
		for _, pass := range []string{"a", "b"} {
			var parts []string
			for i, n := range l.Numerals {
				r := renderings(n)
				parts = append(parts, sentenceOf(r[rapid.IntRange(0, len(r)-1).Draw(t, fmt.Sprintf("%s format%d", pass, i))]))
			}
			text := strings.Join(parts, " ")
			if r := Check(text, l, "", p); r.Verdict != Pass {
				t.Fatalf("Check(%q) under %s = %s, unmatched %v; want PASS", text, policy, r.Verdict, r.Unmatched)
			}
		}
	})
}

// TestProperty_RenderingsAreOneNumeral checks the test's own renderings:
// each is exactly one numeral, so the properties above test what they say.
func TestProperty_RenderingsAreOneNumeral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := drawNumeral(t, "n")
		for _, s := range renderings(n) {
			if got := Extract(sentenceOf(s)); len(got) != 1 || got[0].Text != s {
				t.Fatalf("rendering %q of %v extracts as %+v", s, n, got)
			}
		}
	})
}

// TestProperty_DigitEditRefused: when the ledger's values are pairwise
// more than twice the tolerance apart, changing one of the first two
// significant digits of a cited numeral (a change beyond the tolerance)
// turns PASS into REFUSE, unless the edit lands on another ledger value.
func TestProperty_DigitEditRefused(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l Ledger
		for i := range rapid.IntRange(1, 6).Draw(t, "ledger size") {
			n := drawNumeral(t, fmt.Sprintf("n%d", i))
			if n.Value == 0 || !farFrom(n.Value, n.Unit, l, 2) {
				continue // keep the ledger pairwise separated
			}
			l.Numerals = append(l.Numerals, n)
		}
		if len(l.Numerals) == 0 {
			t.Skip("empty ledger")
		}
		p := StrictPolicy()
		if rapid.Bool().Draw(t, "default policy") {
			p = DefaultPolicy()
		}
		var parts []string
		edit := rapid.IntRange(0, len(l.Numerals)-1).Draw(t, "edited numeral")
		var before, after string
		for i, n := range l.Numerals {
			var r []string
			for _, s := range renderings(n) {
				if strings.ContainsAny(s, "0123456789") && !strings.ContainsAny(s, "kMm") && !strings.Contains(s, "thousand") {
					r = append(r, s) // digits to edit
				}
			}
			s := r[rapid.IntRange(0, len(r)-1).Draw(t, fmt.Sprintf("format%d", i))]
			if i == edit {
				before = s
				after = editDigit(t, s)
				s = after
			}
			parts = append(parts, sentenceOf(s))
		}
		orig := strings.Join(slices.Concat(parts[:edit], []string{sentenceOf(before)}, parts[edit+1:]), " ")
		if r := Check(orig, l, "", p); r.Verdict != Pass {
			t.Fatalf("unedited Check(%q) = %s %v; want PASS", orig, r.Verdict, r.Unmatched)
		}
		f := Extract(after)
		if len(f) != 1 {
			t.Fatalf("edited %q extracts as %v", after, f)
		}
		if !farFrom(f[0].Value, f[0].Unit, l, 1) {
			t.Skip("the edit landed on another ledger value")
		}
		text := strings.Join(parts, " ")
		r := Check(text, l, "", p)
		if r.Verdict != Refuse || len(r.Unmatched) != 1 || r.Unmatched[0].Text != after {
			t.Fatalf("Check(%q) after editing %q to %q = %s, unmatched %v; want REFUSE of the edit", text, before, after, r.Verdict, r.Unmatched)
		}
	})
}

// editDigit changes one of the first two significant digits of s to a
// different digit (never a leading zero).
func editDigit(t *rapid.T, s string) string {
	var sig []int
	for i := 0; i < len(s) && len(sig) < 2; i++ {
		if isDigit(s[i]) && (len(sig) > 0 || s[i] != '0') {
			sig = append(sig, i)
		}
	}
	if len(sig) == 0 {
		t.Fatalf("no significant digit in %q", s)
	}
	pos := sig[rapid.IntRange(0, len(sig)-1).Draw(t, "digit")]
	old := s[pos]
	lo := byte('0')
	if pos == sig[0] {
		lo = '1'
	}
	var choices []byte
	for d := lo; d <= '9'; d++ {
		if d != old {
			choices = append(choices, d)
		}
	}
	d := rapid.SampledFrom(choices).Draw(t, "new digit")
	return s[:pos] + string(d) + s[pos+1:]
}

// TestProperty_AllowancesAccountForEveryPass: every numeral the ledger
// does not match either passes under exactly one enabled allowance (the
// first in order that applies, as checked one allowance at a time) and is
// counted, or is listed as unmatched; the hits add up.
func TestProperty_AllowancesAccountForEveryPass(t *testing.T) {
	fragments := []string{
		"1. The first store", "2) the second one", "the 3rd of them", "twenty-first", // ordinals
		"as of 2026-01-06T08:00:00Z", "at 2026-01-03T10:00:00Z", "on 2026-01-04", "on 2026-02-01", // times
		"store 3", "event 123", "product 7", // identifier digits
		"pr-007", "st-003", "st-999", // identifiers
		"3 stores", "$7.81", "781 cents", "12%", "0.12", "4 stores", "$7.91", "twelve", "15", // values
	}
	questions := []string{"", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
		"How many stores, 3 or 4?", "Is it 12% or 15?", "Which is 2nd?"}
	rapid.Check(t, func(t *rapid.T) {
		l := Ledger{Numerals: []Numeral{
			{Value: 3, Unit: UnitCount},
			{Value: 0.12, Unit: UnitRatio},
			{ID: "st-003", Unit: UnitID},
			{ID: "evt-000123"},
			{Value: 781, Unit: UnitCents, ID: "res-000007", Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"}},
		}}
		l.Numerals = rapid.Permutation(l.Numerals).Draw(t, "ledger")[:rapid.IntRange(0, len(l.Numerals)).Draw(t, "ledger size")]
		var lines []string
		for i := range rapid.IntRange(0, 8).Draw(t, "fragments") {
			lines = append(lines, rapid.SampledFrom(fragments).Draw(t, fmt.Sprintf("fragment%d", i)))
		}
		text := strings.Join(lines, rapid.SampledFrom([]string{"\n", ". ", ", "}).Draw(t, "separator"))
		question := rapid.SampledFrom(questions).Draw(t, "question")
		p := Policy{MatchRelTol: tol, Allow: map[Allowance]bool{}}
		for _, a := range Allowances() {
			p.Allow[a] = rapid.Bool().Draw(t, string(a))
		}

		outs, r := check(text, l, question, p)
		matched, allowed := 0, 0
		var unmatched []Unmatched
		for i, o := range outs {
			switch {
			case o.matched:
				matched++
				if o.allowance != "" {
					t.Fatalf("%q matched and allowed by %s", o.Text, o.allowance)
				}
			case o.allowance != "":
				allowed++
				if !p.Allow[o.allowance] {
					t.Fatalf("%q allowed by %s, which is off", o.Text, o.allowance)
				}
				// The allowance applies on its own, and no earlier one does.
				for _, a := range Allowances() {
					alone, _ := check(text, l, question, only(a))
					switch {
					case a == o.allowance && alone[i].allowance != a:
						t.Fatalf("%q attributed to %s, which alone does not pass it", o.Text, a)
					case a == o.allowance:
					case slices.Index(Allowances(), a) < slices.Index(Allowances(), o.allowance) && p.Allow[a] && alone[i].allowance == a:
						t.Fatalf("%q attributed to %s, but the earlier %s applies", o.Text, o.allowance, a)
					}
				}
			default:
				unmatched = append(unmatched, Unmatched{Text: o.Text, Value: o.Value, Unit: o.Unit})
				for _, a := range Allowances() {
					if !p.Allow[a] {
						continue
					}
					if alone, _ := check(text, l, question, only(a)); alone[i].allowance != "" {
						t.Fatalf("%q is unmatched though enabled %s passes it", o.Text, a)
					}
				}
			}
		}
		hits := 0
		for _, a := range Allowances() {
			n, ok := r.AllowanceHits[a]
			if !ok {
				t.Fatalf("allowance_hits lacks %s", a)
			}
			if n > 0 && !p.Allow[a] {
				t.Fatalf("%d hits for %s, which is off", n, a)
			}
			hits += n
		}
		if len(r.AllowanceHits) != 4 {
			t.Fatalf("allowance_hits has %d keys, want 4", len(r.AllowanceHits))
		}
		if hits != allowed || hits != r.NumeralsTotal-matched-len(r.Unmatched) {
			t.Fatalf("hits %d, allowed %d, total %d, matched %d, unmatched %d", hits, allowed, r.NumeralsTotal, matched, len(r.Unmatched))
		}
		if fmt.Sprint(unmatched) != fmt.Sprint(r.Unmatched) {
			t.Fatalf("report unmatched %v, outcomes say %v", r.Unmatched, unmatched)
		}
		if (r.Verdict == Pass) != (len(r.Unmatched) == 0) {
			t.Fatalf("verdict %s with %d unmatched", r.Verdict, len(r.Unmatched))
		}
	})
}

// TestProperty_ParseLiteralMatchesStrconv: the fast path of the number
// parser gives exactly what strconv gives.
func TestProperty_ParseLiteralMatchesStrconv(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		whole := rapid.StringMatching(`[0-9]{1,18}`).Draw(t, "whole")
		lit := whole
		if rapid.Bool().Draw(t, "fraction") {
			lit += "." + rapid.StringMatching(`[0-9]{1,18}`).Draw(t, "digits")
		}
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := parseLiteral(lit, false); got != want {
			t.Fatalf("parseLiteral(%q) = %v, strconv says %v", lit, got, want)
		}
	})
}

// TestProperty_TimestampsMatchTimePackage: the checker's own RFC 3339
// reader agrees with the time package on well-formed timestamps and dates.
func TestProperty_TimestampsMatchTimePackage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sec := rapid.Int64Range(-62135596800, 253402300799).Draw(t, "seconds") // years 1 to 9999
		nsec := rapid.SampledFrom([]int64{0, 500_000_000, 123_000_000, 1}).Draw(t, "nanoseconds")
		off := rapid.IntRange(-14*60, 14*60).Draw(t, "offset minutes")
		ts := time.Unix(sec, nsec).In(time.FixedZone("", off*60))
		if ts.Year() < 1 || ts.Year() > 9999 {
			t.Skip("year out of range")
		}
		s := ts.Format(time.RFC3339Nano)
		got, ok := parseTimestamp(s)
		want := float64(ts.Unix()) + float64(ts.Nanosecond())/1e9
		if !ok || math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("parseTimestamp(%q) = %v, %t; want %v", s, got, ok, want)
		}
		d := ts.UTC().Format(time.DateOnly)
		day, _ := time.Parse(time.DateOnly, d)
		if got, ok := parseDate(d); !ok || got != float64(day.Unix()) {
			t.Fatalf("parseDate(%q) = %v, %t; want %v", d, got, ok, day.Unix())
		}
	})
}
