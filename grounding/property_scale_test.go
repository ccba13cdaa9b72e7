package grounding

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// digitScripts are the zeros of decimal digit sets the properties write
// numerals in: fullwidth, Arabic-Indic, extended Arabic-Indic, Devanagari,
// Bengali, Thai and mathematical bold digits.
var digitScripts = []rune{0xFF10, 0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0x1D7CE}

// Superscripts are ⁰ to ⁹ (exported for the corpus generator, a test of
// package grounding_test).
var Superscripts = []rune{0x2070, 0x00B9, 0x00B2, 0x00B3, 0x2074, 0x2075, 0x2076, 0x2077, 0x2078, 0x2079}

// InScript rewrites the ASCII digits of s in another digit set: zero is
// the set's zero ('0' keeps ASCII), or -1 for superscripts. It is
// exported for the corpus generator.
func InScript(s string, zero rune) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < '0' || r > '9':
			b.WriteRune(r)
		case zero < 0:
			b.WriteRune(Superscripts[r-'0'])
		default:
			b.WriteRune(zero + r - '0')
		}
	}
	return b.String()
}

// drawScript draws a digit set: ASCII ('0'), one of digitScripts, or (when
// super is set) superscripts (-1).
func drawScript(t *rapid.T, label string, super bool) rune {
	choices := append([]rune{'0'}, digitScripts...)
	if super {
		choices = append(choices, -1)
	}
	return rapid.SampledFrom(choices).Draw(t, label)
}

// scaleForm is a way to write a multiplier after a number.
type scaleForm struct {
	text  string
	m     float64
	glued bool // written right after the digits ("9k"), else after a blank
	money bool // a multiplier only for money ("$1.2m")
}

var scaleForms = []scaleForm{
	{"hundred", 1e2, false, false}, {"thousand", 1e3, false, false}, {"million", 1e6, false, false},
	{"billion", 1e9, false, false}, {"trillion", 1e12, false, false}, {"dozen", 12, false, false},
	{"lakh", 1e5, false, false}, {"crore", 1e7, false, false},
	{"k", 1e3, true, false}, {"K", 1e3, true, false}, {"M", 1e6, true, false}, {"mn", 1e6, true, false},
	{"bn", 1e9, true, false}, {"m", 1e6, true, true}, {"B", 1e9, true, true},
}

// drawUnbacked draws a numeral (value, unit and text) whose value is far
// from every ledger reading, in the forms issue 7 names: scale words and
// suffixes over digits that the ledger may well hold ("9 hundred" against
// 9), spelled numbers with a scale word, decimals, and any of these in
// digits outside ASCII.
func drawUnbacked(t *rapid.T, l Ledger, k int) (Numeral, string, bool) {
	label := func(s string) string { return fmt.Sprintf("%s%d", s, k) }
	kind := rapid.SampledFrom([]string{"scaled", "money scaled", "spelled scaled", "decimal", "money", "percent"}).Draw(t, label("kind"))
	// The digits: often a ledger value's own (the point of a scale word
	// is that its digits are backed), else fresh.
	var small []float64
	for _, n := range l.Numerals {
		if (n.Unit == UnitNone || n.Unit == UnitCount) && n.Value >= 1 && n.Value <= 999 {
			small = append(small, n.Value)
		}
	}
	mant := float64(rapid.IntRange(1, 999).Draw(t, label("digits")))
	if len(small) > 0 && rapid.Bool().Draw(t, label("ledger digits")) {
		mant = rapid.SampledFrom(small).Draw(t, label("which digits"))
	}
	if rapid.Bool().Draw(t, label("one decimal")) && kind != "spelled scaled" {
		mant += float64(rapid.IntRange(1, 9).Draw(t, label("tenths"))) / 10
	}
	ms := strconv.FormatFloat(mant, 'f', -1, 64)
	var n Numeral
	var s string
	switch kind {
	case "scaled":
		f := rapid.SampledFrom(scaleForms).Draw(t, label("scale"))
		if f.money {
			return Numeral{}, "", false
		}
		sep := " "
		if f.glued {
			sep = ""
		}
		n, s = Numeral{Value: mant * f.m}, ms+sep+f.text
	case "money scaled":
		f := rapid.SampledFrom(scaleForms).Draw(t, label("scale"))
		sym := rapid.SampledFrom([]string{"$", "€", "£"}).Draw(t, label("symbol"))
		u := map[string]Unit{"$": UnitUSD, "€": UnitEUR, "£": UnitGBP}[sym]
		sep := " "
		if f.glued {
			sep = ""
		}
		n, s = Numeral{Value: mant * f.m, Unit: u}, sym+ms+sep+f.text
	case "spelled scaled":
		i := int(mant) % 21
		if i == 0 {
			i = 9
		}
		f := rapid.SampledFrom(scaleForms[:8]).Draw(t, label("scale word"))
		n, s = Numeral{Value: float64(i) * f.m}, numberWordsTest[i]+" "+f.text
	case "decimal":
		d := rapid.IntRange(1, 3).Draw(t, label("decimals"))
		v := math.Round(rapid.Float64Range(0.001, 5000).Draw(t, label("decimal"))*math.Pow10(d)) / math.Pow10(d)
		n, s = Numeral{Value: v}, strconv.FormatFloat(v, 'f', d, 64)
	case "money":
		cents := rapid.IntRange(1, 500_000).Draw(t, label("cents"))
		n, s = Numeral{Value: float64(cents) / 100, Unit: UnitUSD}, "$"+money(int64(cents), false)
	case "percent":
		p := float64(rapid.IntRange(1, 9999).Draw(t, label("basis points"))) / 100
		n, s = Numeral{Value: p, Unit: UnitPercent}, short(p)+"%"
	}
	if n.Value == 0 || !farFrom(n.Value, n.Unit, l, 2) {
		return Numeral{}, "", false
	}
	return n, InScript(s, drawScript(t, label("script"), kind != "money scaled" && kind != "money")), true
}

