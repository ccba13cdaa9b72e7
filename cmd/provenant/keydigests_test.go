package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest/ingesttest"
)

// TestRun_KeyDigests: import --key-digests builds the per-hour key
// digests, and ask --metric-key-digests answers a metric over more rows
// than the provenance limit with their count and an lthash digest,
// verified; without the flag the same question keeps the SHA-256 digest.
func TestRun_KeyDigests(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	events := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 3000)))
	db := filepath.Join(dir, "w.duckdb")
	if _, stderr, err := runCLI(t, "import", "--catalog", cat, "--dataset", "status_events", "--db", db, "--key-digests", events); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	for _, tt := range []struct {
		flags  []string
		prefix string
	}{
		{[]string{"--metric-key-digests"}, "lthash16x1024:"},
		{nil, ""},
	} {
		args := append([]string{"ask", "--catalog", cat, "--db", db, "--json", "--log-level", "error", "--now", "2026-01-14T12:00:00Z"}, tt.flags...)
		out, stderr, err := runCLI(t, append(args, "what was the availability by zone last week?")...)
		if err != nil {
			t.Fatalf("ask %v: %v\n%s", tt.flags, err, stderr)
		}
		var a struct {
			Outcome    string `json:"outcome"`
			Provenance struct {
				Count  int    `json:"event_count"`
				Digest string `json:"event_digest"`
			} `json:"provenance"`
			Verdict struct {
				ProvenanceValid bool `json:"provenance_valid"`
				ValueMatches    bool `json:"value_matches"`
			} `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		if a.Outcome != "answered" || !a.Verdict.ProvenanceValid || !a.Verdict.ValueMatches || a.Provenance.Count <= 1000 {
			t.Fatalf("ask %v: %s", tt.flags, out)
		}
		if lt := strings.HasPrefix(a.Provenance.Digest, "lthash16x1024:"); lt != (tt.prefix != "") {
			t.Errorf("ask %v: digest %s", tt.flags, a.Provenance.Digest)
		}
	}
}

// TestRun_ValueRollups: import --key-digests --value-rollups builds both,
// and ask --metric-key-digests --metric-rollups answers a week by zone
// verified, with the value an ask without the flags gives.
func TestRun_ValueRollups(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	events := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 3000)))
	db := filepath.Join(dir, "w.duckdb")
	if _, stderr, err := runCLI(t, "import", "--catalog", cat, "--dataset", "status_events", "--db", db, "--key-digests", "--value-rollups", events); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	var values []string
	for _, flags := range [][]string{{"--metric-key-digests", "--metric-rollups"}, nil} {
		args := append([]string{"ask", "--catalog", cat, "--db", db, "--json", "--log-level", "error", "--now", "2026-01-14T12:00:00Z"}, flags...)
		out, stderr, err := runCLI(t, append(args, "what was the availability by zone last week?")...)
		if err != nil {
			t.Fatalf("ask %v: %v\n%s", flags, err, stderr)
		}
		var a struct {
			Outcome string          `json:"outcome"`
			Value   json.RawMessage `json:"value"`
			Verdict struct {
				ProvenanceValid bool `json:"provenance_valid"`
				ValueMatches    bool `json:"value_matches"`
			} `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		if a.Outcome != "answered" || !a.Verdict.ProvenanceValid || !a.Verdict.ValueMatches {
			t.Fatalf("ask %v: %s", flags, out)
		}
		values = append(values, string(a.Value))
	}
	if len(values[0]) < 10 || values[0] != values[1] {
		t.Errorf("values differ with the rollups:\n%s\n%s", values[0], values[1])
	}
}
