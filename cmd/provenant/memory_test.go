package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/memory"
	mempostgres "github.com/provenant/provenant/memory/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
	"github.com/provenant/provenant/tool"
)

func runMem(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Run(t.Context(), append([]string{"memory"}, args...), &out, &errb)
	return out.String(), errb.String(), err
}

// TestMemory_CLI: add, annotate and recall through one DuckDB journal
// file; recall checks each claim with provenance against the demo store:
// a claim of the value the demo gives is current, one of another value is
// outdated with the events the current value rests on.
func TestMemory_CLI(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.duckdb")
	e := enginetest.OpenDemo(t, engine.Options{})
	args := map[string]any{"product_id": "pr-007", "store_id": "st-003", "as_of": "2026-01-08T00:00:00Z"}
	a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: "get_stock_state", Params: args})
	v, _ := a.Value()
	p, _ := a.Provenance()
	raw, _ := json.Marshal(args)
	prov := func(value string) string {
		b, _ := json.Marshal(memory.Provenance{ToolCall: &memory.ToolCall{Tool: "get_stock_state", Arguments: raw}, Value: json.RawMessage(value)})
		return string(b)
	}
	now, _ := json.Marshal(v.Text)

	steps := [][]string{
		{"add", "--journal", journal, "--agent", "stock-bot", "--key", "m-now", "--subject", "pr-007@st-003", "--provenance", prov(string(now)), "pr-007 is " + v.Text},
		{"add", "--journal", journal, "--agent", "stock-bot", "--key", "m-old", "--subject", "pr-007@st-003", "--provenance", prov(`"NO_SUCH_STATE"`), "pr-007 was something else"},
		{"add", "--journal", journal, "--agent", "stock-bot", "--key", "m-aisle", "--subject", "pr-007@st-003", "--private", "pr-007 is in aisle A3"},
		{"annotate", "--journal", journal, "--agent", "stock-bot", "--key", "m-fix", "--stated", "--subject", "pr-007@st-003", "supersede", "m-aisle", "pr-007 moved to aisle B1"},
	}
	for _, s := range steps {
		if out, errOut, err := runMem(t, s...); err != nil {
			t.Fatalf("%s: %v\n%s%s", s[0], err, out, errOut)
		}
	}
	out, errOut, err := runMem(t, "recall", "--journal", journal, "--agent", "stock-bot", "--subject", "PR-007@st-003", "--json")
	if err != nil {
		t.Fatalf("recall: %v\n%s", err, errOut)
	}
	var sheet memory.Sheet
	if err := json.Unmarshal([]byte(out), &sheet); err != nil {
		t.Fatal(err)
	}
	got := map[string]memory.Claim{}
	for _, c := range sheet.Claims {
		got[c.Key] = c
	}
	if len(got) != 3 || got["m-fix"].Supersedes[0] != "m-aisle" {
		t.Fatalf("claims %v: want m-now, m-old and m-fix (superseding m-aisle)", out)
	}
	if c := got["m-now"].Check; c == nil || c.Status != memory.StatusCurrent {
		t.Errorf("m-now: %+v, want current", c)
	}
	if c := got["m-old"].Check; c == nil || c.Status != memory.StatusOutdated || string(c.Value) != string(now) ||
		strings.Join(c.NewerEvents, ",") != strings.Join(p.EventIDs(), ",") {
		t.Errorf("m-old: %+v, want outdated, now %s resting on %v", c, now, p.EventIDs())
	}

	// Another agent does not see the private record, nor its correction's
	// target; the human form says what recall found.
	out, _, err = runMem(t, "recall", "--journal", journal, "--agent", "planner", "--subject", "pr-007@st-003")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "outdated: now") || !strings.Contains(out, "m-fix") || strings.Contains(out, "aisle A3") {
		t.Errorf("planner's sheet:\n%s", out)
	}
}

