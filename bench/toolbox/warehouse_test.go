package main

import (
	"errors"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/warehouse/demo"
)

// TestWarehouseToolsMatchCatalog: the toolbox gets every tool of the
// warehouse catalog, with the catalog's parameters and shape, and its
// condition CASE has a branch for every condition the tool takes.
func TestWarehouseToolsMatchCatalog(t *testing.T) {
	cat, err := warehouseCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if names := checkParams(t, cat, warehouseParams); !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(warehouseTools))) {
		t.Errorf("catalog tools %v, bench tools %v", names, warehouseTools)
	}
	for _, tl := range cat.Tools {
		if !cat.Served(tl) {
			continue // the write tool, off in this catalog: not on the menu the bench compares
		}
		if got := warehouseShapes[tl.Name.Value]; got != tl.Shape.Value {
			t.Errorf("%s: shape %q, catalog's %q", tl.Name.Value, got, tl.Shape.Value)
		}
		if tl.Filter == nil || tl.Filter.Conditions == nil {
			continue
		}
		var conds []string
		for _, c := range tl.Filter.Conditions {
			conds = append(conds, c.Value)
		}
		if !slices.Equal(conds, warehouseConditions) {
			t.Errorf("%s: conditions %v, bench's %v", tl.Name.Value, conds, warehouseConditions)
		}
		for _, c := range conds {
			if !strings.Contains(warehouseSQL[tl.Name.Value], "WHEN '"+c+"' THEN") {
				t.Errorf("%s: no CASE branch for %s", tl.Name.Value, c)
			}
		}
	}
	for _, st := range warehouseSQLTools(cat, "wh_schema") {
		if st.description == "" || !strings.Contains(st.statement, "wh_schema.status_events") || strings.Contains(st.statement, "%!") {
			t.Errorf("%s: description %q, statement %q", st.name, st.description, st.statement)
		}
	}
}

