package grounding

import (
	"fmt"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// want is a wanted numeral: its text, value and unit, and whether it is an
// ordinal (w builds a cardinal, wo an ordinal).
type want struct {
	text string
	v    float64
	unit Unit
	ord  bool
}

func w(text string, v float64, u Unit) want { return want{text: text, v: v, unit: u} }
func wo(text string, v float64) want        { return want{text: text, v: v, ord: true} }

func (x want) String() string {
	o := ""
	if x.ord {
		o = " ordinal"
	}
	return fmt.Sprintf("%q=%v %s%s", x.text, x.v, x.unit, o)
}

func gotWants(ns []numeral) []want {
	out := make([]want, len(ns))
	for i, n := range ns {
		out[i] = want{text: n.Text, v: n.Value, unit: n.Unit, ord: n.ordinal}
	}
	return out
}

func sameWants(a, b []want) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].text != b[i].text || a[i].unit != b[i].unit || a[i].ord != b[i].ord ||
			math.Abs(a[i].v-b[i].v) > 1e-9*math.Max(1, math.Abs(b[i].v)) {
			return false
		}
	}
	return true
}

const (
	ts0600 = 1767679200 // 2026-01-06T06:00:00Z
	ts0800 = 1767686400 // 2026-01-06T08:00:00Z
	day06  = 1767657600 // 2026-01-06T00:00:00Z
)

