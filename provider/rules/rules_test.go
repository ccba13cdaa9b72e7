package rules_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

func TestSelect(t *testing.T) {
	const ts = "2026-01-06T08:00:00Z"
	scalar := func(name string) *tool.Proposal {
		return &tool.Proposal{Tool: name, Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": ts}}
	}
	window := &tool.Proposal{Tool: retail.CountEventsInWindow, Params: map[string]any{
		"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}}
	tests := []struct {
		question string
		want     *tool.Proposal // nil: abstain
	}{
		{"What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", scalar(retail.GetStockState)},
		{"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", scalar(retail.GetPrice)},
		{"What is the compliance flag of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", scalar(retail.GetComplianceFlag)},
		{"How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: retail.CountStoresWithCondition, Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": ts}}},
		{"Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: retail.ListProductsInState, Params: map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": ts}}},
		{"How many OUT_OF_STOCK events were recorded for st-003 in [2026-01-01T00:00:00Z, 2026-01-07T00:00:00Z)?", window},
		// Variants.
		{"what's the shelf state for pr-007 in st-003 as of 2026-01-06T08:00:00Z", scalar(retail.GetStockState)},
		{"  WHAT WAS THE SHELF PRICE OF pr-007 AT st-003 AS OF 2026-01-06T08:00:00Z!  ", scalar(retail.GetPrice)},
		{"What is the compliance status of pr-007 at st-003 as of 2026-01-06T08:00:00Z.", scalar(retail.GetComplianceFlag)},
		{"how many stores had the condition out_of_stock as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: retail.CountStoresWithCondition, Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": ts}}},
		{"What products were in state low_stock in st-003 as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: retail.ListProductsInState, Params: map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": ts}}},
		{"How many out_of_stock scans were recorded at st-003 between 2026-01-01T00:00:00Z and 2026-01-07T00:00:00Z?", window},
		// Tokens pass through as written for the wall to judge.
		{"What is the price of pr-007' OR 1=1 at st-003 as of 2026-01-06T08:00:00Z?",
			&tool.Proposal{Tool: retail.GetPrice, Params: map[string]any{"store_id": "st-003", "product_id": "pr-007' OR 1=1", "as_of": ts}}},
		{"What is the price of banana at st-003 as of yesterday?",
			&tool.Proposal{Tool: retail.GetPrice, Params: map[string]any{"store_id": "st-003", "product_id": "banana", "as_of": "yesterday"}}},
		// Out of coverage.
		{"How many employees work at st-003?", nil},
		{"What was the revenue of st-003 last week?", nil},
		{"What is the price of pr-007 at st-003?", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			got, err := rules.Provider{}.Select(t.Context(), tt.question, retail.Registry().Menu())
			if err != nil {
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
		{retail.GetStockState, fact.Text("LOW_STOCK"), "The stock state of pr-007 at st-003 as of T is LOW_STOCK."},
		{retail.GetPrice, fact.Integer(1205, "cents"), "The price of pr-007 at st-003 as of T is $12.05 (1205 cents)."},
		{retail.GetPrice, fact.Integer(7, "cents"), "The price of pr-007 at st-003 as of T is $0.07 (7 cents)."},
		{retail.GetComplianceFlag, fact.NoObservation(fact.KindText), "No scan of pr-007 at st-003 was recorded at or before T, so its compliance flag is not known."},
		{retail.CountStoresWithCondition, fact.EntityCount("store_ids", []string{"st-002", "st-001"}), "2 stores have condition EXPIRED as of T: st-001, st-002."},
		{retail.CountStoresWithCondition, fact.EntityCount("store_ids", []string{"st-001"}), "1 store has condition EXPIRED as of T: st-001."},
		{retail.CountStoresWithCondition, fact.EntityCount("store_ids", nil), "No store has condition EXPIRED as of T."},
		{retail.ListProductsInState, fact.EntityList("product_ids", nil), "No product is in state LOW_STOCK at st-003 as of T."},
		{retail.ListProductsInState, fact.EntityList("product_ids", []string{"pr-001"}), "1 product is in state LOW_STOCK at st-003 as of T: pr-001."},
		{retail.CountEventsInWindow, fact.RowCount(1), "1 scan with state LOW_STOCK was recorded for st-003 in [A, B)."},
		{retail.CountEventsInWindow, fact.RowCount(0), "0 scans with state LOW_STOCK were recorded for st-003 in [A, B)."},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := rules.Sentence(tt.tool, args, tt.value); got != tt.want {
				t.Errorf("Sentence() = %q, want %q", got, tt.want)
			}
			if strings.Contains(rules.Sentence(tt.tool, args, tt.value), "evt-") {
				t.Error("a sentence mentions an event")
			}
		})
	}
}
