package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventschema"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/tool"
)

// TestApprove_Grants: `approve` appends a grant to the grants file; a
// process with --grants and --writes refuses the write before it, and
// answers it after, for as many questions as granted; the approval and
// the write are decision records in the --register DuckDB file, and
// elevation.requested, elevation.decided, decision.recorded and
// elevation.expired are in the --log event log, each valid against its
// schema.
func TestApprove_Grants(t *testing.T) {
	dir := t.TempDir()
	grants := filepath.Join(dir, "grants.jsonl")
	logPath := filepath.Join(dir, "events.jsonl")
	regPath := filepath.Join(dir, "decisions.jsonl")
	var ef engineFlags
	fs := newFlagSet("test", "", "", io.Discard)
	ef.register(fs)
	ef.gov.register(fs, surfaceCLI)
	if err := fs.Parse([]string{"--writes", "--grants", grants, "--register", regPath, "--log", logPath}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := ef.gov.open(ctx, &ef); err != nil {
		t.Fatal(err)
	}
	defer ef.gov.close()
	_, e, err := ef.start(ctx, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	write := func(key string) answer.Answer {
		return e.Pipeline.Call(ctx, tool.Proposal{Tool: "open_restock_task", Params: map[string]any{
			"store_id": "st-003", "product_id": "pr-007", "quantity": 4, "request_key": key}})
	}
	if a := write("k-1"); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Fatalf("before approval: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	var out bytes.Buffer
	if err := runApprove(ctx, []string{"--grants", grants, "--tools", "open_restock_task", "--questions", "2", "--approver", "alice"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "approved g-") {
		t.Errorf("approve printed %q", out.String())
	}
	if st, err := os.Stat(grants); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("grants file mode = %v, %v; want 0600 (only the operator writes approvals)", st.Mode().Perm(), err)
	}
	for _, key := range []string{"k-1", "k-2"} {
		if a := write(key); a.Outcome() != answer.Answered {
			t.Fatalf("granted, %s: %s %v", key, a.Outcome(), a.Reason())
		}
	}
	if a := write("k-3"); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("after 2 questions: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	if h := ef.gov.reg.Head(); h.Len != 3 {
		t.Errorf("register holds %d records; want 3 (the approval and two writes)", h.Len)
	}
	ef.gov.close()
	var verified bytes.Buffer
	if err := runRegister(ctx, []string{"verify", "--register", regPath}, &verified, io.Discard); err != nil || !strings.HasPrefix(verified.String(), "ok: 3 records") {
		t.Errorf("register verify = %q, %v; want ok: 3 records", verified.String(), err)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"elevation.requested": false, "elevation.decided": false, "decision.recorded": false, "elevation.expired": false}
	validator, err := eventschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		ev, err := eventlog.Decode(line)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := want[string(ev.Type)]; ok {
			want[string(ev.Type)] = true
		}
		if err := validator.ValidateEvent(line); err != nil {
			t.Errorf("%s does not match its schema: %v", ev.Type, err)
		}
	}
	for typ, seen := range want {
		if !seen {
			t.Errorf("no %s event in the log", typ)
		}
	}
}

func TestApprove_Refuses(t *testing.T) {
	grants := filepath.Join(t.TempDir(), "grants.jsonl")
	for name, args := range map[string][]string{
		"wildcard":    {"--tools", "open_*"},
		"no tools":    {"--tools", ""},
		"tier L1":     {"--tools", "open_restock_task", "--tier", "L1"},
		"no approver": {"--tools", "open_restock_task", "--approver", ""},
		"questions":   {"--tools", "open_restock_task", "--questions", "0"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"--grants", grants, "--approver", "alice"}, args...)
			if err := runApprove(t.Context(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
				t.Errorf("approve = %v; want a usage error", err)
			}
		})
	}
	if _, err := os.Stat(grants); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused approval wrote the grants file")
	}
}

