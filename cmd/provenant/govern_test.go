package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventschema"
)

const budgetQuestion = "How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?"

// budgetYAML is a complete budget with the given tool calls per question.
func budgetYAML(questionCalls string) string {
	return "session:\n  usd: 5.00\n  tokens: 200000\n  tool_calls: 100\n  sim_seconds: 3600\n  rows_scanned: 10000000\n" +
		"question:\n  usd: 0.50\n  tokens: 20000\n  tool_calls: " + questionCalls + "\n  sim_seconds: 600\n  rows_scanned: 1000000\n"
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAsk_Budget: `ask --budget` answers within the budget, abstains with
// budget_exhausted when a question may make no tool call, and refuses a
// budget file that is not complete and valid, naming the key.
func TestAsk_Budget(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		outcome answer.Outcome
		kind    answer.ReasonKind
		wantErr []string // substrings of the error
		notErr  string   // a value of the file the error must not repeat
		args    []string // more flags
	}{
		{name: "fits", file: "b.yaml", content: budgetYAML("1"), outcome: answer.Answered},
		{name: "no tool call", file: "b.yaml", content: budgetYAML("0"), outcome: answer.Abstained, kind: answer.ReasonBudgetExhausted},
		{name: "json, no tool call", file: "b.json", outcome: answer.Abstained, kind: answer.ReasonBudgetExhausted,
			content: `{"session": {"usd": 5, "tokens": 10, "tool_calls": 3, "sim_seconds": 1, "rows_scanned": 100},
			  "question": {"usd": "0.5", "tokens": 10, "tool_calls": 0, "sim_seconds": 1, "rows_scanned": 100}}`},
		{name: "misspelt key", file: "b.yaml", content: strings.Replace(budgetYAML("1"), "sim_seconds: 600", "sim_secs: 600", 1),
			wantErr: []string{"line 11", "question", "did you mean sim_seconds"}, notErr: "sim_secs"},
		{name: "missing component", file: "b.yaml", content: strings.Replace(budgetYAML("1"), "  tokens: 20000\n", "", 1),
			wantErr: []string{"question", "missing tokens"}},
		{name: "json misspelt key", file: "b.json", notErr: "toolcalls",
			content: `{"session": {"usd": 5, "tokens": 10, "toolcalls": 3, "sim_seconds": 1, "rows_scanned": 100},
			  "question": {"usd": 1, "tokens": 10, "tool_calls": 0, "sim_seconds": 1, "rows_scanned": 100}}`,
			wantErr: []string{"session", "did you mean tool_calls"}},
		{name: "question above session", file: "b.yaml", content: budgetYAML("101"), wantErr: []string{"tool_calls"}},
		{name: "a model without a price", file: "b.yaml", content: budgetYAML("1"), args: []string{"--provider", "openai", "--model", "gpt-4o-mini"},
			wantErr: []string{"prices", "no price for model gpt-4o-mini", "prices.gpt-4o-mini.input"}},
		{name: "a model with a price", file: "b.yaml", content: budgetYAML("1") + "prices:\n  gpt-4o-mini:\n    input: 0.15\n    output: 0.6\n",
			args: []string{"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", "http://127.0.0.1:1/v1"}, outcome: answer.Error, kind: answer.ReasonModelUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, tt.file, tt.content)
			args := append([]string{"ask", "--json", "--log-level", "error", "--budget", path}, tt.args...)
			out, _, err := runCLI(t, append(args, budgetQuestion)...)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("ask --budget: no error, want one naming %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if tt.notErr != "" && strings.Contains(err.Error(), tt.notErr) {
					t.Errorf("error %q repeats the file's %q", err, tt.notErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var a struct{ Outcome, Reason string }
			if err := json.Unmarshal([]byte(out), &a); err != nil {
				t.Fatal(err)
			}
			kind, _, _ := strings.Cut(a.Reason, ":")
			if a.Outcome != string(tt.outcome) || answer.ReasonKind(kind) != tt.kind {
				t.Errorf("answer %s %q, want %s %s", a.Outcome, a.Reason, tt.outcome, tt.kind)
			}
		})
	}
}

