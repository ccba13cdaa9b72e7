package rules_test

import (
	"errors"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

func TestSelect(t *testing.T) {
	const ts = "2026-01-06T08:00:00Z"
	scalar := func(name string) *tool.Proposal {
		return &tool.Proposal{Tool: name, Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": ts}}
	}
	window := &tool.Proposal{Tool: "count_events_in_window", Params: map[string]any{
		"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}}
	tests := []struct {
		question string
		want     *tool.Proposal // nil: abstain
	}{
		{"What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", scalar("get_stock_state")},
		{"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", scalar("get_price")},
		{"What is the compliance flag of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", scalar("get_compliance_flag")},
		{"How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": ts}}},
		{"Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: "list_products_in_state", Params: map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": ts}}},
		{"How many OUT_OF_STOCK events were recorded for st-003 in [2026-01-01T00:00:00Z, 2026-01-07T00:00:00Z)?", window},
		// Variants.
		{"what's the shelf state for pr-007 in st-003 as of 2026-01-06T08:00:00Z", scalar("get_stock_state")},
		{"  WHAT WAS THE SHELF PRICE OF pr-007 AT st-003 AS OF 2026-01-06T08:00:00Z!  ", scalar("get_price")},
		{"What is the compliance status of pr-007 at st-003 as of 2026-01-06T08:00:00Z.", scalar("get_compliance_flag")},
		{"how many stores had the condition out_of_stock as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": ts}}},
		{"What products were in state low_stock in st-003 as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: "list_products_in_state", Params: map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": ts}}},
		{"How many out_of_stock scans were recorded at st-003 between 2026-01-01T00:00:00Z and 2026-01-07T00:00:00Z?", window},
		// Tokens pass through as written for the wall to judge.
		{"What is the price of pr-007' OR 1=1 at st-003 as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": "st-003", "product_id": "pr-007' OR 1=1", "as_of": ts}}},
		{"What is the price of banana at st-003 as of yesterday?",
			&tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": "st-003", "product_id": "banana", "as_of": "yesterday"}}},
		// Out of coverage.
		{"How many employees work at st-003?", nil},
		{"What was the revenue of st-003 last week?", nil},
		{"What is the price of pr-007 at st-003?", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			got, err := rules.Provider{}.Select(t.Context(), tt.question, catalogstest.Retail().Menu())
			if _, ok := errors.AsType[*provider.Abstention](err); err != nil && !ok {
				t.Fatal(err)
			}
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("Select() = %+v, want abstention", *got)
			case tt.want != nil && got == nil:
				t.Errorf("Select() abstained, want %+v", *tt.want)
			case tt.want != nil && (got.Tool != tt.want.Tool || !maps.Equal(got.Params, tt.want.Params)):
				t.Errorf("Select() = %+v, want %+v", *got, *tt.want)
			}
		})
	}
}

func TestSentence(t *testing.T) {
	args := map[string]string{"store_id": "st-003", "product_id": "pr-007", "as_of": "T", "condition": "EXPIRED",
		"state": "LOW_STOCK", "start": "A", "end": "B"}
	tests := []struct {
		tool  string
		value fact.Value
		want  string
	}{
		{"get_stock_state", fact.Text("LOW_STOCK"), "The stock state of pr-007 at st-003 as of T is LOW_STOCK."},
		{"get_price", fact.Integer(1205, "cents"), "The price of pr-007 at st-003 as of T is $12.05 (1205 cents)."},
		{"get_price", fact.Integer(7, "cents"), "The price of pr-007 at st-003 as of T is $0.07 (7 cents)."},
		{"get_compliance_flag", fact.NoObservation(fact.KindText), "No scan of pr-007 at st-003 was recorded at or before T, so its compliance flag is not known."},
		{"count_stores_with_condition", fact.EntityCount("store_ids", []string{"st-002", "st-001"}), "2 stores have condition EXPIRED as of T: st-001, st-002."},
		{"count_stores_with_condition", fact.EntityCount("store_ids", []string{"st-001"}), "1 store has condition EXPIRED as of T: st-001."},
		{"count_stores_with_condition", fact.EntityCount("store_ids", nil), "No store has condition EXPIRED as of T."},
		{"list_products_in_state", fact.EntityList("product_ids", nil), "No product is in state LOW_STOCK at st-003 as of T."},
		{"list_products_in_state", fact.EntityList("product_ids", []string{"pr-001"}), "1 product is in state LOW_STOCK at st-003 as of T: pr-001."},
		{"count_events_in_window", fact.RowCount(1), "1 scan with state LOW_STOCK was recorded for st-003 in [A, B)."},
		{"count_events_in_window", fact.RowCount(0), "0 scans with state LOW_STOCK were recorded for st-003 in [A, B)."},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			def, _ := catalogstest.Retail().Lookup(tt.tool)
			got := tool.Sentence(def, args, tt.value)
			if got != tt.want {
				t.Errorf("Sentence() = %q, want %q", got, tt.want)
			}
			if strings.Contains(got, "evt-") {
				t.Error("a sentence mentions an event")
			}
		})
	}
}

