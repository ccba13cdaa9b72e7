package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/shape"
)

// TestRetailToolsMatchCatalog: the toolbox gets every tool of the retail
// catalog, under the catalog's names and with its parameters, and the
// condition CASE has a branch for every condition the tool takes (the
// bench names the tools as strings: a renamed tool fails here, not in a
// run against PostgreSQL).
func TestRetailToolsMatchCatalog(t *testing.T) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	if names := checkParams(t, cat, toolParams); !slices.Equal(names, benchTools) {
		t.Errorf("catalog tools %v, bench tools %v", names, benchTools)
	}
	for _, tl := range cat.Tools {
		if tl.Filter == nil {
			continue
		}
		for _, c := range tl.Filter.Conditions {
			if !strings.Contains(toolSQL[tl.Name.Value], "WHEN '"+c.Value+"' THEN") {
				t.Errorf("%s: no CASE branch for %s", tl.Name.Value, c.Value)
			}
		}
	}
	for _, st := range retailSQLTools(cat, "rt_schema") {
		if st.description == "" || !strings.Contains(st.statement, "rt_schema.events") || strings.Contains(st.statement, "%!") {
			t.Errorf("%s: description %q, statement %q", st.name, st.description, st.statement)
		}
	}
}

// checkParams checks that the bench's parameters of each catalog tool are
// the catalog's, and returns the catalog's tool names in order.
func checkParams(t *testing.T, cat *catalog.Catalog, bench map[string][]string) []string {
	t.Helper()
	defs, err := shape.Defs(cat)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
		var params []string
		for _, p := range d.Params {
			params = append(params, p.Name)
		}
		if got := slices.Sorted(slices.Values(bench[d.Name])); !slices.Equal(got, slices.Sorted(slices.Values(params))) {
			t.Errorf("%s: toolbox parameters %v, catalog's %v", d.Name, bench[d.Name], params)
		}
	}
	return names
}

func TestParseStatCPU(t *testing.T) {
	for _, tc := range []struct {
		name string
		stat string
		want time.Duration
		ok   bool
	}{
		// utime 150 ticks, stime 50: 2 s at USER_HZ 100.
		{"plain", "4242 (toolbox) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 0 0 20 0 9 0 100 0 0", 2 * time.Second, true},
		// A command name with spaces and parentheses.
		{"odd name", "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0", 70 * time.Millisecond, true},
		{"no name", "4242 toolbox S 1", 0, false},
		{"short", "4242 (x) S 1 2 3", 0, false},
		{"not a number", "4242 (x) S 1 4242 4242 0 -1 0 0 0 0 0 x 50 0", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatCPU([]byte(tc.stat))
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseStatCPU = %v, %v; want %v, ok %v", got, err, tc.want, tc.ok)
			}
		})
	}
}

// TestValuesAgree: the canonical value of each server's answer to the
// same question is the same text, and a shape neither server gives is an
// error, never a silent match.
func TestValuesAgree(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		provenant  string   // structured content
		toolbox    []string // text content items
		want       string
	}{
		{"state", "get_stock_state", `{"outcome":"answered","value":"LOW_STOCK"}`, []string{`{"state":"LOW_STOCK"}`}, "LOW_STOCK"},
		{"price", "get_price", `{"outcome":"answered","value":781}`, []string{`{"price_cents":781}`}, "781"},
		{"nothing observed", "get_compliance_flag", `{"outcome":"absence","value":null}`, nil, "none"},
		{"count", "count_events_in_window", `{"outcome":"answered","value":{"count":12}}`, []string{`{"count":12}`}, "12"},
		{"zero count", "count_stores_with_condition", `{"outcome":"absence","value":{"count":0,"store_ids":[]}}`, []string{`{"count":0}`}, "0"},
		{"list", "list_products_in_state", `{"outcome":"answered","value":{"product_ids":["pr-002","pr-001"]}}`, []string{`[{"product_id":"pr-001"},{"product_id":"pr-002"}]`}, "pr-001,pr-002"},
		{"list rows", "list_products_in_state", `{"outcome":"answered","value":{"product_ids":["pr-001","pr-002"]}}`, []string{`{"product_id":"pr-002"}`, `{"product_id":"pr-001"}`}, "pr-001,pr-002"},
		{"empty list", "list_products_in_state", `{"outcome":"absence","value":{"product_ids":[]}}`, []string{`[]`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := provenantValue(tc.tool, []byte(tc.provenant))
			if err != nil || p != tc.want {
				t.Errorf("provenantValue = %q, %v; want %q", p, err, tc.want)
			}
			b, err := toolboxValue(tc.tool, tc.toolbox)
			if err != nil || b != tc.want {
				t.Errorf("toolboxValue = %q, %v; want %q", b, err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, tool string
		provenant  string
		toolbox    []string
	}{
		{"rejected and two rows", "get_price", `{"outcome":"rejected","value":null}`, []string{`{"price_cents":1}`, `{"price_cents":2}`}},
		{"abstained and wrong column", "count_events_in_window", `{"outcome":"abstained"}`, []string{`{"n":3}`}},
		{"no count and prose", "count_stores_with_condition", `{"outcome":"answered","value":{}}`, []string{`3 stores`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v, err := provenantValue(tc.tool, []byte(tc.provenant)); !errors.Is(err, errValue) {
				t.Errorf("provenantValue = %q, %v; want errValue", v, err)
			}
			if v, err := toolboxValue(tc.tool, tc.toolbox); !errors.Is(err, errValue) {
				t.Errorf("toolboxValue = %q, %v; want errValue", v, err)
			}
		})
	}
}

func TestMedianAndRank(t *testing.T) {
	rounds := []cell{{CallsPerSec: 300, P95ms: 9}, {CallsPerSec: 100, P95ms: 1}, {CallsPerSec: 200, P95ms: 5}}
	m := median(rounds)
	if m.CallsPerSec != 200 || m.P95ms != 5 || len(m.Rounds) != 3 {
		t.Errorf("median = %v calls/s, p95 %v, %d rounds; want 200, 5, 3", m.CallsPerSec, m.P95ms, len(m.Rounds))
	}
	durs := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if got := nearestRank(durs, 0.95); got != 10 {
		t.Errorf("nearestRank(0.95) = %v, want 10", got)
	}
	if got := nearestRank(durs, 0.50); got != 5 {
		t.Errorf("nearestRank(0.50) = %v, want 5", got)
	}
	if got := nearestRank(nil, 0.5); got != 0 {
		t.Errorf("nearestRank(nil) = %v, want 0", got)
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"-rounds", "5", "-note", "shared machine, it's busy"})
	want := `go run ./bench/toolbox -rounds 5 -note 'shared machine, it'\''s busy'`
	if got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}