// TestGovernFlags_Usage: the audit flags are checked before anything runs.
func TestGovernFlags_Usage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"ask", "--seed", "1", budgetQuestion},                                    // --seed without --log
		{"ask", "--log", filepath.Join(dir, "l"), "--seed", "-2", budgetQuestion}, // out of range
		// -1 was --seed's "not given", so it ran a run that was not
		// deterministic.
		{"ask", "--log", filepath.Join(dir, "l"), "--seed", "-1", budgetQuestion},
		{"ask", "--seed", "-1", budgetQuestion},
		{"ask", "--log", filepath.Join(dir, "l"), "--seed", "1", "--provider", "openai", "--model", "m", budgetQuestion},
		{"log", "verify"},
		{"log", "verify", "--log", filepath.Join(dir, "l"), "extra"},
		{"log", "frobnicate"},
		{"register", "verify"},
	} {
		if _, _, err := runCLI(t, args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err %v, want a usage error", args, err)
		}
	}
}

// evalLog runs the eval command with --log into a fresh file and returns
// the file.
func evalLog(t *testing.T, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if _, stderr, err := runCLI(t, append([]string{"eval", "--json", "--log", path}, args...)...); err != nil {
		t.Fatalf("eval %q: %v\n%s", args, err, stderr)
	}
	return path
}

