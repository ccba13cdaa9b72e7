package grounding

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

func num(v float64, u Unit) Numeral { return Numeral{Value: v, Unit: u} }
func ids(ss ...string) []Numeral {
	out := make([]Numeral, len(ss))
	for i, s := range ss {
		out[i] = Numeral{ID: s, Unit: UnitID}
	}
	return out
}
func led(parts ...any) Ledger {
	var l Ledger
	for _, p := range parts {
		switch p := p.(type) {
		case Numeral:
			l.Numerals = append(l.Numerals, p)
		case []Numeral:
			l.Numerals = append(l.Numerals, p...)
		default:
			panic(fmt.Sprintf("led: %T", p))
		}
	}
	return l
}

// only returns a policy with the default tolerance and just the given
// allowances on.
func only(as ...Allowance) Policy {
	p := StrictPolicy()
	for _, a := range as {
		p.Allow[a] = true
	}
	return p
}

func TestPolicies(t *testing.T) {
	d, s := DefaultPolicy(), StrictPolicy()
	if d.MatchRelTol != 0.005 || s.MatchRelTol != 0.005 {
		t.Errorf("tolerances %v, %v; want 0.005", d.MatchRelTol, s.MatchRelTol)
	}
	wantDefault := map[Allowance]bool{AllowQuestionEcho: true, AllowOrdinal: true, AllowWindowTimestamp: true, AllowIdentifier: false}
	for _, a := range Allowances() {
		if d.Allow[a] != wantDefault[a] {
			t.Errorf("DefaultPolicy allows %s = %t, want %t", a, d.Allow[a], wantDefault[a])
		}
		if s.Allow[a] {
			t.Errorf("StrictPolicy allows %s", a)
		}
	}
	if len(Allowances()) != 4 {
		t.Errorf("%d allowances, want exactly four", len(Allowances()))
	}
	// Each call returns its own map.
	d.Allow[AllowIdentifier] = true
	if DefaultPolicy().Allow[AllowIdentifier] {
		t.Error("DefaultPolicy shares its map between calls")
	}
	Allowances()[0] = "mutated"
	if Allowances()[0] != AllowQuestionEcho {
		t.Error("Allowances shares its array")
	}
}

