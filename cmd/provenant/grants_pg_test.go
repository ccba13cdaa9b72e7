package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// callWrite calls the write tool on base for the default session with a
// request key: the answer's outcome ("" when none came back).
func callWrite(t *testing.T, base, key string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"store_id": "st-003", "product_id": "pr-007", "quantity": 4, "request_key": key})
	resp, err := http.Post(base+"/v1/tools/open_restock_task", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("call write: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var a struct {
		Outcome string `json:"outcome"`
	}
	json.Unmarshal(raw, &a)
	if a.Outcome == "" {
		t.Logf("call write: status %d, %s", resp.StatusCode, raw)
	}
	return a.Outcome
}

// TestServeStateDB_GrantsShared: two serve processes on one PostgreSQL
// schema share the live grants. An approval (`approve --grants`) that
// only the first process reads and applies lets the write tool run on
// the second, for the same session; before it, the second refuses the
// write; and a third process started afterwards (a restart) still holds
// the grant.
func TestServeStateDB_GrantsShared(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes")
	}
	dsn, schema := statePlace(t)
	grants := filepath.Join(t.TempDir(), "grants.jsonl")
	deadline := time.After(replicaStartTimeout)
	r1, _ := startServe(t, "--writes", "--grants", grants, "--state-db", dsn, "--state-schema", schema)
	r2, _ := startServe(t, "--writes", "--state-db", dsn, "--state-schema", schema)
	b1, b2 := r1.ready(t, deadline), r2.ready(t, deadline)

	if got := callWrite(t, b2, "k-0"); got == "answered" {
		t.Fatalf("before approval, the second process answered the write")
	}
	if _, _, err := runCLI(t, "approve", "--grants", grants, "--tools", "open_restock_task", "--questions", "5", "--approver", "alice"); err != nil {
		t.Fatalf("approve: %v", err)
	}
	// The first process applies the approval as its next question
	// begins.
	if got := callWrite(t, b1, "k-1"); got != "answered" {
		t.Fatalf("the first process, after approval: outcome %q, want answered", got)
	}
	if got := callWrite(t, b2, "k-2"); got != "answered" {
		t.Fatalf("the second process, after the first applied the approval: outcome %q, want answered", got)
	}
	r3, _ := startServe(t, "--writes", "--state-db", dsn, "--state-schema", schema)
	b3 := r3.ready(t, time.After(replicaStartTimeout))
	if got := callWrite(t, b3, "k-3"); got != "answered" {
		t.Fatalf("a process started after the grant: outcome %q, want answered", got)
	}
}

// decide posts an approver's decision (approval, denial, revocation) to
// base with token: the status and the decoded body.
func decide(t *testing.T, base, path, token string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(t.Context(), "POST", base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post %s: %v", path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// callWriteAs calls the write tool on base with token (the principal's
// session): the answer's outcome.
func callWriteAs(t *testing.T, base, token, key string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"store_id": "st-003", "product_id": "pr-007", "quantity": 4, "request_key": key})
	req, _ := http.NewRequestWithContext(t.Context(), "POST", base+"/v1/tools/open_restock_task", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("call write: %v", err)
	}
	defer resp.Body.Close()
	var a struct {
		Outcome string `json:"outcome"`
	}
	json.NewDecoder(resp.Body).Decode(&a)
	return a.Outcome
}

// TestServeStateDB_RevokeShared: two serve processes on one PostgreSQL
// schema, with principals. An approver's grant through the first lets
// the ops principal write through the second; the approver's revocation
// through the first ends it on the second at once (the next write is
// refused there), and a second revocation through the second process
// finds no live grant (404 unknown_grant). A denial through the second
// of the elevation ops now needs again is accepted; one through either
// of a tool ops holds is 404 unknown_request.
func TestServeStateDB_RevokeShared(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes")
	}
	dsn, schema := statePlace(t)
	dir := t.TempDir()
	const (
		aliceToken = "alice-approver-token-0123456789"
		opsToken   = "ops-principal-token-0123456789"
	)
	principals := writeFile(t, dir, "principals.yaml", "principals:\n"+
		"  - name: alice\n    token_file: "+writeFile(t, dir, "alice.token", aliceToken)+"\n    stores: all\n    approver: true\n"+
		"  - name: ops\n    token_file: "+writeFile(t, dir, "ops.token", opsToken)+"\n    stores: all\n")
	deadline := time.After(replicaStartTimeout)
	args := []string{"--writes", "--principals", principals, "--state-db", dsn, "--state-schema", schema}
	r1, _ := startServe(t, args...)
	r2, _ := startServe(t, args...)
	b1, b2 := r1.ready(t, deadline), r2.ready(t, deadline)

	if got := callWriteAs(t, b2, opsToken, "k-0"); got == "answered" {
		t.Fatalf("before approval, the second process answered the write")
	}
	status, dec := decide(t, b1, "/v1/approvals", aliceToken, map[string]any{"session": "ops", "tools": []string{"open_restock_task"}, "tier": "L3", "questions": 10})
	id, _ := dec["grant_id"].(string)
	if status != http.StatusOK || id == "" {
		t.Fatalf("approval through the first process: %d %v", status, dec)
	}
	if got := callWriteAs(t, b2, opsToken, "k-1"); got != "answered" {
		t.Fatalf("the second process, after the approval: outcome %q, want answered", got)
	}
	if status, body := decide(t, b2, "/v1/denials", aliceToken, map[string]any{"session": "ops", "tools": []string{"open_restock_task"}, "tier": "L3"}); status != http.StatusNotFound {
		t.Errorf("denial of a granted tool: %d %v; want 404 unknown_request", status, body)
	}
	if status, body := decide(t, b1, "/v1/revocations", opsToken, map[string]any{"session": "ops", "grant_id": id}); status != http.StatusForbidden {
		t.Errorf("revocation by a principal who is not an approver: %d %v; want 403", status, body)
	}
	if status, body := decide(t, b1, "/v1/revocations", aliceToken, map[string]any{"session": "ops", "grant_id": id}); status != http.StatusOK || body["reason"] != "revoked" {
		t.Fatalf("revocation through the first process: %d %v", status, body)
	}
	if got := callWriteAs(t, b2, opsToken, "k-2"); got == "answered" {
		t.Errorf("the second process answered the write after the revocation through the first")
	}
	if status, body := decide(t, b2, "/v1/revocations", aliceToken, map[string]any{"session": "ops", "grant_id": id}); status != http.StatusNotFound {
		t.Errorf("second revocation, through the second process: %d %v; want 404 unknown_grant", status, body)
	}
	if status, body := decide(t, b2, "/v1/denials", aliceToken, map[string]any{"session": "ops", "tools": []string{"open_restock_task"}, "tier": "L3"}); status != http.StatusOK || body["decision"] != "denied" || body["approver"] != "alice" {
		t.Errorf("denial of the pending elevation: %d %v", status, body)
	}
}
