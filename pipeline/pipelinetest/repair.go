package pipelinetest

import (
	"context"
	"errors"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/tool"
)

// The verification fixture's windows: the window argument of a
// query_metric call decides what the fake executor gives, so a test can
// choose each failure class of a client's own call.
const (
	WindowGood    = "good"     // share 0.4, count 12
	WindowEmpty   = "empty"    // no row: empty_result
	WindowTooBig  = "too_big"  // share TooBig: outside the domain 0..1, implausible_magnitude
	WindowBoom    = "boom"     // the metric query fails while it runs: sql_error
	WindowDenied  = "denied"   // the sandbox refuses it: permission_denied
	WindowBudget  = "budget"   // a limit stops it: budget_exceeded
	WindowSpecial = "special"  // count 1000, outside the band of its history
	Store         = "st-001"   // a declared store, for filters
	SecretFilter  = "st-0042x" // a filter value a client sends that no answer may repeat (not a declared store)
)

// TooBig is the out-of-domain value WindowTooBig gives; no answer may
// repeat it.
const TooBig = 1.7

// MetricRegistry is the fixture's menu: one query_metric tool with the
// parameters a catalog's metric tool has (metric, dimensions, filters, a
// grain) and a window enumeration standing in for start and end.
func MetricRegistry() (*tool.Registry, error) {
	dims := []string{"store", "category"}
	dim := tool.Param{Kind: tool.Enum, Values: dims}
	return tool.NewRegistry([]tool.Def{{
		Name: "query_metric", Description: "a metric", Value: fact.KindTable, Class: "metric",
		Params: []tool.Param{
			{Name: "metric", Kind: tool.Enum, Values: []string{"share", "count"}},
			{Name: "dimensions", Kind: tool.Array, Optional: true, MaxItems: 2, Items: &dim},
			{Name: "filters", Kind: tool.Array, Optional: true, MaxItems: 2, Items: &tool.Param{Kind: tool.Object, Fields: []tool.Param{
				{Name: "dimension", Kind: tool.Enum, Values: dims},
				{Name: "values", Kind: tool.Array, MaxItems: 4, Items: &tool.Param{Kind: tool.Token, Pattern: `^[a-z0-9-]{1,16}$`, Hint: "an id"}},
			}}},
			{Name: "window", Kind: tool.Enum, Values: []string{WindowGood, WindowEmpty, WindowTooBig, WindowBoom, WindowDenied, WindowBudget, WindowSpecial}},
			{Name: "grain", Kind: tool.Enum, Optional: true, Values: []string{"day", "week"}},
		},
	}}, "store")
}

// MetricExec is the fixture's executor: a one-row table of the metric's
// value, or the window's failure.
type MetricExec struct{}

// Execute runs a call of the fixture's query_metric.
func (MetricExec) Execute(_ context.Context, c tool.Call) (fact.Result, error) {
	val := map[string]float64{"share": 0.4, "count": 12}[c.Arg("metric")]
	rows := [][]fact.Cell{{fact.NumberCell(val)}}
	switch c.Arg("window") {
	case WindowEmpty:
		rows = nil
	case WindowTooBig:
		rows = [][]fact.Cell{{fact.NumberCell(TooBig)}}
	case WindowBoom:
		return fact.Result{}, errors.New("run metric: connection reset")
	case WindowDenied:
		return fact.Result{}, &pipeline.StatementFailure{Class: answer.ReasonPermissionDenied,
			Rejection: &sandbox.Rejection{Layer: sandbox.LayerAllowlist, Class: sandbox.ClassPermissionDenied, Kind: "table", Position: sandbox.NoPosition}}
	case WindowBudget:
		return fact.Result{}, &pipeline.StatementFailure{Class: answer.ReasonBudgetExceeded,
			Rejection: &sandbox.Rejection{Layer: sandbox.LayerBudget, Class: sandbox.ClassBudgetExceeded, Kind: "rows_processed", Position: sandbox.NoPosition}}
	case WindowSpecial:
		rows = [][]fact.Cell{{fact.NumberCell(1000)}}
	}
	tab, err := fact.NewTable([]fact.Column{{Name: "value", Type: fact.CellNumber}}, rows)
	if err != nil {
		return fact.Result{}, err
	}
	prov, _ := fact.Events([]string{"evt-1"})
	return fact.NewResult(c.Tool(), c.Args(), fact.TableValue(tab), prov)
}

// OKResolver verifies every result.
type OKResolver struct{}

// Resolve passes.
func (OKResolver) Resolve(context.Context, tool.Call, fact.Result) (fact.Verdict, error) {
	return fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true, Enumerated: 1}, nil
}

// The fixture's metric declarations, as a catalog would show them.
const (
	ShareSnippet    = "metric share: type ratio, domain 0..1, dimensions [store, category]"
	ShareDefinition = "The share of observed shelves out of stock."
	CountSnippet    = "metric count: type simple, domain 0..+inf, dimensions [store, category]"
	CountDefinition = "The number of shelf scans."
)

// MetricFacts describes the fixture's metrics: share (domain 0..1) and
// count (at least 0, with a history around 11).
type MetricFacts struct{}

// Describe returns the facts of a query_metric proposal's metric.
func (MetricFacts) Describe(p tool.Proposal) (pipeline.MetricFact, bool) {
	if p.Tool != "query_metric" {
		return pipeline.MetricFact{}, false
	}
	zero, one := 0.0, 1.0
	switch p.Params["metric"] {
	case "share":
		return pipeline.MetricFact{Name: "share", Definition: ShareDefinition, Snippet: ShareSnippet, Domain: repair.Domain{Min: &zero, Max: &one}}, true
	case "count":
		return pipeline.MetricFact{Name: "count", Definition: CountDefinition, Snippet: CountSnippet, Domain: repair.Domain{Min: &zero}}, true
	}
	return pipeline.MetricFact{Snippet: "declared metrics: share, count"}, true
}

// History is count's history.
func (MetricFacts) History(context.Context, tool.Call) ([]float64, error) {
	return []float64{10, 11, 12, 13, 9, 10, 12, 11, 10, 12}, nil
}

// noModel is the provider of a pipeline that only serves direct calls.
type noModel struct{}

func (noModel) Name() string { return "none" }
func (noModel) Select(context.Context, string, []tool.Def) (*tool.Proposal, error) {
	return nil, nil
}
func (noModel) Compose(context.Context, provider.ComposeInput) (string, error) { return "", nil }

// RepairPipeline is a pipeline over the fixture with execution
// verification on (the repair loop configured with retries), for the
// surfaces' tests of a client's own calls.
func RepairPipeline(retries int) (*pipeline.Pipeline, error) {
	reg, err := MetricRegistry()
	if err != nil {
		return nil, err
	}
	return pipeline.New(noModel{}, tool.NewWall(reg, nil), MetricExec{}, OKResolver{}, &pipeline.Options{
		ResultIDs: &ledger.Sequence{},
		Repair:    &pipeline.Repair{Retries: retries, Metrics: MetricFacts{}},
	}), nil
}
