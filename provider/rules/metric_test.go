package rules_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/phrase"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

// Windows at clock (Wednesday 2026-01-07 12:00:00Z).
var (
	lastWeek  = []string{"start", "2025-12-29T00:00:00Z", "end", "2026-01-05T00:00:00Z"}
	yesterday = []string{"start", "2026-01-06T00:00:00Z", "end", "2026-01-07T00:00:00Z"}
	thisMonth = []string{"start", "2026-01-01T00:00:00Z", "end", nowTS}
	lastMonth = []string{"start", "2025-12-01T00:00:00Z", "end", "2026-01-01T00:00:00Z"}
	today     = []string{"start", "2026-01-07T00:00:00Z", "end", nowTS}
)

// metricCall is a query_metric parse: the metric, a window and the other
// arguments as canonical JSON.
func metricCall(name string, window []string, kv ...string) want {
	return call("query_metric", append(append([]string{"metric", name}, window...), kv...)...)
}

// eq is a filters argument of eq filters, dimension then value.
func eq(dv ...string) string {
	var parts []string
	for i := 0; i+1 < len(dv); i += 2 {
		parts = append(parts, fmt.Sprintf(`{"dimension":%q,"op":"eq","values":[%q]}`, dv[i], dv[i+1]))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestParse_MetricWarehouse(t *testing.T) {
	menu := catalogstest.WarehouseMenu().Menu()
	tests := []struct {
		q string
		w want
	}{
		{"what was the availability by zone last week?", metricCall("availability", lastWeek, "dimensions", `["zone"]`)},
		{"what was the availability of AGVs in zone-02 last week?", metricCall("availability", lastWeek, "filters", eq("device_type", "AGV", "zone", "zone-02"))},
		{"Uptime per device type yesterday", metricCall("availability", yesterday, "dimensions", `["device_type"]`)},
		{"mtbf for dev-0007 this month", metricCall("mean_time_between_faults", thisMonth, "filters", eq("device", "dev-0007"))},
		{"mean time between faults by zone and by device type last month", metricCall("mean_time_between_faults", lastMonth, "dimensions", `["zone","device_type"]`)},
		{"daily fault count by zone last week", metricCall("fault_count", lastWeek, "dimensions", `["zone"]`, "grain", "day")},
		{"number of faults per week in zone 3 this month", metricCall("fault_count", thisMonth, "grain", "week", "filters", eq("zone", "zone-03"))},
		{"what is the utilization of conveyors today?", metricCall("utilisation", today, "filters", eq("device_type", "CONVEYOR"))},
		{"fault rate in zone-01 and zone-02 between 2026-01-01 and 2026-01-03", metricCall("fault_rate", []string{"start", "2026-01-01T00:00:00Z", "end", "2026-01-04T00:00:00Z"},
			"filters", `[{"dimension":"zone","op":"in","values":["zone-01","zone-02"]}]`)},
		{"mttr per device on 2026-01-02", metricCall("mean_time_to_repair", []string{"start", "2026-01-02T00:00:00Z", "end", "2026-01-03T00:00:00Z"}, "dimensions", `["device"]`)},
		{"low battery events for each zone since 2026-01-05", metricCall("battery_low_events", []string{"start", "2026-01-05T00:00:00Z", "end", nowTS}, "dimensions", `["zone"]`)},
		{"observed time of lifts in the last 3 days", metricCall("observed_time", []string{"start", "2026-01-04T12:00:00Z", "end", nowTS}, "filters", eq("device_type", "LIFT"))},
		// Abstentions: a true reason, never a guess.
		{"what was the availability by zone?", abstain("missing_slot: window")},
		{"mtbf of dev-0007", abstain("missing_slot: window")},
		{"availability in zone narnia last week", abstain("unknown_name: zone")},
		{"availability of the blue robots last week", abstain("not_understood")},
		{"availability by colour last week", abstain("not_understood")},
		{"availability and mtbf last week", abstain("not_understood")},
		{"what was the goodput last week", abstain("no_tool")},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if tt.w.reason == "no_tool" {
				_, err := rules.Parse(tt.q, menu, clock)
				if a, ok := errors.AsType[*provider.Abstention](err); !ok || a.Kind != provider.AbstainNoTool {
					t.Fatalf("Parse(%q) = %v, want no_tool", tt.q, err)
				}
				return
			}
			checkParse(t, menu, tt.q, tt.w)
		})
	}
}