func TestCheck_Matching(t *testing.T) {
	ts := Numeral{Value: ts0800, Unit: UnitTimestamp}
	tests := []struct {
		name   string
		text   string
		ledger Ledger
		pass   bool
	}{
		// Plain numbers.
		{"count", "3 stores", led(num(3, UnitCount)), true},
		{"count against unitless", "3 stores", led(num(3, UnitNone)), true},
		{"wrong count", "4 stores", led(num(3, UnitCount)), false},
		{"spelled count", "three stores", led(num(3, UnitCount)), true},
		{"spelled wrong count", "four stores", led(num(3, UnitCount)), false},
		{"thousands", "1,234 scans", led(num(1234, UnitCount)), true},
		{"negative", "a change of -3", led(num(-3, UnitCount)), true},
		{"negative is not positive", "a change of -3", led(num(3, UnitCount)), false},
		{"scientific", "1.2e3 scans", led(num(1200, UnitCount)), true},
		{"zero", "0 stores", led(num(0, UnitCount)), true},
		{"zero is not almost zero", "0.001 stores", led(num(0, UnitCount)), false},
		{"scale word", "1.2 million scans", led(num(1200000, UnitCount)), true},
		{"empty ledger refuses any numeral", "3 stores", Ledger{}, false},
		{"no numerals pass", "No stores.", Ledger{}, true},

		// Money.
		{"dollars for cents", "$7.81", led(num(781, UnitCents)), true},
		{"cents for cents", "781 cents", led(num(781, UnitCents)), true},
		{"cent sign", "781¢", led(num(781, UnitCents)), true},
		{"dollar word for cents", "7.81 dollars", led(num(781, UnitCents)), true},
		{"USD code for cents", "USD 7.81", led(num(781, UnitCents)), true},
		{"cents for dollars", "781 cents", led(num(7.81, UnitUSD)), true},
		{"dollars for dollars", "$7.81", led(num(7.81, UnitUSD)), true},
		{"euro for euro", "€12", led(num(12, UnitEUR)), true},
		{"EUR code for euro", "EUR 12", led(num(12, UnitEUR)), true},
		{"pound for pound", "£5", led(num(5, UnitGBP)), true},
		{"pence for pounds", "50 pence", led(num(0.5, UnitGBP)), true},
		{"euros never back dollars", "€7.81", led(num(781, UnitCents)), false},
		{"dollars never back euros", "$12", led(num(12, UnitEUR)), false},
		{"pounds never back dollars", "£5", led(num(5, UnitUSD)), false},
		{"dollars for a count", "$3", led(num(3, UnitCount)), false},
		{"dollars for a unitless ledger", "$3", led(num(3, UnitNone)), false},
		{"cents as dollars", "$781", led(num(781, UnitCents)), false},
		{"dollars as cents", "7.81 cents", led(num(781, UnitCents)), false},
		{"bare cents", "a price of 781", led(num(781, UnitCents)), true},
		{"bare decimal is not cents", "a price of 7.81", led(num(781, UnitCents)), false},
		{"bare cents for dollars", "a price of 781", led(num(7.81, UnitUSD)), true},
		{"rounding within tolerance", "$7.8", led(num(781, UnitCents)), true},
		{"rounding beyond tolerance", "$8", led(num(781, UnitCents)), false},
		{"a fabricated third digit", "$7.91", led(num(781, UnitCents)), false},
		{"transposed digits", "$7.18", led(num(781, UnitCents)), false},
		{"range in dollars", "$7-8", led(num(700, UnitCents), num(800, UnitCents)), true},
		{"range half backed", "$7-9", led(num(700, UnitCents), num(800, UnitCents)), false},

		// Ratios and percentages.
		{"percent for ratio", "12% of stores", led(num(0.12, UnitRatio)), true},
		{"percent word for ratio", "12 percent", led(num(0.12, UnitRatio)), true},
		{"per cent for percent", "12 per cent", led(num(12, UnitPercent)), true},
		{"bare ratio for percent", "a ratio of 0.12", led(num(12, UnitPercent)), true},
		{"bare ratio for ratio", "a ratio of 0.12", led(num(0.12, UnitRatio)), true},
		{"bare percent value is not a percent", "a rate of 12", led(num(12, UnitPercent)), false},
		{"percent of a ratio rounded within tolerance", "12.3%", led(num(0.1234, UnitRatio)), true},
		{"percent of a ratio rounded beyond tolerance", "12%", led(num(0.1234, UnitRatio)), false},
		{"percent is not a count", "12%", led(num(12, UnitCount)), false},
		{"percent is not money", "12%", led(num(12, UnitUSD)), false},
		{"ratio as percent", "0.12%", led(num(0.12, UnitRatio)), false},

		// Times, dates, identifiers.
		{"timestamp", "as of 2026-01-06T08:00:00Z", led(ts), true},
		{"timestamp with an offset", "as of 2026-01-06T10:00:00+02:00", led(ts), true},
		{"another timestamp", "as of 2026-01-06T06:00:00Z", led(ts), false},
		{"date", "on 2026-01-06", led(num(day06, UnitDate)), true},
		{"date is not a timestamp", "on 2026-01-06", led(Numeral{Value: day06, Unit: UnitTimestamp}), false},
		{"bare seconds are not a timestamp", "1767686400", led(ts), false},
		{"identifier", "at st-003", led(ids("st-003")), true},
		{"identifier ignores case", "at ST-003", led(ids("st-003")), true},
		{"identifier on a valued entry", "res-000001", led(Numeral{Value: 781, Unit: UnitCents, ID: "res-000001"}), true},
		{"another identifier", "at st-004", led(ids("st-003")), false},
		{"identifier digits are not a number", "3 stores", led(ids("st-003")), false},
		{"identifier is not its digits", "st-003", led(num(3, UnitCount)), false},
		{"id with no unit backs no value", "0 stores", led(Numeral{ID: "st-003"}), false},
		{"window only backs no value", "0 stores", led(Numeral{Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"}}), false},

		// Scale words multiply (issue 7): the digits alone back nothing.
		{"hundred against 9", "9 hundred stores", led(num(9, UnitCount)), false},
		{"hundred against 900", "9 hundred stores", led(num(900, UnitCount)), true},
		{"k against 9", "9k scans", led(num(9, UnitCount)), false},
		{"k against 9000", "9k scans", led(num(9000, UnitCount)), true},
		{"dozen against 9", "nine dozen", led(num(9, UnitCount)), false},
		{"dozen against 108", "nine dozen", led(num(108, UnitCount)), true},
		{"thirteen hundred against 13", "thirteen hundred scans", led(num(13, UnitCount)), false},
		{"thirteen hundred against 1300", "thirteen hundred scans", led(num(1300, UnitCount)), true},
		{"million against 1.2", "1.2 million scans", led(num(1.2, UnitCount)), false},
		{"M dollars against cents", "$1.2M", led(num(120_000_000, UnitCents)), true},
		{"M dollars against 1.2 dollars", "$1.2M", led(num(1.2, UnitUSD)), false},
		{"bn dollars against cents", "$1.2bn", led(num(120_000_000_000, UnitCents)), true},
		{"m dollars against 120 cents", "$1.2m", led(num(120, UnitCents)), false},
		{"a dozen against 1", "a dozen stores", led(num(1, UnitCount)), false},
		{"spelled compound against its parts", "one hundred and two stores", led(num(100, UnitCount), num(2, UnitCount)), false},
		{"spelled compound against its value", "one hundred and two stores", led(num(102, UnitCount)), true},
		{"metres keep their number", "5 m of shelf", led(num(5, UnitCount)), true},

		// Every Unicode decimal digit is a numeral.
		{"fullwidth 14 against 13", "１４ stores", led(num(13, UnitCount)), false},
		{"fullwidth 13 against 13", "１３ stores", led(num(13, UnitCount)), true},
		{"fullwidth dollars against 781 cents", "$９.８１", led(num(781, UnitCents)), false},
		{"fullwidth 7.81 against 781 cents", "$７.８１", led(num(781, UnitCents)), true},
		{"devanagari 14 against 13", "१४ stores", led(num(13, UnitCount)), false},
		{"arabic-indic 13", "١٣ stores", led(num(13, UnitCount)), true},
		{"superscript against nothing", "sales rose¹", led(num(13, UnitCount)), false},

		// Honest rounding: k decimals match only the value rounded to k decimals.
		{"a fabricated last digit", "pi is 3.15", led(num(3.14159, UnitNone)), false},
		{"honest two decimals", "pi is 3.14", led(num(3.14159, UnitNone)), true},
		{"honest one decimal", "pi is 3.1", led(num(3.14159, UnitNone)), false}, // 1.3% off: beyond tolerance
		{"rounding in dollars", "$7.8", led(num(781, UnitCents)), true},
		{"rounding in dollars beyond tolerance", "$8", led(num(781, UnitCents)), false},
		{"dishonest rounding in dollars", "$7.82", led(num(781.4, UnitCents)), false},
		{"honest rounding of fractional cents", "$7.81", led(num(781.4, UnitCents)), true},
		{"half away from zero", "$7.81", led(num(780.5, UnitCents)), true},
		{"half never rounds down", "$7.80", led(num(780.5, UnitCents)), false},
		{"half away from zero negative", "-100.1", led(num(-100.05, UnitNone)), true},
		{"a negative half never rounds toward zero", "-100.0", led(num(-100.05, UnitNone)), false},
		{"percent rounded in percent", "12.3%", led(num(0.1234, UnitRatio)), true},
		{"percent rounded the wrong way", "12.4%", led(num(0.1234, UnitRatio)), false},
		{"ratio rounded in the ratio", "0.123", led(num(12.34, UnitPercent)), true},
		{"ratio rounded the wrong way", "0.124", led(num(12.34, UnitPercent)), false},
		{"integer is rounded to units", "1001 scans", led(num(1000.4, UnitCount)), false},
		{"trailing zeros round to their place", "4,000 scans", led(num(3992, UnitCount)), true},
		{"trailing zeros round to their place, wrongly", "3,990 scans", led(num(3996, UnitCount)), false},
		{"a scale word rounds in its unit", "1.2 million scans", led(num(1_203_000, UnitCount)), true},
		{"a scale word rounds in its unit, wrongly", "1.21 million scans", led(num(1_204_500, UnitCount)), false},
		{"pence round in pence", "1050 pence", led(num(10.504, UnitGBP)), true},
		{"pence round in pence, wrongly", "1051 pence", led(num(10.504, UnitGBP)), false},
		{"scientific rounds in its exponent", "2.4e3", led(num(2392, UnitCount)), true},
		{"scientific rounds in its exponent, wrongly", "2.41e3", led(num(2404, UnitCount)), false},
		{"cents round in cents", "781 cents", led(num(7.8149, UnitUSD)), true},
		{"a decimal half stored inexactly", "$7.81", led(num(7.805, UnitUSD)), true},
		{"beyond 15 digits only the tolerance holds", "1234567890123456789", led(num(1234567890123450000, UnitCount)), true},

		{"README answer", "The price of pr-007 at st-003 as of 2026-01-06T08:00:00Z is $7.81 (781 cents).",
			led(num(781, UnitCents), ts, ids("pr-007", "st-003")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check(tt.text, tt.ledger, "", StrictPolicy())
			if got := r.Verdict == Pass; got != tt.pass {
				t.Errorf("Check(%q) = %s, unmatched %v; want pass = %t", tt.text, r.Verdict, r.Unmatched, tt.pass)
			}
			if (r.Verdict == Pass) != (len(r.Unmatched) == 0) {
				t.Errorf("verdict %s with %d unmatched", r.Verdict, len(r.Unmatched))
			}
		})
	}
}

func TestCheck_Allowances(t *testing.T) {
	window := Numeral{Value: 2, Unit: UnitCount, Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-06T08:00:00Z"}}
	tests := []struct {
		name     string
		text     string
		question string
		ledger   Ledger
		policy   Policy
		want     Allowance // "" means refused
	}{
		{"echo timestamp", "as of 2026-01-06T08:00:00Z", "How many as of 2026-01-06T08:00:00Z?", Ledger{}, only(AllowQuestionEcho), AllowQuestionEcho},
		{"echo identifier", "pr-007 costs", "What is the price of pr-007?", Ledger{}, only(AllowQuestionEcho), AllowQuestionEcho},
		{"echo by value", "349 cents", "Is it $3.49?", Ledger{}, only(AllowQuestionEcho), AllowQuestionEcho},
		{"echo by text ignores case", "TWELVE", "twelve?", Ledger{}, only(AllowQuestionEcho), AllowQuestionEcho},
		{"echo of an identifier in fullwidth", "ｓｔ－００３", "Is st-003 out?", Ledger{}, only(AllowQuestionEcho), AllowQuestionEcho},
		{"echo spelled for digits", "three", "Are there 3?", Ledger{}, only(AllowQuestionEcho), AllowQuestionEcho},
		{"no echo across units", "$3", "Are there 3?", Ledger{}, only(AllowQuestionEcho), ""},
		{"no echo of another value", "4", "Are there 3?", Ledger{}, only(AllowQuestionEcho), ""},
		{"echo off", "as of 2026-01-06T08:00:00Z", "as of 2026-01-06T08:00:00Z", Ledger{}, StrictPolicy(), ""},
		{"list index", "1. st-003 is out", "", led(ids("st-003")), only(AllowOrdinal), AllowOrdinal},
		{"ordinal suffix", "the 2nd store", "", Ledger{}, only(AllowOrdinal), AllowOrdinal},
		{"ordinal word", "the first store", "", Ledger{}, only(AllowOrdinal), AllowOrdinal},
		{"a cardinal is no ordinal", "the 4 stores", "", Ledger{}, only(AllowOrdinal), ""},
		{"a lone line number is no list", "4. That is the count.", "", Ledger{}, only(AllowOrdinal), ""},
		{"inline list index after a colon", "Two products: 1. oat milk 2. rye bread", "", led(num(2, UnitCount)), only(AllowOrdinal), AllowOrdinal},
		{"inline run", "we stock 1) oat milk 2) rye bread", "", led(num(2, UnitCount)), only(AllowOrdinal), AllowOrdinal},
		{"a bare number in prose is no ordinal", "there are 2 products", "", Ledger{}, only(AllowOrdinal), ""},

		{"ordinal off", "the 2nd store", "", Ledger{}, StrictPolicy(), ""},
		{"timestamp in window", "at 2026-01-03T12:00:00Z", "", led(window), only(AllowWindowTimestamp), AllowWindowTimestamp},
		{"window start inclusive", "at 2026-01-01T00:00:00Z", "", led(window), only(AllowWindowTimestamp), AllowWindowTimestamp},
		{"window end inclusive", "at 2026-01-06T08:00:00Z", "", led(window), only(AllowWindowTimestamp), AllowWindowTimestamp},
		{"timestamp after window", "at 2026-01-06T08:00:01Z", "", led(window), only(AllowWindowTimestamp), ""},
		{"date overlapping window", "on 2026-01-06", "", led(window), only(AllowWindowTimestamp), AllowWindowTimestamp},
		{"date after window", "on 2026-01-07", "", led(window), only(AllowWindowTimestamp), ""},
		{"a number is not in a window", "2 and 1767400000", "", led(window), only(AllowWindowTimestamp), ""},
		{"window off", "at 2026-01-03T12:00:00Z", "", led(window), StrictPolicy(), ""},
		{"identifier digits", "store 3", "", led(ids("st-003")), only(AllowIdentifier), AllowIdentifier},
		{"identifier digits of a long id", "event 123", "", led(ids("evt-000123")), only(AllowIdentifier), AllowIdentifier},
		{"other digits", "store 4", "", led(ids("st-003")), only(AllowIdentifier), ""},
		{"a decimal is no identifier", "store 3.5", "", led(ids("st-003")), only(AllowIdentifier), ""},
		{"dollars are no identifier", "$3", "", led(ids("st-003")), only(AllowIdentifier), ""},
		{"identifier off by default", "store 3", "", led(ids("st-003")), DefaultPolicy(), ""},
		{"echo comes before ordinal", "the 2nd", "the 2nd?", Ledger{}, DefaultPolicy(), AllowQuestionEcho},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outs, r := check(tt.text, tt.ledger, tt.question, tt.policy)
			// The numeral under test is the first the ledger does not match.
			k := 0
			for k < len(outs) && outs[k].matched {
				k++
			}
			if k == len(outs) {
				t.Fatalf("no unmatched numeral in %q", tt.text)
			}
			o := outs[k]
			if o.allowance != tt.want {
				t.Errorf("%q: allowance %q, want %q (report %+v)", o.Text, o.allowance, tt.want, r)
			}
			if tt.want != "" && r.AllowanceHits[tt.want] != 1 {
				t.Errorf("hits %v, want %s counted once", r.AllowanceHits, tt.want)
			}
			if wantVerdict := map[bool]Verdict{true: Pass, false: Refuse}[tt.want != ""]; r.Verdict != wantVerdict && len(outs) == 1 {
				t.Errorf("verdict %s, want %s", r.Verdict, wantVerdict)
			}
		})
	}
}

func TestCheck_Report(t *testing.T) {
	l := led(num(3, UnitCount), num(781, UnitCents), Numeral{Value: ts0800, Unit: UnitTimestamp})
	q := "How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?"
	text := "1. 3 stores as of 2026-01-06T08:00:00Z.\n2. A fabricated 4 stores and $7.91."
	r := Check(text, l, q, DefaultPolicy())
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"verdict":"REFUSE","numerals_total":6,"unmatched":[{"text":"4","value":4,"unit":""},{"text":"$7.91","value":7.91,"unit":"usd"}],` +
		`"allowance_hits":{"identifier":0,"ordinal":2,"question_echo":0,"window_timestamp":0}}`
	if string(b) != want {
		t.Errorf("report\n got  %s\n want %s", b, want)
	}

	empty := Check("", Ledger{}, "", Policy{})
	b, _ = json.Marshal(empty)
	if want := `{"verdict":"PASS","numerals_total":0,"unmatched":[],"allowance_hits":{"identifier":0,"ordinal":0,"question_echo":0,"window_timestamp":0}}`; string(b) != want {
		t.Errorf("empty report\n got  %s\n want %s", b, want)
	}
}

// TestCheck_Tolerance: the relative tolerance bounds how far an honest
// rounding may land from the ledger value ("1,000" is 1004 or 996 rounded
// to thousands, and within 0.5% of either).
// TestCheck_ReportCountsOtherDigits: a numeral in digits outside ASCII is
// counted in numerals_total and reported as written.
func TestCheck_ReportCountsOtherDigits(t *testing.T) {
	tests := []struct {
		text   string
		ledger Ledger
		total  int
		want   []Unmatched
	}{
		{"１４ stores", led(num(13, UnitCount)), 1, []Unmatched{{Text: "１４", Value: 14}}},
		{"$９.８１", led(num(781, UnitCents)), 1, []Unmatched{{Text: "$９.８１", Value: 9.81, Unit: UnitUSD}}},
		{"$７.８１ at st-００３", led(num(781, UnitCents), ids("st-003")), 2, []Unmatched{}},
		{"९ hundred stores", led(num(9, UnitCount)), 1, []Unmatched{{Text: "९ hundred", Value: 900}}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			r := Check(tt.text, tt.ledger, "", StrictPolicy())
			if r.NumeralsTotal != tt.total || fmt.Sprint(r.Unmatched) != fmt.Sprint(tt.want) {
				t.Errorf("Check(%q): numerals_total %d, unmatched %v; want %d, %v", tt.text, r.NumeralsTotal, r.Unmatched, tt.total, tt.want)
			}
		})
	}
}

func TestCheck_Tolerance(t *testing.T) {
	tests := []struct {
		tol    float64
		ledger float64
		text   string
		pass   bool
	}{
		{0.005, 1005, "1,000", true},
		{0.005, 1005.1, "1,000", false},
		{0.005, 996, "1,000", true},
		{0.005, 994.9, "1,000", false}, // 0.51%
		{0, 1000, "1000", true},
		{0, 1000, "1000.001", false},
		{0, 1000.4, "1000", false}, // an honest rounding, but no tolerance
		{-1, 1000, "1000", true},   // a negative tolerance is zero
		{-1, 1000, "1000.001", false},
		{math.NaN(), 1000, "1000.001", false},
		{0.1, 1090, "1,000", true},
		{0.1, 1099, "1,010", false}, // within 10%, but 1099 never rounds to 1,010
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%v/%s", tt.tol, tt.ledger, tt.text), func(t *testing.T) {
			l := led(num(tt.ledger, UnitCount))
			r := Check(tt.text, l, "", Policy{MatchRelTol: tt.tol})
			if (r.Verdict == Pass) != tt.pass {
				t.Errorf("Check(%q) at tolerance %v = %s, want pass = %t", tt.text, tt.tol, r.Verdict, tt.pass)
			}
		})
	}
}

func TestParseLedger(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Ledger
		wantErr string
	}{
		{name: "empty list", in: `{"numerals": []}`, want: Ledger{Numerals: []Numeral{}}},
		{name: "full entry", in: `{"numerals": [{"value": 781, "unit": "cents", "id": "res-000001", "window": ["2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"]}]}`,
			want: Ledger{Numerals: []Numeral{{Value: 781, Unit: UnitCents, ID: "res-000001", Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"}}}}},
		{name: "bare value", in: `{"numerals": [{"value": 3}]}`, want: Ledger{Numerals: []Numeral{{Value: 3}}}},
		{name: "id only", in: `{"numerals": [{"id": "st-003"}]}`, want: Ledger{Numerals: []Numeral{{ID: "st-003"}}}},
		{name: "id unit", in: `{"numerals": [{"id": "st-003", "unit": "id"}]}`, want: Ledger{Numerals: []Numeral{{ID: "st-003", Unit: UnitID}}}},
		{name: "window only", in: `{"numerals": [{"unit": "timestamp", "window": ["2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"]}]}`,
			want: Ledger{Numerals: []Numeral{{Unit: UnitTimestamp, Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"}}}}},
		{name: "timestamp as a string", in: `{"numerals": [{"value": "2026-01-06T08:00:00Z", "unit": "timestamp"}]}`,
			want: Ledger{Numerals: []Numeral{{Value: ts0800, Unit: UnitTimestamp}}}},
		{name: "date as a string", in: `{"numerals": [{"value": "2026-01-06", "unit": "date"}]}`,
			want: Ledger{Numerals: []Numeral{{Value: day06, Unit: UnitDate}}}},
		{name: "null window", in: `{"numerals": [{"value": 3, "window": null}]}`, want: Ledger{Numerals: []Numeral{{Value: 3}}}},
		{name: "unknown top-level field", in: `{"numerals": [], "extra": 1}`, wantErr: `unknown field #1 (want numerals)`},
		{name: "unknown entry field", in: `{"numerals": [{"value": 3}, {"valu": 3}]}`, wantErr: `numerals[1]: unknown field #0 (want value, unit, id or window)`},
		{name: "repeated field", in: `{"numerals": [{"value": 3, "value": 4}]}`, wantErr: `numerals[0]: field value appears twice`},
		{name: "repeated numerals", in: `{"numerals": [], "numerals": []}`, wantErr: "field numerals appears twice"},
		{name: "missing numerals", in: `{}`, wantErr: "missing field numerals"},
		{name: "not an object", in: `[]`, wantErr: "ledger: want an object"},
		{name: "null", in: `null`, wantErr: "ledger: want an object"},
		{name: "field in another case", in: `{"NUMERALS": []}`, wantErr: "unknown field #0 (want numerals)"},
		{name: "repeated key in a value", in: `{"numerals": [{"value": 3, "window": null, "id": "x", "unit": "count", "secret-1234": 1, "secret-1234": 2}]}`, wantErr: "numerals[0]: field #5 repeats an earlier key"},
		{name: "unknown key never echoed", in: `{"numerals": [{"secret-1234": 3}]}`, wantErr: "numerals[0]: unknown field #0"},
		{name: "invalid UTF-8", in: "{\"numerals\": [{\"id\": \"st-\xff\"}]}", wantErr: "invalid UTF-8"},
		{name: "numerals not an array", in: `{"numerals": {}}`, wantErr: "numerals: want an array"},
		{name: "entry not an object", in: `{"numerals": [3]}`, wantErr: "numerals[0]: want an object"},
		{name: "malformed", in: `{"numerals": [}`, wantErr: "malformed JSON"},
		{name: "truncated", in: `{"numerals": [`, wantErr: "malformed JSON"},
		{name: "trailing data", in: `{"numerals": []} {}`, wantErr: "trailing data"},
		{name: "string value", in: `{"numerals": [{"value": "secret-1234"}]}`, wantErr: "numerals[0].value: want a number"},
		{name: "huge value", in: `{"numerals": [{"value": 1e999}]}`, wantErr: "numerals[0].value: number out of range"},
		{name: "unknown unit", in: `{"numerals": [{"value": 3, "unit": "parsecs"}]}`, wantErr: "numerals[0].unit: unknown unit (want one of count, cents"},
		{name: "unit not a string", in: `{"numerals": [{"value": 3, "unit": 3}]}`, wantErr: "numerals[0].unit: want a string"},
		{name: "empty id", in: `{"numerals": [{"id": ""}]}`, wantErr: "numerals[0].id: want a non-empty string"},
		{name: "no value", in: `{"numerals": [{"unit": "count"}]}`, wantErr: "numerals[0]: value is required unless id or window is given"},
		{name: "unit without value", in: `{"numerals": [{"unit": "cents", "id": "x"}]}`, wantErr: "numerals[0]: unit cents needs a value"},
		{name: "value and id without unit", in: `{"numerals": [{"value": 3, "id": "x"}]}`, wantErr: "a value with an id needs a unit"},
		{name: "unit id without id", in: `{"numerals": [{"value": 3, "unit": "id"}]}`, wantErr: "unit id needs an id"},
		{name: "window of one", in: `{"numerals": [{"value": 3, "window": ["2026-01-01T00:00:00Z"]}]}`, wantErr: "numerals[0].window: want [start, end]"},
		{name: "window not timestamps", in: `{"numerals": [{"value": 3, "window": ["yesterday", "2026-01-01T00:00:00Z"]}]}`, wantErr: "numerals[0].window[0]: want an RFC 3339 timestamp"},
		{name: "window reversed", in: `{"numerals": [{"value": 3, "window": ["2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"]}]}`, wantErr: "numerals[0].window: start is after end"},
		{name: "bad timestamp string", in: `{"numerals": [{"value": "soon", "unit": "timestamp"}]}`, wantErr: "numerals[0].value: want unix seconds or an RFC 3339 timestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLedger(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseLedger() error = %v, want one containing %q", err, tt.wantErr)
				}
				for _, secret := range []string{"secret-1234", "parsecs", "yesterday", "soon", "1e999"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q echoes a value from the input", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLedger() = %v", err)
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tt.want)
			if string(gb) != string(wb) || (got.Numerals == nil) != (tt.want.Numerals == nil) {
				t.Errorf("ParseLedger()\n got  %s\n want %s", gb, wb)
			}
		})
	}
}

func TestLedger_Validate(t *testing.T) {
	tests := []struct {
		name    string
		n       Numeral
		wantErr string
	}{
		{"ok", num(3, UnitCount), ""},
		{"no unit", num(3, UnitNone), ""},
		{"unknown unit", num(3, "furlongs"), "numerals[0].unit: unknown unit"},
		{"NaN", num(math.NaN(), UnitCount), "numerals[0].value: not a finite number"},
		{"Inf", num(math.Inf(1), UnitCount), "numerals[0].value: not a finite number"},
		{"id unit without id", Numeral{Unit: UnitID}, "unit id needs an id"},
		{"half a window", Numeral{Value: 3, Window: [2]string{"2026-01-01T00:00:00Z", ""}}, "numerals[0].window[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Ledger{Numerals: []Numeral{tt.n}}.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("Validate() = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
