package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEngineStart_MetricSQL: an engine over a catalog file whose metrics
// would read a denied table does not start: the check validate makes
// runs before any database is opened.
func TestEngineStart_MetricSQL(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "fixtures"), os.DirFS("../../catalogs/fixtures")); err != nil {
		t.Fatal(err)
	}
	wh := readFile(t, "../../catalogs/warehouse.yaml")
	for _, tt := range []struct {
		name, extra string
		wantCode    int
		want        string
	}{
		{"the dataset's table denied", "sql:\n  deny: [status_events]\n", 1,
			"metric `availability`: compiled query (grain none) reads table `status_events`, which is outside the read allowlist (in `sql.deny`)"},
		// Without the sql: section the check passes and the engine goes on
		// to open --db, which does not exist.
		{"nothing denied", "", 1, "none.duckdb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "w.yaml")
			if err := os.WriteFile(path, []byte(wh+tt.extra), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := runMain(t.Context(), []string{"ask", "--catalog", path, "--db", filepath.Join(dir, "none.duckdb"), "how many devices are down"}, &stdout, &stderr)
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.wantCode, tt.want)
			}
			if strings.Contains(stderr.String(), "metric `") != (tt.extra != "") {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}
