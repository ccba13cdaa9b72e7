package oracle

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/provenant/provenant/retail"
)

// MetricFilter is one filter of a metric call: the events whose
// Dimension's value is one of Values (op eq or in) or none of them (ne,
// not_in).
type MetricFilter struct {
	Dimension string   `json:"dimension"`
	Op        string   `json:"op"`
	Values    []string `json:"values"`
}

// dimensionOf is an event's value of a dimension of the retail catalog's
// shelf model, read from the definitions: the store, the product,
// the product's category from the products reference data, the state, the
// compliance flag.
func dimensionOf(d *retail.Dataset, e retail.Event, dim string) (string, error) {
	switch dim {
	case "store":
		return e.StoreID, nil
	case "product":
		return e.ProductID, nil
	case "category":
		for _, p := range d.Products {
			if p.ID == e.ProductID {
				return p.Category, nil
			}
		}
		return "", fmt.Errorf("compute metric: product %s has no category", e.ProductID)
	case "state":
		return string(e.State), nil
	case "compliance_flag":
		return string(e.Flag), nil
	}
	return "", fmt.Errorf("compute metric: unknown dimension %q", dim)
}

// groupOf reports whether e meets the filters, and its group: the dims'
// values and their joined key.
func groupOf(d *retail.Dataset, e retail.Event, dims []string, filters []MetricFilter) (keep bool, vals []string, key string, err error) {
	for _, f := range filters {
		v, err := dimensionOf(d, e, f.Dimension)
		if err != nil {
			return false, nil, "", err
		}
		in := slices.Contains(f.Values, v)
		switch f.Op {
		case "eq", "in":
			if !in {
				return false, nil, "", nil
			}
		case "ne", "not_in":
			if in {
				return false, nil, "", nil
			}
		default:
			return false, nil, "", fmt.Errorf("compute metric: unknown operator %q", f.Op)
		}
	}
	for _, dim := range dims {
		v, err := dimensionOf(d, e, dim)
		if err != nil {
			return false, nil, "", err
		}
		vals = append(vals, v)
	}
	return true, vals, strings.Join(vals, "\x00"), nil
}

// ScanCount is the expectation of the retail catalog's scan_count metric
// (the number of scans in the window [start, end)) grouped by dims and
// kept by filters, without a time grain: a table of one row per group
// that has a scan, sorted by the groups' values (one row, possibly 0,
// without dims), its column "value" a count; the events are the scans
// counted. A grounded zero is an absence.
func ScanCount(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter) (Expectation, error) {
	cells, ids, err := scanCells(d, start, end, dims, filters, "")
	if err != nil {
		return Expectation{}, err
	}
	return scanTable(cells, ids, dims, "", "count", func(c *scanCell) any { return len(c.scans) })
}

// OutOfStockShare is the expectation of the retail catalog's
// out_of_stock_share metric ("the share of observed (store, product) pairs
// whose latest scan before the window's end is OUT_OF_STOCK"; the
// window's start does not matter) grouped by dims and kept by filters,
// without a time grain: each pair's latest scan before end (the greatest
// timestamp, then the greatest id) is kept when it meets the filters and
// counts in its group; a table of one row per group, sorted by the
// groups' values, its column "value" a share; the events are those latest
// scans. No pair is an absence (a table of no rows).
func OutOfStockShare(d *retail.Dataset, end string, dims []string, filters []MetricFilter) (Expectation, error) {
	latest := map[[2]string]retail.Event{}
	for _, e := range d.Events {
		if e.Timestamp >= end {
			continue
		}
		k := [2]string{e.StoreID, e.ProductID}
		if l, ok := latest[k]; !ok || e.Timestamp > l.Timestamp || e.Timestamp == l.Timestamp && e.ID > l.ID {
			latest[k] = e
		}
	}
	out, pairs := map[string]int{}, map[string]int{}
	groups := map[string][]string{}
	var ids []string
	for _, e := range latest {
		keep, vals, key, err := groupOf(d, e, dims, filters)
		if err != nil {
			return Expectation{}, err
		}
		if !keep {
			continue
		}
		groups[key] = vals
		pairs[key]++
		if e.State == retail.OutOfStock {
			out[key]++
		}
		ids = append(ids, e.ID)
	}
	cols := []map[string]string{}
	for _, dim := range dims {
		cols = append(cols, map[string]string{"name": dim, "type": "text"})
	}
	cols = append(cols, map[string]string{"name": "value", "type": "number", "unit": "share"})
	keys := make([]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return slices.Compare(groups[keys[i]], groups[keys[j]]) < 0 })
	rows := [][]any{}
	for _, k := range keys {
		row := []any{}
		for _, v := range groups[k] {
			row = append(row, v)
		}
		rows = append(rows, append(row, float64(out[k])/float64(pairs[k])))
	}
	return expectation(cols, rows, ids)
}