// TestMemory_CLIErrors: bad flags and arguments are usage errors; a
// repeated key is a typed failure that names the field, not the value.
func TestMemory_CLIErrors(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.duckdb")
	if _, _, err := runMem(t, "add", "--journal", journal, "--key", "m-1", "x"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		args  []string
		usage bool
		want  string
	}{
		{"no subcommand", nil, true, ""},
		{"unknown subcommand", []string{"forget"}, true, ""},
		{"no text", []string{"add", "--journal", journal}, true, ""},
		{"unknown flag", []string{"add", "--journal", journal, "--agentt", "x", "y"}, true, ""},
		{"bad provenance", []string{"add", "--journal", journal, "--provenance", `{"secret-field":1}`, "x"}, true, ""},
		{"bad kind", []string{"annotate", "--journal", journal, "delete", "m-1"}, true, ""},
		{"both journals", []string{"add", "--journal", journal, "--journal-postgres", "postgres://x", "x"}, true, ""},
		{"repeated key", []string{"add", "--journal", journal, "--key", "m-1", "secret-text"}, false, "duplicate_key"},
		{"unknown target", []string{"annotate", "--journal", journal, "retract", "m-secret"}, false, "unknown_target"},
		{"no cues", []string{"recall", "--journal", journal, "--check=false"}, false, "invalid_recall"},
		// A relevance below 0 or NaN was taken for "none", and the claim
		// stored without it, exit 0.
		{"negative relevance", []string{"add", "--journal", journal, "--relevance", "-0.5", "x"}, true, "--relevance"},
		{"NaN relevance", []string{"add", "--journal", journal, "--relevance", "NaN", "x"}, true, "--relevance"},
		// A negative --as-of was taken for "now".
		{"negative as-of", []string{"recall", "--journal", journal, "--check=false", "--subject", "x", "--as-of", "-5"}, true, "--as-of"},
		{"negative relevance with a half-life", []string{"add", "--journal", journal, "--relevance", "-1", "--half-life", "60", "x"}, true, "--relevance"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := runMem(t, tt.args...)
			if err == nil || errors.Is(err, errUsage) != tt.usage || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v (usage %v), want usage %v containing %q", err, errors.Is(err, errUsage), tt.usage, tt.want)
			}
			if strings.Contains(err.Error()+errOut, "secret") {
				t.Errorf("the message repeats the input: %v %s", err, errOut)
			}
		})
	}
}

