package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRun_AskMetric: a metric question in everyday words, asked of the
// warehouse catalog with the model-free parser, is answered end to end as
// a query_metric call (a verified table, one row per zone); one naming no
// window abstains with that reason.
func TestRun_AskMetric(t *testing.T) {
	out, _, err := runCLI(t, "ask", "--catalog", "warehouse", "--json", "--log-level", "error",
		"--now", "2026-03-10T12:00:00Z", "what was the availability by zone last week?")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Outcome string            `json:"outcome"`
		Tool    string            `json:"tool"`
		Params  map[string]string `json:"params"`
		Value   struct {
			Columns []struct{ Name string } `json:"columns"`
			Rows    [][]any                 `json:"rows"`
		} `json:"value"`
		Verdict struct {
			ProvenanceValid bool `json:"provenance_valid"`
			ValueMatches    bool `json:"value_matches"`
		} `json:"verdict"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	want := map[string]string{"metric": "availability", "dimensions": `["zone"]`,
		"start": "2026-03-02T00:00:00Z", "end": "2026-03-09T00:00:00Z"}
	if a.Outcome != "answered" || a.Tool != "query_metric" {
		t.Fatalf("outcome %s, tool %s, want answered by query_metric\n%s", a.Outcome, a.Tool, out)
	}
	for k, v := range want {
		if a.Params[k] != v {
			t.Errorf("params[%s] = %q, want %q", k, a.Params[k], v)
		}
	}
	if len(a.Params) != len(want) {
		t.Errorf("params = %v, want exactly %v", a.Params, want)
	}
	if len(a.Value.Columns) != 2 || a.Value.Columns[0].Name != "zone" || len(a.Value.Rows) == 0 {
		t.Errorf("value = %+v, want a table by zone", a.Value)
	}
	if !a.Verdict.ProvenanceValid || !a.Verdict.ValueMatches {
		t.Errorf("verdict = %+v, want verified", a.Verdict)
	}
	if !strings.HasPrefix(a.Text, "availability by zone from 2026-03-02T00:00:00Z to 2026-03-09T00:00:00Z: zone-01 ") {
		t.Errorf("text = %q", a.Text)
	}

	out, _, err = runCLI(t, "ask", "--catalog", "warehouse", "--log-level", "error",
		"--now", "2026-03-10T12:00:00Z", "what was the availability by zone?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "abstained: missing_slot: window") {
		t.Errorf("no window: %q, want the missing window named", out)
	}
}
