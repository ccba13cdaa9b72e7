package eval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/eval"
)

// -update (declared in gold_test.go) also rewrites the README block.

const (
	readmeBegin = "<!-- calibration:begin -->\n"
	readmeEnd   = "<!-- calibration:end -->"
)

// TestREADMECalibration fails when the README's calibration numbers differ
// from the committed artifact. Regenerate with
//
//	go run ./cmd/provenant eval --calibrate --out eval/calibration
//	go test ./eval -run TestREADME -update
func TestREADMECalibration(t *testing.T) {
	path := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval.ReadmeTable("calibration")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(readme, []byte(readmeBegin))
	j := bytes.Index(readme, []byte(readmeEnd))
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q block", readmeBegin, readmeEnd)
	}
	got := string(readme[i+len(readmeBegin) : j])
	if got == want {
		return
	}
	if *update {
		out := append([]byte{}, readme[:i+len(readmeBegin)]...)
		out = append(out, want...)
		out = append(out, readme[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md calibration block differs from eval/calibration; regenerate with\n"+
		"  go test ./eval -run TestREADME -update\ngot:\n%s\nwant:\n%s", got, want)
}

// TestREADMEPhrasingCounts holds the README's numbers about the phrasing
// suite to the committed file: its size and version wherever they are
// stated, the abstentions by reason, the metric family's size and the
// items of each metric (every metric of the retail catalog has one), the
// ones by day, and the eval's line for the family.
func TestREADMEPhrasingCounts(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(raw)), " ")
	g := phrasingOnDisk(t)
	cat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	abstain := map[eval.AbstainReason]int{}
	metrics := map[string]int{}
	family, byDay := 0, 0
	for _, it := range g.Items {
		if it.Expect.Outcome == answer.Abstained {
			abstain[it.Expect.Reason]++
		}
		if it.Family == eval.FamilyMetric {
			family++
		}
		if it.Expect.Tool == "query_metric" {
			metrics[it.Expect.Params["metric"]]++
			if it.Expect.Params["grain"] != "" {
				byDay++
			}
		}
	}
	// claim finds every match of re (at least one) and checks its
	// submatches are want.
	claim := func(text, re string, want ...string) {
		t.Helper()
		ms := regexp.MustCompile(re).FindAllStringSubmatch(text, -1)
		if len(ms) == 0 {
			t.Errorf("README.md states nothing matching %q", re)
		}
		for _, m := range ms {
			if !slices.Equal(m[1:], want) {
				t.Errorf("README.md states %q, the suite has %v", m[0], want)
			}
		}
	}
	n := strconv.Itoa(len(g.Items))
	claim(readme, "`eval/retail-phrasing-v1\\.gold\\.yaml`, (\\d+) questions", n)
	claim(readme, "`(retail-phrasing-v1\\.gold\\.\\d+)`, (\\d+) items", g.SuiteVersion, n)
	total := 0
	for _, c := range abstain {
		total += c
	}
	claim(readme, "(\\d+) of them must abstain with a named reason: `no_tool` \\((\\d+)\\), `missing_slot` with the slot \\((\\d+)\\), "+
		"`ambiguous` with the slot and the candidate ids \\((\\d+)\\), `unknown_name` with the slot \\((\\d+)\\)",
		strconv.Itoa(total), strconv.Itoa(abstain[eval.ReasonNoTool]), strconv.Itoa(abstain[eval.ReasonMissingSlot]),
		strconv.Itoa(abstain[eval.ReasonAmbiguous]), strconv.Itoa(abstain[eval.ReasonUnknownName]))
	fam := strconv.Itoa(family)
	claim(readme, "has a `metric` family of (\\d+) items", fam)
	claim(readme, "Run: `metric (\\d+) (\\d+) 0 0`, `(\\d+) items: all gates met`", fam, fam, n)
	claim(readme, "(\\d+) of them by UTC day", strconv.Itoa(byDay))
	// Each metric's count, in the bullet on the phrasing suite's metric
	// items.
	i := strings.Index(readme, "the retail phrasing suite (`retail-phrasing-v1.gold.")
	j := strings.Index(readme, "- `provenant eval --catalog warehouse`")
	if i < 0 || j < i {
		t.Fatal("README.md has no bullet on the phrasing suite's metric items before the warehouse one")
	}
	for _, m := range cat.Metrics {
		if metrics[m.Name.Value] == 0 {
			t.Errorf("metric %s: no item", m.Name.Value)
		}
		claim(readme[i:j], "(\\d+) `"+regexp.QuoteMeta(m.Name.Value)+"`", strconv.Itoa(metrics[m.Name.Value]))
	}
}
