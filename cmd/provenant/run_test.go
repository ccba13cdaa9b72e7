package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/retail/demo"
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
		{name: "unknown provider", args: []string{"ask", "--provider", "oracle-of-delphi", "q"}, wantUsage: true},
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

// runMainCLI runs a command line as main does and returns the exit status
// and what it wrote.
func runMainCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runMain(t.Context(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestRun_ExitCodes is the command line's contract with a shell, over
// every subcommand: 0 for a run, 2 for bad flags or arguments with a
// message naming the flag (and never the rejected value), 1 when the
// program cannot run.
func TestRun_ExitCodes(t *testing.T) {
	ledger := writeLedger(t, groundLedger)
	const secret = "hunter2-secret-value"
	long := strings.Repeat("x", 300)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string // a substring of standard error
		wantStdout string // a substring of standard output
	}{
		// Flags after the positional argument are flags, never text.
		{"ask: trailing --json", []string{"ask", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", "--json", "--log-level", "error"}, 0, "", `"outcome":"answered"`},
		{"ask: flags between words", []string{"ask", "--log-level", "error", "What is the price of pr-007", "--json", "at st-003 as of 2026-01-06T08:00:00Z?"}, 0, "", `"outcome":"answered"`},
		{"ask: -- ends the flags", []string{"ask", "--log-level", "error", "--json", "--", "-5 stores?"}, 0, "", `"outcome":"abstained"`},
		{"ask: -- keeps a later flag-like word as text", []string{"ask", "--log-level", "error", "--", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", "--json"}, 0, "", "outcome: "},
		{"ground: trailing --policy strict", []string{"ground", "--ledger", ledger, "--question", "Is it 12?", "1. 12 scans by 2026-01-03T00:00:00Z", "--policy", "strict"}, 0, "", `"verdict":"REFUSE"`},
		{"ground: trailing flag without a value", []string{"ground", "--ledger", ledger, "3 stores", "--policy"}, 2, "--policy needs a value", ""},
		{"ask: trailing unknown flag", []string{"ask", "What is the price?", "--jsn"}, 2, "unknown flag --jsn", ""},
		{"ask: a long unknown flag is not echoed", []string{"ask", "--" + long, "q"}, 2, "unknown flag", ""},
		// A flag given twice is refused, whatever its spelling, never
		// resolved to one of its values.
		{"ask: a flag twice", []string{"ask", "--provider", "rules", "q", "--provider", secret}, 2, "--provider given more than once", ""},
		{"ask: a flag twice, spelt two ways", []string{"ask", "-json", "q", "--json=false"}, 2, "--json given more than once", ""},
		{"serve: --principals twice", []string{"serve", "--addr", "127.0.0.1:0", "--principals", secret, "--principals", secret}, 2, "--principals given more than once", ""},

		// An empty value is refused, not read as the flag left out: an
		// unset variable in --catalog=$CATALOG answered from the demo.
		{"ask: empty --catalog", []string{"ask", "--catalog=", "q"}, 2, "--catalog: empty value", ""},
		{"ask: empty --db", []string{"ask", "--catalog", "warehouse", "--db", "", "q"}, 2, "--db: empty value", ""},
		{"import: empty --postgres", []string{"import", "--postgres=", "x.csv"}, 2, "--postgres: empty value", ""},
		{"serve: empty --log", []string{"serve", "--log=", "--addr", "127.0.0.1:0"}, 2, "--log: empty value", ""},

		// Bad values are usage errors naming the flag, not the value.
		{"ask: bad --verify", []string{"ask", "--verify", secret, "q"}, 2, "--verify", ""},
		{"ask: even --self-consistency", []string{"ask", "--self-consistency", "2", "q"}, 2, "--self-consistency", ""},
		{"ask: non-integer --self-consistency", []string{"ask", "--self-consistency", secret, "q"}, 2, "--self-consistency: want an integer", ""},
		{"ask: unknown --provider", []string{"ask", "--provider", secret, "q"}, 2, "--provider", ""},
		{"ask: --noise without noisy", []string{"ask", "--noise", "0.5", "q"}, 2, "--noise", ""},
		{"ask: --noise out of range", []string{"ask", "--provider", "noisy", "--noise", "2", "q"}, 2, "--noise", ""},
		{"ask: bad --log-level", []string{"ask", "--log-level", secret, "q"}, 2, "--log-level", ""},
		{"ask: openai without --model", []string{"ask", "--provider", "openai", "q"}, 2, "--model", ""},
		{"serve: bad --verify", []string{"serve", "--verify", secret}, 2, "--verify", ""},
		{"mcp: bad --verify", []string{"mcp", "--verify", secret}, 2, "--verify", ""},
		{"eval: bad --verify", []string{"eval", "--verify", secret}, 2, "--verify", ""},
		{"eval: --calibrate without --out", []string{"eval", "--calibrate"}, 2, "--calibrate needs --out", ""},
		{"eval: --calibration-seeds 0", []string{"eval", "--calibrate", "--out", t.TempDir(), "--calibration-seeds", "0"}, 2, "--calibration-seeds", ""},
		// Flags of a mode not asked for were ignored, and eval ran.
		{"eval: --out without --calibrate", []string{"eval", "--out", t.TempDir()}, 2, "--out goes with --calibrate", ""},
		{"eval: --calibration-seeds without --calibrate", []string{"eval", "--calibration-seeds", "3"}, 2, "--calibration-seeds goes with --calibrate", ""},
		{"eval: --repair-seeds without --repair", []string{"eval", "--repair-seeds", "3"}, 2, "--repair-seeds goes with --repair", ""},
		{"gen: --stores 0", []string{"gen", "--stores", "0"}, 2, "--stores", ""},
		{"gen: --events too many", []string{"gen", "--events", "1000000"}, 2, "--events", ""},
		// DuckDB's derivation added to it and failed with its overflow
		// error, after reading every row.
		{"import: --checkpoint-every beyond the most", []string{"import", "--catalog", "../../catalogs/warehouse.yaml", "--dataset", "status_events", "--db", filepath.Join(t.TempDir(), "w.duckdb"),
			"--checkpoint-every", "9223372036854775807", "events.csv"}, 2, "--checkpoint-every", ""},
		{"ground: bad --policy", []string{"ground", "--ledger", ledger, "--policy", secret, "3"}, 2, "--policy", ""},
		{"load: bad --workers", []string{"load", "--workers", "0"}, 2, "", ""},
		{"load: bad --verify", []string{"load", "--verify", secret}, 2, "--verify", ""},
		{"serve: --max-in-flight 0", []string{"serve", "--addr", "127.0.0.1:0", "--max-in-flight", "0"}, 2, "max-in-flight", ""},
		{"serve: --ask-timeout beyond an hour", []string{"serve", "--addr", "127.0.0.1:0", "--ask-timeout", "2h"}, 2, "ask-timeout", ""},
		{"serve: bad --allowed-hosts", []string{"serve", "--addr", "127.0.0.1:0", "--allowed-hosts", "ok.example," + secret + "/x"}, 2, "--allowed-hosts", ""},

		// A source flag that cannot apply is refused, never ignored (the
		// demo store would answer instead), and serve refuses it before
		// it listens (TestRun_SourceFlagsBeforeListening).
		{"ask: --db without --catalog", []string{"ask", "--db", secret + ".duckdb", "q"}, 2, "--db and --postgres go with --catalog", ""},
		{"ask: --postgres without --catalog", []string{"ask", "--postgres", "postgres://" + secret + "@127.0.0.1/x", "q"}, 2, "--db and --postgres go with --catalog", ""},
		{"ask: --postgres-in-flight without --postgres", []string{"ask", "--postgres-in-flight", "4", "q"}, 2, "--postgres-in-flight: want --postgres DSN", ""},
		{"ask: --duckdb-threads below 0", []string{"ask", "--catalog", "warehouse", "--duckdb-threads", "-1", "q"}, 2, "--duckdb-threads: want 0", ""},
		{"ask: --duckdb-threads beyond the most", []string{"ask", "--catalog", "warehouse", "--duckdb-threads", "100000", "q"}, 2, "--duckdb-threads: want 0", ""},
		{"ask: --duckdb-threads beyond DuckDB's setting", []string{"ask", "--catalog", "warehouse", "--duckdb-threads", "99999999999", "q"}, 2, "--duckdb-threads: want 0", ""},
		{"ask: --duckdb-threads not a number", []string{"ask", "--catalog", "warehouse", "--duckdb-threads", secret, "q"}, 2, "--duckdb-threads", ""},
		{"ask: --duckdb-threads over a store file", []string{"ask", "--duckdb-threads", "1", "q"}, 2, "--duckdb-threads: want --catalog over a DuckDB database", ""},
		{"ask: --duckdb-threads over the retail demo store", []string{"ask", "--catalog", "retail", "--duckdb-threads", "1", "q"}, 2, "--duckdb-threads: want --catalog over a DuckDB database", ""},
		{"ask: --duckdb-threads with --postgres", []string{"ask", "--catalog", "warehouse", "--postgres", "postgres://" + secret + "@127.0.0.1/x", "--duckdb-threads", "1", "q"}, 2, "--duckdb-threads: want --catalog over a DuckDB database", ""},
		{"ask: --db and --postgres", []string{"ask", "--catalog", "warehouse", "--db", secret + ".duckdb", "--postgres", "postgres://" + secret + "@127.0.0.1/x", "q"}, 2, "at most one of --db", ""},
		{"mcp: --db without --catalog", []string{"mcp", "--db", secret + ".duckdb"}, 2, "--db and --postgres go with --catalog", ""},
		{"eval: --postgres without --catalog", []string{"eval", "--postgres", "postgres://" + secret + "@127.0.0.1/x"}, 2, "--db and --postgres go with --catalog", ""},

		// Missing arguments say what is missing.
		{"ask without a question", []string{"ask"}, 2, "missing QUESTION", ""},
		{"ask with only flags", []string{"ask", "--json"}, 2, "missing QUESTION", ""},
		{"ground without text", []string{"ground", "--ledger", ledger}, 2, "missing TEXT", ""},
		{"ground without --ledger", []string{"ground", "3 stores"}, 2, "--ledger", ""},
		{"gen with an argument", []string{"gen", "extra"}, 2, "unexpected argument", ""},
		{"serve with an argument", []string{"serve", "extra"}, 2, "unexpected argument", ""},
		{"mcp with an argument", []string{"mcp", "extra"}, 2, "unexpected argument", ""},
		{"eval with an argument", []string{"eval", "extra"}, 2, "unexpected argument", ""},
		{"load with an argument", []string{"load", "extra"}, 2, "unexpected argument", ""},

		// Help and version.
		{"help ask", []string{"help", "ask"}, 0, "", "Usage: provenant ask"},
		{"help ground", []string{"help", "ground"}, 0, "", "Usage: provenant ground"},
		{"help serve", []string{"help", "serve"}, 0, "", "Usage: provenant serve"},
		{"help of an unknown command", []string{"help", secret}, 2, "unknown command", ""},
		{"ask -h", []string{"ask", "-h"}, 0, "Usage: provenant ask", ""},
		{"--version", []string{"--version"}, 0, "", "provenant "},
		{"version", []string{"version"}, 0, "", "provenant "},
		{"unknown command", []string{secret}, 2, "unknown command", ""},
		{"no command", nil, 2, "Usage:", ""},

		// The program cannot run: exit 1.
		{"missing store file", []string{"ask", "--store", filepath.Join(t.TempDir(), "none.json"), "q"}, 1, "open store file", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMainCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d\nstderr: %s", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, stdout)
			}
			if strings.Contains(stderr+stdout, secret) || strings.Contains(stderr+stdout, long) {
				t.Errorf("output echoes a rejected value:\n%s%s", stdout, stderr)
			}
			if tt.wantCode == 2 && tt.wantStderr != "" && !strings.Contains(stderr, "provenant") {
				t.Errorf("usage error without the program's name:\n%s", stderr)
			}
		})
	}
}

// TestRun_SourceFlagsBeforeListening: serve refuses source flags no
// engine opens as a usage error before it listens (it used to log
// "listening" and then exit when the engine loaded).
func TestRun_SourceFlagsBeforeListening(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"--postgres-in-flight without --postgres", []string{"--catalog", "warehouse", "--postgres-in-flight", "3"}, "--postgres-in-flight: want --postgres DSN"},
		{"--postgres-in-flight, store file", []string{"--postgres-in-flight", "3"}, "--postgres-in-flight: want --postgres DSN"},
		{"--duckdb-threads, store file", []string{"--duckdb-threads", "2"}, "--duckdb-threads: want --catalog over a DuckDB database"},
		{"--db without --catalog", []string{"--db", "none.duckdb"}, "--db and --postgres go with --catalog"},
		{"--db and --postgres", []string{"--catalog", "warehouse", "--db", "none.duckdb", "--postgres", "postgres://127.0.0.1:1/x"}, "at most one of --db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runMainCLI(t, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit status %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			if strings.Contains(stderr, `"listening"`) {
				t.Errorf("serve listened before refusing its flags:\n%s", stderr)
			}
		})
	}
}