// goldQuestions are the questions of the embedded gold set.
func goldQuestions(t *testing.T) []string {
	b, err := os.ReadFile("../../eval/retail-demo-v1.gold.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s+question: (".*")$`).FindAllStringSubmatch(string(b), -1) {
		q, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("gold question %s: %v", m[1], err)
		}
		out = append(out, q)
	}
	if len(out) < 50 {
		t.Fatalf("read %d gold questions, want the whole set", len(out))
	}
	return out
}

// TestPhrasings_MatchLegacy: the retail catalog's phrasings propose what
// the hand-written templates proposed, on the gold questions and on
// variants of them (case, spacing, punctuation, words swapped out). A
// variant the templates did not match may now be understood, but only as
// the question it varies: never as another call.
func TestPhrasings_MatchLegacy(t *testing.T) {
	menu := catalogstest.Retail().Menu()
	for _, orig := range goldQuestions(t) {
		wantOrig := canonicalIDs(legacySelect(orig))
		variants := []string{orig, strings.ToUpper(orig), strings.ReplaceAll(orig, " ", "   "), strings.TrimRight(orig, "?.!"),
			strings.Replace(orig, " at ", " in ", 1), strings.Replace(orig, "What is", "What's", 1), strings.Replace(orig, "What is", "Whatis", 1),
			strings.Replace(orig, " the ", " ", 1), strings.Replace(orig, "[", "", 1), orig + " please", "Tell me: " + orig}
		for _, q := range variants {
			want := canonicalIDs(legacySelect(q))
			got, err := rules.Provider{}.Select(t.Context(), q, menu)
			if _, ok := errors.AsType[*provider.Abstention](err); err != nil && !ok {
				t.Fatal(err)
			}
			switch {
			case want != nil && got == nil:
				t.Errorf("%q: Select abstained (%v), legacy %v", q, err, want)
			case want != nil && (got.Tool != want.Tool || !maps.Equal(got.Params, want.Params)):
				t.Errorf("%q: Select = %+v, legacy %+v", q, *got, *want)
			case want == nil && got != nil && (wantOrig == nil || got.Tool != wantOrig.Tool || !maps.Equal(got.Params, wantOrig.Params)):
				t.Errorf("%q: Select = %+v, the question it varies %v", q, *got, wantOrig)
			}
		}
	}
}

// TestSentences_MatchLegacy: the retail catalog's templates render what
// the hand-written format strings rendered, for random values of every
// tool.
func TestSentences_MatchLegacy(t *testing.T) {
	reg := catalogstest.Retail()
	rapid.Check(t, func(rt *rapid.T) {
		d := rapid.SampledFrom(reg.Menu()).Draw(rt, "tool")
		args := map[string]string{}
		for _, p := range d.Params {
			args[p.Name] = rapid.StringMatching(`[a-z0-9:-]{1,12}`).Draw(rt, p.Name)
		}
		var v fact.Value
		ids := rapid.SliceOfDistinct(rapid.StringMatching(`st-[0-9]{3}`), func(s string) string { return s }).Draw(rt, "ids")
		switch d.Value {
		case fact.KindText:
			v = fact.Text(rapid.SampledFrom(d.Values).Draw(rt, "text"))
		case fact.KindInteger:
			v = fact.Integer(rapid.Int64Range(0, 1_000_000).Draw(rt, "int"), d.Unit)
		case fact.KindEntityCount:
			v = fact.EntityCount(d.IDsField, ids)
		case fact.KindEntityList:
			v = fact.EntityList(d.IDsField, ids)
		case fact.KindRowCount:
			v = fact.RowCount(rapid.IntRange(0, 5).Draw(rt, "count"))
		}
		if d.Value.Scalar() && rapid.Bool().Draw(rt, "unobserved") {
			v = fact.NoObservation(d.Value)
		}
		if got, want := tool.Sentence(d, args, v), legacySentence(d.Name, args, v); got != want {
			rt.Fatalf("Sentence = %q, legacy %q", got, want)
		}
	})
}

// wellFormedID is a retail id in any case.
var wellFormedID = regexp.MustCompile(`(?i)^(st|pr)-[0-9]{3}$`)

// canonicalIDs writes a legacy proposal's well-formed ids in their
// declared (lower) case: the parser reads an id in any case.
func canonicalIDs(p *tool.Proposal) *tool.Proposal {
	if p == nil {
		return nil
	}
	c := *p
	c.Params = maps.Clone(p.Params)
	for k, v := range c.Params {
		if s, ok := v.(string); ok && strings.HasSuffix(k, "_id") && wellFormedID.MatchString(s) {
			c.Params[k] = strings.ToLower(s)
		}
	}
	return &c
}
