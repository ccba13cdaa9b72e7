package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest/ingesttest"
)

// TestEval_FreeSQL runs `provenant eval --free-sql --json` over each
// demo: the workers are this test binary run as main, as the real binary
// re-executes itself. The counts are the README's table ("Governed and
// ungoverned accuracy").
func TestEval_FreeSQL(t *testing.T) {
	workerEnv = []string{"PROVENANT_RUN_MAIN=1"}
	t.Cleanup(func() { workerEnv = nil })
	for _, tt := range []struct {
		catalog  string
		governed int // gold items, every one answered correctly
	}{
		{"retail", 62},
		{"warehouse", 85},
	} {
		t.Run(tt.catalog, func(t *testing.T) {
			out, stderr, err := runCLI(t, "eval", "--free-sql", "--catalog", tt.catalog, "--json", "--require-gates")
			if err != nil {
				t.Fatalf("eval --free-sql: %v\n%s", err, stderr)
			}
			var r struct {
				Provider     string `json:"provider"`
				Governed     struct{ Items, Correct int }
				GovernedOnly struct{ Items, Correct int } `json:"governed_only"`
				Ungoverned   struct{ Items, Correct int }
				WrongAnswers int `json:"wrong_answers"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("output is not the report: %v\n%s", err, out)
			}
			if r.Provider != "scripted-sql(rules)" || r.Governed.Items != tt.governed || r.Governed.Correct != r.Governed.Items ||
				r.Ungoverned.Items != 6 || r.Ungoverned.Correct != 6 || r.GovernedOnly.Items != 6 || r.GovernedOnly.Correct != 0 || r.WrongAnswers != 0 {
				t.Errorf("report = %+v", r)
			}
		})
	}
	if _, _, err := runCLI(t, "eval", "--free-sql", "--calibrate", "--out", t.TempDir()); err == nil {
		t.Error("eval --free-sql --calibrate ran")
	}
}

// TestFreeSQL_CatalogFile: a catalog file that opts in gets query_sql on
// its menu over --db (the sandbox reads a snapshot of that file), keeps
// governed answers untagged, and is refused over PostgreSQL, which gives
// the sandbox no DuckDB snapshot.
func TestFreeSQL_CatalogFile(t *testing.T) {
	workerEnv = []string{"PROVENANT_RUN_MAIN=1"}
	t.Cleanup(func() { workerEnv = nil })
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	b, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cat, append(b, []byte("sql:\n  free: true\n  limits: {max_rows: 100, timeout: 5s}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonl := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 300)))
	db := filepath.Join(dir, "w.duckdb")
	if _, stderr, err := runCLI(t, "import", "--catalog", cat, "--dataset", "status_events", "--db", db, jsonl); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, "ask", "--json", "--log-level", "error", "--catalog", cat, "--db", db,
		"How many devices have condition LOW_BATTERY as of 2026-01-09T00:00:00Z?")
	if err != nil {
		t.Fatalf("ask: %v\n%s", err, stderr)
	}
	if strings.Contains(out, "governance") || !strings.Contains(out, `"outcome":`) {
		t.Errorf("a governed answer over a free SQL catalog: %s", out)
	}
	if _, _, err := runCLI(t, "ask", "--catalog", cat, "--postgres", "postgres://127.0.0.1:1/none", "How many devices?"); err == nil ||
		!strings.Contains(err.Error(), "free SQL") && !strings.Contains(err.Error(), "connect") {
		t.Errorf("free SQL over PostgreSQL: %v", err)
	}
}