func TestExtract_Formats(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []want
	}{
		{"empty", "", nil},
		{"no numerals", "No stores are out of stock.", nil},
		{"digits", "3 stores", []want{w("3", 3, UnitNone)}},
		{"digits at the end", "the count is 42", []want{w("42", 42, UnitNone)}},
		{"sentence period", "The count is 3. Next.", []want{w("3", 3, UnitNone)}},
		{"decimal", "ratio 3.49 here", []want{w("3.49", 3.49, UnitNone)}},
		{"leading dot", "about .5 of them", []want{w(".5", 0.5, UnitNone)}},
		{"thousands", "1,234 scans", []want{w("1,234", 1234, UnitNone)}},
		{"thousands and decimal", "12,345.67 total", []want{w("12,345.67", 12345.67, UnitNone)}},
		{"millions", "1,234,567", []want{w("1,234,567", 1234567, UnitNone)}},
		{"comma list", "1,2,3", []want{w("1", 1, UnitNone), w("2", 2, UnitNone), w("3", 3, UnitNone)}},
		{"comma list with blanks", "1, 23, 456", []want{w("1", 1, UnitNone), w("23", 23, UnitNone), w("456", 456, UnitNone)}},
		{"bad group", "12,34", []want{w("12", 12, UnitNone), w("34", 34, UnitNone)}},
		{"four-digit head is no group", "1234,567", []want{w("1234", 1234, UnitNone), w("567", 567, UnitNone)}},
		{"negative", "change of -3 today", []want{w("-3", -3, UnitNone)}},
		{"unicode minus", "change of −3", []want{w("−3", -3, UnitNone)}},
		{"plus", "change of +3", []want{w("+3", 3, UnitNone)}},
		{"hyphen is no sign", "covid-19", []want{w("19", 19, UnitNone)}},
		{"negative in parens", "(-3)", []want{w("-3", -3, UnitNone)}},
		{"percent sign", "12% of stores", []want{w("12%", 12, UnitPercent)}},
		{"percent spaced", "12 % of stores", []want{w("12 %", 12, UnitPercent)}},
		{"percent word", "12 percent", []want{w("12 percent", 12, UnitPercent)}},
		{"per cent", "12 per cent", []want{w("12 per cent", 12, UnitPercent)}},
		{"pct", "12.5 pct", []want{w("12.5 pct", 12.5, UnitPercent)}},
		{"negative percent", "-12%", []want{w("-12%", -12, UnitPercent)}},
		{"per is not per cent", "3 per store", []want{w("3", 3, UnitNone)}},
		{"dollar sign", "costs $3.49.", []want{w("$3.49", 3.49, UnitUSD)}},
		{"dollar sign spaced", "costs $ 3.49", []want{w("$ 3.49", 3.49, UnitUSD)}},
		{"dollar cents only", "$.99", []want{w("$.99", 0.99, UnitUSD)}},
		{"negative dollars", "-$3.49 and $-2", []want{w("-$3.49", -3.49, UnitUSD), w("$-2", -2, UnitUSD)}},
		{"USD after", "3.49 USD", []want{w("3.49 USD", 3.49, UnitUSD)}},
		{"USD before", "USD 3.49", []want{w("USD 3.49", 3.49, UnitUSD)}},
		{"USD glued", "USD3.49", []want{w("USD3.49", 3.49, UnitUSD)}},
		{"EUR before", "EUR 12", []want{w("EUR 12", 12, UnitEUR)}},
		{"euro sign", "€12", []want{w("€12", 12, UnitEUR)}},
		{"euro sign after", "12 €", []want{w("12 €", 12, UnitEUR)}},
		{"euros word", "12 euros", []want{w("12 euros", 12, UnitEUR)}},
		{"pound sign", "£5", []want{w("£5", 5, UnitGBP)}},
		{"GBP after", "5 GBP", []want{w("5 GBP", 5, UnitGBP)}},
		{"pounds word", "5 pounds", []want{w("5 pounds", 5, UnitGBP)}},
		{"pence", "50 pence", []want{w("50 pence", 0.5, UnitGBP)}},
		{"dollars word", "3 dollars", []want{w("3 dollars", 3, UnitUSD)}},
		{"dollar word", "1 dollar", []want{w("1 dollar", 1, UnitUSD)}},
		{"cents word", "299 cents", []want{w("299 cents", 299, UnitCents)}},
		{"cent sign", "299¢", []want{w("299¢", 299, UnitCents)}},
		{"symbol and code", "$3.49 USD", []want{w("$3.49 USD", 3.49, UnitUSD)}},
		{"prefix wins", "$3 EUR", []want{w("$3", 3, UnitUSD)}},
		{"symbol before the next number is its prefix", "3 $5", []want{w("3", 3, UnitNone), w("$5", 5, UnitUSD)}},
		{"scale word", "1.2 million", []want{w("1.2 million", 1.2e6, UnitNone)}},
		{"scale and unit", "$1.2 million", []want{w("$1.2 million", 1.2e6, UnitUSD)}},
		{"scale then unit", "3 thousand dollars", []want{w("3 thousand dollars", 3000, UnitUSD)}},
		{"range to", "12 to 15", []want{w("12 to 15", 12, UnitNone), w("12 to 15", 15, UnitNone)}},
		{"range through", "12 through 15", []want{w("12 through 15", 12, UnitNone), w("12 through 15", 15, UnitNone)}},
		{"range hyphen", "12-15", []want{w("12-15", 12, UnitNone), w("12-15", 15, UnitNone)}},
		{"range en dash", "12–15", []want{w("12–15", 12, UnitNone), w("12–15", 15, UnitNone)}},
		{"range em dash", "12—15", []want{w("12—15", 12, UnitNone), w("12—15", 15, UnitNone)}},
		{"range spaced hyphen", "12 - 15", []want{w("12 - 15", 12, UnitNone), w("12 - 15", 15, UnitNone)}},
		{"range shares a prefix unit", "$12-15", []want{w("$12-15", 12, UnitUSD), w("$12-15", 15, UnitUSD)}},
		{"range shares a suffix unit", "12-15%", []want{w("12-15%", 12, UnitPercent), w("12-15%", 15, UnitPercent)}},
		{"range of symbols", "$12 to $15", []want{w("$12 to $15", 12, UnitUSD), w("$12 to $15", 15, UnitUSD)}},
		{"range shares a scale", "1-2 million", []want{w("1-2 million", 1e6, UnitNone), w("1-2 million", 2e6, UnitNone)}},
		{"range of pence", "50 to 60 pence", []want{w("50 to 60 pence", 0.5, UnitGBP), w("50 to 60 pence", 0.6, UnitGBP)}},
		{"range of words", "three to five stores", []want{w("three to five", 3, UnitNone), w("three to five", 5, UnitNone)}},
		{"to without a number", "12 to the store", []want{w("12", 12, UnitNone)}},
		{"tomatoes are no range", "12 tomatoes", []want{w("12", 12, UnitNone)}},
		{"scientific", "1.2e3", []want{w("1.2e3", 1200, UnitNone)}},
		{"scientific negative exponent", "3E-2", []want{w("3E-2", 0.03, UnitNone)}},
		{"scientific plus exponent", "5e+2", []want{w("5e+2", 500, UnitNone)}},
		{"e without digits", "3eggs", []want{w("3", 3, UnitNone)}},
		{"spelled", "three stores", []want{w("three", 3, UnitNone)}},
		{"spelled capital", "Twelve stores", []want{w("Twelve", 12, UnitNone)}},
		{"spelled zero and twenty", "zero or twenty", []want{w("zero", 0, UnitNone), w("twenty", 20, UnitNone)}},
		{"spelled compound", "twenty-one stores", []want{w("twenty-one", 21, UnitNone)}},
		{"spelled compound spaced", "thirty two", []want{w("thirty two", 32, UnitNone)}},
		{"spelled tens alone", "forty stores", []want{w("forty", 40, UnitNone)}},
		{"spelled with unit", "three dollars and twelve percent", []want{w("three dollars", 3, UnitUSD), w("twelve percent", 12, UnitPercent)}},
		{"one as a pronoun is still one", "one of the stores", []want{w("one", 1, UnitNone)}},
		{"number words inside words are not numbers", "someone is alone", nil},
		{"timestamp", "as of 2026-01-06T08:00:00Z?", []want{w("2026-01-06T08:00:00Z", ts0800, UnitTimestamp)}},
		{"timestamp fraction", "2026-01-06T08:00:00.5Z", []want{w("2026-01-06T08:00:00.5Z", ts0800+0.5, UnitTimestamp)}},
		{"timestamp offset", "2026-01-06T10:00:00+02:00", []want{w("2026-01-06T10:00:00+02:00", ts0800, UnitTimestamp)}},
		{"date", "on 2026-01-06.", []want{w("2026-01-06", day06, UnitDate)}},
		{"two dates are no range", "2026-01-06 to 2026-01-06", []want{w("2026-01-06", day06, UnitDate), w("2026-01-06", day06, UnitDate)}},
		{"not a real date", "2026-13-45", []want{w("2026-13", 2026, UnitNone), w("2026-13", 13, UnitNone), w("45", 45, UnitNone)}},
		{"identifier", "st-003", []want{w("st-003", 3, UnitID)}},
		{"identifiers", "pr-021 and evt-000123.", []want{w("pr-021", 21, UnitID), w("evt-000123", 123, UnitID)}},
		{"identifier upper case", "ST-003", []want{w("ST-003", 3, UnitID)}},
		{"five letters is no identifier", "store-3", []want{w("3", 3, UnitNone)}},
		{"identifier glued to letters", "st-003a", []want{w("003", 3, UnitNone)}},
		{"list markers", "1. First\n2) Second\n3. Third", []want{wo("1.", 1), wo("First", 1), wo("2)", 2), wo("Second", 2), wo("3.", 3), wo("Third", 3)}},
		{"list marker indented", "  1. st-003", []want{wo("1.", 1), w("st-003", 3, UnitID)}},
		{"list marker must start the list", "4. That is the count.", []want{w("4", 4, UnitNone)}},
		{"list marker alone on its line", "3.\n", []want{w("3", 3, UnitNone)}},
		{"list marker mid-line", "item 1. Next", []want{w("1", 1, UnitNone)}},
		{"ordinal suffixes", "1st 2nd 23rd 4th 11TH", []want{wo("1st", 1), wo("2nd", 2), wo("23rd", 23), wo("4th", 4), wo("11TH", 11)}},
		{"ordinal words", "first, second, twentieth, twenty-first", []want{wo("first", 1), wo("second", 2), wo("twentieth", 20), wo("twenty-first", 21)}},
		{"digits glued to letters", "mp3", []want{w("3", 3, UnitNone)}},
		{"time of day is two numbers", "08:00", []want{w("08", 8, UnitNone), w("00", 0, UnitNone)}},
		{"huge number is clamped", "1e999", []want{w("1e999", math.MaxFloat64, UnitNone)}},
		{"huge scaled number is clamped", "1e308 trillion and -1e308k", []want{w("1e308 trillion", math.MaxFloat64, UnitNone), w("-1e308k", -math.MaxFloat64, UnitNone)}},
		{"huge scaled range is clamped", "1e300-1e308 trillion", []want{w("1e300-1e308 trillion", math.MaxFloat64, UnitNone), w("1e300-1e308 trillion", math.MaxFloat64, UnitNone)}},
		{"e.g. does not split", "e.g. 3.49", []want{w("3.49", 3.49, UnitNone)}},
		// Scale words and suffixes multiply the numeral (issue 7).
		{"hundred", "9 hundred stores", []want{w("9 hundred", 900, UnitNone)}},
		{"k glued", "9k stores", []want{w("9k", 9000, UnitNone)}},
		{"K glued", "9K stores", []want{w("9K", 9000, UnitNone)}},
		{"k spaced", "9 k stores", []want{w("9 k", 9000, UnitNone)}},
		{"spelled dozen", "nine dozen eggs", []want{w("nine dozen", 108, UnitNone)}},
		{"spelled hundred", "thirteen hundred scans", []want{w("thirteen hundred", 1300, UnitNone)}},
		{"decimal million", "1.2 million scans", []want{w("1.2 million", 1.2e6, UnitNone)}},
		{"M glued", "1.2M scans", []want{w("1.2M", 1.2e6, UnitNone)}},
		{"mn", "3mn scans", []want{w("3mn", 3e6, UnitNone)}},
		{"bn", "2bn scans", []want{w("2bn", 2e9, UnitNone)}},
		{"lakh", "5 lakh rupees", []want{w("5 lakh", 5e5, UnitNone)}},
		{"crore", "2 crore", []want{w("2 crore", 2e7, UnitNone)}},
		{"trillion", "1 trillion", []want{w("1 trillion", 1e12, UnitNone)}},
		{"chained scale words", "two hundred thousand", []want{w("two hundred thousand", 2e5, UnitNone)}},
		{"dollar M", "$1.2M", []want{w("$1.2M", 1.2e6, UnitUSD)}},
		{"dollar m", "$1.2m", []want{w("$1.2m", 1.2e6, UnitUSD)}},
		{"dollar bn", "$1.2bn", []want{w("$1.2bn", 1.2e9, UnitUSD)}},
		{"dollar B", "$3B", []want{w("$3B", 3e9, UnitUSD)}},
		{"euro k", "€5k", []want{w("€5k", 5000, UnitEUR)}},
		{"m before a currency word", "5m dollars", []want{w("5m dollars", 5e6, UnitUSD)}},
		{"m is metres outside money", "5 m of shelf", []want{w("5", 5, UnitNone)}},
		{"m glued is metres outside money", "5m of shelf", []want{w("5", 5, UnitNone)}},
		{"B is no scale outside money", "aisle 3B", []want{w("3", 3, UnitNone)}},
		{"range shares a money suffix", "$1-2m", []want{w("$1-2m", 1e6, UnitUSD), w("$1-2m", 2e6, UnitUSD)}},
		{"a dozen alone", "a dozen stores", []want{w("dozen", 12, UnitNone)}},
		{"a million dollars", "a million dollars", []want{w("million dollars", 1e6, UnitUSD)}},
		{"km is no scale", "9km away", []want{w("9", 9, UnitNone)}},
		{"m before a currency code", "3m EUR", []want{w("3m EUR", 3e6, UnitEUR)}},
		{"pound B", "£3B", []want{w("£3B", 3e9, UnitGBP)}},
		{"plural scale word alone is no numeral", "hundreds of scans", nil},
		{"spelled compound with hundred", "one hundred twenty stores", []want{w("one hundred twenty", 120, UnitNone)}},
		{"spelled compound with and", "one hundred and twenty-three stores", []want{w("one hundred and twenty-three", 123, UnitNone)}},
		{"spelled compound then a scale", "two hundred and five thousand", []want{w("two hundred and five thousand", 205000, UnitNone)}},
		{"lonely hundred compound", "a hundred and two stores", []want{w("hundred and two", 102, UnitNone)}},
		{"hundred and an ordinal", "one hundred and first", []want{w("one hundred", 100, UnitNone), wo("first", 1)}},
		{"hundred and digits are two numerals", "one hundred and 5", []want{w("one hundred", 100, UnitNone), w("5", 5, UnitNone)}},
		{"other numeral characters are not read", "① Ⅻ 十四", nil},
		{"identifier unaffected by a scale letter", "st-003 k", []want{w("st-003", 3, UnitID)}},
		// Every Unicode decimal digit, superscripts and subscripts.
		{"fullwidth digits", "１４ stores", []want{w("１４", 14, UnitNone)}},
		{"fullwidth money", "$９.８１", []want{w("$９.８１", 9.81, UnitUSD)}},
		{"fullwidth percent and point", "１２．５％", []want{w("１２．５％", 12.5, UnitPercent)}},
		{"arabic-indic digits", "٣ متاجر", []want{w("٣", 3, UnitNone)}},
		{"arabic decimal separator", "٣٫٥", []want{w("٣٫٥", 3.5, UnitNone)}},
		{"extended arabic-indic", "۱۲", []want{w("۱۲", 12, UnitNone)}},
		{"devanagari digits", "१३ दुकानें", []want{w("१३", 13, UnitNone)}},
		{"bengali digits", "৪২", []want{w("৪২", 42, UnitNone)}},
		{"mathematical bold digits", "𝟕 stores", []want{w("𝟕", 7, UnitNone)}},
		{"superscript", "footnote¹", []want{w("¹", 1, UnitNone)}},
		{"superscripts", "x⁴⁵", []want{w("⁴⁵", 45, UnitNone)}},
		{"superscript after digits is its own numeral", "10²", []want{w("10", 10, UnitNone), w("²", 2, UnitNone)}},
		{"subscript", "CO₂", []want{w("₂", 2, UnitNone)}},
		{"digits after a superscript are their own numeral", "x²3", []want{w("²", 2, UnitNone), w("3", 3, UnitNone)}},
		{"fullwidth identifier", "ｓｔ－００３", []want{w("ｓｔ－００３", 3, UnitID)}},
		{"non-ASCII with no digits", "naïve — café", nil},
		// Inline lists: a list index after ':', ',' or ';', or in a run.
		{"inline list after a colon", "Two products: 1. oat milk 2. rye bread",
			[]want{w("Two", 2, UnitNone), wo("1.", 1), wo("2.", 2)}},
		{"inline list with parens after a colon", "Two products: 1) oat milk, 2) rye bread",
			[]want{w("Two", 2, UnitNone), wo("1)", 1), wo("2)", 2)}},
		{"inline list after a semicolon", "stores; 1) st-003 2) st-004", []want{wo("1)", 1), w("st-003", 3, UnitID), wo("2)", 2), w("st-004", 4, UnitID)}},
		{"inline run", "we saw 1) oat milk 2) rye bread 3) tea", []want{wo("1)", 1), wo("2)", 2), wo("3)", 3)}},
		{"a lone paren is no run", "we saw 1) oat milk", []want{w("1", 1, UnitNone)}},
		{"bare number in prose", "there are 2 products", []want{w("2", 2, UnitNone)}},
		{"colon then a count", "Stores: 3. Products: 4.", []want{w("3", 3, UnitNone), w("4", 4, UnitNone)}},
		{"inline list continues on the next line", "Two: 1. oat\n2. rye", []want{w("Two", 2, UnitNone), wo("1.", 1), wo("2.", 2)}},
		{"inline list ends at a line break", "Two: 1. oat\nwe saw 2. rye", []want{w("Two", 2, UnitNone), wo("1.", 1), w("2", 2, UnitNone)}},
		{"a count after a list", "Items: 1. oat, 2. rye\nTotal: 3. rye", []want{wo("1.", 1), wo("2.", 2), w("3", 3, UnitNone)}},
		{"README answer", "The price of pr-007 at st-003 as of 2026-01-06T08:00:00Z is $7.81 (781 cents).", []want{
			w("pr-007", 7, UnitID), w("st-003", 3, UnitID), w("2026-01-06T08:00:00Z", ts0800, UnitTimestamp),
			w("$7.81", 7.81, UnitUSD), w("781 cents", 781, UnitCents),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gotWants(extract(tt.text))
			if !sameWants(got, tt.want) {
				t.Errorf("extract(%q)\n got  %v\n want %v", tt.text, got, tt.want)
			}
			for _, f := range Extract(tt.text) {
				if f.Text != tt.text[f.Start:f.End] {
					t.Errorf("Found %q at [%d:%d] is not the text there (%q)", f.Text, f.Start, f.End, tt.text[f.Start:f.End])
				}
			}
		})
	}
}

