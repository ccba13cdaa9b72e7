package oracle

import (
	"slices"
	"testing"

	"github.com/provenant/provenant/retail"
)

// tiny is a hand-checked store: every expectation below was worked out on
// paper from these eight events.
var tiny = &retail.Dataset{
	Version:  "tiny",
	Stores:   []retail.Store{{ID: "st-001"}, {ID: "st-002"}},
	Products: []retail.Product{{ID: "pr-001"}, {ID: "pr-002"}},
	Events: []retail.Event{
		{ID: "evt-000001", StoreID: "st-001", ProductID: "pr-001", Timestamp: "2026-01-01T08:00:00Z", State: "IN_STOCK", PriceCents: 100, Flag: "COMPLIANT"},
		{ID: "evt-000002", StoreID: "st-001", ProductID: "pr-001", Timestamp: "2026-01-02T08:00:00Z", State: "LOW_STOCK", PriceCents: 120, Flag: "PRICE_MISMATCH"},
		// A tie with evt-000002: the higher id is the later event.
		{ID: "evt-000003", StoreID: "st-001", ProductID: "pr-001", Timestamp: "2026-01-02T08:00:00Z", State: "OUT_OF_STOCK", PriceCents: 100, Flag: "COMPLIANT"},
		{ID: "evt-000004", StoreID: "st-001", ProductID: "pr-002", Timestamp: "2026-01-01T09:00:00Z", State: "OUT_OF_STOCK", PriceCents: 50, Flag: "EXPIRED_PRODUCT"},
		{ID: "evt-000005", StoreID: "st-002", ProductID: "pr-001", Timestamp: "2026-01-01T10:00:00Z", State: "OUT_OF_STOCK", PriceCents: 100, Flag: "PLANOGRAM_VIOLATION"},
		{ID: "evt-000006", StoreID: "st-002", ProductID: "pr-001", Timestamp: "2026-01-03T10:00:00Z", State: "IN_STOCK", PriceCents: 100, Flag: "COMPLIANT"},
		{ID: "evt-000007", StoreID: "st-001", ProductID: "pr-002", Timestamp: "2026-01-03T00:00:00Z", State: "OUT_OF_STOCK", PriceCents: 50, Flag: "COMPLIANT"},
		{ID: "evt-000008", StoreID: "st-001", ProductID: "pr-002", Timestamp: "2026-01-04T00:00:00Z", State: "IN_STOCK", PriceCents: 50, Flag: "COMPLIANT"},
	},
}

func TestCompute(t *testing.T) {
	p := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		tool    string
		params  map[string]string
		outcome string
		value   string
		ids     []string
	}{
		{"state before any scan", "get_stock_state", p("store_id", "st-001", "product_id", "pr-001", "as_of", "2026-01-01T07:59:59Z"), "absence", "null", nil},
		{"state as_of inclusive", "get_stock_state", p("store_id", "st-001", "product_id", "pr-001", "as_of", "2026-01-01T08:00:00Z"), "answered", `"IN_STOCK"`, []string{"evt-000001"}},
		{"state tie: higher id wins", "get_stock_state", p("store_id", "st-001", "product_id", "pr-001", "as_of", "2026-01-02T08:00:00Z"), "answered", `"OUT_OF_STOCK"`, []string{"evt-000003"}},
		{"price tie", "get_price", p("store_id", "st-001", "product_id", "pr-001", "as_of", "2026-01-05T00:00:00Z"), "answered", "100", []string{"evt-000003"}},
		{"flag", "get_compliance_flag", p("store_id", "st-001", "product_id", "pr-002", "as_of", "2026-01-02T00:00:00Z"), "answered", `"EXPIRED_PRODUCT"`, []string{"evt-000004"}},
		{"unscanned pair", "get_price", p("store_id", "st-002", "product_id", "pr-002", "as_of", "2026-01-05T00:00:00Z"), "absence", "null", nil},
		{"stores out of stock", "count_stores_with_condition", p("condition", "OUT_OF_STOCK", "as_of", "2026-01-02T08:00:00Z"), "answered",
			`{"count":2,"store_ids":["st-001","st-002"]}`, []string{"evt-000003", "evt-000004", "evt-000005"}},
		{"stores out of stock later", "count_stores_with_condition", p("condition", "OUT_OF_STOCK", "as_of", "2026-01-04T00:00:00Z"), "answered",
			`{"count":1,"store_ids":["st-001"]}`, []string{"evt-000003"}},
		{"stores non-compliant", "count_stores_with_condition", p("condition", "NON_COMPLIANT", "as_of", "2026-01-01T23:00:00Z"), "answered",
			`{"count":2,"store_ids":["st-001","st-002"]}`, []string{"evt-000004", "evt-000005"}},
		{"stores price mismatch lost to the tie", "count_stores_with_condition", p("condition", "PRICE_MISMATCH", "as_of", "2026-01-02T08:00:00Z"), "absence",
			`{"count":0,"store_ids":[]}`, nil},
		{"stores expired", "count_stores_with_condition", p("condition", "EXPIRED", "as_of", "2026-01-02T00:00:00Z"), "answered",
			`{"count":1,"store_ids":["st-001"]}`, []string{"evt-000004"}},
		{"list", "list_products_in_state", p("store_id", "st-001", "state", "OUT_OF_STOCK", "as_of", "2026-01-03T00:00:00Z"), "answered",
			`{"product_ids":["pr-001","pr-002"]}`, []string{"evt-000003", "evt-000007"}},
		{"list empty", "list_products_in_state", p("store_id", "st-002", "state", "LOW_STOCK", "as_of", "2026-01-05T00:00:00Z"), "absence",
			`{"product_ids":[]}`, nil},
		{"window start inclusive", "count_events_in_window", p("store_id", "st-001", "state", "OUT_OF_STOCK", "start", "2026-01-01T09:00:00Z", "end", "2026-01-03T00:00:00Z"), "answered",
			`{"count":2}`, []string{"evt-000003", "evt-000004"}},
		{"window end exclusive", "count_events_in_window", p("store_id", "st-001", "state", "OUT_OF_STOCK", "start", "2026-01-01T09:00:01Z", "end", "2026-01-02T08:00:00Z"), "absence",
			`{"count":0}`, nil},
		{"window empty", "count_events_in_window", p("store_id", "st-001", "state", "IN_STOCK", "start", "2026-01-01T08:00:00Z", "end", "2026-01-01T08:00:00Z"), "absence",
			`{"count":0}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := Compute(tiny, tt.tool, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if x.Outcome != tt.outcome || string(x.Value) != tt.value || !slices.Equal(x.EventIDs, tt.ids) {
				t.Errorf("got %s %s %v, want %s %s %v", x.Outcome, x.Value, x.EventIDs, tt.outcome, tt.value, tt.ids)
			}
		})
	}
}

func TestCompute_Errors(t *testing.T) {
	tests := []struct {
		name   string
		tool   string
		params map[string]string
	}{
		{"unknown tool", "get_revenue", map[string]string{"store_id": "st-001"}},
		{"missing parameter", "get_price", map[string]string{"store_id": "st-001", "product_id": "pr-001", "start": "x"}},
		{"extra parameter", "get_price", map[string]string{"store_id": "st-001", "product_id": "pr-001", "as_of": "x", "end": "y"}},
		{"unknown condition", "count_stores_with_condition", map[string]string{"condition": "ON_FIRE", "as_of": "2026-01-05T00:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compute(tiny, tt.tool, tt.params); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
