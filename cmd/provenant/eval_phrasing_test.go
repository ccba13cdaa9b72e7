package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/eval"
)

// TestEval_NamedSuites runs `provenant eval --gold NAME` for each named
// suite: the report is the embedded suite's, every item scored, and the
// phrasing suite's report carries its now and its families.
func TestEval_NamedSuites(t *testing.T) {
	for _, name := range eval.Suites {
		t.Run(name, func(t *testing.T) {
			out, _, err := runCLI(t, "eval", "--gold", name, "--json")
			if err != nil {
				t.Fatalf("eval --gold %s: %v", name, err)
			}
			var r eval.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("eval --json: %v\n%.300s", err, out)
			}
			g, err := eval.Suite(name)
			if err != nil {
				t.Fatal(err)
			}
			if r.SuiteVersion != g.SuiteVersion || len(r.Items) != len(g.Items) {
				t.Errorf("report: suite %q, %d items; want %s, %d", r.SuiteVersion, len(r.Items), g.SuiteVersion, len(g.Items))
			}
			if name == eval.SuitePhrasing && (r.Now != "2026-01-07T15:30:00Z" || len(r.Families) != len(eval.Families)) {
				t.Errorf("phrasing report: now %q, %d families; want 2026-01-07T15:30:00Z, %d", r.Now, len(r.Families), len(eval.Families))
			}
		})
	}
}

func TestEval_NamedSuiteErrors(t *testing.T) {
	useWarehouseCache(t)
	out, _, err := runCLI(t, "eval", "--catalog", "warehouse", "--gold", "phrasing")
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "not --catalog") {
		t.Errorf("eval --catalog warehouse --gold phrasing: %v, want a usage error", err)
	}
	if out != "" {
		t.Errorf("stdout = %.80q..., want nothing", out)
	}
	// A name that is no suite is read as a file.
	if _, _, err := runCLI(t, "eval", "--gold", "nonesuch"); err == nil || !strings.Contains(err.Error(), "open gold file") {
		t.Errorf("eval --gold nonesuch: %v, want the file not found", err)
	}
}
