package eval_test

import (
	"bytes"
	"errors"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/eval"
)

const head = "suite_version: s1\ndataset_version: retail-demo-v1\nitems:\n"

const outItem = "  - id: out-1\n    question: How many employees work at st-003?\n    coverage: out\n    expect:\n      outcome: abstained\n"

// priceItem is a valid answered get_price item; tests replace parts of it.
const priceItem = `  - id: price-1
    question: What is the price of pr-001 at st-001 as of 2026-01-02T00:00:00Z?
    coverage: in
    expect:
      outcome: answered
      tool: get_price
      params: {store_id: st-001, product_id: pr-001, as_of: "2026-01-02T00:00:00Z"}
      value: 299
      event_ids: [evt-000001]
`

func TestParse_Valid(t *testing.T) {
	src := head + outItem + priceItem + `  - id: zero-1
    question: How many LOW_STOCK events were recorded for st-001 in [2026-01-01T00:00:00Z, 2026-01-01T00:00:00Z)?
    coverage: in
    tags: [zero, window_empty]
    note: an empty window
    expect:
      outcome: absence
      tool: count_events_in_window
      params:
        store_id: st-001
        state: LOW_STOCK
        start: 2026-01-01T00:00:00Z
        end: 2026-01-01T00:00:00Z
      value: {count: 0}
  - id: nothing-1
    question: What is the stock state of pr-002 at st-001 as of 2026-01-02T00:00:00Z?
    coverage: in
    expect:
      outcome: absence
      tool: get_stock_state
      params: {store_id: st-001, product_id: pr-002, as_of: "2026-01-02T00:00:00Z"}
      value: null
  - id: wall-1
    question: What is the price of pr-999 at st-001 as of 2026-01-02T00:00:00Z?
    coverage: in
    expect:
      outcome: rejected
      rejection: invalid
      tool: get_price
`
	g, err := eval.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(catalogstest.Retail()); err != nil {
		t.Fatal(err)
	}
	if len(g.Items) != 5 {
		t.Fatalf("items = %d, want 5", len(g.Items))
	}
	tests := []struct {
		i         int
		outcome   answer.Outcome
		value     string
		eventIDs  []string
		paramsLen int
	}{
		{0, answer.Abstained, "", nil, 0},
		{1, answer.Answered, "299", []string{"evt-000001"}, 3},
		{2, answer.Absence, `{"count":0}`, nil, 4},
		{3, answer.Absence, "null", nil, 3},
		{4, answer.Rejected, "", nil, 0},
	}
	for _, tt := range tests {
		x := g.Items[tt.i].Expect
		if x.Outcome != tt.outcome || string(x.Value) != tt.value || !slices.Equal(x.EventIDs, tt.eventIDs) || len(x.Params) != tt.paramsLen {
			t.Errorf("items[%d].expect = %+v (value %s)", tt.i, x, x.Value)
		}
	}
	if got := g.Items[2].Expect.Params["start"]; got != "2026-01-01T00:00:00Z" {
		t.Errorf("an unquoted timestamp decoded as %q", got)
	}
	if !slices.Equal(g.Items[2].Tags, []string{"zero", "window_empty"}) {
		t.Errorf("tags = %v", g.Items[2].Tags)
	}
}

