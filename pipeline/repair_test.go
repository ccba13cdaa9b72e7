package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/tool"
)

// The loop's fixture: one metric tool whose window argument decides what
// the fake executor returns.
const (
	winGood     = "good"      // share 0.4, count 12
	winEmpty    = "empty"     // no row
	winTooBig   = "too_big"   // share 1.7 (out of domain)
	winBoom     = "boom"      // the executor fails
	winDenied   = "denied"    // a statement failure: permission_denied
	winBudget   = "budget"    // a statement failure: budget_exceeded
	winSpecial  = "special"   // count 1000 (out of band)
	winSpecial2 = "special_2" // count 1000 again, another call
)

func repairRegistry(t *testing.T) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry([]tool.Def{{
		Name: "query_metric", Description: "a metric", Value: fact.KindTable, Class: "aggregate",
		Params: []tool.Param{
			{Name: "metric", Kind: tool.Enum, Values: []string{"share", "count"}},
			{Name: "window", Kind: tool.Enum, Values: []string{winGood, winEmpty, winTooBig, winBoom, winDenied, winBudget, winSpecial, winSpecial2}},
		},
	}}, "store")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

type metricExec struct{}

func (metricExec) Execute(_ context.Context, c tool.Call) (fact.Result, error) {
	val := map[string]float64{"share": 0.4, "count": 12}[c.Arg("metric")]
	rows := [][]fact.Cell{{fact.NumberCell(val)}}
	switch c.Arg("window") {
	case winEmpty:
		rows = nil
	case winTooBig:
		rows = [][]fact.Cell{{fact.NumberCell(1.7)}}
	case winBoom:
		return fact.Result{}, errors.New("run metric: boom")
	case winDenied:
		return fact.Result{}, &pipeline.StatementFailure{Class: answer.ReasonPermissionDenied}
	case winBudget:
		return fact.Result{}, &pipeline.StatementFailure{Class: answer.ReasonBudgetExceeded}
	case winSpecial, winSpecial2:
		rows = [][]fact.Cell{{fact.NumberCell(1000)}}
	}
	tab, err := fact.NewTable([]fact.Column{{Name: "value", Type: fact.CellNumber}}, rows)
	if err != nil {
		return fact.Result{}, err
	}
	prov, _ := fact.Events([]string{"evt-1"})
	return fact.NewResult(c.Tool(), c.Args(), fact.TableValue(tab), prov)
}

type okResolver struct{}

func (okResolver) Resolve(context.Context, tool.Call, fact.Result) (fact.Verdict, error) {
	return fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true, Enumerated: 1}, nil
}

type metricFacts struct{}

func (metricFacts) Describe(p tool.Proposal) (pipeline.MetricFact, bool) {
	zero, one := 0.0, 1.0
	switch p.Params["metric"] {
	case "share":
		return pipeline.MetricFact{Name: "share", Definition: "A share.", Snippet: "metric share: ratio, domain 0..1", Domain: repair.Domain{Min: &zero, Max: &one}}, true
	case "count":
		return pipeline.MetricFact{Name: "count", Definition: "A count.", Snippet: "metric count: simple", Domain: repair.Domain{Min: &zero}}, true
	}
	return pipeline.MetricFact{Name: "unknown"}, true // a metric call naming no declared metric
}

func (metricFacts) History(context.Context, tool.Call) ([]float64, error) {
	return []float64{10, 11, 12, 13, 9, 10, 12, 11, 10, 12}, nil
}

// repairing proposes first, then replays its repairs in order (the last
// one again when they run out), recording what it was shown.
type repairing struct {
	first   tool.Proposal
	repairs []tool.Proposal
	mu      sync.Mutex
	seen    []provider.RepairInput
}

func (r *repairing) Name() string { return "repairing" }
func (r *repairing) Select(context.Context, string, []tool.Def) (*tool.Proposal, error) {
	p := r.first
	return &p, nil
}
func (r *repairing) Compose(context.Context, provider.ComposeInput) (string, error) {
	return "Here is the metric.", nil
}
func (r *repairing) Repair(_ context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, in)
	if len(r.repairs) == 0 {
		return nil, nil
	}
	p := r.repairs[min(len(r.seen), len(r.repairs))-1]
	return &p, nil
}

func prop(metric, window string) tool.Proposal {
	return tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": metric, "window": window}}
}

func repairPipeline(t *testing.T, p provider.Provider, retries int) (*pipeline.Pipeline, *recorder) {
	t.Helper()
	rec := &recorder{}
	wall := tool.NewWall(repairRegistry(t), nil)
	return pipeline.New(p, wall, metricExec{}, okResolver{}, &pipeline.Options{
		Observer: rec, ResultIDs: &ledger.Sequence{},
		Repair: &pipeline.Repair{Retries: retries, Metrics: metricFacts{}},
	}), rec
}

func classes(a answer.Answer) []answer.ReasonKind {
	var out []answer.ReasonKind
	for _, at := range a.Attempts() {
		out = append(out, at.Class)
	}
	return out
}

