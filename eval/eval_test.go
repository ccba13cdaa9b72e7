package eval_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

func openDemo(t testing.TB) *engine.Engine {
	t.Helper()
	return enginetest.OpenDemo(t, engine.Options{})
}

func defaultGold(t testing.TB) *eval.GoldSet {
	t.Helper()
	g, err := eval.DefaultGold()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRun_RulesProviderMeetsEveryGate drives the whole gold set through
// the real pipeline with the rules provider: every gate must be 100%.
func TestRun_RulesProviderMeetsEveryGate(t *testing.T) {
	e := openDemo(t)
	g := defaultGold(t)
	r, err := eval.Run(t.Context(), e.Pipeline, g, e)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Items {
		if !row.Correct || (row.Provenance != eval.ProvVerified && row.Provenance != eval.ProvNone) {
			t.Errorf("item %s: correct=%t provenance=%s: %s", row.ID, row.Correct, row.Provenance, row.Detail)
		}
	}
	if r.Provider != "rules" {
		t.Errorf("provider = %q, want rules", r.Provider)
	}
	if len(r.Items) < 48 {
		t.Errorf("items = %d, want at least 48", len(r.Items))
	}
	if got := r.Gates.OutOfCoverageAbstention.Total; got < 8 {
		t.Errorf("out-of-coverage items = %d, want at least 8", got)
	}
	var facts, in int
	for _, it := range g.Items {
		if it.Coverage == eval.In {
			in++
			if it.Expect.Outcome == answer.Answered || it.Expect.Outcome == answer.Absence {
				facts++
			}
		}
	}
	if got := r.Gates.InCoverageCorrectness.Total; got != in {
		t.Errorf("in-coverage total = %d, want %d", got, in)
	}
	if got := r.Gates.ProvenanceCompleteness.Total; got != facts {
		t.Errorf("completeness total = %d, want %d (every expected fact)", got, facts)
	}
	if got := r.Gates.Containment.Total; got != facts {
		t.Errorf("containment total = %d, want %d (every answered item)", got, facts)
	}
	for _, ng := range r.Gates.All() {
		if !ng.Gate.Met() || ng.Gate.Rate != 1 {
			t.Errorf("gate %s = %d/%d (%.3f), want 100%%", ng.Name, ng.Gate.Passed, ng.Gate.Total, ng.Gate.Rate)
		}
	}
	if r.OverRefusals != 0 || !r.Passed {
		t.Errorf("over-refusals = %d, passed = %t", r.OverRefusals, r.Passed)
	}
}

// defective wraps the real pipeline and replaces the answer to one
// question.
type defective struct {
	inner    eval.Asker
	question string
	replace  func(t testing.TB, real answer.Answer) answer.Answer
	t        testing.TB
}

func (d defective) Ask(ctx context.Context, q string) answer.Answer {
	a := d.inner.Ask(ctx, q)
	if q == d.question {
		return d.replace(d.t, a)
	}
	return a
}

// forge staples a result that no executor produced, with a verdict that
// claims every clause passed: what a broken engine might ship.
func forge(t testing.TB, toolName string, args map[string]string, v fact.Value, ids []string) answer.Answer {
	t.Helper()
	var p fact.Provenance
	if ids == nil {
		p = fact.Absent(fact.Absence{Tool: toolName, Filter: args, DatasetVersion: "retail-demo-v1"})
	} else {
		var err error
		if p, err = fact.Events(ids); err != nil {
			t.Fatal(err)
		}
	}
	r, err := fact.NewResult(toolName, args, v, p)
	if err != nil {
		t.Fatal(err)
	}
	text := "forged"
	a, err := answer.Staple(r, fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true, Enumerated: len(ids)}, &text, "res-000001")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func item(t testing.TB, g *eval.GoldSet, id string) eval.Item {
	t.Helper()
	for _, it := range g.Items {
		if it.ID == id {
			return it
		}
	}
	t.Fatalf("no gold item %s", id)
	return eval.Item{}
}

// TestRun_ScorerCanFail injects one defect at a time into otherwise
// correct answers and checks the right row and the right gate fail, and
// only those.
func TestRun_ScorerCanFail(t *testing.T) {
	e := openDemo(t)
	g := defaultGold(t)
	type want struct {
		correct, overRefusal bool
		provenance           eval.ProvenanceStatus
		failing              []string // gates below 100%
	}
	tests := []struct {
		name    string
		item    string
		replace func(t testing.TB, real answer.Answer) answer.Answer
		want    want
	}{
		{
			name: "wrong value with its real event",
			item: "state-as-of-exact",
			replace: func(t testing.TB, real answer.Answer) answer.Answer {
				p, _ := real.Provenance()
				wrong := fact.Text("OVERSTOCK")
				if v, _ := real.Value(); v.Equal(wrong) {
					wrong = fact.Text("IN_STOCK")
				}
				return forge(t, real.Tool(), real.Args(), wrong, p.EventIDs())
			},
			want: want{correct: false, provenance: eval.ProvVerified, failing: []string{"in_coverage_correctness"}},
		},
		{
			name: "wrong abstention is over-refusal",
			item: "price-tie",
			replace: func(t testing.TB, real answer.Answer) answer.Answer {
				return answer.Abstain(answer.ReasonNoTool, "nothing covers it")
			},
			want: want{correct: false, overRefusal: true, provenance: eval.ProvNone,
				failing: []string{"in_coverage_correctness", "provenance_completeness"}},
		},
		{
			name: "answering an out-of-coverage question",
			item: "out-revenue",
			replace: func(t testing.TB, real answer.Answer) answer.Answer {
				args := map[string]string{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}
				return forge(t, "get_price", args, fact.Integer(781, "cents"), []string{"evt-002357"})
			},
			want: want{correct: false, provenance: eval.ProvContained, failing: []string{"out_of_coverage_abstention"}},
		},
		{
			name: "wrong tool with a dangling pointer",
			item: "flag-template",
			replace: func(t testing.TB, real answer.Answer) answer.Answer {
				return forge(t, "get_stock_state", real.Args(), fact.Text("IN_STOCK"), []string{"evt-999999"})
			},
			want: want{correct: false, provenance: eval.ProvDangling,
				failing: []string{"in_coverage_correctness", "containment", "provenance_completeness"}},
		},
		{
			name: "right value, an event dropped",
			item: "stores-non-compliant",
			replace: func(t testing.TB, real answer.Answer) answer.Answer {
				p, _ := real.Provenance()
				v, _ := real.Value()
				return forge(t, real.Tool(), real.Args(), v, p.EventIDs()[1:])
			},
			want: want{correct: true, provenance: eval.ProvIncomplete, failing: []string{"provenance_completeness"}},
		},
		{
			name: "faked absence",
			item: "window-end-plus-one",
			replace: func(t testing.TB, real answer.Answer) answer.Answer {
				return forge(t, real.Tool(), real.Args(), fact.RowCount(0), nil)
			},
			want: want{correct: false, provenance: eval.ProvIncomplete,
				failing: []string{"in_coverage_correctness", "provenance_completeness"}},
		},
		{
			name: "wrong rejection kind",
			item: "wall-sql-or",
			replace: func(t testing.TB, real answer.Answer) answer.Answer {
				return answer.Reject("get_stock_state", &tool.Rejection{Kind: tool.Invalid, Param: "product_id", Reason: "is not a product id"})
			},
			want: want{correct: false, provenance: eval.ProvNone, failing: []string{"in_coverage_correctness"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := item(t, g, tt.item)
			asker := defective{inner: e.Pipeline, question: it.Question, replace: tt.replace, t: t}
			r, err := eval.Run(t.Context(), asker, g, e)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range r.Items {
				if row.ID != tt.item {
					if !row.Correct {
						t.Errorf("untouched item %s scored incorrect: %s", row.ID, row.Detail)
					}
					continue
				}
				if row.Correct != tt.want.correct || row.OverRefusal != tt.want.overRefusal || row.Provenance != tt.want.provenance {
					t.Errorf("row = correct %t, over_refusal %t, provenance %s (%s); want %t, %t, %s",
						row.Correct, row.OverRefusal, row.Provenance, row.Detail, tt.want.correct, tt.want.overRefusal, tt.want.provenance)
				}
			}
			var failing []string
			for _, ng := range r.Gates.All() {
				if !ng.Gate.Met() {
					failing = append(failing, ng.Name)
				}
			}
			if strings.Join(failing, ",") != strings.Join(tt.want.failing, ",") {
				t.Errorf("failing gates = %v, want %v", failing, tt.want.failing)
			}
			if r.Passed {
				t.Error("report passed despite a defect")
			}
			if tt.want.overRefusal && r.OverRefusals != 1 {
				t.Errorf("over-refusals = %d, want 1", r.OverRefusals)
			}
		})
	}
}

// TestRun_EmptyGateIsNotMet checks a run that answers nothing cannot pass
// by vacuous truth.
func TestRun_EmptyGateIsNotMet(t *testing.T) {
	abstainAll := askerFunc(func(ctx context.Context, q string) answer.Answer { return answer.Abstain(answer.ReasonNoTool, "") })
	g := defaultGold(t)
	r, err := eval.Run(t.Context(), abstainAll, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Gates.Containment.Total != 0 || r.Gates.Containment.Met() {
		t.Errorf("containment = %+v, want an unmet empty gate", r.Gates.Containment)
	}
	if r.Gates.OutOfCoverageAbstention.Rate != 1 {
		t.Errorf("abstention = %+v, want 100%%", r.Gates.OutOfCoverageAbstention)
	}
	if r.Passed || r.OverRefusals != r.Gates.InCoverageCorrectness.Total {
		t.Errorf("passed = %t, over-refusals = %d, want false and %d", r.Passed, r.OverRefusals, r.Gates.InCoverageCorrectness.Total)
	}
}

type askerFunc func(ctx context.Context, q string) answer.Answer

func (f askerFunc) Ask(ctx context.Context, q string) answer.Answer { return f(ctx, q) }

// TestRun_CanceledContext stops the run with an error, not a partial
// report presented as complete.
func TestRun_CanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := eval.Run(ctx, askerFunc(func(ctx context.Context, q string) answer.Answer { return answer.Abstain(answer.ReasonNoTool, "x") }), defaultGold(t), nil)
	if err == nil {
		t.Fatal("Run succeeded on a canceled context")
	}
}

// TestReport_JSON checks the report's documented keys.
func TestReport_JSON(t *testing.T) {
	e := openDemo(t)
	r, err := eval.Run(t.Context(), e.Pipeline, defaultGold(t), e)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := eval.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(b.String()), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"provider", "suite_version", "dataset_version", "items", "gates", "over_refusals", "passed"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report has no key %s", k)
		}
	}
	var gates map[string]eval.Gate
	if err := json.Unmarshal(m["gates"], &gates); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"in_coverage_correctness", "out_of_coverage_abstention", "containment", "provenance_completeness"} {
		if gates[k].Total == 0 {
			t.Errorf("gate %s missing or empty", k)
		}
	}
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(m["items"], &rows); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "coverage", "expected", "outcome", "correct", "over_refusal", "provenance", "answer"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("row has no key %s", k)
		}
	}
}

// TestRun_NoisyProviderNeverEscapes drives the gold set through the noisy
// instrument (every fault at 0.2, fixed seeds): fabricated numerals must
// be caught (some sentences refused) and none may ship.
func TestRun_NoisyProviderNeverEscapes(t *testing.T) {
	refusals := 0
	for _, seed := range []uint64{1, 2, 3} {
		p, err := noisy.New(rules.Provider{}, noisy.Options{Seed: seed, Rates: noisy.Uniform(0.2)})
		if err != nil {
			t.Fatal(err)
		}
		e := enginetest.OpenDemo(t, engine.Options{Provider: p})
		r, err := eval.Run(t.Context(), e.Pipeline, defaultGold(t), e)
		if err != nil {
			t.Fatal(err)
		}
		if r.Escapes != 0 {
			t.Errorf("seed %d: %d fabricated numerals escaped", seed, r.Escapes)
		}
		if !strings.Contains(r.Provider, "noisy") {
			t.Errorf("report provider %q does not label the instrument", r.Provider)
		}
		for _, c := range r.Classes {
			refusals += c.GroundingRefusals
		}
	}
	if refusals == 0 {
		t.Error("no sentence was refused: the noisy instrument did not exercise the grounding check")
	}
}
