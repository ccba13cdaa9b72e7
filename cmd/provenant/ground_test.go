package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLedger writes a ledger file into a temporary directory.
func writeLedger(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const groundLedger = `{"numerals": [
	{"value": 781, "unit": "cents"},
	{"value": 3, "unit": "count"},
	{"value": "2026-01-06T08:00:00Z", "unit": "timestamp"},
	{"unit": "timestamp", "window": ["2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"]},
	{"id": "pr-007"},
	{"id": "st-003", "unit": "id"}
]}`

func TestGround_Reports(t *testing.T) {
	ledger := writeLedger(t, groundLedger)
	const hitsNone = `"allowance_hits":{"identifier":0,"ordinal":0,"question_echo":0,"window_timestamp":0}`
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"grounded answer passes",
			[]string{"ground", "--ledger", ledger, "The price of pr-007 at st-003 as of 2026-01-06T08:00:00Z is $7.81 (781 cents)."},
			`{"verdict":"PASS","numerals_total":5,"unmatched":[],` + hitsNone + `}`},
		{"text may span arguments",
			[]string{"ground", "--ledger", ledger, "There", "are", "3", "stores."},
			`{"verdict":"PASS","numerals_total":1,"unmatched":[],` + hitsNone + `}`},
		{"fabricated numerals are refused, with exit 0",
			[]string{"ground", "--ledger", ledger, "4 stores; the price is $7.91."},
			`{"verdict":"REFUSE","numerals_total":2,"unmatched":[{"text":"4","value":4,"unit":""},{"text":"$7.91","value":7.91,"unit":"usd"}],` + hitsNone + `}`},
		{"default policy allows echo, ordinals and window timestamps",
			[]string{"ground", "--ledger", ledger, "--question", "Is it 12?", "1. 12 scans by 2026-01-03T00:00:00Z"},
			`{"verdict":"PASS","numerals_total":3,"unmatched":[],"allowance_hits":{"identifier":0,"ordinal":1,"question_echo":1,"window_timestamp":1}}`},
		{"strict policy allows nothing",
			[]string{"ground", "--ledger", ledger, "--policy", "strict", "--question", "Is it 12?", "1. 12 scans by 2026-01-03T00:00:00Z"},
			`{"verdict":"REFUSE","numerals_total":3,"unmatched":[{"text":"1.","value":1,"unit":""},{"text":"12","value":12,"unit":""},{"text":"2026-01-03T00:00:00Z","value":1767398400,"unit":"timestamp"}],` + hitsNone + `}`},
		{"no numerals pass",
			[]string{"ground", "--ledger", ledger, "No stores are out of stock."},
			`{"verdict":"PASS","numerals_total":0,"unmatched":[],` + hitsNone + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, err := runCLI(t, tt.args...)
			if err != nil {
				t.Fatalf("Run() = %v (stderr %s)", err, stderr)
			}
			if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
				t.Errorf("ground printed %q, want exactly one line", out)
			}
			if got := strings.TrimSpace(out); got != tt.want {
				t.Errorf("ground printed\n got  %s\n want %s", got, tt.want)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("output is not JSON: %v", err)
			}
			for _, k := range []string{"verdict", "numerals_total", "unmatched", "allowance_hits"} {
				if _, ok := m[k]; !ok {
					t.Errorf("report lacks %q", k)
				}
			}
		})
	}
}

func TestGround_Errors(t *testing.T) {
	good := writeLedger(t, groundLedger)
	tests := []struct {
		name      string
		ledger    string // file body; "" for the good ledger
		args      []string
		wantUsage bool
		wantErr   string
		secret    string // must not appear in the error
	}{
		{name: "no ledger flag", args: []string{"ground", "3 stores"}, wantUsage: true},
		{name: "no text", args: []string{"ground", "--ledger", good}, wantUsage: true},
		{name: "unknown policy", args: []string{"ground", "--ledger", good, "--policy", "lenient", "3"}, wantUsage: true},
		{name: "unknown flag", args: []string{"ground", "--tolerance", "0.1", "3"}, wantUsage: true},
		{name: "missing file", args: []string{"ground", "--ledger", good + ".missing", "3"}, wantErr: "open ledger file"},
		{name: "unknown field", ledger: `{"numerals": [{"value": 3, "valeu": 4}]}`, wantErr: `numerals[0]: unknown field #1 (want value, unit, id or window)`, secret: "valeu"},
		{name: "unknown top-level field", ledger: `{"numerals": [], "results": []}`, wantErr: `unknown field #1 (want numerals)`, secret: "results"},
		{name: "malformed", ledger: `{"numerals": [{"value": 3,}]}`, wantErr: "malformed JSON near byte"},
		{name: "value of the wrong type", ledger: `{"numerals": [{"value": "hunter2-secret"}]}`, wantErr: "numerals[0].value: want a number", secret: "hunter2-secret"},
		{name: "unit outside the vocabulary", ledger: `{"numerals": [{"value": 3, "unit": "hunter2-secret"}]}`, wantErr: "numerals[0].unit: unknown unit (want one of count, cents, usd, eur, gbp, ratio, percent, timestamp, date, id, or none)", secret: "hunter2-secret"},
		{name: "bad window", ledger: `{"numerals": [{"value": 3, "unit": "count", "window": ["hunter2-secret", "2026-01-07T00:00:00Z"]}]}`, wantErr: "numerals[0].window[0]: want an RFC 3339 timestamp", secret: "hunter2-secret"},
		{name: "reversed window", ledger: `{"numerals": [{"value": 3, "unit": "count", "window": ["2026-01-07T00:00:00Z", "2026-01-01T00:00:00Z"]}]}`, wantErr: "numerals[0].window: start is after end"},
		{name: "value required", ledger: `{"numerals": [{"unit": "count"}]}`, wantErr: "numerals[0]: value is required unless id or window is given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.ledger != "" {
				args = []string{"ground", "--ledger", writeLedger(t, tt.ledger), "3 stores"}
			}
			out, _, err := runCLI(t, args...)
			switch {
			case tt.wantUsage:
				if !errors.Is(err, errUsage) {
					t.Errorf("Run() = %v, want errUsage", err)
				}
			case err == nil || !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Run() = %v, want an error containing %q", err, tt.wantErr)
			case errors.Is(err, errUsage):
				t.Errorf("Run() = %v: an unusable ledger is not a usage error", err)
			}
			if tt.secret != "" && err != nil && strings.Contains(err.Error(), tt.secret) {
				t.Errorf("error %q echoes a value from the ledger", err)
			}
			if out != "" {
				t.Errorf("stdout = %q on error, want nothing", out)
			}
		})
	}
}

func TestGround_Help(t *testing.T) {
	_, stderr, err := runCLI(t, "ground", "-h")
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	for _, want := range []string{"--ledger", "count, cents, usd, eur, gbp, ratio, percent, timestamp, date, id", "Example:"} {
		if !strings.Contains(strings.ReplaceAll(stderr, "  -", "  --"), want) {
			t.Errorf("usage lacks %q:\n%s", want, stderr)
		}
	}
	out, _, _ := runCLI(t, "help")
	if !strings.Contains(out, "ground") {
		t.Errorf("top-level usage does not list ground:\n%s", out)
	}
}
