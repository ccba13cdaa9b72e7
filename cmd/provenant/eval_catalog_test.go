package main

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/eval"
)

// warehouseCacheDir is one cache directory per test binary: the warehouse
// demo database is built there on first use and shared by every test that
// opens it (set through useWarehouseCache).
var warehouseCacheDir = sync.OnceValues(func() (string, error) {
	return os.MkdirTemp("", "provenant-cache-")
})

// useWarehouseCache points the user cache directory, where `--catalog
// warehouse` builds its demo database, at the binary's shared one, so no
// test writes to the real cache.
func useWarehouseCache(t *testing.T) {
	t.Helper()
	dir, err := warehouseCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", dir)
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
	table, _, err := runCLI(t, "eval", "--catalog", "warehouse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table, "(catalog warehouse) on "+g.DatasetVersion) || !strings.Contains(table, "all gates met") {
		t.Errorf("table lacks the suite line or the verdict:\n%s", table)
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
		{"no embedded gold for retail's catalog", []string{"eval", "--catalog", "retail"}, true, ""},
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