// retailMetricMenu is the retail menu with query_metric and the demo's
// declared names.
func retailMetricMenu(t testing.TB) []tool.Def {
	t.Helper()
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]map[string]string{"store": {}, "product": {}}
	for _, s := range d.Stores {
		names["store"][s.ID] = s.Name
	}
	for _, p := range d.Products {
		names["product"][p.ID] = p.Name
	}
	return catalogstest.RetailMenu().WithNames(names).Menu()
}

func TestParse_MetricRetail(t *testing.T) {
	menu := retailMetricMenu(t)
	tests := []struct {
		q string
		w want
	}{
		{"what was the out-of-stock share by category last week?", metricCall("out_of_stock_share", lastWeek, "dimensions", `["category"]`)},
		{"share of shelves out of stock at st-003 yesterday", metricCall("out_of_stock_share", yesterday, "filters", eq("store", "st-003"))},
		{"out of stock share at Riverside this month", metricCall("out_of_stock_share", thisMonth, "filters", eq("store", "st-003"))},
		{"scan count per day at store 3 last week", metricCall("scan_count", lastWeek, "grain", "day", "filters", eq("store", "st-003"))},
		{"number of scans by store for dairy today", metricCall("scan_count", today, "dimensions", `["store"]`, "filters", eq("category", "dairy"))},
		{"how many scans were out of stock last week", abstain("no_tool")},
		{"scan count for out of stock by store last week", metricCall("scan_count", lastWeek, "dimensions", `["store"]`, "filters", eq("state", "OUT_OF_STOCK"))},
		{"price mismatch share for pr-007 on 2026-01-05", metricCall("price_mismatch_share", []string{"start", "2026-01-05T00:00:00Z", "end", "2026-01-06T00:00:00Z"}, "filters", eq("product", "pr-007"))},
		{"weekly non-compliance rate by store last month", metricCall("non_compliance_share", lastMonth, "grain", "week", "dimensions", `["store"]`)},
		{"compliance rate per category between 2026-01-01 and 2026-01-06", metricCall("compliant_share", []string{"start", "2026-01-01T00:00:00Z", "end", "2026-01-07T00:00:00Z"}, "dimensions", `["category"]`)},
		{"average shelf price of bakery by store this month", metricCall("average_shelf_price", thisMonth, "dimensions", `["store"]`, "filters", eq("category", "bakery"))},
		{"distinct products observed per store last week", metricCall("distinct_products_observed", lastWeek, "dimensions", `["store"]`)},
		{"cumulative scans daily in produce this month", metricCall("cumulative_scans", thisMonth, "grain", "day", "filters", eq("category", "produce"))},
		{"scan count for compliant at st-001 and st-002 yesterday", metricCall("scan_count", yesterday,
			"filters", `[{"dimension":"compliance_flag","op":"eq","values":["COMPLIANT"]},{"dimension":"store","op":"in","values":["st-001","st-002"]}]`)},
		// Abstentions.
		{"what was the out-of-stock share by category?", abstain("missing_slot: window")},
		{"average shelf price at store 999 last week", abstain("unknown_name: store")},
		{"out-of-stock share at store Atlantis last week", abstain("unknown_name: store")},
		{"scan count by weather last week", abstain("not_understood")},
		{"compliance rate and scan count last week", abstain("not_understood")},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if tt.w.reason == "no_tool" {
				got, err := rules.Parse(tt.q, menu, clock)
				if err == nil && got.Tool == "query_metric" {
					t.Fatalf("Parse(%q) = %v, want no metric", tt.q, got)
				}
				return
			}
			checkParse(t, menu, tt.q, tt.w)
		})
	}
}

