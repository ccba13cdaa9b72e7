package oracle

import (
	"slices"
	"testing"

	"github.com/provenant/provenant/retail"
)

// TestScanCount: scan_count over tiny, worked out on paper from its eight
// events, with pr-001 in the category dairy and pr-002 in bakery.
func TestScanCount(t *testing.T) {
	d := *tiny
	d.Products = []retail.Product{{ID: "pr-001", Category: "dairy"}, {ID: "pr-002", Category: "bakery"}}
	eq := func(dim, v string) MetricFilter { return MetricFilter{Dimension: dim, Op: "eq", Values: []string{v}} }
	tests := []struct {
		name       string
		start, end string
		dims       []string
		filters    []MetricFilter
		value      string
		ids        []string
	}{
		{"every scan", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", nil, nil,
			`{"columns":[{"name":"value","type":"number","unit":"count"}],"rows":[[8]]}`,
			[]string{"evt-000001", "evt-000002", "evt-000003", "evt-000004", "evt-000005", "evt-000006", "evt-000007", "evt-000008"}},
		// The end is exclusive: evt-000007 at 2026-01-03T00:00:00Z is out.
		{"by store, out of stock", "2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z", []string{"store"}, []MetricFilter{eq("state", "OUT_OF_STOCK")},
			`{"columns":[{"name":"store","type":"text"},{"name":"value","type":"number","unit":"count"}],"rows":[["st-001",2],["st-002",1]]}`,
			[]string{"evt-000003", "evt-000004", "evt-000005"}},
		{"by category at st-001, not compliant", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", []string{"category"},
			[]MetricFilter{eq("store", "st-001"), {Dimension: "compliance_flag", Op: "ne", Values: []string{"COMPLIANT"}}},
			`{"columns":[{"name":"category","type":"text"},{"name":"value","type":"number","unit":"count"}],"rows":[["bakery",1],["dairy",1]]}`,
			[]string{"evt-000002", "evt-000004"}},
		{"none", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", nil, nil,
			`{"columns":[{"name":"value","type":"number","unit":"count"}],"rows":[[0]]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := ScanCount(&d, tt.start, tt.end, tt.dims, tt.filters)
			if err != nil {
				t.Fatal(err)
			}
			if string(x.Value) != tt.value || !slices.Equal(x.EventIDs, tt.ids) {
				t.Errorf("ScanCount = %s %v\n want %s %v", x.Value, x.EventIDs, tt.value, tt.ids)
			}
			if want := "answered"; tt.ids == nil {
				if x.Outcome != "absence" {
					t.Errorf("outcome = %s, want absence", x.Outcome)
				}
			} else if x.Outcome != want {
				t.Errorf("outcome = %s, want %s", x.Outcome, want)
			}
		})
	}
	if _, err := ScanCount(&d, "a", "b", []string{"weather"}, nil); err != nil {
		t.Errorf("no row in the window reads no dimension: %v", err)
	}
	if _, err := ScanCount(&d, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", []string{"weather"}, nil); err == nil {
		t.Error("an unknown dimension is not an error")
	}
}

// TestOutOfStockShare: out_of_stock_share over tiny, worked out on paper,
// with pr-001 in dairy and pr-002 in bakery. Before 2026-01-05 the pairs'
// latest scans are evt-000003 (OUT, winning its tie with evt-000002 by
// id), evt-000008 (IN) and evt-000006 (IN); before 2026-01-03 (exclusive:
// evt-000007 at 00:00 is out) evt-000003, evt-000004 and evt-000005, all
// OUT.
func TestOutOfStockShare(t *testing.T) {
	d := *tiny
	d.Products = []retail.Product{{ID: "pr-001", Category: "dairy"}, {ID: "pr-002", Category: "bakery"}}
	eq := func(dim, v string) MetricFilter { return MetricFilter{Dimension: dim, Op: "eq", Values: []string{v}} }
	tests := []struct {
		name    string
		end     string
		dims    []string
		filters []MetricFilter
		value   string
		ids     []string
	}{
		{"every pair", "2026-01-05T00:00:00Z", nil, nil,
			`{"columns":[{"name":"value","type":"number","unit":"share"}],"rows":[[0.3333333333333333]]}`,
			[]string{"evt-000003", "evt-000006", "evt-000008"}},
		{"by category", "2026-01-05T00:00:00Z", []string{"category"}, nil,
			`{"columns":[{"name":"category","type":"text"},{"name":"value","type":"number","unit":"share"}],"rows":[["bakery",0],["dairy",0.5]]}`,
			[]string{"evt-000003", "evt-000006", "evt-000008"}},
		{"at st-001", "2026-01-05T00:00:00Z", nil, []MetricFilter{eq("store", "st-001")},
			`{"columns":[{"name":"value","type":"number","unit":"share"}],"rows":[[0.5]]}`,
			[]string{"evt-000003", "evt-000008"}},
		{"an earlier end, by store", "2026-01-03T00:00:00Z", []string{"store"}, nil,
			`{"columns":[{"name":"store","type":"text"},{"name":"value","type":"number","unit":"share"}],"rows":[["st-001",1],["st-002",1]]}`,
			[]string{"evt-000003", "evt-000004", "evt-000005"}},
		{"before every scan", "2026-01-01T00:00:00Z", []string{"store"}, nil,
			`{"columns":[{"name":"store","type":"text"},{"name":"value","type":"number","unit":"share"}],"rows":[]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := OutOfStockShare(&d, tt.end, tt.dims, tt.filters)
			if err != nil {
				t.Fatal(err)
			}
			if string(x.Value) != tt.value || !slices.Equal(x.EventIDs, tt.ids) {
				t.Errorf("OutOfStockShare = %s %v\n want %s %v", x.Value, x.EventIDs, tt.value, tt.ids)
			}
			if (x.Outcome == "absence") != (tt.ids == nil) {
				t.Errorf("outcome = %s with %d events", x.Outcome, len(x.EventIDs))
			}
		})
	}
}
