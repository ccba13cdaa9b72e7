package eval_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
)

// whFilter is a query_metric filter as the gold's params write it.
type whFilter struct {
	Dimension string   `json:"dimension"`
	Op        string   `json:"op"`
	Values    []string `json:"values"`
}

// whMetricParams are a query_metric call's params: arrays as canonical
// JSON, as the wall writes them.
func whMetricParams(name, start, end string, dims []string, filters []whFilter) map[string]string {
	p := map[string]string{"metric": name, "start": start, "end": end}
	if len(dims) > 0 {
		b, _ := json.Marshal(dims)
		p["dimensions"] = string(b)
	}
	if len(filters) > 0 {
		b, _ := json.Marshal(filters)
		p["filters"] = string(b)
	}
	return p
}

// whDimensionColumn is the demo row column of each dimension of the
// warehouse catalog's equipment model.
var whDimensionColumn = map[string]string{"device": "device_id", "zone": "zone_id", "device_type": "device_type"}

// whRequest is a query_metric call's dimensions and filters (eq and in
// only) as the oracles read them.
type whRequest struct {
	dims    []string
	filters []whFilter
}

func parseWhRequest(params map[string]string) (whRequest, error) {
	var q whRequest
	if v := params["dimensions"]; v != "" {
		if err := json.Unmarshal([]byte(v), &q.dims); err != nil {
			return whRequest{}, err
		}
	}
	if v := params["filters"]; v != "" {
		if err := json.Unmarshal([]byte(v), &q.filters); err != nil {
			return whRequest{}, err
		}
	}
	for _, f := range q.filters {
		if f.Op != "eq" && f.Op != "in" {
			return whRequest{}, fmt.Errorf("operator %s", f.Op)
		}
	}
	return q, nil
}

// group reports whether r passes the filters, and its group: the dims'
// values and their joined key.
func (q whRequest) group(r shapetest.Row) (keep bool, vals []string, key string, err error) {
	value := func(dim string) (string, error) {
		col, ok := whDimensionColumn[dim]
		if !ok || r.Str[col] == nil {
			return "", fmt.Errorf("no dimension %s", dim)
		}
		return *r.Str[col], nil
	}
	for _, f := range q.filters {
		v, err := value(f.Dimension)
		if err != nil {
			return false, nil, "", err
		}
		if !slices.Contains(f.Values, v) {
			return false, nil, "", nil
		}
	}
	for _, dim := range q.dims {
		v, err := value(dim)
		if err != nil {
			return false, nil, "", err
		}
		vals = append(vals, v)
	}
	return true, vals, strings.Join(vals, "\x00"), nil
}

// whBatteryLow is the warehouse catalog's battery_low_events metric, from
// its definition alone ("the number of status events in the window
// reporting a battery below 20 percent"), as a plain loop over the demo
// generator's rows: grouped by dims, kept by eq/in filters, without a
// grain; a table of one row per group that has an event in the window
// (its count possibly 0), sorted by the groups' values (one row without
// dims). The keys are every event the window and the filters keep: the
// rows the count reads, low or not.
func whBatteryLow(d *whData, params map[string]string) (fact.Value, []string, error) {
	if params["metric"] != "battery_low_events" || params["grain"] != "" {
		return fact.Value{}, nil, fmt.Errorf("the warehouse metric oracle computes battery_low_events without a grain, not %v", params)
	}
	q, err := parseWhRequest(params)
	if err != nil {
		return fact.Value{}, nil, err
	}
	dims := q.dims
	counts := map[string]int{}
	groups := map[string][]string{}
	var keys []string
	for _, r := range d.rows {
		ts := stamp(r.Time)
		if ts < params["start"] || ts >= params["end"] {
			continue
		}
		keep, vals, k, err := q.group(r)
		if err != nil {
			return fact.Value{}, nil, err
		}
		if !keep {
			continue
		}
		// Every row the window and filters keep is read (the provenance)
		// and makes its group; the low readings are counted.
		if b := r.Num["battery_pct"]; b != nil && *b < 20 {
			counts[k]++
		}
		groups[k] = vals
		keys = append(keys, r.Key)
	}
	var cols []fact.Column
	for _, dim := range dims {
		cols = append(cols, fact.Column{Name: dim, Type: fact.CellText})
	}
	cols = append(cols, fact.Column{Name: "value", Type: fact.CellNumber, Unit: "count"})
	var rows [][]fact.Cell
	if len(dims) == 0 {
		rows = append(rows, []fact.Cell{fact.NumberCell(float64(counts[""]))})
	} else {
		order := slices.Collect(maps.Keys(groups))
		slices.SortFunc(order, func(a, b string) int { return slices.Compare(groups[a], groups[b]) })
		for _, k := range order {
			var row []fact.Cell
			for _, v := range groups[k] {
				row = append(row, fact.TextCell(v))
			}
			rows = append(rows, append(row, fact.NumberCell(float64(counts[k]))))
		}
	}
	t, err := fact.NewTable(cols, rows)
	if err != nil {
		return fact.Value{}, nil, err
	}
	slices.Sort(keys)
	return fact.TableValue(t), keys, nil
}