// verifyLog runs `log verify` on path and returns the log hash it prints.
func verifyLog(t *testing.T, path string) string {
	t.Helper()
	out, _, err := runCLI(t, "log", "verify", "--log", path)
	if err != nil {
		t.Fatalf("log verify: %v", err)
	}
	m := regexp.MustCompile(`log hash ([0-9a-f]{64})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("log verify printed %q, no log hash", out)
	}
	return m[1]
}

// TestEvalLog_EveryEventMatchesItsSchema runs the retail and the
// warehouse gold sets with an event log, once without budgets and once
// with a budget of no tool calls, and holds every event to its committed
// JSON Schema; the pipeline's nine event types all occur.
func TestEvalLog_EveryEventMatchesItsSchema(t *testing.T) {
	v, err := eventschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	none := budgetYAML("0")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"retail", nil},
		{"warehouse", []string{"--catalog", "warehouse"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "warehouse" {
				useWarehouseCache(t)
			}
			// Once without budgets, once with none for tool calls.
			seen := map[eventlog.Type]int{}
			for _, extra := range [][]string{nil, {"--budget", writeTemp(t, "b.yaml", none)}} {
				path := evalLog(t, slices.Concat(tt.args, []string{"--seed", "1"}, extra)...)
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
				for i, line := range lines {
					if err := v.ValidateEvent(line); err != nil {
						t.Errorf("line %d: %v", i+1, err)
					}
					e, err := eventlog.Decode(line)
					if err != nil {
						t.Fatalf("line %d: %v", i+1, err)
					}
					seen[e.Type]++
				}
				verifyLog(t, path)
			}
			for _, typ := range []eventlog.Type{
				eventlog.TypeQuestionReceived, eventlog.TypeToolInvoked, eventlog.TypeToolReturned,
				eventlog.TypePlanRejected, eventlog.TypeGroundingChecked, eventlog.TypeAbstained,
				eventlog.TypeAnswerEmitted, eventlog.TypeBudgetReserved, eventlog.TypeBudgetExceeded,
			} {
				if seen[typ] == 0 {
					t.Errorf("no %s event over the gold set (seen %v)", typ, seen)
				}
			}
			if seen[eventlog.TypeQuestionReceived] != seen[eventlog.TypeAnswerEmitted] {
				t.Errorf("%d questions received, %d answers emitted", seen[eventlog.TypeQuestionReceived], seen[eventlog.TypeAnswerEmitted])
			}
		})
	}
}

// TestEvalLog_Deterministic: two runs of the gold set with one seed write
// the same log hash; the event logs' files differ (wall_time, pid), the
// hash does not.
func TestEvalLog_Deterministic(t *testing.T) {
	a, b := evalLog(t, "--seed", "1"), evalLog(t, "--seed", "1")
	if ha, hb := verifyLog(t, a), verifyLog(t, b); ha != hb {
		t.Errorf("two runs with --seed 1: log hashes %s and %s", ha, hb)
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if bytes.Equal(ba, bb) {
		t.Log("the two files are byte-identical (the wall clock did not move between them)")
	}
}

// TestEvalLog_HashChanges: the hash depends on what ran: another seed, or
// another question, gives another log hash.
func TestEvalLog_HashChanges(t *testing.T) {
	base := verifyLog(t, evalLog(t, "--seed", "1"))
	if other := verifyLog(t, evalLog(t, "--seed", "2")); other == base {
		t.Errorf("--seed 1 and --seed 2 give one log hash %s", base)
	}
	ask := func(q string) string {
		path := filepath.Join(t.TempDir(), "events.jsonl")
		if _, _, err := runCLI(t, "ask", "--log-level", "error", "--log", path, "--seed", "1", q); err != nil {
			t.Fatal(err)
		}
		return verifyLog(t, path)
	}
	q1, q1again := ask(budgetQuestion), ask(budgetQuestion)
	q2 := ask(strings.Replace(budgetQuestion, "OUT_OF_STOCK", "LOW_STOCK", 1))
	if q1 != q1again {
		t.Errorf("one question twice: log hashes %s and %s", q1, q1again)
	}
	if q1 == q2 {
		t.Errorf("two questions give one log hash %s", q1)
	}
}

// TestLog_VerifyNamesTheFirstBadEvent: `log verify` passes a log written
// by ask and fails, naming the event, on every kind of damage; `log
// export` writes the same events in canonical order with the same hash.
func TestLog_VerifyNamesTheFirstBadEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	for range 2 { // two questions, the second appended to the first's log
		if _, _, err := runCLI(t, "ask", "--log-level", "error", "--log", path, budgetQuestion); err != nil {
			t.Fatal(err)
		}
	}
	hash := verifyLog(t, path)
	out, _, err := runCLI(t, "log", "export", "--log", path)
	if err != nil {
		t.Fatal(err)
	}
	export := writeTemp(t, "export.jsonl", out)
	if got := verifyLog(t, export); got != hash {
		t.Errorf("export's hash %s, the log's %s", got, hash)
	}
	if _, _, err := runCLI(t, "log", "verify", "--canonical", "--log", export, "--want", hash); err != nil {
		t.Errorf("verify --canonical --want on the export: %v", err)
	}

	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	if len(lines) < 8 {
		t.Fatalf("%d events for two questions", len(lines))
	}
	damage := []struct {
		name  string
		edit  func([]string) []string
		index string   // "event N" the error must name
		args  []string // more flags
	}{
		{"an event removed", func(l []string) []string { return append(l[:2:2], l[3:]...) }, "event 2", nil},
		{"a payload edited", func(l []string) []string { // tool.returned's rows, ahead of the original's
			l[2] = strings.Replace(l[2], `"rows_scanned":`, `"rows_scanned":1`, 1)
			return l
		}, "event 2", []string{"--against", path}},
		{"a line torn", func(l []string) []string {
			l[len(l)-1] = strings.TrimSuffix(l[len(l)-1], "\n")[:40]
			return l
		}, "event " + itoa(len(lines)-1), nil},
		{"an event repeated", func(l []string) []string { return append(l[:5:5], append([]string{l[4]}, l[5:]...)...) }, "event 5", nil},
	}
	for _, d := range damage {
		t.Run(d.name, func(t *testing.T) {
			edited := d.edit(append([]string(nil), lines...))
			if strings.Join(edited, "") == string(good) {
				t.Fatal("the edit changed nothing")
			}
			bad := writeTemp(t, "bad.jsonl", strings.Join(edited, ""))
			_, _, err := runCLI(t, append([]string{"log", "verify", "--log", bad}, d.args...)...)
			if err == nil || errors.Is(err, errUsage) {
				t.Fatalf("log verify on a damaged log: err %v, want a verification failure", err)
			}
			if !strings.Contains(err.Error(), d.index+":") {
				t.Errorf("error %q does not name %s", err, d.index)
			}
		})
	}
	// Another log's hash is not this one's.
	other := strings.Repeat("0", 64)
	if _, _, err := runCLI(t, "log", "verify", "--log", path, "--want", other); err == nil {
		t.Error("log verify --want with another hash passed")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRegister_VerifyAndExport: `register verify` passes the committed v1
// fixture and prints its head, fails naming the record on a flipped
// byte, and `register export` writes the file back byte for byte.
func TestRegister_VerifyAndExport(t *testing.T) {
	fixture := filepath.Join("..", "..", "register", "testdata", "v1.jsonl")
	good, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "register", "verify", "--register", fixture)
	if err != nil || !regexp.MustCompile(`^ok: \d+ records, head [0-9a-f]{64}\n$`).MatchString(out) {
		t.Fatalf("register verify: %q, %v", out, err)
	}
	exported, _, err := runCLI(t, "register", "export", "--register", fixture)
	if err != nil {
		t.Fatal(err)
	}
	if exported != string(good) {
		t.Errorf("register export differs from the file it read")
	}
	// Change one digit of the second record's logical time: the record
	// still loads, and verify fails at record 1.
	lines := strings.SplitAfter(string(good), "\n")
	re := regexp.MustCompile(`"time":(\d)`)
	loc := re.FindStringSubmatchIndex(lines[1])
	if loc == nil {
		t.Fatal("fixture's record 1 has no time")
	}
	b := []byte(lines[1])
	if b[loc[2]] == '9' {
		b[loc[2]] = '8'
	} else {
		b[loc[2]]++
	}
	lines[1] = string(b)
	bad := writeTemp(t, "bad.jsonl", strings.Join(lines, ""))
	_, _, err = runCLI(t, "register", "verify", "--register", bad)
	if err == nil || !strings.Contains(err.Error(), "record 1") {
		t.Errorf("register verify on a tampered record 1: %v, want an error naming record 1", err)
	}
}

// FuzzParseBudget: any document is a complete, valid budget or an error;
// never a panic, and an error never repeats a key the document invented.
func FuzzParseBudget(f *testing.F) {
	f.Add([]byte(budgetYAML("1")))
	f.Add([]byte(`{"session": {"usd": 5, "tokens": 10, "tool_calls": 3, "sim_seconds": 1, "rows_scanned": 100},
		"question": {"usd": "0.5", "tokens": 10, "tool_calls": 0, "sim_seconds": 1, "rows_scanned": 100}}`))
	f.Add([]byte(`{"session": {"zzqx": 1}}`))
	f.Add([]byte("session:\n  zzqx: 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := parseBudget(b)
		if err != nil {
			if bytes.Contains(b, []byte("zzqx")) && strings.Contains(err.Error(), "zzqx") {
				t.Errorf("error %q repeats an invented key", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("parsed an invalid budget: %v", err)
		}
	})
}

// TestAsk_TornLog: a log whose last line a crash cut short stops a
// command, which says how to go on; --log-repair truncates the torn line
// and appends after it.
func TestAsk_TornLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if _, _, err := runCLI(t, "ask", "--log-level", "error", "--log", path, budgetQuestion); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"evt-`) // an append the crash cut short
	f.Close()
	_, _, err = runCLI(t, "ask", "--log-level", "error", "--log", path, budgetQuestion)
	if err == nil || !errors.Is(err, eventlog.ErrTornTail) || !strings.Contains(err.Error(), "--log-repair") {
		t.Fatalf("ask on a torn log: %v, want a torn-tail error naming --log-repair", err)
	}
	if _, _, err := runCLI(t, "ask", "--log-level", "error", "--log", path, "--log-repair", budgetQuestion); err != nil {
		t.Fatalf("ask --log-repair: %v", err)
	}
	out, _, err := runCLI(t, "log", "verify", "--log", path)
	if err != nil || !strings.Contains(out, "2 runs") {
		t.Errorf("log verify after the repair: %q, %v; want both runs", out, err)
	}
}