// TestParse_Errors checks each bad file fails with a message naming the
// position, the item and the field, and never the offending value.
func TestParse_Errors(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(priceItem, old) {
			t.Fatalf("test setup: %q not in priceItem", old)
		}
		return head + outItem + strings.Replace(priceItem, old, new, 1)
	}
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error, in order
	}{
		{"unknown item key", head + outItem + "  - id: b\n    questoin: x\n", []string{"parse gold set: line 10 column 5: items[1] (b): unknown field (did you mean question?)"}},
		{"unknown expect key", replace("      tool: get_price", "      tol: get_price"), []string{"line 14 column 7: items[1] (price-1): unknown field (did you mean tool?)"}},
		{"unknown top key", "suite_versoin: x\n", []string{"line 1 column 1: unknown field (did you mean suite_version?)"}},
		{"unknown key far from any", head + outItem + "  - id: b\n    zzzzzzzzzz: x\n", []string{"unknown field (want one of id, question, coverage, tags, family, note, expect)"}},
		{"duplicate key", head + "  - id: a\n    id: b\n", []string{"line 5 column 5", "already defined"}},
		{"wrong type", head + "  - id: [1]\n", []string{"line 4 column 9: items[0]: field id: wrong type: want a string"}},
		{"items not a list", head[:len(head)-1] + " 3\n", []string{"line 3 column 8", "sequence"}},
		{"anchor", head + "  - id: &x a\n    question: *x\n", []string{"line 4 column 9", "anchors, aliases"}},
		{"merge key", head + "  - id: a\n    <<: {question: b}\n", []string{"line 5 column 5", "merge keys"}},
		{"not a mapping", "- a\n", []string{"line 1 column 1: document must be a mapping"}},
		{"two documents", "a: 1\n---\nb: 2\n", []string{"want exactly one YAML document"}},
		{"syntax", head + "  - id: a\n   question: b\n", []string{"parse gold set: line"}},
		{"missing suite version", "dataset_version: d\nitems: []\n", []string{"validate gold set: field suite_version: is required"}},
		{"no items", "suite_version: s\ndataset_version: d\nitems: []\n", []string{"line 3 column 1: field items: must hold at least one item"}},
		{"duplicate id", head + outItem + outItem, []string{"line 9 column 5: items[1] (out-1): field id: duplicate id (first used by items[0])"}},
		{"bad id", head + strings.Replace(outItem, "out-1", "Out 1", 1), []string{"items[0]: field id: must be"}},
		{"bad coverage", head + strings.Replace(outItem, "coverage: out", "coverage: maybe", 1), []string{"line 6 column 5: items[0] (out-1): field coverage: must be in or out"}},
		{"out item answered", head + strings.Replace(outItem, "abstained", "answered", 1), []string{"field expect.outcome: must be abstained for an out-of-coverage item"}},
		{"out item with a tool", head + outItem + "      tool: get_price\n", []string{"line 9 column 7: items[0] (out-1): field expect.tool: must be absent for outcome abstained"}},
		{"in item abstained", replace("outcome: answered", "outcome: abstained"), []string{"field expect.outcome: an in-coverage item cannot expect abstained"}},
		{"expecting an error", replace("outcome: answered", "outcome: error"), []string{"field expect.outcome: a gold item cannot expect an error"}},
		{"unknown outcome", replace("outcome: answered", "outcome: maybe"), []string{"field expect.outcome: must be answered, absence, rejected or abstained"}},
		{"unregistered tool", replace("tool: get_price", "tool: get_revenue"), []string{"line 14 column 7: items[1] (price-1): field expect.tool: is not a registered tool"}},
		{"missing param", replace(", as_of: \"2026-01-02T00:00:00Z\"", ""), []string{"field expect.params.as_of: is missing"}},
		{"extra param", replace("as_of: \"2026", "state: IN_STOCK, as_of: \"2026"), []string{"field expect.params: has a parameter get_price does not take"}},
		{"bad param value", replace("store_id: st-001", "store_id: st-1"), []string{"field expect.params.store_id: is not a store id"}},
		{"bad timestamp", replace("\"2026-01-02T00:00:00Z\"", "\"2026-01-02 00:00\""), []string{"field expect.params.as_of: is not a UTC timestamp"}},
		{"missing value", replace("      value: 299\n", ""), []string{"line 12 column 5: items[1] (price-1): field expect.value: is required for outcome answered"}},
		{"float price", replace("value: 299", "value: 2.99"), []string{"line 16 column 7: items[1] (price-1): field expect.value: must be null or a non-negative integer (cents)"}},
		{"string price", replace("value: 299", "value: \"299\""), []string{"field expect.value: must be null or a non-negative integer"}},
		{"zero answered", replace("value: 299\n      event_ids: [evt-000001]\n", "value: null\n"), []string{"field expect.outcome: must be absence for a grounded zero value"}},
		{"positive absence", replace("outcome: answered", "outcome: absence"), []string{"field expect.outcome: must be answered for a positive value"}},
		{"no events for a positive value", replace("      event_ids: [evt-000001]\n", ""), []string{"field expect.event_ids: is required for a positive value"}},
		{"bad event id", replace("evt-000001", "evt-1"), []string{"field expect.event_ids[0]: is not an event id"}},
		{"unsorted event ids", replace("[evt-000001]", "[evt-000002, evt-000001]"), []string{"field expect.event_ids[1]: must be sorted and unique"}},
		{"too many events for a scalar", replace("[evt-000001]", "[evt-000001, evt-000002]"), []string{"field expect.event_ids: must hold exactly 1 event ids"}},
		{"rejection without kind", head + "  - id: w\n    question: q\n    coverage: in\n    expect:\n      outcome: rejected\n", []string{"field expect.rejection: is required for outcome rejected"}},
		{"rejection with a value", head + "  - id: w\n    question: q\n    coverage: in\n    expect:\n      outcome: rejected\n      rejection: invalid\n      value: 3\n", []string{"field expect.value: must be absent for outcome rejected"}},
		{"store count shape", head + `  - id: s
    question: q
    coverage: in
    expect:
      outcome: answered
      tool: count_stores_with_condition
      params: {condition: EXPIRED, as_of: "2026-01-02T00:00:00Z"}
      value: {count: 2, store_ids: [st-001]}
      event_ids: [evt-000001]
`, []string{"field expect.value: count must equal the number of store ids"}},
		{"list shape", head + `  - id: l
    question: q
    coverage: in
    expect:
      outcome: answered
      tool: list_products_in_state
      params: {store_id: st-001, state: LOW_STOCK, as_of: "2026-01-02T00:00:00Z"}
      value: {product_ids: [pr-002, pr-001]}
      event_ids: [evt-000001, evt-000002]
`, []string{"field expect.value: must hold sorted, unique product ids"}},
		{"reversed window", head + `  - id: w
    question: q
    coverage: in
    expect:
      outcome: absence
      tool: count_events_in_window
      params: {store_id: st-001, state: LOW_STOCK, start: "2026-01-02T00:00:00Z", end: "2026-01-01T00:00:00Z"}
      value: {count: 0}
`, []string{"field expect.params.start: is after end"}},
		{"bad tag", head + strings.Replace(outItem, "    coverage", "    tags: [Zero]\n    coverage", 1), []string{"field tags[0]: must be"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := eval.Parse(strings.NewReader(tt.src))
			if err == nil {
				err = g.Validate(catalogstest.Retail())
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, eval.ErrInvalidGold) {
				t.Errorf("error %v does not match ErrInvalidGold", err)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error = %q\nwant it to contain %q", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestParse_NeverEchoesValues(t *testing.T) {
	secret := "st-SECRET"
	src := head + strings.Replace(priceItem, "store_id: st-001", "store_id: "+secret, 1)
	g, err := eval.Parse(strings.NewReader(src))
	if err == nil {
		err = g.Validate(catalogstest.Retail())
	}
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("error = %v, want one that does not repeat the value", err)
	}
}

func TestParse_TooLarge(t *testing.T) {
	big := bytes.Repeat([]byte("#"), eval.MaxGoldBytes+1)
	if _, err := eval.Parse(bytes.NewReader(big)); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("error = %v, want a size error", err)
	}
}

// FuzzParse checks the parser and validator never panic, and that a set
// that validates has the invariants Run relies on.
func FuzzParse(f *testing.F) {
	f.Add(eval.DefaultGoldFile())
	f.Add([]byte(head + outItem + priceItem))
	f.Add([]byte(head + "  - id: &x a\n    question: *x\n"))
	f.Add([]byte("items: [{id: a, expect: {value: {a: [1, {b: null}]}}}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := eval.Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := g.Validate(catalogstest.Retail()); err != nil {
			return
		}
		for _, it := range g.Items {
			x := it.Expect
			if (x.Outcome == answer.Answered) != (len(x.EventIDs) > 0) {
				t.Fatalf("item %s: outcome %s with %d event ids validated", it.ID, x.Outcome, len(x.EventIDs))
			}
		}
	})
}