// TestRun_HelpPrintsEachDefaultOnce: no flag's help both describes its
// default in words and has the flag package append it again.
func TestRun_HelpPrintsEachDefaultOnce(t *testing.T) {
	for _, cmd := range []string{"ask", "serve", "eval", "gen", "ground", "load", "mcp"} {
		t.Run(cmd, func(t *testing.T) {
			code, stdout, _ := runMainCLI(t, "help", cmd)
			if code != 0 {
				t.Fatalf("help %s: exit %d", cmd, code)
			}
			// One flag's entry is its "  --name" line and the indented
			// lines after it.
			for _, entry := range strings.Split(stdout, "\n  -")[1:] {
				entry, _, _ = strings.Cut(entry, "\n\n")
				if n := strings.Count(entry, "default"); n > 1 {
					t.Errorf("flag -%s: names its default %d times", entry, n)
				}
			}
		})
	}
}

// TestRun_Version prints the module version and the VCS revision when the
// binary carries them.
func TestRun_Version(t *testing.T) {
	code, stdout, _ := runMainCLI(t, "--version")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Count(stdout, "\n") != 1 || !strings.HasPrefix(stdout, "provenant ") || !strings.Contains(stdout, "revision ") {
		t.Errorf("--version printed %q, want one line: provenant VERSION (revision REV ...)", stdout)
	}
}