// TestProperty_MetricTemplates: a question built from a template with any
// declared metric phrase, grouping noun and id of a filtered entity, and
// any window form, parses to exactly that metric, dimension, filter and
// window.
func TestProperty_MetricTemplates(t *testing.T) {
	for _, tc := range []struct {
		name string
		menu []tool.Def
	}{
		{"retail", retailMetricMenu(t)},
		{"warehouse", catalogstest.WarehouseMenu().Menu()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tool.Vocabulary(tc.menu)
			i := slices.IndexFunc(v.Tools, func(tv phrase.ToolVocab) bool { return tv.Name == "query_metric" })
			if i < 0 {
				t.Fatal("no query_metric on the menu")
			}
			tv := v.Tools[i]
			slot := func(name string) phrase.Slot {
				return tv.Slots[slices.IndexFunc(tv.Slots, func(s phrase.Slot) bool { return s.Name == name })]
			}
			metrics, groups, filters := slot("metric"), slot("dimensions"), slot("filters")
			// The entities' declared ids (or ids their patterns write).
			ids := map[string][]string{}
			for _, s := range v.Tools {
				for _, sl := range s.Slots {
					if sl.Kind != phrase.SlotEntity || ids[sl.Entity] != nil {
						continue
					}
					for _, n := range sl.IDs {
						ids[sl.Entity] = append(ids[sl.Entity], n.ID)
					}
					if sl.IDs == nil {
						for k := 1; k <= 30; k++ {
							ids[sl.Entity] = append(ids[sl.Entity], idFor(sl.Pattern, k))
						}
					}
				}
			}
			var entityDims []phrase.Dim
			for _, d := range filters.Dims {
				if d.Entity != "" && len(ids[d.Entity]) > 0 {
					entityDims = append(entityDims, d)
				}
			}
			if len(entityDims) == 0 {
				t.Fatal("no filter dimension of an entity")
			}
			rapid.Check(t, func(t *rapid.T) {
				m := rapid.SampledFrom(metrics.Values).Draw(t, "metric")
				phr := rapid.SampledFrom(m.Synonyms).Draw(t, "phrase")
				g := rapid.SampledFrom(groups.Values).Draw(t, "group")
				noun := rapid.SampledFrom(g.Synonyms).Draw(t, "noun")
				d := rapid.SampledFrom(entityDims).Draw(t, "filter dimension")
				id := rapid.SampledFrom(ids[d.Entity]).Draw(t, "id")
				w := rapid.SampledFrom(windowForms).Draw(t, "window")
				prep := rapid.SampledFrom([]string{"at", "in", "for", "of"}).Draw(t, "prep")
				lead := rapid.SampledFrom([]string{"", "what was the", "show me the", "please give the"}).Draw(t, "lead")
				pieces := rapid.Permutation([]string{anyCase(t, phr, "phrase case"), noun, prep + " " + anyCase(t, id, "id case"), w.text}).Draw(t, "order")
				q := strings.TrimSpace(lead + " " + strings.Join(pieces, " ") + "?")
				got, err := rules.Parse(q, tc.menu, clock)
				if err != nil {
					t.Fatalf("Parse(%q): %v", q, err)
				}
				f, _ := json.Marshal([]map[string]any{{"dimension": d.Name, "op": "eq", "values": []string{id}}})
				want := map[string]string{"metric": m.Value, "dimensions": `["` + g.Value + `"]`, "filters": string(f), "start": w.start, "end": w.end}
				if got.Tool != "query_metric" || !maps.Equal(got.Params, want) {
					t.Fatalf("Parse(%q)\n got  %s\n want %v", q, got, want)
				}
			})
		})
	}
}

