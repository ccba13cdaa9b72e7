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

// scanMetricCase is one call of a metric over scans and its table and
// events, worked out on paper.
type scanMetricCase struct {
	name       string
	start, end string
	dims       []string
	filters    []MetricFilter
	grain      string
	value      string
	ids        []string
}

// checkScanMetric runs each case of a metric over scans on tiny, with
// pr-001 in the category dairy and pr-002 in bakery.
func checkScanMetric(t *testing.T, name string, f func(*retail.Dataset, string, string, []string, []MetricFilter, string) (Expectation, error), tests []scanMetricCase) {
	t.Helper()
	d := *tiny
	d.Products = []retail.Product{{ID: "pr-001", Category: "dairy"}, {ID: "pr-002", Category: "bakery"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := f(&d, tt.start, tt.end, tt.dims, tt.filters, tt.grain)
			if err != nil {
				t.Fatal(err)
			}
			if string(x.Value) != tt.value || !slices.Equal(x.EventIDs, tt.ids) {
				t.Errorf("%s = %s %v\n want %s %v", name, x.Value, x.EventIDs, tt.value, tt.ids)
			}
			if (x.Outcome == "absence") != (tt.ids == nil) {
				t.Errorf("outcome = %s with %d events", x.Outcome, len(x.EventIDs))
			}
		})
	}
	if _, err := f(&d, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", nil, nil, "week"); err == nil {
		t.Errorf("%s: an unknown grain is not an error", name)
	}
}

// The columns of the cases below.
const (
	colStore    = `{"name":"store","type":"text"}`
	colCategory = `{"name":"category","type":"text"}`
	colBucket   = `{"name":"bucket","type":"instant"}`
	colShare    = `{"name":"value","type":"number","unit":"share"}`
	colCount    = `{"name":"value","type":"number","unit":"count"}`
	colCents    = `{"name":"value","type":"number","unit":"cents"}`
)

// The whole of tiny's scans, [2026-01-01, 2026-01-05).
var tinyAll = []string{"evt-000001", "evt-000002", "evt-000003", "evt-000004", "evt-000005", "evt-000006", "evt-000007", "evt-000008"}

// TestPriceMismatchShare: price_mismatch_share over tiny. Of its eight
// scans only evt-000002 (st-001, pr-001, 2026-01-02) is PRICE_MISMATCH.
func TestPriceMismatchShare(t *testing.T) {
	const from, to = "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"
	checkScanMetric(t, "PriceMismatchShare", PriceMismatchShare, []scanMetricCase{
		// 1 of 8.
		{"every scan", from, to, nil, nil, "",
			`{"columns":[` + colShare + `],"rows":[[0.125]]}`, tinyAll},
		// st-001: evt-000001, 2, 3, 4, 7, 8, one mismatch: 1/6; st-002:
		// evt-000005, 6, none: 0.
		{"by store", from, to, []string{"store"}, nil, "",
			`{"columns":[` + colStore + `,` + colShare + `],"rows":[["st-001",0.16666666666666666],["st-002",0]]}`, tinyAll},
		// [01-01, 01-03): the 1st holds evt-000001, 4, 5, none flagged: 0;
		// the 2nd evt-000002, 3: 1/2.
		{"by day", from, "2026-01-03T00:00:00Z", nil, nil, "day",
			`{"columns":[` + colBucket + `,` + colShare + `],"rows":[["2026-01-01T00:00:00Z",0],["2026-01-02T00:00:00Z",0.5]]}`,
			tinyAll[:5]},
		// No scan: a share of nothing has no value; by a dimension, no row.
		{"none", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", nil, nil, "",
			`{"columns":[` + colShare + `],"rows":[[null]]}`, nil},
		{"none by store", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", []string{"store"}, nil, "",
			`{"columns":[` + colStore + `,` + colShare + `],"rows":[]}`, nil},
	})
}

