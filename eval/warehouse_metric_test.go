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

// whSeqMetrics are the metrics whDurations computes, with their units and
// whether they read a duration measure (which reads an event holding into
// the window from before it, not only the window's events).
var whSeqMetrics = map[string]struct {
	unit      string
	durations bool
}{
	"availability": {"share", true}, "utilisation": {"share", true}, "observed_time": {"seconds", true},
	"mean_time_between_faults": {"seconds", true}, "mean_time_to_repair": {"seconds", true},
	"fault_rate": {"per_hour", true}, "fault_count": {"count", false},
}

// whDurations computes the warehouse catalog's metrics over the time
// devices spend in a status and over entries into FAULT, from their
// definitions alone and the catalog's duration and entries measures (each
// event holds from its time to its device's next event, clipped to the
// window; an entry into FAULT is a FAULT event in the window whose
// device's previous event, in the window or before it, is not FAULT, or
// that is its device's first; the fixtures' README.txt), as a plain loop
// over the demo generator's rows: grouped by dims, kept by eq/in filters
// on the event's own columns. An event counts when it lies in the window
// or, for a metric with a duration measure, holds into it from before;
// its group's row is
//
//   - availability ("the share of observed device time in the window
//     spent RUNNING"): running seconds over observed seconds;
//   - utilisation ("the share of up time (RUNNING, IDLE or BLOCKED) in
//     the window spent RUNNING"): running seconds over up seconds;
//   - observed_time ("the device time in the window covered by status
//     events"): observed seconds;
//   - mean_time_between_faults: running seconds over entries into FAULT;
//   - mean_time_to_repair ("the time in FAULT in the window per fault
//     entered"): FAULT seconds over entries into FAULT;
//   - fault_rate (fault_count / (observed_time / 3600)): entries into
//     FAULT per observed hour;
//   - fault_count ("the number of entries into FAULT in the window"):
//     entries into FAULT, 0 in a group with events but none;
//
// sorted by the groups' values. fault_count alone may take grain day (the
// catalog refuses a grain to a metric with a duration measure): then the
// group is also the UTC day of the event's own time, a bucket column
// between the dims and the value, rows sorted by the groups' values then
// the bucket, and a day with no event in the window has no row. The keys
// are every event that counts.
func whDurations(d *whData, params map[string]string) (fact.Value, []string, error) {
	m, ok := whSeqMetrics[params["metric"]]
	grain := params["grain"]
	if !ok || grain != "" && (grain != "day" || m.durations) {
		return fact.Value{}, nil, fmt.Errorf("the durations oracle computes %v, only fault_count by day, not %v", slices.Sorted(maps.Keys(whSeqMetrics)), params)
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
	running, up, fault, observed, entries := map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}
	groups := map[string][]string{}
	buckets := map[string]time.Time{}
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
			if r.Time.Before(start) && (!m.durations || secs <= 0) {
				continue
			}
			keep, vals, k, err := q.group(r)
			if err != nil {
				return fact.Value{}, nil, err
			}
			if !keep {
				continue
			}
			if grain == "day" {
				utc := r.Time.UTC()
				day := time.Date(utc.Year(), utc.Month(), utc.Day(), 0, 0, 0, 0, time.UTC)
				k += "\x00@" + day.Format(time.RFC3339)
				buckets[k] = day
			}
			groups[k] = vals
			keys = append(keys, r.Key)
			status := *r.Str["status"]
			if secs > 0 {
				observed[k] += secs
				switch status {
				case "RUNNING":
					running[k] += secs
					up[k] += secs
				case "IDLE", "BLOCKED":
					up[k] += secs
				case "FAULT":
					fault[k] += secs
				}
			}
			if !r.Time.Before(start) && status == "FAULT" && (i == 0 || *evs[i-1].Str["status"] != "FAULT") {
				entries[k]++
			}
		}
	}
	var cols []fact.Column
	for _, dim := range dims {
		cols = append(cols, fact.Column{Name: dim, Type: fact.CellText})
	}
	if grain != "" {
		cols = append(cols, fact.Column{Name: "bucket", Type: fact.CellInstant})
	}
	cols = append(cols, fact.Column{Name: "value", Type: fact.CellNumber, Unit: m.unit})
	order := slices.Collect(maps.Keys(groups))
	slices.SortFunc(order, func(a, b string) int {
		if c := slices.Compare(groups[a], groups[b]); c != 0 {
			return c
		}
		return buckets[a].Compare(buckets[b])
	})
	var rows [][]fact.Cell
	for _, k := range order {
		var v float64
		switch params["metric"] {
		case "availability":
			v = running[k] / observed[k]
		case "utilisation":
			v = running[k] / up[k]
		case "observed_time":
			v = observed[k]
		case "mean_time_between_faults":
			v = running[k] / entries[k]
		case "mean_time_to_repair":
			v = fault[k] / entries[k]
		case "fault_rate":
			v = entries[k] / (observed[k] / 3600)
		case "fault_count":
			v = entries[k]
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fact.Value{}, nil, fmt.Errorf("group %q has no value (nothing observed, no up time, or no fault): choose another window", groups[k])
		}
		var row []fact.Cell
		for _, x := range groups[k] {
			row = append(row, fact.TextCell(x))
		}
		if grain != "" {
			row = append(row, fact.InstantCell(buckets[k]))
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

// whTinyRows are eight events of two devices over two UTC days, worked by
// hand in TestWhDurations_HandWorked.
func whTinyRows(t testing.TB) *whData {
	t.Helper()
	ev := func(key, dev, zone, typ, ts, status string) shapetest.Row {
		tm, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			t.Fatal(err)
		}
		str := func(s string) *string { return &s }
		return shapetest.Row{Key: key, Time: tm, Str: map[string]*string{
			"device_id": str(dev), "zone_id": str(zone), "device_type": str(typ), "status": str(status),
		}}
	}
	const a, b = "dev-0001", "dev-0002"
	return &whData{rows: []shapetest.Row{
		ev("a1", a, "zone-01", "AGV", "2026-01-01T22:00:00Z", "RUNNING"),
		ev("a2", a, "zone-01", "AGV", "2026-01-02T01:00:00Z", "FAULT"),
		ev("a3", a, "zone-01", "AGV", "2026-01-02T02:00:00Z", "FAULT"),
		ev("a4", a, "zone-01", "AGV", "2026-01-02T03:00:00Z", "IDLE"),
		ev("a5", a, "zone-01", "AGV", "2026-01-03T00:00:00Z", "FAULT"),
		ev("b1", b, "zone-02", "LIFT", "2026-01-02T00:00:00Z", "FAULT"),
		ev("b2", b, "zone-02", "LIFT", "2026-01-02T06:00:00Z", "RUNNING"),
		ev("b3", b, "zone-02", "LIFT", "2026-01-02T23:59:59Z", "FAULT"),
	}}
}

// TestWhDurations_HandWorked checks whDurations against values worked by
// hand over whTinyRows, in the window [2026-01-02T00:00Z,
// 2026-01-03T12:00Z) = 36 h = 129600 s:
//
//	dev-0001 (zone-01, AGV)
//	  a1 01-01 22:00 RUNNING -> 00:00..01:00 =  3600 (held from before the window)
//	  a2 01-02 01:00 FAULT   -> 01:00..02:00 =  3600 (enters FAULT: a1 RUNNING)
//	  a3 01-02 02:00 FAULT   -> 02:00..03:00 =  3600 (still FAULT: no entry)
//	  a4 01-02 03:00 IDLE    -> 03:00..24:00 = 75600
//	  a5 01-03 00:00 FAULT   -> 00:00..12:00 = 43200 (enters FAULT, on the day's first second)
//	  observed 129600, running 3600, up 79200, fault 50400, entries 2
//	dev-0002 (zone-02, LIFT)
//	  b1 01-02 00:00 FAULT   -> 00:00..06:00 = 21600 (the device's first event: an entry)
//	  b2 01-02 06:00 RUNNING -> 06:00..23:59:59 = 64799
//	  b3 01-02 23:59:59 FAULT -> 23:59:59..12:00 = 43201 (an entry, on the day's last second)
//	  observed 129600, running 64799, up 64799, fault 64801, entries 2
//
// Both: observed 259200, running 68399, up 143999, fault 115201, entries 4.
func TestWhDurations_HandWorked(t *testing.T) {
	d := whTinyRows(t)
	const start, end = "2026-01-02T00:00:00Z", "2026-01-03T12:00:00Z"
	all := []string{"a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3"}
	day := func(s string) fact.Cell {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return fact.InstantCell(tm)
	}
	num, txt := fact.NumberCell, fact.TextCell
	tests := []struct {
		name   string
		params map[string]string
		rows   [][]fact.Cell
		keys   []string
	}{
		{"availability", whMetricParams("availability", start, end, nil, nil),
			[][]fact.Cell{{num(68399.0 / 259200)}}, all},
		{"utilisation by device", whMetricParams("utilisation", start, end, []string{"device"}, nil),
			// 3600 / (3600 + 75600); 64799 / 64799.
			[][]fact.Cell{{txt("dev-0001"), num(3600.0 / 79200)}, {txt("dev-0002"), num(1)}}, all},
		{"observed_time", whMetricParams("observed_time", start, end, nil, nil),
			[][]fact.Cell{{num(259200)}}, all},
		{"mean_time_to_repair", whMetricParams("mean_time_to_repair", start, end, nil, nil),
			[][]fact.Cell{{num(115201.0 / 4)}}, all},
		{"mean_time_to_repair of the LIFT", whMetricParams("mean_time_to_repair", start, end, nil,
			[]whFilter{{Dimension: "device_type", Op: "eq", Values: []string{"LIFT"}}}),
			[][]fact.Cell{{num(64801.0 / 2)}}, []string{"b1", "b2", "b3"}},
		{"mean_time_between_faults", whMetricParams("mean_time_between_faults", start, end, nil, nil),
			[][]fact.Cell{{num(68399.0 / 4)}}, all},
		{"fault_rate", whMetricParams("fault_rate", start, end, nil, nil),
			// 4 entries over 72 observed hours.
			[][]fact.Cell{{num(4.0 / 72)}}, all},
		// An entries measure alone reads the window's events: a1, held
		// into the window, is not read.
		{"fault_count", whMetricParams("fault_count", start, end, nil, nil),
			[][]fact.Cell{{num(4)}}, all[1:]},
		// From 02:00: a2 and b1 are before the window; a3 follows a2's
		// FAULT, so only a5 and b3 enter FAULT in it.
		{"fault_count from 02:00", whMetricParams("fault_count", "2026-01-02T02:00:00Z", end, nil, nil),
			[][]fact.Cell{{num(2)}}, []string{"a3", "a4", "a5", "b2", "b3"}},
	}
	// By device per day: dev-0001's 01-02 holds a2 a3 a4 (one entry, a2)
	// and its 01-03 a5 (one); dev-0002's 01-02 holds b1 b2 b3 (two: b1
	// and b3, one second before midnight); dev-0002 has no event on 01-03,
	// so no row.
	byDay := whMetricParams("fault_count", start, end, []string{"device"}, nil)
	byDay["grain"] = "day"
	tests = append(tests, struct {
		name   string
		params map[string]string
		rows   [][]fact.Cell
		keys   []string
	}{"fault_count by device per day", byDay, [][]fact.Cell{
		{txt("dev-0001"), day("2026-01-02T00:00:00Z"), num(1)},
		{txt("dev-0001"), day("2026-01-03T00:00:00Z"), num(1)},
		{txt("dev-0002"), day("2026-01-02T00:00:00Z"), num(2)},
	}, all[1:]})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, keys, err := whDurations(d, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if v.Table == nil {
				t.Fatalf("no table: %v", v)
			}
			w, err := fact.NewTable(v.Table.Columns, tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(v)
			want, _ := json.Marshal(fact.TableValue(w))
			if string(got) != string(want) {
				t.Errorf("value = %s, want %s", got, want)
			}
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("keys = %v, want %v", keys, tt.keys)
			}
		})
	}
	// A duration metric takes no grain; fault_count no grain but day.
	for _, p := range []map[string]string{
		{"metric": "utilisation", "start": start, "end": end, "grain": "day"},
		{"metric": "fault_count", "start": start, "end": end, "grain": "week"},
	} {
		if _, _, err := whDurations(d, p); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
}