// TestProperty_StrictRefusesUnbackedValues: under StrictPolicy, a text
// whose numerals' values (after scale words and digit normalisation) are
// all absent from the ledger never passes: each numeral is refused,
// whether the ledger holds its digits ("9 hundred" against 9), whatever
// digit set it is written in.
func TestProperty_StrictRefusesUnbackedValues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l Ledger
		for i := range rapid.IntRange(0, 8).Draw(t, "ledger size") {
			n := drawNumeral(t, fmt.Sprintf("n%d", i))
			if rapid.Bool().Draw(t, fmt.Sprintf("small%d", i)) {
				n = Numeral{Value: float64(rapid.IntRange(1, 999).Draw(t, fmt.Sprintf("small value%d", i))), Unit: UnitCount}
			}
			l.Numerals = append(l.Numerals, n)
		}
		l.Numerals = append(l.Numerals, Numeral{ID: "st-003", Unit: UnitID}, Numeral{Value: ts0800, Unit: UnitTimestamp})
		var parts, texts []string
		for k := range rapid.IntRange(1, 4).Draw(t, "numerals") {
			_, s, ok := drawUnbacked(t, l, k)
			if !ok {
				continue
			}
			parts = append(parts, sentenceOf(s))
			texts = append(texts, s)
		}
		if len(texts) == 0 {
			t.Skip("no unbacked numeral drawn")
		}
		text := strings.Join(parts, " ")
		r := Check(text, l, "", StrictPolicy())
		var got []string
		for _, u := range r.Unmatched {
			got = append(got, u.Text)
		}
		if r.Verdict != Refuse || r.NumeralsTotal != len(texts) || strings.Join(got, "|") != strings.Join(texts, "|") {
			t.Fatalf("Check(%q) = %s, %d numerals, unmatched %q; want REFUSE of each of %q", text, r.Verdict, r.NumeralsTotal, got, texts)
		}
	})
}

// TestProperty_OtherDigitSetsKeepPass: a grounded text stays grounded when
// its digits are written in another decimal digit set.
func TestProperty_OtherDigitSetsKeepPass(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l Ledger
		for i := range rapid.IntRange(1, 6).Draw(t, "ledger size") {
			l.Numerals = append(l.Numerals, drawNumeral(t, fmt.Sprintf("n%d", i)))
		}
		var parts []string
		for i, n := range l.Numerals {
			r := renderings(n)
			s := r[rapid.IntRange(0, len(r)-1).Draw(t, fmt.Sprintf("format%d", i))]
			parts = append(parts, sentenceOf(InScript(s, drawScript(t, fmt.Sprintf("script%d", i), false))))
		}
		text := strings.Join(parts, " ")
		if r := Check(text, l, "", StrictPolicy()); r.Verdict != Pass || r.NumeralsTotal != len(l.Numerals) {
			t.Fatalf("Check(%q) = %s, %d numerals, unmatched %v; want PASS of %d", text, r.Verdict, r.NumeralsTotal, r.Unmatched, len(l.Numerals))
		}
	})
}