// TestNonComplianceShare: non_compliance_share over tiny. Three scans are
// flagged other than COMPLIANT: evt-000002 (PRICE_MISMATCH), evt-000004
// (EXPIRED_PRODUCT), evt-000005 (PLANOGRAM_VIOLATION).
func TestNonComplianceShare(t *testing.T) {
	const from, to = "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"
	checkScanMetric(t, "NonComplianceShare", NonComplianceShare, []scanMetricCase{
		// 3 of 8.
		{"every scan", from, to, nil, nil, "",
			`{"columns":[` + colShare + `],"rows":[[0.375]]}`, tinyAll},
		// bakery (pr-002): evt-000004, 7, 8, one: 1/3; dairy (pr-001):
		// evt-000001, 2, 3, 5, 6, two: 2/5.
		{"by category", from, to, []string{"category"}, nil, "",
			`{"columns":[` + colCategory + `,` + colShare + `],"rows":[["bakery",0.3333333333333333],["dairy",0.4]]}`, tinyAll},
		// st-001 by day: the 1st evt-000001, 4: 1/2; the 2nd evt-000002, 3:
		// 1/2; the 3rd evt-000007: 0; the 4th evt-000008: 0.
		{"at st-001 by day", from, to, nil, []MetricFilter{{Dimension: "store", Op: "eq", Values: []string{"st-001"}}}, "day",
			`{"columns":[` + colBucket + `,` + colShare + `],"rows":[["2026-01-01T00:00:00Z",0.5],["2026-01-02T00:00:00Z",0.5],["2026-01-03T00:00:00Z",0],["2026-01-04T00:00:00Z",0]]}`,
			[]string{"evt-000001", "evt-000002", "evt-000003", "evt-000004", "evt-000007", "evt-000008"}},
	})
}

// TestCompliantShare: compliant_share over tiny, 1 - non_compliance_share
// (TestNonComplianceShare's values). In float64 1 - 1/3 rounds to
// 0.6666666666666667, where 2/3 is 0.6666666666666666: the expression the
// catalog declares, not the division of the compliant scans, is the value.
func TestCompliantShare(t *testing.T) {
	const from, to = "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"
	checkScanMetric(t, "CompliantShare", CompliantShare, []scanMetricCase{
		// 1 - 3/8 = 5/8.
		{"every scan", from, to, nil, nil, "",
			`{"columns":[` + colShare + `],"rows":[[0.625]]}`, tinyAll},
		// bakery 1 - 1/3; dairy 1 - 2/5 = 0.6.
		{"by category", from, to, []string{"category"}, nil, "",
			`{"columns":[` + colCategory + `,` + colShare + `],"rows":[["bakery",0.6666666666666667],["dairy",0.6]]}`, tinyAll},
		{"none", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", nil, nil, "",
			`{"columns":[` + colShare + `],"rows":[[null]]}`, nil},
	})
}

// TestAverageShelfPrice: average_shelf_price over tiny's prices: pr-001
// at 100 but evt-000002 at 120, pr-002 at 50.
func TestAverageShelfPrice(t *testing.T) {
	const from, to = "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"
	checkScanMetric(t, "AverageShelfPrice", AverageShelfPrice, []scanMetricCase{
		// st-001: 100 + 120 + 100 + 50 + 50 + 50 = 470 over 6; st-002: 100
		// + 100 = 200 over 2.
		{"by store", from, to, []string{"store"}, nil, "",
			`{"columns":[` + colStore + `,` + colCents + `],"rows":[["st-001",78.33333333333333],["st-002",100]]}`, tinyAll},
		// pr-001 in [01-01, 01-04) by day: the 1st evt-000001, 5: 100, 100;
		// the 2nd evt-000002, 3: (120 + 100) / 2 = 110; the 3rd evt-000006:
		// 100.
		{"pr-001 by day", from, "2026-01-04T00:00:00Z", nil, []MetricFilter{{Dimension: "product", Op: "eq", Values: []string{"pr-001"}}}, "day",
			`{"columns":[` + colBucket + `,` + colCents + `],"rows":[["2026-01-01T00:00:00Z",100],["2026-01-02T00:00:00Z",110],["2026-01-03T00:00:00Z",100]]}`,
			[]string{"evt-000001", "evt-000002", "evt-000003", "evt-000005", "evt-000006"}},
		{"none", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", nil, nil, "",
			`{"columns":[` + colCents + `],"rows":[[null]]}`, nil},
	})
}

