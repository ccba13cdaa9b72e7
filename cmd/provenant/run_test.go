package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(t.Context(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func TestRun_AskJSON(t *testing.T) {
	out, _, err := runCLI(t, "ask", "--json", "--log-level", "error", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("ask --json printed %d lines, want exactly one object", strings.Count(out, "\n"))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"outcome", "tool", "params", "value", "provenance", "text", "verdict", "reason", "stage"} {
		if _, ok := m[k]; !ok {
			t.Errorf("answer lacks key %q", k)
		}
	}
	if m["outcome"] != "answered" || m["tool"] != "get_price" {
		t.Errorf("answer = %v", m)
	}
}

func TestRun_Errors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"dataset_version": "v", "stores": [], "products": [], "events": [{"event_id": 1}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		wantUsage bool   // errUsage: exit 2
		wantErr   string // other error: exit 1
		wantOut   string
	}{
		{name: "no command", args: nil, wantUsage: true},
		{name: "unknown command", args: []string{"frobnicate"}, wantUsage: true},
		{name: "ask without a question", args: []string{"ask"}, wantUsage: true},
		{name: "unknown flag", args: []string{"ask", "--nope", "q"}, wantUsage: true},
		{name: "help stops the command", args: []string{"gen", "-h"}},
		{name: "unloadable store names the record", args: []string{"ask", "--store", bad, "q"}, wantErr: "events[0]: field event_id"},
		{name: "missing store file", args: []string{"ask", "--store", bad + ".missing", "q"}, wantErr: "open store file"},
		{name: "unknown provider", args: []string{"ask", "--provider", "oracle-of-delphi", "q"}, wantErr: "unknown provider"},
		{name: "any outcome exits zero", args: []string{"ask", "--log-level", "error", "How many employees work at st-003?"}, wantOut: "abstained"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCLI(t, tt.args...)
			switch {
			case tt.wantUsage:
				if !errors.Is(err, errUsage) {
					t.Errorf("Run() = %v, want errUsage", err)
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Run() = %v, want an error containing %q", err, tt.wantErr)
				}
			default:
				if err != nil {
					t.Errorf("Run() = %v, want nil", err)
				}
			}
			if tt.wantOut == "" && out != "" {
				t.Errorf("stdout = %.80q..., want nothing", out)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout = %q, want it to contain %q", out, tt.wantOut)
			}
		})
	}
}

func TestRun_GenIsDeterministic(t *testing.T) {
	a, _, err := runCLI(t, "gen", "--events", "50", "--seed", "7")
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := runCLI(t, "gen", "--events", "50", "--seed", "7")
	c, _, _ := runCLI(t, "gen", "--events", "50", "--seed", "8")
	if a != b || a == c {
		t.Errorf("gen: same seed equal = %t, other seed differs = %t", a == b, a != c)
	}
}

// TestRun_LoadCountersAddUp runs the load command with concurrency and
// checks its report: every request counted once in the metrics, outcomes
// summing to the request count, and percentiles in order.
func TestRun_LoadCountersAddUp(t *testing.T) {
	out, _, err := runCLI(t, "load", "--workers", "8", "--questions", "25", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Requests int            `json:"requests"`
		P50      float64        `json:"deterministic_p50_us"`
		P95      float64        `json:"deterministic_p95_us"`
		P99      float64        `json:"deterministic_p99_us"`
		Outcomes map[string]int `json:"outcomes"`
		Metrics  struct {
			OK            bool `json:"ok"`
			RequestsTotal int  `json:"requests_total"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("load --json: %v\n%s", err, out)
	}
	sum := 0
	for _, n := range r.Outcomes {
		sum += n
	}
	if r.Requests != 200 || sum != 200 || r.Metrics.RequestsTotal != 200 || !r.Metrics.OK {
		t.Errorf("requests %d, outcome sum %d, metrics total %d (ok %t); want 200 each", r.Requests, sum, r.Metrics.RequestsTotal, r.Metrics.OK)
	}
	if !(0 < r.P50 && r.P50 <= r.P95 && r.P95 <= r.P99) {
		t.Errorf("percentiles out of order: p50 %v p95 %v p99 %v", r.P50, r.P95, r.P99)
	}
	if r.Outcomes["error"] != 0 {
		t.Errorf("load produced %d errors", r.Outcomes["error"])
	}
}

// TestRun_RefuseUngroundedFlag: the flag is accepted and a grounded answer
// still ships under it; the refusal itself is tested in package pipeline
// (TestAsk_RefusesUngroundedSentence).
func TestRun_RefuseUngroundedFlag(t *testing.T) {
	out, _, err := runCLI(t, "ask", "--json", "--log-level", "error", "--refuse-ungrounded",
		"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?")
	if err != nil {
		t.Fatal(err)
	}
	// The rules provider's sentence is grounded, so it still ships.
	if !strings.Contains(out, `"outcome":"answered"`) || !strings.Contains(out, `"verdict":"PASS"`) {
		t.Errorf("grounded answer under --refuse-ungrounded: %s", out)
	}
}
