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