// TestParse_MetricRetailIssue: the issue's question, at its clock (Friday
// 2026-01-09 12:00:00Z), and its variants: the metric's declared phrase
// "share of shelves out of stock" written apart by the store, the window
// and a copula; a weekday's name is the latest such day before today.
func TestParse_MetricRetailIssue(t *testing.T) {
	menu := retailMetricMenu(t)
	friday := time.Date(2026, 1, 9, 12, 0, 0, 0, time.UTC)
	tuesday := []string{"start", "2026-01-06T00:00:00Z", "end", "2026-01-07T00:00:00Z"}
	oos := metricCall("out_of_stock_share", tuesday, "dimensions", `["category"]`, "filters", eq("store", "st-003"))
	tests := []struct {
		q   string
		now time.Time
		w   want
	}{
		{"what share of shelves at st-003 were out of stock on Tuesday, by category?", friday, oos},
		{"What share of shelves were out of stock at ST-003 on Tuesday, by category?", friday, oos},
		{"what share of shelves at st-003 was out of stock last tuesday by category", friday, oos},
		{"what share of shelves were out of stock at st-003 on 2026-01-06, by category?", friday, oos},
		{"what share of shelves at st-003 were out of stock on 2026-01-06, by category?", time.Time{}, oos},
		{"what share of shelves at Riverside were out of stock on Tuesday, by category?", friday, oos},
		{"what share of shelves by category were out of stock at store 3 on Tuesday?", friday, oos},
		{"out-of-stock share at st-003 by category on Tuesday", friday, oos},
		{"what share of shelves were out of stock at st-003 on Wednesday?", friday,
			metricCall("out_of_stock_share", []string{"start", "2026-01-07T00:00:00Z", "end", "2026-01-08T00:00:00Z"}, "filters", eq("store", "st-003"))},
		{"what share of shelves were out of stock at st-003 on Friday?", friday,
			metricCall("out_of_stock_share", []string{"start", "2026-01-02T00:00:00Z", "end", "2026-01-03T00:00:00Z"}, "filters", eq("store", "st-003"))},
		// Abstentions.
		{"what share of shelves at st-003 were out of stock on Tuesday, by category?", time.Time{}, abstain("missing_slot: window")},
		{"what share of shelves at st-003 were out of stock, by category?", friday, abstain("missing_slot: window")},
		{"what share of shelves were out of stock at store Atlantis on Tuesday?", friday, abstain("unknown_name: store")},
		{"what share of shelves at st-003 were mostly out of stock on Tuesday?", friday, abstain("not_understood")},
		{"what share of shelves at st-003 were not out of stock on Tuesday?", friday, abstain("not_understood")},
		{"what share of shelves at st-003 were out of stock on Tuesdays?", friday, abstain("not_understood")},
		{"what share of shelves at st-003 were out of stock on Tuesday and on Wednesday?", friday, abstain("not_understood")},
		{"what share of shelves at st-003 were out of stock on Tuesday by weather?", friday, abstain("not_understood")},
		{"which shelves were out of stock at st-003 on Tuesday?", friday, abstain("")},
		{"what share of shelves were in stock at st-003 on Tuesday?", friday, abstain("")},
	}
	for _, tt := range tests {
		t.Run(tt.q+"@"+tt.now.Format(time.DateOnly), func(t *testing.T) {
			got, err := rules.Parse(tt.q, menu, tt.now)
			if tt.w.tool == "" {
				a, ok := errors.AsType[*provider.Abstention](err)
				if tt.w.reason == "" {
					// Not this metric, whatever else.
					if err == nil && got.Tool == "query_metric" {
						t.Fatalf("Parse(%q) = %v, want no metric", tt.q, got)
					}
					return
				}
				if !ok {
					t.Fatalf("Parse(%q) = %v, %v; want abstention %q", tt.q, got, err, tt.w.reason)
				}
				if r := string(a.Kind) + ": " + a.Detail; !strings.HasPrefix(r, tt.w.reason) {
					t.Errorf("Parse(%q) abstained %q, want %q", tt.q, r, tt.w.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.q, err)
			}
			if got.Tool != tt.w.tool || !maps.Equal(got.Params, tt.w.params) {
				t.Errorf("Parse(%q)\n got  %s\n want %s %v", tt.q, got, tt.w.tool, tt.w.params)
			}
		})
	}
}