func TestSegment(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"one", "There are 3 stores.", []string{"There are 3 stores."}},
		{"two", "There are 3 stores. They are st-001, st-002 and st-003.", []string{"There are 3 stores.", "They are st-001, st-002 and st-003."}},
		{"decimal", "It costs $3.49. Cheap!", []string{"It costs $3.49.", "Cheap!"}},
		{"e.g.", "Some, e.g. st-003, are out. Others not?", []string{"Some, e.g. st-003, are out.", "Others not?"}},
		{"abbreviation", "Stores vs. Products. Done", []string{"Stores vs. Products.", "Done"}},
		{"lower case continues", "It is approx 3. then more", []string{"It is approx 3. then more"}},
		{"lines", "1. First store\n2. Second store", []string{"1. First store", "2. Second store"}},
		{"quote closes", `He said "3 stores." Then left.`, []string{`He said "3 stores."`, "Then left."}},
		{"blank lines", "a\n\n\nb", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range segment(tt.text) {
				got = append(got, tt.text[s.start:s.end])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("segment(%q)\n got  %q\n want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestExtract_Sentences(t *testing.T) {
	ns := extract("There are 3 stores. Prices are $3.49, e.g. 4. Done: 5.\n6 more")
	var got []int32
	for _, n := range ns {
		got = append(got, n.sentence)
	}
	if fmt.Sprint(got) != "[0 1 1 2 3]" {
		t.Errorf("sentence indices = %v, want [0 1 1 2 3]", got)
	}
}

// TestExtract_LinearWork guards against quadratic blow-up by counting the
// scanner's steps, not by timing: on inputs built to defeat lookahead, the
// steps stay within a constant factor of the length, and doubling the
// input at most doubles them.
func TestExtract_LinearWork(t *testing.T) {
	const n = 1 << 20 // 1 MB
	patterns := map[string]string{
		"answer":        "The price of pr-007 at st-003 as of 2026-01-06T08:00:00Z is $7.81 (781 cents); 12% of 1,234 stores, three to five. ",
		"digits":        "1",
		"groups":        "1,234",
		"bad groups":    "1,23",
		"list markers":  "1. ",
		"list lines":    "1. a\n",
		"ranges":        "1-",
		"dashes":        "-",
		"minus":         "−",
		"signs":         "- $",
		"dollars":       "$",
		"dots":          ".",
		"dot digits":    ".1",
		"letters":       "a",
		"id shapes":     "ab-",
		"id runs":       "ab-1",
		"bad ids":       "ab-1a ",
		"date shapes":   "2026-01-0",
		"timestamps":    "2026-01-06T08:00:00.123456789",
		"words":         "twenty-",
		"spelled":       "twenty twenty ",
		"to":            "1 to ",
		"per":           "1 per ",
		"exponent":      "1e",
		"blanks":        " ",
		"nbsp":          "1\u00a0",
		"sentences":     "A. ",
		"abbreviations": "e.g. ",
	}
	for name, p := range patterns {
		n := n
		if name != "answer" {
			n /= 4 // the adversarial patterns at 256 KiB keep the test quick
		}
		t.Run(name, func(t *testing.T) {
			steps := func(size int) int {
				text := strings.Repeat(p, size/len(p)+1)[:size]
				s := scanner{t: text}
				s.run()
				if len(s.out) > len(text) {
					t.Fatalf("%d numerals from %d bytes", len(s.out), len(text))
				}
				return s.steps
			}
			a, b := steps(n/2), steps(n)
			t.Logf("%.2f steps per byte", float64(b)/float64(n))
			if b > 12*n {
				t.Errorf("%d steps for %d bytes: more than 12 per byte", b, n)
			}
			if float64(b) > 2.2*float64(a)+64 {
				t.Errorf("steps grow faster than the input: %d for %d bytes, %d for %d", a, n/2, b, n)
			}
		})
	}
	// The segmenter is one pass too; it must at least finish on 1 MB of
	// each kind of boundary.
	for _, p := range []string{"a.", ". ", "e.g. ", "1. ", "\n", "a"} {
		text := strings.Repeat(p, n/len(p))
		if len(segment(text)) > len(text) {
			t.Errorf("segment(%q×): more spans than bytes", p)
		}
	}
}

// TestImportsOnlyStandardLibrary parses the package's non-test files and
// checks that every import path's first element has no dot, but for the
// strict JSON decoder, itself standard library only: the package stays
// copyable with it alone.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(path, "/")
			if path == "github.com/provenant/provenant/internal/strictjson" {
				continue
			}
			if strings.Contains(first, ".") || path == "C" {
				t.Errorf("%s imports %q, which is not in the standard library", name, path)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no non-test Go files found")
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"2026-01-06T08:00:00Z", ts0800, true},
		{"2026-01-06T08:00:00.25Z", ts0800 + 0.25, true},
		{"2026-01-06T09:30:00+01:30", ts0800, true},
		{"2026-01-06T06:00:00-02:00", ts0800, true},
		{"2024-02-29T00:00:00Z", 1709164800, true},
		{"2026-02-29T00:00:00Z", 0, false}, // not a leap year
		{"2026-01-06T24:00:00Z", 0, false},
		{"2026-01-06T08:60:00Z", 0, false},
		{"2026-01-06T08:00:60Z", 0, false},
		{"2026-13-06T08:00:00Z", 0, false},
		{"2026-01-06T08:00:00", 0, false},
		{"2026-01-06T08:00:00.Z", 0, false},
		{"2026-01-06T08:00:00.1234567890Z", 0, false},
		{"2026-01-06T08:00:00+0100", 0, false},
		{"2026-01-06 08:00:00Z", 0, false},
		{"2026-01-06t08:00:00z", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseTimestamp(tt.in)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("parseTimestamp(%q) = %v, %t; want %v, %t", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
	for _, bad := range []string{"2026-02-30", "2026-00-01", "2026-01-00", "2026-1-06", "20260106", "2026/01/06"} {
		if _, ok := parseDate(bad); ok {
			t.Errorf("parseDate(%q) accepted", bad)
		}
	}
}
