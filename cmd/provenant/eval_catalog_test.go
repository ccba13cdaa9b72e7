package main

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/postgres/pgtest"
	"github.com/provenant/provenant/warehouse/demo"
)

// warehouseCacheDir is one cache directory per test binary: the warehouse
// demo database is built there on first use and shared by every test that
// opens it (set through useWarehouseCache).
var warehouseCacheDir = sync.OnceValues(func() (string, error) {
	return os.MkdirTemp("", "provenant-cache-")
})

// useWarehouseCache points the user cache directory (os.UserCacheDir),
// where `--catalog warehouse` builds its demo database, at the binary's
// shared one, so no test writes to the real cache.
func useWarehouseCache(t *testing.T) {
	t.Helper()
	dir, err := warehouseCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", dir) // Linux and the BSDs
	t.Setenv("HOME", dir)           // macOS: $HOME/Library/Caches
}

// TestEval_WarehouseMeetsEveryGate runs `provenant eval --catalog
// warehouse` over the demo database and checks every gate is met: the
// embedded warehouse gold set at 100%, with every item scored.
func TestEval_WarehouseMeetsEveryGate(t *testing.T) {
	useWarehouseCache(t)
	out, _, err := runCLI(t, "eval", "--catalog", "warehouse", "--json", "--require-gates")
	if err != nil {
		t.Fatalf("eval --catalog warehouse: %v", err)
	}
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("eval --json: %v\n%.300s", err, out)
	}
	g, err := eval.CatalogGold("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	if r.Catalog != "warehouse" || r.DatasetVersion != g.DatasetVersion || len(r.Items) != len(g.Items) {
		t.Errorf("report: catalog %q, dataset %q, %d items; want warehouse, %s, %d", r.Catalog, r.DatasetVersion, len(r.Items), g.DatasetVersion, len(g.Items))
	}
	for _, ng := range r.Gates.All() {
		if !ng.Gate.Met() {
			t.Errorf("gate %s: %d/%d, want every item", ng.Name, ng.Gate.Passed, ng.Gate.Total)
		}
	}
	for _, row := range r.Items {
		if !row.Correct {
			t.Errorf("item %s: %s", row.ID, row.Detail)
		}
	}
	if !r.Passed || r.Escapes != 0 {
		t.Errorf("passed = %t, escapes = %d; want true, 0", r.Passed, r.Escapes)
	}

	// The table names the catalog and reports every gate met.
	var table strings.Builder
	if err := eval.WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if s := table.String(); !strings.Contains(s, "(catalog warehouse) on "+g.DatasetVersion) || !strings.Contains(s, "all gates met") {
		t.Errorf("table lacks the suite line or the verdict:\n%s", s)
	}
}

func TestEval_CatalogErrors(t *testing.T) {
	useWarehouseCache(t)
	tests := []struct {
		name      string
		args      []string
		wantUsage bool
		wantErr   string
	}{
		{"calibrate is retail only", []string{"eval", "--catalog", "warehouse", "--calibrate", "--out", t.TempDir()}, true, ""},
		{"no embedded gold for retail's catalog over a database", []string{"eval", "--catalog", "retail", "--db", "none.duckdb"}, true, ""},
		{"a catalog gold set needs --catalog", []string{"eval", "--gold", "../../eval/warehouse-demo-v1.gold.yaml"}, true, ""},
		{"the retail gold set names no catalog", []string{"eval", "--catalog", "warehouse", "--gold", "../../eval/retail-demo-v1.gold.yaml"}, false, "field catalog: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCLI(t, tt.args...)
			switch {
			case tt.wantUsage:
				if !errors.Is(err, errUsage) {
					t.Errorf("Run() = %v, want errUsage", err)
				}
			case err == nil || !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("Run() = %v, want an error containing %q", err, tt.wantErr)
			}
			if out != "" {
				t.Errorf("stdout = %.80q..., want nothing", out)
			}
		})
	}
}

// TestEval_WarehousePostgres imports the warehouse demo into PostgreSQL
// and runs its gold set there: the same gates, met, with the keys looked
// up and the data version read at REPEATABLE READ.
func TestEval_WarehousePostgres(t *testing.T) {
	dsn := pgtest.Schema(t)
	in := writeFile(t, t.TempDir(), "events.jsonl", string(ingesttest.DemoJSONL(t, demo.DefaultOptions().Events)))
	if _, _, err := runCLI(t, "import", "--catalog", ingesttest.WarehouseCatalogFile(t), "--dataset", "status_events", "--postgres", dsn, in); err != nil {
		t.Fatalf("import: %v", err)
	}
	out, _, err := runCLI(t, "eval", "--catalog", "warehouse", "--postgres", dsn, "--json", "--require-gates")
	if err != nil {
		t.Fatalf("eval --catalog warehouse --postgres: %v", err)
	}
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("eval --json: %v\n%.300s", err, out)
	}
	for _, ng := range r.Gates.All() {
		if !ng.Gate.Met() {
			t.Errorf("gate %s: %d/%d, want every item", ng.Name, ng.Gate.Passed, ng.Gate.Total)
		}
	}
	if !r.Passed {
		t.Error("report did not pass")
	}
}

// TestEval_RetailCatalogIsTheDemo: --catalog retail with no database is
// the demo store file's engine, scored on the embedded retail gold set;
// ask gives the same answer with and without the flag.
func TestEval_RetailCatalogIsTheDemo(t *testing.T) {
	out, _, err := runCLI(t, "eval", "--catalog", "retail", "--json", "--require-gates")
	if err != nil {
		t.Fatalf("eval --catalog retail: %v", err)
	}
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("eval --json: %v\n%.300s", err, out)
	}
	g, err := eval.DefaultGold()
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed || len(r.Items) != len(g.Items) || r.DatasetVersion != g.DatasetVersion {
		t.Errorf("report: passed %t, %d items, dataset %q; want every gate over %d items of %s", r.Passed, len(r.Items), r.DatasetVersion, len(g.Items), g.DatasetVersion)
	}
	const q = "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"
	with, _, err1 := runCLI(t, "ask", "--log-level", "error", "--catalog", "retail", q)
	without, _, err2 := runCLI(t, "ask", "--log-level", "error", q)
	if err1 != nil || err2 != nil || with != without || !strings.Contains(with, "781 cents") {
		t.Errorf("ask --catalog retail = %q, %v; without = %q, %v", with, err1, without, err2)
	}
}