// whDurations computes the warehouse catalog's metrics over the time
// devices spend in a status, from their definitions alone and the
// catalog's duration and entries measures (each event holds from its
// time to its device's next event, clipped to the window; an entry into
// FAULT is a FAULT event in the window whose device's previous event is
// not FAULT; the fixtures' README.txt), as a plain loop over the demo
// generator's rows: grouped by dims, kept by eq/in filters on the event's
// own columns, without a grain. An event counts when it lies in the
// window or holds into it from before; its group's row is
//
//   - availability ("the share of observed device time in the window
//     spent RUNNING"): running seconds over observed seconds;
//   - mean_time_between_faults: running seconds over entries into FAULT;
//   - fault_rate (fault_count / (observed_time / 3600)): entries into
//     FAULT per observed hour;
//
// sorted by the groups' values. The keys are every event that counts.
func whDurations(d *whData, params map[string]string) (fact.Value, []string, error) {
	unit, ok := map[string]string{"availability": "share", "mean_time_between_faults": "seconds", "fault_rate": "per_hour"}[params["metric"]]
	if !ok || params["grain"] != "" {
		return fact.Value{}, nil, fmt.Errorf("the durations oracle computes availability, mean_time_between_faults and fault_rate without a grain, not %v", params)
	}
	start, err := time.Parse(time.RFC3339, params["start"])
	if err != nil {
		return fact.Value{}, nil, err
	}
	end, err := time.Parse(time.RFC3339, params["end"])
	if err != nil {
		return fact.Value{}, nil, err
	}
	q, err := parseWhRequest(params)
	if err != nil {
		return fact.Value{}, nil, err
	}
	dims := q.dims
	// Each device's events before the window's end, by (time, key).
	devices := map[string][]shapetest.Row{}
	for _, r := range d.rows {
		if r.Time.Before(end) {
			devices[*r.Str["device_id"]] = append(devices[*r.Str["device_id"]], r)
		}
	}
	running, observed, entries := map[string]float64{}, map[string]float64{}, map[string]float64{}
	groups := map[string][]string{}
	var keys []string
	for _, evs := range devices {
		slices.SortFunc(evs, func(a, b shapetest.Row) int {
			if c := a.Time.Compare(b.Time); c != 0 {
				return c
			}
			return strings.Compare(a.Key, b.Key)
		})
		for i, r := range evs {
			from, to := r.Time, end
			if i+1 < len(evs) {
				to = evs[i+1].Time
			}
			if from.Before(start) {
				from = start
			}
			secs := to.Sub(from).Seconds()
			if r.Time.Before(start) && secs <= 0 {
				continue
			}
			keep, vals, k, err := q.group(r)
			if err != nil {
				return fact.Value{}, nil, err
			}
			if !keep {
				continue
			}
			groups[k] = vals
			keys = append(keys, r.Key)
			if secs > 0 {
				observed[k] += secs
				if *r.Str["status"] == "RUNNING" {
					running[k] += secs
				}
			}
			if !r.Time.Before(start) && *r.Str["status"] == "FAULT" && (i == 0 || *evs[i-1].Str["status"] != "FAULT") {
				entries[k]++
			}
		}
	}
	var cols []fact.Column
	for _, dim := range dims {
		cols = append(cols, fact.Column{Name: dim, Type: fact.CellText})
	}
	cols = append(cols, fact.Column{Name: "value", Type: fact.CellNumber, Unit: unit})
	order := slices.Collect(maps.Keys(groups))
	slices.SortFunc(order, func(a, b string) int { return slices.Compare(groups[a], groups[b]) })
	var rows [][]fact.Cell
	for _, k := range order {
		var v float64
		switch params["metric"] {
		case "availability":
			v = running[k] / observed[k]
		case "mean_time_between_faults":
			v = running[k] / entries[k]
		case "fault_rate":
			v = entries[k] / (observed[k] / 3600)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fact.Value{}, nil, fmt.Errorf("group %q has no value (nothing observed, or no fault): choose another window", groups[k])
		}
		var row []fact.Cell
		for _, x := range groups[k] {
			row = append(row, fact.TextCell(x))
		}
		rows = append(rows, append(row, fact.NumberCell(v)))
	}
	t, err := fact.NewTable(cols, rows)
	if err != nil {
		return fact.Value{}, nil, err
	}
	slices.Sort(keys)
	return fact.TableValue(t), keys, nil
}

// whOracle is the warehouse gold's oracle: shapetest.Oracle for the
// catalog's tools, whBatteryLow and whDurations for query_metric.
func whOracle(t testing.TB, d *whData, toolName string, params map[string]string) (fact.Value, []string) {
	t.Helper()
	if toolName == shape.QueryMetric {
		metric := whBatteryLow
		if params["metric"] != "battery_low_events" {
			metric = whDurations
		}
		v, keys, err := metric(d, params)
		if err != nil {
			t.Fatal(err)
		}
		return v, keys
	}
	return shapetest.Oracle(d.cat, d.rows, shape.Call{Tool: toolName, Args: maps.Clone(params), Scope: shape.All()})
}

// TestWhBatteryLow_Total: over every row, the metric oracle's one row is
// the number of readings below 20 the case finders' events hold, and it
// reads every event.
func TestWhBatteryLow_Total(t *testing.T) {
	d := loadWarehouse(t)
	v, keys := whOracle(t, d, shape.QueryMetric, whMetricParams("battery_low_events", d.evs[0].TS, "2099-01-01T00:00:00Z", nil, nil))
	n := 0
	for _, e := range d.evs {
		if e.Battery < 20 {
			n++
		}
	}
	if len(keys) != len(d.evs) || v.Table == nil || v.Table.Rows[0][0].Num != float64(n) {
		t.Errorf("every reading: %d keys, table %v; want %d keys, %d low", len(keys), v.Table, len(d.evs), n)
	}
}
