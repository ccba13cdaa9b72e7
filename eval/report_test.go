package eval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/eval"
)

// TestWriteTable_Golden pins the table's layout with a hand-built report
// that has a failing row of each kind. Regenerate with -update.
func TestWriteTable_Golden(t *testing.T) {
	r := eval.Report{
		Provider: "rules", SuiteVersion: "s1", DatasetVersion: "retail-demo-v1",
		Items: []eval.Row{
			{ID: "state-1", Coverage: eval.In, Expected: answer.Answered, Outcome: answer.Answered, Tool: "get_stock_state", Correct: true, Provenance: eval.ProvVerified},
			{ID: "price-1", Coverage: eval.In, Expected: answer.Answered, Outcome: answer.Abstained, OverRefusal: true, Provenance: eval.ProvNone, Detail: "outcome: want answered, got abstained"},
			{ID: "flag-1", Coverage: eval.In, Expected: answer.Answered, Outcome: answer.Answered, Tool: "get_stock_state", Provenance: eval.ProvDangling,
				Detail: "tool: want get_compliance_flag, got get_stock_state; provenance does not resolve to real events"},
			{ID: "out-1", Coverage: eval.Out, Expected: answer.Abstained, Outcome: answer.Abstained, Correct: true, Provenance: eval.ProvNone},
		},
		Gates: eval.Gates{
			InCoverageCorrectness:   eval.Gate{Passed: 1, Total: 3, Rate: 1.0 / 3},
			OutOfCoverageAbstention: eval.Gate{Passed: 1, Total: 1, Rate: 1},
			Containment:             eval.Gate{Passed: 1, Total: 2, Rate: 0.5},
			ProvenanceCompleteness:  eval.Gate{Passed: 1, Total: 3, Rate: 1.0 / 3},
		},
		OverRefusals: 1,
	}
	var b bytes.Buffer
	if err := eval.WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("table differs from %s (run with -update if intended)\ngot:\n%s\nwant:\n%s", path, b.Bytes(), want)
	}
}