// TestWarehouseValuesAgree: the canonical value of each server's answer
// to the same question is the same text, and a shape neither server
// gives is an error, never a silent match.
func TestWarehouseValuesAgree(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		provenant  string   // structured content
		toolbox    []string // text content items
		want       string
	}{
		{"status", "get_device_status", `{"outcome":"answered","value":"FAULT"}`, []string{`{"status":"FAULT"}`}, "FAULT"},
		{"battery", "get_battery_level", `{"outcome":"answered","value":57}`, []string{`{"battery_pct":57}`}, "57"},
		{"temperature spelled two ways", "get_temperature", `{"outcome":"answered","value":60}`, []string{`{"temperature_c":60.0}`}, "60"},
		{"temperature", "get_temperature", `{"outcome":"answered","value":23.4}`, []string{`[{"temperature_c":23.4}]`}, "23.4"},
		{"nothing observed", "get_battery_level", `{"outcome":"absence","value":null}`, nil, "none"},
		{"count with devices", "count_devices_with_condition", `{"outcome":"answered","value":{"count":2,"device_ids":["dev-0007","dev-0001"]}}`,
			[]string{`{"count":2,"device_ids":"dev-0001,dev-0007"}`}, "2:dev-0001,dev-0007"},
		{"zero count", "count_devices_with_condition", `{"outcome":"absence","value":{"count":0,"device_ids":[]}}`, []string{`{"count":0,"device_ids":null}`}, "0:"},
		{"list", "list_devices_in_status", `{"outcome":"answered","value":{"device_ids":["dev-0002","dev-0001"]}}`, []string{`{"device_id":"dev-0001"}`, `{"device_id":"dev-0002"}`}, "dev-0001,dev-0002"},
		{"empty list", "list_devices_in_status", `{"outcome":"absence","value":{"device_ids":[]}}`, []string{`[]`}, ""},
		{"window", "count_status_events_in_window", `{"outcome":"answered","value":{"count":12}}`, []string{`{"count":12}`}, "12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := warehouseProvenantValue(tc.tool, []byte(tc.provenant))
			if err != nil || p != tc.want {
				t.Errorf("warehouseProvenantValue = %q, %v; want %q", p, err, tc.want)
			}
			b, err := warehouseToolboxValue(tc.tool, tc.toolbox)
			if err != nil || b != tc.want {
				t.Errorf("warehouseToolboxValue = %q, %v; want %q", b, err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, tool string
		provenant  string
		toolbox    []string
	}{
		{"rejected and two rows", "get_device_status", `{"outcome":"rejected","value":null}`, []string{`{"status":"IDLE"}`, `{"status":"FAULT"}`}},
		{"abstained and wrong column", "count_status_events_in_window", `{"outcome":"abstained"}`, []string{`{"n":3}`}},
		{"no ids and no ids column", "count_devices_with_condition", `{"outcome":"answered","value":{"count":3}}`, []string{`{"count":3}`}},
		{"unknown tool and prose", "get_price", `{"outcome":"answered","value":1}`, []string{`3 devices`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v, err := warehouseProvenantValue(tc.tool, []byte(tc.provenant)); !errors.Is(err, errValue) {
				t.Errorf("warehouseProvenantValue = %q, %v; want errValue", v, err)
			}
			if v, err := warehouseToolboxValue(tc.tool, tc.toolbox); !errors.Is(err, errValue) {
				t.Errorf("warehouseToolboxValue = %q, %v; want errValue", v, err)
			}
		})
	}
}

// TestWarehouseCallArgs: calls name the data's devices and zones, take
// the catalog's statuses and conditions, and instants provenant accepts
// around the data's period; the same seed gives the same calls.
func TestWarehouseCallArgs(t *testing.T) {
	o := demo.DefaultOptions()
	zones, devices, err := demo.Layout(o)
	if err != nil {
		t.Fatal(err)
	}
	w := &whData{opts: o, zones: zones, devices: devices}
	lo, hi := o.Start.Add(-24*time.Hour), o.Start.Add(time.Duration(o.Days+1)*24*time.Hour)
	isDevice := func(s any) bool { return slices.ContainsFunc(devices, func(d demo.Device) bool { return d.ID == s }) }
	isZone := func(s any) bool { return slices.ContainsFunc(zones, func(z demo.Zone) bool { return z.ID == s }) }
	isStatus := func(s any) bool { return slices.Contains(demo.Statuses, demo.Status(s.(string))) }
	inPeriod := func(s any) bool {
		ts, err := time.Parse(time.RFC3339, s.(string))
		return err == nil && !ts.Before(lo) && ts.Before(hi) && strings.HasSuffix(s.(string), "Z")
	}
	for _, tool := range warehouseTools {
		calls := w.callArgs(tool, 50, 7)
		again := w.callArgs(tool, 50, 7)
		for i, args := range calls {
			if len(args) != len(warehouseParams[tool]) {
				t.Fatalf("%s: args %v, want parameters %v", tool, args, warehouseParams[tool])
			}
			for k, v := range args {
				if again[i][k] != v {
					t.Errorf("%s call %d: %s differs between draws with one seed", tool, i, k)
				}
				ok := true
				switch k {
				case "device_id":
					ok = isDevice(v)
				case "zone_id":
					ok = isZone(v)
				case "status":
					ok = isStatus(v)
				case "condition":
					ok = slices.Contains(warehouseConditions, v.(string))
				case "as_of", "start", "end":
					ok = inPeriod(v) || k == "end"
				}
				if !ok {
					t.Errorf("%s call %d: %s = %v out of range", tool, i, k, v)
				}
			}
			if tool == "count_status_events_in_window" && args["start"].(string) >= args["end"].(string) {
				t.Errorf("window call %d: start %v not before end %v", i, args["start"], args["end"])
			}
		}
	}
}

func TestWarehouseDSN(t *testing.T) {
	got, err := warehouseDSN("postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "wh", "bench-app")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("search_path") != "wh" || q.Get("application_name") != "bench-app" || q.Get("sslmode") != "disable" || u.Host != "127.0.0.1:5432" {
		t.Errorf("warehouseDSN = %s", got)
	}
}

func TestBackendCPU(t *testing.T) {
	first := map[int]time.Duration{1: 10 * time.Millisecond, 2: 5 * time.Millisecond}
	// 1 ran 20 ms more; 2 exited after running 3 ms more (last seen
	// then); 3 started during the span and ran 7 ms.
	last := map[int]time.Duration{1: 30 * time.Millisecond, 2: 8 * time.Millisecond, 3: 7 * time.Millisecond}
	cpu, opened := backendCPU(first, last)
	if cpu != 30*time.Millisecond || opened != 1 {
		t.Errorf("backendCPU = %v, %d opened; want 30ms, 1", cpu, opened)
	}
}

// TestRetailMarkdownUnchanged: the committed retail results render to the
// committed retail table, byte for byte: the warehouse mode left the
// retail mode's output alone.
func TestRetailMarkdownUnchanged(t *testing.T) {
	r, err := readResults("../results/toolbox.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../results/toolbox.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.markdown(); got != string(want) {
		t.Errorf("markdown of toolbox.json differs from toolbox.md:\n%s", got)
	}
}

func TestWarehouseMarkdown(t *testing.T) {
	r := &results{
		Catalog: "warehouse", Command: "go run ./bench/toolbox -catalog warehouse", Commit: "abc123",
		Machine:    machineInfo{CPUs: 2, LoadAvg: "3.50 2.00 1.00 1/100 5"},
		Warehouse:  &warehouseInfo{Events: 1000, Devices: 20, Zones: 2, Days: 3, Table: "status_events", Indexes: []string{"CREATE INDEX i ON status_events (ts)"}},
		Servers:    map[string]string{"provenant": "p", "toolbox": "t"},
		ToolboxSQL: []toolboxTool{{Tool: "get_device_status", Params: []string{"device_id", "as_of"}, SQL: "SELECT 1"}},
		Cells: []cell{
			{Server: "provenant", Tool: "get_device_status", Sessions: 1, CallsPerSec: 50},
			{Server: "toolbox", Tool: "get_device_status", Sessions: 1, CallsPerSec: 100},
			{Server: "provenant", Tool: "get_battery_level", Sessions: 1, CallsPerSec: 300},
			{Server: "toolbox", Tool: "get_battery_level", Sessions: 1, CallsPerSec: 100},
			{Server: "provenant", Tool: "count_status_events_in_window", Sessions: 1, CallsPerSec: 200},
			{Server: "toolbox", Tool: "count_status_events_in_window", Sessions: 1, CallsPerSec: 100},
		},
	}
	md := r.markdown()
	for _, want := range []string{
		"at commit abc123",
		"**Taken under machine load**: the 1-minute load average reached 3.50 on 2 CPUs",
		"| latest_value | 0.50× to 3.00× |",
		"| count_rows_in_window | 2.00× |",
		"met in 2 of 3 cells",
		"```sql\nSELECT 1\n```",
		"- `CREATE INDEX i ON status_events (ts)`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	r.Machine.LoadAvg = "0.40 0.30 0.20 1/100 5"
	if strings.Contains(r.markdown(), "Taken under machine load") {
		t.Error("an idle run is labelled as under load")
	}
}