// expectation is a metric's table of cols and rows resting on the events
// ids: an absence when there are none.
func expectation(cols []map[string]string, rows [][]any, ids []string) (Expectation, error) {
	raw, err := json.Marshal(map[string]any{"columns": cols, "rows": rows})
	if err != nil {
		return Expectation{}, fmt.Errorf("encode expectation: %w", err)
	}
	sort.Strings(ids)
	x := Expectation{Outcome: "absence", Value: raw}
	if len(ids) > 0 {
		x.Outcome, x.EventIDs = "answered", ids
	}
	return x, nil
}

// scanCell is the scans of one group and, with a day grain, one UTC day:
// its dims' values, its bucket (empty without a grain) and its scans.
type scanCell struct {
	vals   []string
	bucket string
	scans  []retail.Event
}

// dayOf is the UTC day a scan's timestamp falls in, written as its
// 00:00:00Z instant: the bucket of a day grain.
func dayOf(ts string) (string, error) {
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return "", fmt.Errorf("compute metric: timestamp %q: %w", ts, err)
	}
	y, m, dd := t.UTC().Date()
	return time.Date(y, m, dd, 0, 0, 0, 0, time.UTC).Format(time.RFC3339), nil
}

// scanCells gathers the scans in the window [start, end) that meet the
// filters by group of dims and, with grain "day", by UTC day: the cells
// sorted by the groups' values, then by bucket, and the scans' ids. Only
// a group and day that hold a scan is a cell.
func scanCells(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter, grain string) ([]*scanCell, []string, error) {
	if grain != "" && grain != "day" {
		return nil, nil, fmt.Errorf("compute metric: unknown grain %q", grain)
	}
	cells := map[string]*scanCell{}
	var ids []string
	for _, e := range d.Events {
		if e.Timestamp < start || e.Timestamp >= end {
			continue
		}
		keep, vals, key, err := groupOf(d, e, dims, filters)
		if err != nil {
			return nil, nil, err
		}
		if !keep {
			continue
		}
		bucket := ""
		if grain == "day" {
			if bucket, err = dayOf(e.Timestamp); err != nil {
				return nil, nil, err
			}
		}
		key += "\x01" + bucket
		c := cells[key]
		if c == nil {
			c = &scanCell{vals: vals, bucket: bucket}
			cells[key] = c
		}
		c.scans = append(c.scans, e)
		ids = append(ids, e.ID)
	}
	out := make([]*scanCell, 0, len(cells))
	for _, c := range cells {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if c := slices.Compare(out[i].vals, out[j].vals); c != 0 {
			return c < 0
		}
		return out[i].bucket < out[j].bucket
	})
	return out, ids, nil
}

// scanTable is the table of a metric over scans: a column per dimension,
// a column "bucket" with a grain, and the column "value" in unit, one row
// per cell with value(cell); without dims and grain one row even when no
// scan is in the window, its value that of an empty cell.
func scanTable(cells []*scanCell, ids []string, dims []string, grain, unit string, value func(*scanCell) any) (Expectation, error) {
	cols := []map[string]string{}
	for _, dim := range dims {
		cols = append(cols, map[string]string{"name": dim, "type": "text"})
	}
	if grain != "" {
		cols = append(cols, map[string]string{"name": "bucket", "type": "instant"})
	}
	cols = append(cols, map[string]string{"name": "value", "type": "number", "unit": unit})
	rows := [][]any{}
	if len(dims) == 0 && grain == "" && len(cells) == 0 {
		rows = append(rows, []any{value(&scanCell{})})
	}
	for _, c := range cells {
		row := []any{}
		for _, v := range c.vals {
			row = append(row, v)
		}
		if grain != "" {
			row = append(row, c.bucket)
		}
		rows = append(rows, append(row, value(c)))
	}
	return expectation(cols, rows, ids)
}

// shareOf is the share of scans that meet is: no value (nil) over no scans.
func shareOf(scans []retail.Event, is func(retail.Event) bool) any {
	if len(scans) == 0 {
		return nil
	}
	n := 0
	for _, e := range scans {
		if is(e) {
			n++
		}
	}
	return float64(n) / float64(len(scans))
}

// PriceMismatchShare is the expectation of the retail catalog's
// price_mismatch_share metric ("the share of scans in the window flagged
// PRICE_MISMATCH") grouped by dims, kept by filters and, with grain
// "day", bucketed by UTC day: a table of one row per group (and day) that
// has a scan, sorted by the groups' values then the day, its column
// "value" a share; the events are the scans in the window that meet the
// filters.
func PriceMismatchShare(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter, grain string) (Expectation, error) {
	cells, ids, err := scanCells(d, start, end, dims, filters, grain)
	if err != nil {
		return Expectation{}, err
	}
	return scanTable(cells, ids, dims, grain, "share", func(c *scanCell) any {
		return shareOf(c.scans, func(e retail.Event) bool { return e.Flag == retail.PriceMismatch })
	})
}