// TestApprove_NotAGrantsFile: approve refuses to append to a file that
// holds a line that is no grants file's (a data file, the event log or
// the register given by mistake), and leaves it as it was. Before, the
// grant was appended to it, and a serving process skipped the file's
// other lines with a warning.
func TestApprove_NotAGrantsFile(t *testing.T) {
	dir := t.TempDir()
	granted := filepath.Join(dir, "granted.jsonl")
	if err := runApprove(t.Context(), []string{"--grants", granted, "--tools", "open_restock_task", "--approver", "alice"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	g, err := os.ReadFile(granted)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		body string
		ok   bool
	}{
		{"a CSV file", "event_id,status\ne-XYZZY,FAULT\n", false},
		{"an event log", `{"id":"evt-1","type":"question.received","seq":1}` + "\n", false},
		{"a grant, then another line", string(g) + "XYZZY\n", false},
		{"a grant without its newline", strings.TrimSuffix(string(g), "\n"), false},
		{"grants", string(g) + `{"applied":"g-1"}` + "\n", true},
		{"empty", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err := runApprove(t.Context(), []string{"--grants", path, "--tools", "open_restock_task", "--approver", "alice"}, &out, io.Discard)
			got, _ := os.ReadFile(path)
			if tt.ok {
				if err != nil || len(got) <= len(tt.body) {
					t.Errorf("approve = %v, %d bytes after %d; want the grant appended", err, len(got), len(tt.body))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "not a grants file") || strings.Contains(err.Error(), "XYZZY") {
				t.Errorf("approve = %v; want an error saying it is not a grants file", err)
			}
			if string(got) != tt.body {
				t.Error("the file changed")
			}
		})
	}
}

// TestHTTPApprovals_Grant: the endpoint's Approvals raises the named
// session only, under the approver it is given, and records the
// approval in the register.
func TestHTTPApprovals_Grant(t *testing.T) {
	var ef engineFlags
	fs := newFlagSet("test", "", "", io.Discard)
	ef.register(fs)
	ef.gov.register(fs, surfaceHTTP)
	if err := fs.Parse([]string{"--writes"}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := ef.gov.open(ctx, &ef); err != nil {
		t.Fatal(err)
	}
	defer ef.gov.close()
	_, e, err := ef.start(ctx, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	h := httpApprovals{auth: ef.gov.auto.auth, p: e.Pipeline}
	if _, err := h.Approve(ctx, "alice", httpapi.ApprovalRequest{Session: "ops", Tools: []string{"open_*"}, Tier: "L3", Questions: 1}); !errors.Is(err, autonomy.ErrWildcard) {
		t.Errorf("wildcard: %v; want ErrWildcard", err)
	}
	dec, err := h.Approve(ctx, "alice", httpapi.ApprovalRequest{Session: "ops", Tools: []string{"open_restock_task"}, Tier: "L3", Questions: 1})
	if err != nil || dec.Approver != "alice" || dec.Decision != "granted" {
		t.Fatalf("Approve = %+v, %v", dec, err)
	}
	p := tool.Proposal{Tool: "open_restock_task", Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "quantity": 1, "request_key": "k"}}
	if a := e.Pipeline.Call(pipeline.WithSession(ctx, "other"), p); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("another session: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	if a := e.Pipeline.Call(pipeline.WithSession(ctx, "ops"), p); a.Outcome() != answer.Answered {
		t.Errorf("granted session: %s %v", a.Outcome(), a.Reason())
	}
}

// openWithGrants opens the demo engine with --writes and --grants path,
// as a fresh process would.
func openWithGrants(t *testing.T, path string) (*engineFlags, func(key string) answer.Answer) {
	t.Helper()
	ef, p := openDemo(t, surfaceCLI, "--writes", "--grants", path)
	return ef, func(key string) answer.Answer {
		return p.Call(t.Context(), tool.Proposal{Tool: "open_restock_task", Params: map[string]any{
			"store_id": "st-003", "product_id": "pr-007", "quantity": 4, "request_key": key}})
	}
}

// TestApprove_AppliedOnce: a grant is applied once: a process started
// later on the same grants file (a restart) does not apply it again.
func TestApprove_AppliedOnce(t *testing.T) {
	grants := filepath.Join(t.TempDir(), "grants.jsonl")
	if err := runApprove(t.Context(), []string{"--grants", grants, "--tools", "open_restock_task", "--questions", "5", "--approver", "alice"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	_, first := openWithGrants(t, grants)
	if a := first("k-1"); a.Outcome() != answer.Answered {
		t.Fatalf("first process: %s %v", a.Outcome(), a.Reason())
	}
	_, restarted := openWithGrants(t, grants)
	if a := restarted("k-2"); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("restarted process: %s %v; want needs_approval (the grant was applied before)", a.Outcome(), a.Reason())
	}
	b, err := os.ReadFile(grants)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"applied":"g-`); n != 1 {
		t.Errorf("grants file marks %d applications; want 1:\n%s", n, b)
	}
}

// TestApprove_Revoke: `approve --revoke` ends a live grant before it
// lapses; the next write is refused.
func TestApprove_Revoke(t *testing.T) {
	grants := filepath.Join(t.TempDir(), "grants.jsonl")
	var out bytes.Buffer
	if err := runApprove(t.Context(), []string{"--grants", grants, "--tools", "open_restock_task", "--questions", "5", "--approver", "alice"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(out.String(), "approved "), ":")
	_, write := openWithGrants(t, grants)
	if a := write("k-1"); a.Outcome() != answer.Answered {
		t.Fatalf("granted: %s %v", a.Outcome(), a.Reason())
	}
	if err := runApprove(t.Context(), []string{"--grants", grants, "--revoke", id, "--approver", "bob"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if a := write("k-2"); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("after the revocation: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	if err := runApprove(t.Context(), []string{"--grants", grants, "--revoke", "g-*", "--approver", "bob"}, io.Discard, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("revoke of a pattern: %v; want a usage error", err)
	}
}
