package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/stats"
)

// tinyOptions calibrates on the first in-coverage even items over a few
// seeds: enough to exercise the procedure, far too little to trust.
func tinyOptions(t *testing.T) eval.CalibrateOptions {
	t.Helper()
	g, err := eval.DefaultGold()
	if err != nil {
		t.Fatal(err)
	}
	return eval.CalibrateOptions{
		Gold:    g,
		Split:   func(i int, it eval.Item) bool { return i < 24 && eval.CalibrationSplit(i, it) },
		Seeds:   []uint64{1, 2, 3},
		Samples: 3,
		Commit:  "test",
		Open: func(ctx context.Context, o engine.Options) (*engine.Engine, error) {
			d, err := demo.Load()
			if err != nil {
				return nil, err
			}
			return engine.Open(ctx, d, enginetest.OpenDuckDB, &o)
		},
	}
}

func TestCalibrateCurvesAndSelection(t *testing.T) {
	o := tinyOptions(t)
	o.Target, o.MinSupport = 0.3, 3 // a bar the tiny run can clear
	c, err := eval.RunCalibration(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Record
	if r.Answered == 0 || r.SplitItems == 0 || r.Seeds != 3 || r.Samples != 3 {
		t.Fatalf("record = %+v", r)
	}
	global := r.Curves[eval.CurveGlobal]
	if len(global) < 2 {
		t.Fatalf("global curve has %d points", len(global))
	}
	// Well formed: ascending thresholds, non-increasing coverage, support
	// equal to answered, the full curve starting at every answered item,
	// and the class curves partitioning the global one.
	for i, p := range global {
		if p.Support != p.Answered || p.Correct > p.Answered {
			t.Errorf("point %d: %+v", i, p)
		}
		if i > 0 && (p.Threshold <= global[i-1].Threshold || p.Coverage > global[i-1].Coverage) {
			t.Errorf("point %d out of order: %+v after %+v", i, p, global[i-1])
		}
	}
	if global[0].Support != r.Answered || global[0].Coverage != 1 || global[len(global)-1].Support != 0 {
		t.Errorf("curve ends: first %+v, last %+v, answered %d", global[0], global[len(global)-1], r.Answered)
	}
	sum := 0
	for _, class := range calibration.Classes {
		if pts, ok := r.Curves[class]; ok {
			sum += pts[0].Support
		}
	}
	if sum != r.Answered {
		t.Errorf("class supports sum to %d, answered %d", sum, r.Answered)
	}

	if !c.OK || c.Policy == nil {
		t.Fatalf("target 0.3 with support 3 did not qualify: %+v", global)
	}
	// The selected threshold is the lowest qualifying one.
	g := c.Policy.Global
	for _, p := range global {
		if p.WilsonLower >= o.Target && p.Support >= o.MinSupport && p.Threshold < g.Threshold {
			t.Errorf("threshold %v qualifies below the selected %v", p.Threshold, g.Threshold)
		}
		if p.Threshold == g.Threshold && (p.WilsonLower != g.WilsonLower || p.Support != g.Support || p.WilsonLower < o.Target) {
			t.Errorf("selected %+v does not match its point %+v", g, p)
		}
	}
	for class, th := range c.Policy.Classes {
		want, ok := stats.SelectThreshold(r.Curves[class], o.Target, o.MinSupport)
		if !ok || want.Threshold != th.Threshold {
			t.Errorf("class %s: threshold %v, want %+v", class, th.Threshold, want)
		}
	}
	if p := c.Policy; p.Provider != r.Provider || p.Commit != "test" || p.SuiteVersion != o.Gold.SuiteVersion {
		t.Errorf("provenance: %+v", p)
	}

	// The policy round-trips through calibration.Parse.
	b, err := json.MarshalIndent(c.Policy, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	back, err := calibration.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.MarshalIndent(back, "", "  ")
	if !bytes.Equal(b, b2) {
		t.Errorf("policy did not round-trip:\n%s\n%s", b, b2)
	}

	// The artifact: a policy, its curve and its plot; the README table
	// renders from it.
	dir := t.TempDir()
	if err := eval.WriteCalibration(dir, c); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{eval.PolicyFile, eval.CurveFile, eval.SVGFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if tab, err := eval.ReadmeTable(dir); err != nil || tab != eval.PolicyTable(c.Policy)+eval.VotingTable(c.Record) {
		t.Errorf("ReadmeTable = %q, %v", tab, err)
	}
	// Both voting rules saw the same asks.
	st, pl := c.Record.Voting[eval.VotingStrict], c.Record.Voting[eval.VotingPlurality]
	if st.Asked == 0 || st.Asked != pl.Asked || st.Answered > st.Asked || pl.Answered > pl.Asked {
		t.Errorf("voting = %+v", c.Record.Voting)
	}
}

func TestCalibrateImpossibleTarget(t *testing.T) {
	o := tinyOptions(t)
	o.Target = 0.999999
	p, ok, err := eval.Calibrate(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if ok || p != nil {
		t.Fatalf("an impossible target qualified: %+v", p)
	}
	// No policy is written, and a stale one is removed.
	c, err := eval.RunCalibration(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, eval.PolicyFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := eval.WriteCalibration(dir, c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, eval.PolicyFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("policy.json after a run that qualified nothing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, eval.CurveFile)); err != nil {
		t.Error(err)
	}
}

// TestCommittedPolicy checks the committed artifact: a policy, when there
// is one, parses and validates; the curve record always decodes.
func TestCommittedPolicy(t *testing.T) {
	f, err := os.Open(filepath.Join("calibration", eval.PolicyFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.Log("no committed policy (none qualified)")
	case err != nil:
		t.Fatal(err)
	default:
		defer f.Close()
		if _, err := calibration.Parse(f); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join("calibration", eval.CurveFile))
	if err != nil {
		t.Fatal(err)
	}
	var r eval.CurveRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Curves[eval.CurveGlobal]) == 0 || r.Answered != r.Curves[eval.CurveGlobal][0].Support {
		t.Errorf("committed curve record is malformed: answered %d", r.Answered)
	}
}