// NonComplianceShare is the expectation of non_compliance_share ("the
// share of scans in the window with any compliance flag other than
// COMPLIANT"), its table as PriceMismatchShare's.
func NonComplianceShare(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter, grain string) (Expectation, error) {
	cells, ids, err := scanCells(d, start, end, dims, filters, grain)
	if err != nil {
		return Expectation{}, err
	}
	return scanTable(cells, ids, dims, grain, "share", func(c *scanCell) any {
		return shareOf(c.scans, func(e retail.Event) bool { return e.Flag != retail.Compliant })
	})
}

// CompliantShare is the expectation of compliant_share, the derived
// metric the catalog writes as 1 - non_compliance_share (the share of
// scans flagged COMPLIANT), computed as that expression in float64; its
// table as PriceMismatchShare's.
func CompliantShare(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter, grain string) (Expectation, error) {
	cells, ids, err := scanCells(d, start, end, dims, filters, grain)
	if err != nil {
		return Expectation{}, err
	}
	return scanTable(cells, ids, dims, grain, "share", func(c *scanCell) any {
		nc := shareOf(c.scans, func(e retail.Event) bool { return e.Flag != retail.Compliant })
		if nc == nil {
			return nil
		}
		return 1 - nc.(float64)
	})
}

// AverageShelfPrice is the expectation of average_shelf_price ("the mean
// shelf price in cents over the scans in the window"): the sum of the
// scans' prices over their number, no value (nil) over no scans; its
// table as PriceMismatchShare's, in cents.
func AverageShelfPrice(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter, grain string) (Expectation, error) {
	cells, ids, err := scanCells(d, start, end, dims, filters, grain)
	if err != nil {
		return Expectation{}, err
	}
	return scanTable(cells, ids, dims, grain, "cents", func(c *scanCell) any {
		if len(c.scans) == 0 {
			return nil
		}
		sum := int64(0)
		for _, e := range c.scans {
			sum += e.PriceCents
		}
		return float64(sum) / float64(len(c.scans))
	})
}

// DistinctProductsObserved is the expectation of
// distinct_products_observed ("the number of distinct products scanned in
// the window"); its table as PriceMismatchShare's, a count.
func DistinctProductsObserved(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter, grain string) (Expectation, error) {
	cells, ids, err := scanCells(d, start, end, dims, filters, grain)
	if err != nil {
		return Expectation{}, err
	}
	return scanTable(cells, ids, dims, grain, "count", func(c *scanCell) any {
		seen := map[string]bool{}
		for _, e := range c.scans {
			seen[e.ProductID] = true
		}
		return len(seen)
	})
}

// CumulativeScans is the expectation of cumulative_scans ("the running
// total of scans from the window's start through each bucket"): with
// grain "day", each group's row for a day holds the number of its scans
// from the window's start to that day's end (the window's end at the
// latest); a group with a scan in the window has a row for every day the
// window touches, a day without a scan carrying the total on. Without a
// grain it is the window's count, as scan_count. The events are the
// scans in the window that meet the filters.
func CumulativeScans(d *retail.Dataset, start, end string, dims []string, filters []MetricFilter, grain string) (Expectation, error) {
	cells, ids, err := scanCells(d, start, end, dims, filters, grain)
	if err != nil {
		return Expectation{}, err
	}
	if grain == "day" {
		// The window's days, from the day of its start while a day
		// begins before its end.
		from, err := dayOf(start)
		if err != nil {
			return Expectation{}, err
		}
		day, err := time.Parse(time.RFC3339, from)
		if err != nil {
			return Expectation{}, err
		}
		last, err := time.Parse(time.RFC3339, end)
		if err != nil {
			return Expectation{}, fmt.Errorf("compute metric: end %q: %w", end, err)
		}
		var days []string
		for ; day.Before(last); day = day.Add(24 * time.Hour) {
			days = append(days, day.Format(time.RFC3339))
		}
		have := map[string]bool{}
		var groups [][]string
		for _, c := range cells {
			g := strings.Join(c.vals, "\x00")
			if !have[g] {
				groups = append(groups, c.vals)
			}
			have[g] = true
			have[g+"\x01"+c.bucket] = true
		}
		for _, vals := range groups {
			for _, day := range days {
				if !have[strings.Join(vals, "\x00")+"\x01"+day] {
					cells = append(cells, &scanCell{vals: vals, bucket: day})
				}
			}
		}
		sort.Slice(cells, func(i, j int) bool {
			if c := slices.Compare(cells[i].vals, cells[j].vals); c != 0 {
				return c < 0
			}
			return cells[i].bucket < cells[j].bucket
		})
	}
	// The cells are sorted by group, then day: a running total per group,
	// from 0 at each group's first cell.
	running := map[*scanCell]int{}
	total := 0
	for i, c := range cells {
		if i == 0 || !slices.Equal(c.vals, cells[i-1].vals) {
			total = 0
		}
		total += len(c.scans)
		running[c] = total
	}
	return scanTable(cells, ids, dims, grain, "count", func(c *scanCell) any { return running[c] })
}