// TestRun_GenDatasetVersion: the dataset_version gen writes is derived from
// the generator's arguments, so two different stores never share a
// version; the default arguments still give the demo store byte for byte.
func TestRun_GenDatasetVersion(t *testing.T) {
	version := func(t *testing.T, args ...string) string {
		t.Helper()
		out, stderr, err := runCLI(t, append([]string{"gen"}, args...)...)
		if err != nil {
			t.Fatalf("gen %v: %v\n%s", args, err, stderr)
		}
		var d struct {
			Version string `json:"dataset_version"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d.Version
	}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "retail-demo-v1"},
		{[]string{"--seed", "20260101", "--events", "4000"}, "retail-demo-v1"},
		{[]string{"--seed", "7", "--events", "50"}, "retail-gen-s7-e50-st24-pr36-d7"},
		{[]string{"--seed", "7", "--events", "50", "--stores", "3", "--products", "5", "--days", "2"}, "retail-gen-s7-e50-st3-pr5-d2"},
		{[]string{"--seed", "7", "--events", "50", "--dataset-version", "mine-1"}, "mine-1"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if got := version(t, tt.args...); got != tt.want {
				t.Errorf("dataset_version = %q, want %q", got, tt.want)
			}
		})
	}
	out, _, err := runCLI(t, "gen")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(demo.File()) {
		t.Error("gen with default arguments differs from the embedded demo store")
	}
}

// FuzzParseFlags: whatever the words, parseFlags never panics, and a word
// that looks like a flag reaches the text only after "--".
func FuzzParseFlags(f *testing.F) {
	f.Add("What is the price?\x00--json\x00--verify\x00sql")
	f.Add("--\x00-5 stores\x00--json")
	f.Add("--self-consistency=3\x00q\x00-h")
	f.Add("--provider\x00")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		fs := newFlagSet("ask", "ask [flags] QUESTION", "", io.Discard)
		var ef engineFlags
		ef.register(fs)
		fs.Bool("json", false, "")
		if err := parseFlags(fs, args); err != nil {
			if !errors.Is(err, errUsage) && !errors.Is(err, errHelp) {
				t.Fatalf("parseFlags() = %v, want a usage error", err)
			}
			return
		}
		dash := slices.Index(args, "--")
		for i, a := range fs.Args() {
			if len(a) > 1 && a[0] == '-' && (dash < 0 || i < len(fs.Args())-(len(args)-dash-1)) {
				t.Fatalf("flag-like word %q became text (args %q)", a, args)
			}
		}
	})
}
