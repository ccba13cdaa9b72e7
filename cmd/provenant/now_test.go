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
	}{
		{"is pr-007 in stock at st-003?", map[string]string{"as_of": "2026-01-06T08:00:00Z"}, ""},
		{"how many times was Riverside out of stock yesterday?",
			map[string]string{"store_id": "st-003", "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, ""},
		{"how many products are low at store 3 today", map[string]string{"store_id": "st-003", "state": "LOW_STOCK", "as_of": "2026-01-06T08:00:00Z"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			out, _, err := runCLI(t, "ask", "--json", "--log-level", "error", "--now", "2026-01-06T08:00:00Z", tt.question)
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
}