func TestRepair_Loop(t *testing.T) {
	good := prop("share", winGood)
	tests := []struct {
		name        string
		first       tool.Proposal
		repairs     []tool.Proposal
		retries     int
		wantOutcome answer.Outcome
		wantReason  answer.ReasonKind
		wantClasses []answer.ReasonKind
		wantRepairs int
	}{
		{"schema_violation resolved", prop("bogus", winGood), []tool.Proposal{good}, 2, answer.Answered, "", []answer.ReasonKind{answer.ReasonSchemaViolation}, 1},
		{"empty_result resolved", prop("share", winEmpty), []tool.Proposal{good}, 2, answer.Answered, "", []answer.ReasonKind{answer.ReasonEmptyResult}, 1},
		{"implausible_magnitude resolved", prop("share", winTooBig), []tool.Proposal{good}, 2, answer.Answered, "", []answer.ReasonKind{answer.ReasonImplausibleMagnitude}, 1},
		{"sql_error resolved", prop("share", winBoom), []tool.Proposal{good}, 2, answer.Answered, "", []answer.ReasonKind{answer.ReasonSQLError}, 1},
		{"permission_denied resolved", prop("share", winDenied), []tool.Proposal{good}, 2, answer.Answered, "", []answer.ReasonKind{answer.ReasonPermissionDenied}, 1},
		{"budget_exceeded resolved", prop("share", winBudget), []tool.Proposal{good}, 2, answer.Answered, "", []answer.ReasonKind{answer.ReasonBudgetExceeded}, 1},
		{"second retry resolves", prop("share", winEmpty), []tool.Proposal{prop("share", winTooBig), good}, 2, answer.Answered, "",
			[]answer.ReasonKind{answer.ReasonEmptyResult, answer.ReasonImplausibleMagnitude}, 2},
		{"out of domain exhausted is rejected", prop("share", winTooBig), []tool.Proposal{prop("share", winEmpty), prop("share", winTooBig)}, 2, answer.Rejected, answer.ReasonImplausibleMagnitude,
			[]answer.ReasonKind{answer.ReasonImplausibleMagnitude, answer.ReasonEmptyResult}, 2},
		{"the same proposal again stops the loop", prop("share", winTooBig), []tool.Proposal{prop("share", winTooBig)}, 3, answer.Rejected, answer.ReasonImplausibleMagnitude,
			[]answer.ReasonKind{answer.ReasonImplausibleMagnitude}, 1},
		{"sql_error exhausted", prop("share", winBoom), []tool.Proposal{prop("count", winBoom)}, 1, answer.Error, answer.ReasonInternal,
			[]answer.ReasonKind{answer.ReasonSQLError}, 1},
		{"bound of three", prop("share", winDenied), []tool.Proposal{prop("count", winDenied), prop("share", winBudget), prop("count", winEmpty), good}, 3, answer.Answered, "",
			[]answer.ReasonKind{answer.ReasonPermissionDenied, answer.ReasonPermissionDenied, answer.ReasonBudgetExceeded}, 3},
		{"empty exhausted ships the empty table", prop("share", winEmpty), []tool.Proposal{prop("count", winEmpty)}, 1, answer.Answered, "",
			[]answer.ReasonKind{answer.ReasonEmptyResult}, 1},
		{"a bound of one stops at one", prop("share", winEmpty), []tool.Proposal{prop("count", winEmpty), good}, 1, answer.Answered, "",
			[]answer.ReasonKind{answer.ReasonEmptyResult}, 1},
		{"the model abstains from repairing", prop("share", winTooBig), nil, 2, answer.Rejected, answer.ReasonImplausibleMagnitude,
			[]answer.ReasonKind{answer.ReasonImplausibleMagnitude}, 1},
		{"the wall judges a repair", prop("share", winEmpty), []tool.Proposal{{Tool: "query_metric", Params: map[string]any{"metric": "share' OR '1'='1", "window": winGood}}}, 2,
			answer.Rejected, answer.ReasonRawQuery, []answer.ReasonKind{answer.ReasonEmptyResult}, 1},
		{"a repair naming another tool is refused", prop("share", winEmpty), []tool.Proposal{{Tool: "drop_tables", Params: map[string]any{}}}, 2,
			answer.Rejected, answer.ReasonUnregistered, []answer.ReasonKind{answer.ReasonEmptyResult}, 1},
		{"loop off", prop("share", winTooBig), []tool.Proposal{good}, 0, answer.Answered, "", nil, 0},
		{"first proposal good", good, []tool.Proposal{good}, 2, answer.Answered, "", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &repairing{first: tt.first, repairs: tt.repairs}
			p, rec := repairPipeline(t, prov, tt.retries)
			a := p.Ask(t.Context(), "what is the metric?")
			if a.Outcome() != tt.wantOutcome || a.Reason().Kind != tt.wantReason {
				t.Fatalf("answer = %s %q, want %s %q", a.Outcome(), a.Reason(), tt.wantOutcome, tt.wantReason)
			}
			if got := classes(a); !slices.Equal(got, tt.wantClasses) {
				t.Errorf("attempts = %v, want %v", got, tt.wantClasses)
			}
			if len(prov.seen) != tt.wantRepairs || len(tt.wantClasses) != tt.wantRepairs {
				t.Errorf("Repair called %d times, want %d", len(prov.seen), tt.wantRepairs)
			}
			if len(prov.seen) > tt.retries {
				t.Errorf("Repair called %d times over a bound of %d", len(prov.seen), tt.retries)
			}
			var recClasses []answer.ReasonKind
			for _, c := range rec.recs[0].RepairAttempts {
				recClasses = append(recClasses, answer.ReasonKind(c))
			}
			if !slices.Equal(recClasses, tt.wantClasses) {
				t.Errorf("record's attempts = %v, want %v", recClasses, tt.wantClasses)
			}
			for i, in := range prov.seen {
				if in.Attempt != i+1 || in.Class != string(tt.wantClasses[i]) || !strings.Contains(in.Message, in.Class) {
					t.Errorf("repair %d shown attempt %d class %q, message %q", i, in.Attempt, in.Class, in.Message)
				}
			}
			raw, _ := json.Marshal(a)
			if has := strings.Contains(string(raw), `"attempts"`); has != (len(tt.wantClasses) > 0) {
				t.Errorf("answer JSON has attempts key: %t, want %t: %s", has, len(tt.wantClasses) > 0, raw)
			}
		})
	}
}