// TestMemory_MCPStdio: `provenant mcp --memory` offers the memory tools
// over standard input and output, writing to the --journal file as the
// --memory-agent; without --memory, --journal is a usage error.
func TestMemory_MCPStdio(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.duckdb")
	cmd := exec.Command(os.Args[0], "mcp", "--log-level", "error", "--memory", "--journal", journal, "--memory-agent", "desk")
	cmd.Env = append(os.Environ(), "PROVENANT_RUN_MAIN=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"key": "m-1", "text": "note", "subject": "s"}})
	if err != nil || res.IsError {
		t.Fatalf("remember: %+v, %v", res, err)
	}
	cs.Close()
	out, _, err := runMem(t, "recall", "--journal", journal, "--agent", "desk", "--subject", "s", "--check=false", "--json")
	if err != nil || !strings.Contains(out, `"agent":"desk"`) || !strings.Contains(out, `"key":"m-1"`) {
		t.Fatalf("recall after the mcp session: %s, %v", out, err)
	}
	var o, e bytes.Buffer
	if err := Run(t.Context(), []string{"mcp", "--journal", journal}, &o, &e); !errors.Is(err, errUsage) {
		t.Errorf("mcp --journal without --memory: %v, want a usage error", err)
	}
}

// TestMemory_CLIExample is the README's worked example of recall,
// command for command, over the embedded demo store.
func TestMemory_CLIExample(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.duckdb")
	steps := [][]string{
		{"add", "--agent", "stock-bot", "--key", "m-001", "--subject", "pr-007@st-003", "--relevance", "0.9",
			"--provenance", `{"tool_call":{"tool":"get_stock_state","arguments":{"product_id":"pr-007","store_id":"st-003","as_of":"2026-01-08T00:00:00Z"}},"value":"IN_STOCK","row_keys":["evt-001234"]}`,
			"pr-007 is IN_STOCK at st-003"},
		{"add", "--agent", "stock-bot", "--key", "m-002", "--subject", "pr-007@st-003", "--relevance", "0.8",
			"--provenance", `{"tool_call":{"tool":"get_price","arguments":{"product_id":"pr-007","store_id":"st-003","as_of":"2026-01-08T00:00:00Z"}},"value":781}`,
			"pr-007 costs 781 cents at st-003"},
		{"add", "--agent", "stock-bot", "--key", "m-003", "--subject", "pr-007@st-003", "--relevance", "0.7", "pr-007 is shelved in aisle A3"},
		{"annotate", "--agent", "planner", "--key", "m-004", "--stated", "--subject", "pr-007@st-003", "--relevance", "0.7",
			"supersede", "m-003", "pr-007 moved to aisle B1"},
		{"add", "--agent", "stock-bot", "--key", "m-005", "--subject", "pr-007@st-003", "--relevance", "0.5",
			"--provenance", `{"tool_call":{"tool":"get_stock_state","arguments":{"product_id":"pr-007","store_id":"st-003"}},"value":"IN_STOCK"}`,
			"pr-007 is in stock (asked without a date)"},
	}
	for _, s := range steps {
		if _, errOut, err := runMem(t, append(s, "--journal", journal)...); err != nil {
			t.Fatalf("%s: %v %s", s[0], err, errOut)
		}
	}
	out, errOut, err := runMem(t, "recall", "--journal", journal, "--agent", "stock-bot", "--subject", "pr-007@st-003", "--log-level", "error")
	if err != nil {
		t.Fatalf("recall: %v %s", err, errOut)
	}
	const want = `1. m-001 claim by stock-bot: "pr-007 is IN_STOCK at st-003"
   staleness 0.900; outdated: now "OVERSTOCK" (newer events [evt-003571])
2. m-002 claim by stock-bot: "pr-007 costs 781 cents at st-003"
   staleness 0.800; current
3. m-004 supersede by planner: "pr-007 moved to aisle B1"
   staleness 0.700; supersedes m-003
4. m-005 claim by stock-bot: "pr-007 is in stock (asked without a date)"
   staleness 0.500; unverifiable: refused
counts: candidates 5, gate_rejected 0, selected 5, retracted 0, superseded 1, corrupt 0, contradictions 0, claims 4
`
	if out != want {
		t.Errorf("recall printed\n%s\nwant (the README's example)\n%s", out, want)
	}
}

// TestMemory_ServedJournal: with --memory and no journal flag, a server
// whose data is in PostgreSQL keeps its journal there (skipped outside
// CI unless PROVENANT_POSTGRES_DSN is set).
func TestMemory_ServedJournal(t *testing.T) {
	dsn := pgtest.Schema(t)
	m := servedMemory{on: true}
	m.jf.agent = "local" // the flag's default
	svc, err := m.service(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, ok := svc.Journal.(*mempostgres.Store); !ok {
		t.Fatalf("journal %T, want the PostgreSQL one", svc.Journal)
	}
}

// TestMemory_JournalHeld: a journal another process holds (a server
// remembering into it) is one line saying so. Before, it was DuckDB's
// message, which named the file, the holder's executable and its PID.
func TestMemory_JournalHeld(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "journal.duckdb")
	if _, _, err := runMem(t, "add", "--journal", journal, "--key", "m-1", "x"); err != nil {
		t.Fatal(err)
	}
	holdWithServer(t, "--memory", "--journal", journal)
	_, errOut, err := runMem(t, "add", "--journal", journal, "--key", "m-2", "y")
	want := "open memory journal: another process has the file open (DuckDB lets one process at a time open a file for writing)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if err != nil && (strings.Contains(errOut+err.Error(), journal) || strings.Contains(errOut+err.Error(), "PID")) {
		t.Errorf("the error names the file or the holder:\n%v\n%s", err, errOut)
	}
}
