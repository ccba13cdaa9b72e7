package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGen_Warehouse: gen --catalog warehouse writes the demo's status
// events, which import takes as they are, in both formats; retail flags
// with it are usage errors.
func TestGen_Warehouse(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"csv", "jsonl"} {
		out := filepath.Join(dir, "events."+format)
		if code, _, stderr := runMainCLI(t, "gen", "--catalog", "warehouse", "--events", "250", "--zones", "3", "--devices", "12",
			"--format", format, "--out", out); code != 0 {
			t.Fatalf("gen %s: exit %d: %s", format, code, stderr)
		}
		code, stdout, stderr := runMainCLI(t, "import", "--catalog", "../../catalogs/warehouse.yaml", "--dataset", "status_events",
			"--db", filepath.Join(dir, format+".duckdb"), out)
		if code != 0 || !strings.Contains(stdout, "imported 250 row(s)") {
			t.Fatalf("import %s: exit %d: %s %s", format, code, stdout, stderr)
		}
	}
	for _, args := range [][]string{
		{"gen", "--catalog", "warehouse", "--stores", "3"},
		{"gen", "--catalog", "retail"},
		{"gen", "--catalog", "warehouse", "--format", "xml"},
		{"gen", "--catalog", "warehouse", "--zones", "100"},
	} {
		if code, _, stderr := runMainCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}
