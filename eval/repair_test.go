package eval_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/demo"
)

// retailRepairSet is the retail phrasing suite over the demo store.
func retailRepairSet(t *testing.T) eval.RepairSet {
	t.Helper()
	g, err := eval.Suite("phrasing")
	if err != nil {
		t.Fatal(err)
	}
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	return eval.RepairSet{Name: "retail", Gold: g, Open: func(ctx context.Context, o engine.Options) (*engine.Engine, eval.Target, error) {
		e, err := engine.Open(ctx, d, enginetest.OpenDuckDB, &o)
		if err != nil {
			return nil, eval.Target{}, err
		}
		return e, eval.Target{Keys: e.Known, WithNow: provider.WithNow}, nil
	}}
}

// TestRunRepair_FromRuns: the report's accuracies with the loop off and on
// are those of real runs: recomputed here by asking each seed's
// instrument through engines of our own and scoring with RunTarget, they
// agree item for item; the breakdowns add up. Without a vote, and with
// self-consistency over five samples, each repaired on its own.
func TestRunRepair_FromRuns(t *testing.T) {
	for _, samples := range []int{0, 5} {
		t.Run(fmt.Sprintf("self-consistency %d", samples), func(t *testing.T) { testRunRepairFromRuns(t, samples) })
	}
}

func testRunRepairFromRuns(t *testing.T, samples int) {
	const rate, retries = 0.3, 2
	seeds := []uint64{1, 2, 3}
	set := retailRepairSet(t)
	var sc *pipeline.SelfConsistency
	if samples > 0 {
		sc = &pipeline.SelfConsistency{Samples: samples}
	}
	r, err := eval.RunRepair(t.Context(), eval.RepairOptions{Sets: []eval.RepairSet{set}, Inner: rules.Provider{}, MetricNoise: rate, Retries: retries, Seeds: seeds, SelfConsistency: samples})
	if err != nil {
		t.Fatal(err)
	}
	g := eval.MetricItems(set.Gold)
	if len(g.Items) == 0 {
		t.Fatal("the phrasing suite has no metric item")
	}
	var off, on int
	for _, seed := range seeds {
		p, err := noisy.New(rules.Provider{}, noisy.Options{Seed: seed, Rates: noisy.MetricUniform(rate)})
		if err != nil {
			t.Fatal(err)
		}
		for _, loop := range []*pipeline.Repair{nil, {Retries: retries}} {
			e, tg, err := set.Open(t.Context(), engine.Options{Provider: p, Repair: loop, SelfConsistency: sc})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := eval.RunTarget(t.Context(), e.Pipeline, g, tg)
			e.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rep.Items {
				if row.Correct && loop == nil {
					off++
				} else if row.Correct {
					on++
				}
			}
		}
	}
	s := r.Sets[0]
	if s.Runs != len(g.Items)*len(seeds) || s.Off.Passed != off || s.On.Passed != on {
		t.Fatalf("report: %d runs, off %d, on %d; recomputed: %d runs, off %d, on %d",
			s.Runs, s.Off.Passed, s.On.Passed, len(g.Items)*len(seeds), off, on)
	}
	if s.On.Passed <= s.Off.Passed {
		t.Errorf("the loop did not help at rate %g: off %d, on %d", rate, s.Off.Passed, s.On.Passed)
	}
	runs, caught := 0, 0
	for name, c := range s.Classes {
		runs += c.Runs
		if name != eval.ClassNone {
			caught += c.Runs
		}
	}
	resolved := 0
	for n, k := range s.ResolvedAt {
		if n < 1 || n > retries {
			t.Errorf("resolved after %d attempts, outside 1..%d", n, retries)
		}
		resolved += k
	}
	if runs != s.Runs || resolved+s.Exhausted+s.SpecialCause != caught {
		t.Errorf("classes hold %d runs of %d; resolved %d + unresolved %d + special %d != caught %d", runs, s.Runs, resolved, s.Exhausted, s.SpecialCause, caught)
	}
	if !strings.Contains(r.Provider, "noisy(rules)") || !strings.Contains(r.Provider, "seeds=1..3") {
		t.Errorf("provider label %q does not name the instrument and its seeds", r.Provider)
	}
	if r.SelfConsistency != samples {
		t.Errorf("report's self-consistency %d, want %d", r.SelfConsistency, samples)
	}
	var b strings.Builder
	if err := eval.WriteRepairTable(&b, r); err != nil || !strings.Contains(b.String(), "a test instrument") ||
		strings.Contains(b.String(), "self-consistency") != (samples > 0) {
		t.Errorf("table: %v\n%s", err, b.String())
	}
}

// With no retries the loop is off: both columns are the same runs.
func TestRunRepair_NoRetries(t *testing.T) {
	r, err := eval.RunRepair(t.Context(), eval.RepairOptions{Sets: []eval.RepairSet{retailRepairSet(t)}, Inner: rules.Provider{}, MetricNoise: 0.5, Retries: 0, Seeds: []uint64{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Sets[0]
	if s.On != s.Off || len(s.Attempts) != 0 {
		t.Errorf("retries 0: off %+v, on %+v, attempts %v", s.Off, s.On, s.Attempts)
	}
	if s.Off.Passed == s.Off.Total {
		t.Errorf("at rate 0.5 every run was correct: the instrument made no fault")
	}
}