// The repair message names the metric's catalog snippet and definition,
// and the failing selection.
func TestRepair_Message(t *testing.T) {
	prov := &repairing{first: prop("share", winTooBig), repairs: []tool.Proposal{prop("share", winGood)}}
	p, _ := repairPipeline(t, prov, 2)
	p.Ask(t.Context(), "what is the share?")
	if len(prov.seen) != 1 {
		t.Fatalf("Repair called %d times", len(prov.seen))
	}
	msg := prov.seen[0].Message
	for _, want := range []string{"implausible_magnitude", "metric share: ratio, domain 0..1", "A share.", `"window":"too_big"`, "declared maximum 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "1.7") {
		t.Errorf("message holds the rejected value:\n%s", msg)
	}
}

// An out-of-band value is retried exactly once, whatever the bound; an
// unchanged value ships with the special-cause note, a changed one
// without.
func TestRepair_SpecialCause(t *testing.T) {
	tests := []struct {
		name      string
		repair    tool.Proposal
		wantNote  bool
		wantValue float64
	}{
		{"unchanged", prop("count", winSpecial2), true, 1000},
		{"repaired", prop("count", winGood), false, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &repairing{first: prop("count", winSpecial), repairs: []tool.Proposal{tt.repair}}
			p, _ := repairPipeline(t, prov, 3)
			a := p.Ask(t.Context(), "how many?")
			if a.Outcome() != answer.Answered {
				t.Fatalf("outcome %s %q", a.Outcome(), a.Reason())
			}
			if len(prov.seen) != 1 {
				t.Errorf("Repair called %d times, want exactly 1", len(prov.seen))
			}
			if got := classes(a); !slices.Equal(got, []answer.ReasonKind{answer.ReasonImplausibleMagnitude}) {
				t.Errorf("attempts %v, want one implausible_magnitude", got)
			}
			if got := a.SpecialCause() != ""; got != tt.wantNote {
				t.Errorf("special cause %q, want note %t", a.SpecialCause(), tt.wantNote)
			}
			v, _ := a.Value()
			if got := v.Table.Rows[0][0].Num; got != tt.wantValue {
				t.Errorf("value %v, want %v", got, tt.wantValue)
			}
			raw, _ := json.Marshal(a)
			if strings.Contains(string(raw), `"special_cause"`) != tt.wantNote {
				t.Errorf("JSON special_cause key presence wrong: %s", raw)
			}
		})
	}
}

// The rules provider cannot repair: it does not implement the capability,
// so the loop never asks it.
func TestRepair_RulesProviderCannotRepair(t *testing.T) {
	if _, ok := any(rules.Provider{}).(provider.Repairer); ok {
		t.Fatal("the rules provider implements Repairer")
	}
	prov := fakeProvider{proposal: ptr(prop("share", winTooBig)), sentence: "Here."}
	p, rec := repairPipeline(t, prov, 2)
	a := p.Ask(t.Context(), "what is the share?")
	if len(a.Attempts()) != 0 || len(rec.recs[0].RepairAttempts) != 0 {
		t.Errorf("attempts %v without a Repairer", a.Attempts())
	}
}

func ptr[T any](v T) *T { return &v }

func TestRepair_RetriesBoundPanics(t *testing.T) {
	for _, n := range []int{-1, 4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Retries %d did not panic", n)
				}
			}()
			pipeline.New(fakeProvider{}, tool.NewWall(repairRegistry(t), nil), metricExec{}, okResolver{}, &pipeline.Options{Repair: &pipeline.Repair{Retries: n}})
		}()
	}
}
