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
