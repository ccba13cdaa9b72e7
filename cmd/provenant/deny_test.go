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

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/tool"
)

// openDemo opens the demo engine with the audit and autonomy flags
// args for surface, as a fresh process would, closing it at cleanup.
func openDemo(t *testing.T, surface string, args ...string) (*engineFlags, *pipeline.Pipeline) {
	t.Helper()
	ef := &engineFlags{}
	fs := newFlagSet("test", "", "", io.Discard)
	ef.register(fs)
	ef.gov.register(fs, surface)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := ef.gov.open(t.Context(), ef); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ef.gov.close() })
	_, e, err := ef.start(t.Context(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return ef, e.Pipeline
}

// openAudited is openDemo with --writes and a --register file: also the
// file's path.
func openAudited(t *testing.T, surface string, args ...string) (*engineFlags, *pipeline.Pipeline, string) {
	t.Helper()
	regPath := filepath.Join(t.TempDir(), "decisions.jsonl")
	ef, p := openDemo(t, surface, append([]string{"--writes", "--register", regPath}, args...)...)
	return ef, p, regPath
}

// decisions reads the register file's records: actor, approver and the
// chosen alternative of each, in order; and checks its chain verifies.
func decisions(t *testing.T, path string) []string {
	t.Helper()
	var verified bytes.Buffer
	if err := runRegister(t.Context(), []string{"verify", "--register", path}, &verified, io.Discard); err != nil || !strings.HasPrefix(verified.String(), "ok:") {
		t.Errorf("register verify = %q, %v", verified.String(), err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r register.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Decision != nil {
			out = append(out, r.Actor+" "+r.Decision.Chosen+" approver="+r.Approver)
		}
	}
	return out
}

func restock(key string) tool.Proposal {
	return tool.Proposal{Tool: "open_restock_task", Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "quantity": 1, "request_key": key}}
}

// TestHTTPApprovals_DenyRevoke: the HTTP endpoint's Deny refuses a
// pending elevation and records it (the session unchanged), refuses a
// denial of what the session holds (ErrNotPending); Revoke ends a live
// grant (the next write is refused) and records it, and refuses a grant
// id no live grant has (ErrNoGrant). Each decision is a register record
// naming its approver; the chain verifies.
func TestHTTPApprovals_DenyRevoke(t *testing.T) {
	ef, p, regPath := openAudited(t, surfaceHTTP)
	ctx := t.Context()
	ops := pipeline.WithSession(ctx, "ops")
	h := httpApprovals{auth: ef.gov.auto.auth, p: p}

	if a := p.Call(ops, restock("k-0")); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Fatalf("before any decision: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	dec, err := h.Deny(ctx, "carol", httpapi.DenialRequest{Session: "ops", Tools: []string{"open_restock_task"}, Tier: "L3"})
	if err != nil || dec.Decision != "denied" || dec.Approver != "carol" {
		t.Fatalf("Deny = %+v, %v", dec, err)
	}
	if a := p.Call(ops, restock("k-1")); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("after the denial: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	for name, req := range map[string]httpapi.DenialRequest{
		"wildcard":       {Session: "ops", Tools: []string{"open_*"}, Tier: "L3"},
		"undeclared":     {Session: "ops", Tools: []string{"drop_tables"}, Tier: "L3"},
		"tier L1":        {Session: "ops", Tools: []string{"open_restock_task"}, Tier: "L1"},
		"no tools":       {Session: "ops", Tier: "L3"},
		"no session":     {Tools: []string{"open_restock_task"}, Tier: "L3"},
		"a read is held": {Session: "ops", Tools: []string{"get_price"}, Tier: "L3"},
	} {
		if _, err := h.Deny(ctx, "carol", req); err == nil {
			t.Errorf("Deny %s: accepted", name)
		}
	}

	grant, err := h.Approve(ctx, "alice", httpapi.ApprovalRequest{Session: "ops", Tools: []string{"open_restock_task"}, Tier: "L3", Questions: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Deny(ctx, "carol", httpapi.DenialRequest{Session: "ops", Tools: []string{"open_restock_task"}, Tier: "L3"}); !errors.Is(err, autonomy.ErrNotPending) {
		t.Errorf("Deny of a granted tool: %v; want ErrNotPending", err)
	}
	if a := p.Call(ops, restock("k-2")); a.Outcome() != answer.Answered {
		t.Fatalf("granted: %s %v", a.Outcome(), a.Reason())
	}
	for name, req := range map[string]httpapi.RevocationRequest{
		"unknown id":        {Session: "ops", GrantID: "g-0000000000000000"},
		"another session's": {Session: "other", GrantID: grant.GrantID},
	} {
		if _, err := h.Revoke(ctx, "bob", req); !errors.Is(err, autonomy.ErrNoGrant) {
			t.Errorf("Revoke %s: %v; want ErrNoGrant", name, err)
		}
	}
	if _, err := h.Revoke(ctx, "bob", httpapi.RevocationRequest{Session: "ops", GrantID: "g *"}); !errors.Is(err, autonomy.ErrGrant) {
		t.Errorf("Revoke of a malformed id: %v; want ErrGrant", err)
	}
	exp, err := h.Revoke(ctx, "bob", httpapi.RevocationRequest{Session: "ops", GrantID: grant.GrantID})
	if err != nil || exp.Reason != "revoked" || exp.GrantID != grant.GrantID {
		t.Fatalf("Revoke = %+v, %v", exp, err)
	}
	if a := p.Call(ops, restock("k-3")); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("after the revocation: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	if _, err := h.Revoke(ctx, "bob", httpapi.RevocationRequest{Session: "ops", GrantID: grant.GrantID}); !errors.Is(err, autonomy.ErrNoGrant) {
		t.Errorf("second Revoke: %v; want ErrNoGrant", err)
	}
	ef.gov.close()
	want := []string{
		"operator:carol deny approver=carol",
		"operator:alice grant approver=alice",
		"session:ops write approver=alice",
		"operator:bob revoke approver=bob",
	}
	if got := decisions(t, regPath); !slices.Equal(got, want) {
		t.Errorf("register decisions:\n got %q\nwant %q", got, want)
	}
}

// TestApprove_DenyAndRevokeRecorded: `approve --deny` and `approve
// --revoke` through the grants file are decision records naming the
// operator, as a grant is; a denial leaves the session where it was.
func TestApprove_DenyAndRevokeRecorded(t *testing.T) {
	grants := filepath.Join(t.TempDir(), "grants.jsonl")
	_, p, regPath := openAudited(t, surfaceCLI, "--grants", grants)
	ctx := t.Context()
	var out bytes.Buffer
	if err := runApprove(ctx, []string{"--grants", grants, "--deny", "--tools", "open_restock_task", "--approver", "carol"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "denied d-") {
		t.Errorf("approve --deny printed %q", out.String())
	}
	if a := p.Call(ctx, restock("k-1")); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Fatalf("after the denial: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	out.Reset()
	if err := runApprove(ctx, []string{"--grants", grants, "--tools", "open_restock_task", "--questions", "5", "--approver", "alice"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(out.String(), "approved "), ":")
	if a := p.Call(ctx, restock("k-2")); a.Outcome() != answer.Answered {
		t.Fatalf("granted: %s %v", a.Outcome(), a.Reason())
	}
	if err := runApprove(ctx, []string{"--grants", grants, "--revoke", id, "--approver", "bob"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if a := p.Call(ctx, restock("k-3")); a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("after the revocation: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	for name, args := range map[string][]string{
		"deny and revoke": {"--deny", "--revoke", id, "--tools", "open_restock_task"},
		"deny a pattern":  {"--deny", "--tools", "open_*"},
		"deny at L1":      {"--deny", "--tools", "open_restock_task", "--tier", "L1"},
	} {
		if err := runApprove(ctx, append([]string{"--grants", grants, "--approver", "bob"}, args...), io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%s: %v; want a usage error", name, err)
		}
	}
	want := []string{
		"operator:carol deny approver=carol",
		"operator:alice grant approver=alice",
		"session:local write approver=alice",
		"operator:bob revoke approver=bob",
	}
	if got := decisions(t, regPath); !slices.Equal(got, want) {
		t.Errorf("register decisions:\n got %q\nwant %q", got, want)
	}
}
