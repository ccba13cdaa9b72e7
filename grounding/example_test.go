package grounding_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/provenant/provenant/grounding"
)

func ExampleCheck() {
	ledger := grounding.Ledger{Numerals: []grounding.Numeral{
		{Value: 781, Unit: grounding.UnitCents},
		{ID: "pr-007", Unit: grounding.UnitID},
		{ID: "st-003", Unit: grounding.UnitID},
	}}
	question := "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"
	answer := "The price of pr-007 at st-003 as of 2026-01-06T08:00:00Z is $7.81 (781 cents)."

	r := grounding.Check(answer, ledger, question, grounding.DefaultPolicy())
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	// Output:
	// {"verdict":"PASS","numerals_total":5,"unmatched":[],"allowance_hits":{"identifier":0,"ordinal":0,"question_echo":1,"window_timestamp":0}}
}

func ExampleCheck_refuse() {
	ledger := grounding.Ledger{Numerals: []grounding.Numeral{
		{Value: 3, Unit: grounding.UnitCount},
		{Value: 781, Unit: grounding.UnitCents},
	}}
	// A fabricated count, and a price rounded beyond the tolerance.
	answer := "4 stores are out of stock; the price is $8."

	r := grounding.Check(answer, ledger, "", grounding.StrictPolicy())
	fmt.Println(r.Verdict)
	for _, u := range r.Unmatched {
		fmt.Printf("%q = %v %q\n", u.Text, u.Value, u.Unit)
	}
	// Output:
	// REFUSE
	// "4" = 4 ""
	// "$8" = 8 "usd"
}

func ExampleCheck_rounding() {
	ledger := grounding.Ledger{Numerals: []grounding.Numeral{{Value: 0.1234, Unit: grounding.UnitRatio}}}
	for _, answer := range []string{"12.34% of stores", "12.3% of stores", "12% of stores", "a ratio of 0.1234"} {
		fmt.Println(answer+":", grounding.Check(answer, ledger, "", grounding.StrictPolicy()).Verdict)
	}
	// Output:
	// 12.34% of stores: PASS
	// 12.3% of stores: PASS
	// 12% of stores: REFUSE
	// a ratio of 0.1234: PASS
}

func ExampleExtract() {
	text := "12-15% of st-003's 1,234 scans on 2026-01-06 cost EUR 3.49; three were late."
	for _, f := range grounding.Extract(text) {
		fmt.Printf("%-12q %-13v %q\n", f.Text, f.Value, f.Unit)
	}
	// Output:
	// "12-15%"     12            "percent"
	// "12-15%"     15            "percent"
	// "st-003"     3             "id"
	// "1,234"      1234          ""
	// "2026-01-06" 1.7676576e+09 "date"
	// "EUR 3.49"   3.49          "eur"
	// "three"      3             ""
}

func ExampleParseLedger() {
	l, err := grounding.ParseLedger(strings.NewReader(`{"numerals": [
		{"value": 781, "unit": "cents"},
		{"value": "2026-01-06T08:00:00Z", "unit": "timestamp"},
		{"id": "st-003"}
	]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(grounding.Check("st-003 charged 781¢ at 2026-01-06T08:00:00Z", l, "", grounding.StrictPolicy()).Verdict)

	_, err = grounding.ParseLedger(strings.NewReader(`{"numerals": [{"valeu": 781}]}`))
	fmt.Println(err)
	// Output:
	// PASS
	// parse ledger: numerals[0]: unknown field #0 (want value, unit, id or window)
}
