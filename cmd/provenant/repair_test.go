package main

import (
	"io"
	"strings"
	"testing"

	"github.com/provenant/provenant/repair"
)

// TestRepairFlags: --repair-retries is parsed strictly on every command
// that answers (0 to 3, nothing else, never echoed); --metric-noise needs
// the noisy instrument; eval --repair refuses what it cannot run.
func TestRepairFlags(t *testing.T) {
	const secret = "hunter2-secret-value"
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
		wantStdout string
	}{
		{"ask: --repair-retries 4", []string{"ask", "--repair-retries", "4", "q"}, 2, "--repair-retries: want an integer from 0 to 3", ""},
		{"ask: --repair-retries -1", []string{"ask", "--repair-retries", "-1", "q"}, 2, "--repair-retries", ""},
		{"ask: --repair-retries 02", []string{"ask", "--repair-retries", "02", "q"}, 2, "--repair-retries", ""},
		{"ask: --repair-retries secret", []string{"ask", "--repair-retries", secret, "q"}, 2, "--repair-retries", ""},
		{"serve: --repair-retries 9", []string{"serve", "--addr", "127.0.0.1:0", "--repair-retries", "9"}, 2, "--repair-retries", ""},
		{"mcp: --repair-retries x", []string{"mcp", "--repair-retries", secret}, 2, "--repair-retries", ""},
		{"eval: --repair-retries 1.5", []string{"eval", "--repair-retries", "1.5"}, 2, "--repair-retries", ""},
		{"ask: --repair-retries 0 answers", []string{"ask", "--repair-retries", "0", "--json", "--log-level", "error", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}, 0, "", `"outcome":"answered"`},
		{"ask: --repair-retries 3 answers", []string{"ask", "--repair-retries", "3", "--json", "--log-level", "error", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}, 0, "", `"outcome":"answered"`},
		{"ask: --repair-min-history 0", []string{"ask", "--repair-min-history", "0", "q"}, 2, "--repair-min-history: want an integer from 1 to 12", ""},
		{"ask: --repair-min-history 13", []string{"ask", "--repair-min-history", "13", "q"}, 2, "--repair-min-history", ""},
		{"ask: --repair-min-history +8", []string{"ask", "--repair-min-history", "+8", "q"}, 2, "--repair-min-history", ""},
		{"serve: --repair-min-history secret", []string{"serve", "--addr", "127.0.0.1:0", "--repair-min-history", secret}, 2, "--repair-min-history", ""},
		{"ask: --repair-widen -0.5", []string{"ask", "--repair-widen", "-0.5", "q"}, 2, "--repair-widen: want a number from 0 to 10", ""},
		{"ask: --repair-widen 11", []string{"ask", "--repair-widen", "11", "q"}, 2, "--repair-widen", ""},
		{"ask: --repair-widen NaN", []string{"ask", "--repair-widen", "NaN", "q"}, 2, "--repair-widen", ""},
		{"ask: --repair-widen Inf", []string{"ask", "--repair-widen", "Inf", "q"}, 2, "--repair-widen", ""},
		{"ask: --repair-widen hex", []string{"ask", "--repair-widen", "0x1p-1", "q"}, 2, "--repair-widen", ""},
		{"mcp: --repair-widen secret", []string{"mcp", "--repair-widen", secret}, 2, "--repair-widen", ""},
		{"ask: the band's flags answer", []string{"ask", "--repair-min-history", "12", "--repair-widen", "0", "--json", "--log-level", "error", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}, 0, "", `"outcome":"answered"`},
		{"ask: --metric-noise without noisy", []string{"ask", "--metric-noise", "0.2", "q"}, 2, "--metric-noise", ""},
		{"ask: --metric-noise out of range", []string{"ask", "--provider", "noisy", "--metric-noise", "1.5", "q"}, 2, "--metric-noise", ""},
		{"eval --repair: --repair-seeds 0", []string{"eval", "--repair", "--repair-seeds", "0"}, 2, "--repair-seeds", ""},
		{"eval --repair: --repair-retries 0", []string{"eval", "--repair", "--repair-retries", "0"}, 2, "--repair-retries", ""},
		{"eval --repair: --gold", []string{"eval", "--repair", "--gold", "phrasing"}, 2, "--gold", ""},
		{"eval --repair: --provider openai", []string{"eval", "--repair", "--provider", "openai"}, 2, "--provider", ""},
		{"eval --repair: --calibrate", []string{"eval", "--repair", "--calibrate", "--out", t.TempDir()}, 2, "--repair", ""},
		{"eval --repair: --metric-noise 0", []string{"eval", "--repair", "--metric-noise", "0"}, 2, "--metric-noise", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMainCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d\nstderr: %s", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) || !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stderr lacks %q or stdout lacks %q:\n%s\n%s", tt.wantStderr, tt.wantStdout, stderr, stdout)
			}
			if strings.Contains(stderr+stdout, secret) {
				t.Errorf("output echoes a rejected value:\n%s%s", stdout, stderr)
			}
		})
	}
}

// TestEvalRepair_OneSeed runs eval --repair end to end on one seed of the
// warehouse demo: the table names the instrument and both columns.
func TestEvalRepair_OneSeed(t *testing.T) {
	code, stdout, stderr := runMainCLI(t, "eval", "--repair", "--catalog", "warehouse", "--repair-seeds", "1", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"noisy(rules)[metric_rate=0.2,seeds=1]", "warehouse: 18 metric items x 1 seeds", "loop off", "loop on"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// askFlags parses args as ask's engine flags, the repair flags checked.
func askFlags(t *testing.T, args []string) *engineFlags {
	t.Helper()
	var ef engineFlags
	fs := newFlagSet("ask", "ask", "", io.Discard)
	ef.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := ef.repair.parse(); err != nil {
		t.Fatal(err)
	}
	return &ef
}

// The band's flags reach the loop's policy; without them it is
// repair.DefaultPolicy.
func TestRepairFlags_Policy(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want repair.Policy
	}{
		{nil, repair.DefaultPolicy()},
		{[]string{"--repair-min-history", "12"}, repair.Policy{MinHistory: 12, Widen: 0.5}},
		{[]string{"--repair-widen", "0"}, repair.Policy{MinHistory: 8, Widen: 0}},
		{[]string{"--repair-min-history", "1", "--repair-widen", "2.5"}, repair.Policy{MinHistory: 1, Widen: 2.5}},
	} {
		ef := askFlags(t, tt.args)
		if l := ef.repair.loop(); l == nil || l.Policy != tt.want {
			t.Errorf("%v: loop %+v, want policy %+v", tt.args, l, tt.want)
		}
	}
}

// Without --repair-retries the loop is on with 2 retries; 0 turns it off.
func TestRepairFlags_Default(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{{nil, 2}, {[]string{"--repair-retries", "0"}, 0}, {[]string{"--repair-retries", "3"}, 3}} {
		ef := askFlags(t, tt.args)
		got := 0
		if l := ef.repair.loop(); l != nil {
			got = l.Retries
		}
		if got != tt.want {
			t.Errorf("%v: retries %d, want %d", tt.args, got, tt.want)
		}
	}
}