// TestDistinctProductsObserved: distinct_products_observed over tiny.
func TestDistinctProductsObserved(t *testing.T) {
	const from, to = "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"
	checkScanMetric(t, "DistinctProductsObserved", DistinctProductsObserved, []scanMetricCase{
		// st-001 scanned pr-001 and pr-002; st-002 only pr-001.
		{"by store", from, to, []string{"store"}, nil, "",
			`{"columns":[` + colStore + `,` + colCount + `],"rows":[["st-001",2],["st-002",1]]}`, tinyAll},
		// The 1st: pr-001 (evt-000001, 5) and pr-002 (evt-000004): 2; the
		// 2nd: pr-001 twice: 1; the 3rd: pr-001, pr-002: 2; the 4th: pr-002.
		{"by day", from, to, nil, nil, "day",
			`{"columns":[` + colBucket + `,` + colCount + `],"rows":[["2026-01-01T00:00:00Z",2],["2026-01-02T00:00:00Z",1],["2026-01-03T00:00:00Z",2],["2026-01-04T00:00:00Z",1]]}`,
			tinyAll},
		// No scan: a count of nothing is 0, a grounded absence.
		{"none", "2026-02-01T00:00:00Z", "2026-02-02T00:00:00Z", nil, nil, "",
			`{"columns":[` + colCount + `],"rows":[[0]]}`, nil},
	})
}

// TestCumulativeScans: cumulative_scans over tiny, whose scans per day
// are 3 (the 1st: evt-000001, 4, 5), 2 (evt-000002, 3), 2 (evt-000006,
// 7) and 1 (evt-000008).
func TestCumulativeScans(t *testing.T) {
	const from, to = "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"
	checkScanMetric(t, "CumulativeScans", CumulativeScans, []scanMetricCase{
		// 3, 3 + 2, 5 + 2, 7 + 1.
		{"by day", from, to, nil, nil, "day",
			`{"columns":[` + colBucket + `,` + colCount + `],"rows":[["2026-01-01T00:00:00Z",3],["2026-01-02T00:00:00Z",5],["2026-01-03T00:00:00Z",7],["2026-01-04T00:00:00Z",8]]}`,
			tinyAll},
		// From the 2nd the total starts again at 0. st-001: the 2nd
		// evt-000002, 3: 2; the 3rd evt-000007: 3; the 4th evt-000008: 4.
		// st-002: a row for every day of the window, its one scan on the
		// 3rd (evt-000006): 0 on the 2nd, 1 on the 3rd, still 1 on the 4th.
		{"by store and day from the 2nd", "2026-01-02T00:00:00Z", to, []string{"store"}, nil, "day",
			`{"columns":[` + colStore + `,` + colBucket + `,` + colCount + `],"rows":[["st-001","2026-01-02T00:00:00Z",2],["st-001","2026-01-03T00:00:00Z",3],["st-001","2026-01-04T00:00:00Z",4],["st-002","2026-01-02T00:00:00Z",0],["st-002","2026-01-03T00:00:00Z",1],["st-002","2026-01-04T00:00:00Z",1]]}`,
			[]string{"evt-000002", "evt-000003", "evt-000006", "evt-000007", "evt-000008"}},
		// A window from 09:00 on the 1st to the 3rd's 00:00 (exclusive):
		// evt-000001 at 08:00 and evt-000007 at the 3rd's 00:00 are out. The
		// 1st's bucket is still its 00:00: evt-000004, 5: 2; the 2nd: 2 + 2.
		{"a window within days", "2026-01-01T09:00:00Z", "2026-01-03T00:00:00Z", nil, nil, "day",
			`{"columns":[` + colBucket + `,` + colCount + `],"rows":[["2026-01-01T00:00:00Z",2],["2026-01-02T00:00:00Z",4]]}`,
			[]string{"evt-000002", "evt-000003", "evt-000004", "evt-000005"}},
		// Without a grain: the window's count.
		{"no grain", from, to, nil, nil, "",
			`{"columns":[` + colCount + `],"rows":[[8]]}`, tinyAll},
	})
}
