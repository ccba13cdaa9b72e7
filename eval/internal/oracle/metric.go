package oracle

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

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
	counts := map[string]int{}
	groups := map[string][]string{}
	var ids []string
	for _, e := range d.Events {
		if e.Timestamp < start || e.Timestamp >= end {
			continue
		}
		keep, vals, key, err := groupOf(d, e, dims, filters)
		if err != nil {
			return Expectation{}, err
		}
		if !keep {
			continue
		}
		counts[key]++
		groups[key] = vals
		ids = append(ids, e.ID)
	}
	cols := []map[string]string{}
	for _, dim := range dims {
		cols = append(cols, map[string]string{"name": dim, "type": "text"})
	}
	cols = append(cols, map[string]string{"name": "value", "type": "number", "unit": "count"})
	rows := [][]any{}
	if len(dims) == 0 {
		rows = append(rows, []any{len(ids)})
	} else {
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return slices.Compare(groups[keys[i]], groups[keys[j]]) < 0 })
		for _, k := range keys {
			row := []any{}
			for _, v := range groups[k] {
				row = append(row, v)
			}
			rows = append(rows, append(row, counts[k]))
		}
	}
	return expectation(cols, rows, ids)
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
