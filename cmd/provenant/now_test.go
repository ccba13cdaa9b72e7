package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRun_AskNow: --now is the clock a question's relative time is
// resolved against, written in the answer's params and sentence; a value
// that is not an RFC 3339 UTC instant is a usage error.
func TestRun_AskNow(t *testing.T) {
	tests := []struct {
		question string
		params   map[string]string
		text     string // a prefix of the sentence
		catalog  string // retail when empty
	}{
		{"is pr-007 in stock at st-003?", map[string]string{"as_of": "2026-01-06T08:00:00Z"}, "", ""},
		{"how many times was Riverside out of stock yesterday?",
			map[string]string{"store_id": "st-003", "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, "", ""},
		{"how many products are low at store 3 today", map[string]string{"store_id": "st-003", "state": "LOW_STOCK", "as_of": "2026-01-06T08:00:00Z"}, "", ""},
		// The clock is a Tuesday: Monday is yesterday, Friday..Monday
		// crosses the weekend.
		{"how many times was st-003 out of stock since Monday?",
			map[string]string{"store_id": "st-003", "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T08:00:00Z"}, "", ""},
		{"how many times was st-003 out of stock from Friday to Monday?",
			map[string]string{"store_id": "st-003", "start": "2026-01-02T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, "", ""},
		// A declared form ("between {start} and {end}") with weekdays.
		{"How many FAULT events were recorded in zone-01 between Friday and Monday?",
			map[string]string{"zone_id": "zone-01", "status": "FAULT", "start": "2026-01-02T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, "", "warehouse"},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			args := []string{"ask", "--json", "--log-level", "error", "--now", "2026-01-06T08:00:00Z", tt.question}
			if tt.catalog != "" {
				args = append([]string{"ask", "--catalog", tt.catalog}, args[1:]...)
			}
			out, _, err := runCLI(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Outcome string            `json:"outcome"`
				Params  map[string]string `json:"params"`
				Text    string            `json:"text"`
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			if m.Outcome != "answered" && m.Outcome != "absence" {
				t.Fatalf("outcome = %s\n%s", m.Outcome, out)
			}
			for k, v := range tt.params {
				if m.Params[k] != v {
					t.Errorf("params[%s] = %q, want %q", k, m.Params[k], v)
				}
				if (k == "as_of" || k == "start" || k == "end") && !strings.Contains(m.Text, v) {
					t.Errorf("the sentence %q does not state %s %s", m.Text, k, v)
				}
			}
		})
	}
	out, _, err := runCLI(t, "ask", "--now", "2026-01-06T08:00:00Z", "--log-level", "error", "is pr-007 in stock at st-003?")
	if err != nil || !(strings.HasPrefix(out, "Yes: ") || strings.HasPrefix(out, "No: ")) {
		t.Errorf("a yes/no question: %q, %v", out, err)
	}
	for _, bad := range []string{"2026-01-06", "2026-01-06T08:00:00+01:00", "yesterday"} {
		if _, _, err := runCLI(t, "ask", "--now", bad, "is pr-007 in stock at st-003?"); err == nil || !strings.Contains(err.Error(), "--now: want an RFC 3339 UTC instant") {
			t.Errorf("--now %s: %v, want a usage error", bad, err)
		}
	}
	// serve and eval take the flag too, and check it before they start.
	for _, cmd := range []string{"serve", "eval"} {
		if _, _, err := runCLI(t, cmd, "--now", "tomorrow"); err == nil || !strings.Contains(err.Error(), "--now: want an RFC 3339 UTC instant") {
			t.Errorf("%s --now tomorrow: %v, want a usage error", cmd, err)
		}
	}
}

// TestDocsAsking_Examples: the answers "Asking in your own words" shows,
// at its clock, exactly.
func TestDocsAsking_Examples(t *testing.T) {
	tests := []struct{ question, want string }{
		{"is pr-007 in stock at st-003?", "No: the stock state of pr-007 at st-003 as of 2026-01-07T12:00:00Z is OVERSTOCK."},
		{"how many products are low at st-003 today", "3 products are in state LOW_STOCK at st-003 as of 2026-01-07T12:00:00Z: pr-006, pr-015, pr-024."},
		{"how many times was st-003 out of stock between 2026-01-01 and 2026-01-07?",
			"5 scans with state OUT_OF_STOCK were recorded for st-003 in [2026-01-01T00:00:00Z, 2026-01-08T00:00:00Z)."},
		{"what's the price of pr-007?", "abstained: missing_slot: store (the question names no store)"},
		{"is sourdough in stock at st-001?", "abstained: ambiguous: product (the question could name pr-002, pr-026)"},
		{"is pr-007 in stock at Springfield?", "abstained: unknown_name: store (the question names no declared store)"},
		{"Why was pr-007 out of stock at st-003 on 2026-01-06?", "abstained: not_understood: the question has words outside the vocabulary of get_stock_state"},
		{"How many employees work at st-003?", "abstained: no_tool: no tool on the menu covers the question"},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			out, _, err := runCLI(t, "ask", "--log-level", "error", "--now", "2026-01-07T12:00:00Z", tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _ := strings.Cut(out, "\n"); got != tt.want {
				t.Errorf("ask %q\n got  %s\n want %s", tt.question, got, tt.want)
			}
		})
	}
}
