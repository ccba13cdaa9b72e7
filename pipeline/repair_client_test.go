package pipeline_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/pipeline/pipelinetest"
	"github.com/provenant/provenant/tool"
)

func metricCall(metric, window string, extra map[string]any) tool.Proposal {
	p := tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": metric, "window": window}}
	for k, v := range extra {
		p.Params[k] = v
	}
	return p
}

// TestRepair_ClientCall: a client's own call (Call: no provider to
// repair with) that fails verification ends as the loop ends when it
// gives up, never as an internal error, and carries the repair advice:
// the class, the selection by its declared names, the catalog snippet and
// the definition, and the message a provider would be shown. Nothing the
// client sent that was refused (an undeclared name, a filter value), no
// rejected value and no error text is repeated.
func TestRepair_ClientCall(t *testing.T) {
	filter := []any{map[string]any{"dimension": "store", "values": []any{pipelinetest.SecretFilter}}}
	byStore := map[string]any{"dimensions": []any{"store"}, "filters": filter}
	withPlanet := map[string]any{"dimensions": []any{"store", "planet"}, "filters": filter}
	// Lists past their bound (2 in pipelinetest's registry): the wall
	// refuses them, and the selection names at most the bound's worth.
	var manyDims, manyFilters []any
	for range 10_000 {
		manyDims = append(manyDims, "store")
		manyFilters = append(manyFilters, filter[0])
	}
	tooMany := map[string]any{"dimensions": manyDims, "filters": manyFilters}
	tests := []struct {
		name        string
		call        tool.Proposal
		wantOutcome answer.Outcome
		wantReason  answer.ReasonKind
		wantClass   answer.ReasonKind // "" for no advice
		wantSel     answer.Selection
		wantCatalog string
		wantDef     string
	}{
		{"good", metricCall("share", pipelinetest.WindowGood, nil), answer.Answered, "", "", answer.Selection{}, "", ""},
		{"empty_result ships the empty table", metricCall("share", pipelinetest.WindowEmpty, nil), answer.Answered, "", answer.ReasonEmptyResult,
			answer.Selection{Tool: "query_metric", Metric: "share"}, pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"implausible_magnitude out of domain is rejected", metricCall("share", pipelinetest.WindowTooBig, nil), answer.Rejected, answer.ReasonImplausibleMagnitude, answer.ReasonImplausibleMagnitude,
			answer.Selection{Tool: "query_metric", Metric: "share"}, pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"no history band on a client's call (it would cost many re-derivations)", metricCall("count", pipelinetest.WindowSpecial, nil), answer.Answered, "", "",
			answer.Selection{}, "", ""},
		{"the engine's own query failing is our failure, not the client's", metricCall("count", pipelinetest.WindowBoom, map[string]any{"grain": "day"}), answer.Error, answer.ReasonInternal, "",
			answer.Selection{}, "", ""},
		{"permission_denied", metricCall("share", pipelinetest.WindowDenied, byStore), answer.Rejected, answer.ReasonPermissionDenied, answer.ReasonPermissionDenied,
			answer.Selection{Tool: "query_metric", Metric: "share", Dimensions: []string{"store"}, Filters: []string{"store"}}, pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"budget_exceeded", metricCall("share", pipelinetest.WindowBudget, nil), answer.Rejected, answer.ReasonBudgetExceeded, answer.ReasonBudgetExceeded,
			answer.Selection{Tool: "query_metric", Metric: "share"}, pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"schema_violation: an undeclared metric is not echoed", metricCall("revenue_xyz", pipelinetest.WindowGood, nil), answer.Rejected, answer.ReasonInvalid, answer.ReasonSchemaViolation,
			answer.Selection{Tool: "query_metric"}, "declared metrics: share, count", ""},
		{"schema_violation: an undeclared dimension is not echoed", metricCall("share", pipelinetest.WindowGood, withPlanet), answer.Rejected, answer.ReasonInvalid, answer.ReasonSchemaViolation,
			answer.Selection{Tool: "query_metric", Metric: "share", Dimensions: []string{"store"}, Filters: []string{"store"}}, pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"schema_violation: an over-long list is not repeated past its bound", metricCall("share", pipelinetest.WindowGood, tooMany), answer.Rejected, answer.ReasonInvalid, answer.ReasonSchemaViolation,
			answer.Selection{Tool: "query_metric", Metric: "share", Dimensions: []string{"store", "store"}, Filters: []string{"store", "store"}}, pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"a raw query is the wall's, not a failure class", metricCall("share' OR '1'='1", pipelinetest.WindowGood, nil), answer.Rejected, answer.ReasonRawQuery, "",
			answer.Selection{}, "", ""},
	}
	for _, retries := range []int{0, 2} {
		p, err := pipelinetest.RepairPipeline(retries)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				a := p.Call(t.Context(), tt.call)
				if a.Outcome() != tt.wantOutcome || a.Reason().Kind != tt.wantReason {
					t.Fatalf("answer %s %q, want %s %q", a.Outcome(), a.Reason(), tt.wantOutcome, tt.wantReason)
				}
				adv, ok := a.Advice()
				raw, _ := json.Marshal(a)
				if tt.wantClass == "" {
					if ok || strings.Contains(string(raw), `"repair"`) {
						t.Fatalf("advice on %s", raw)
					}
					return
				}
				if !ok {
					t.Fatalf("no advice: %s", raw)
				}
				if adv.Class != tt.wantClass || adv.Hint == "" || adv.Catalog != tt.wantCatalog || adv.Definition != tt.wantDef {
					t.Errorf("advice %+v, want class %s catalog %q definition %q", adv, tt.wantClass, tt.wantCatalog, tt.wantDef)
				}
				if adv.Selection.Tool != tt.wantSel.Tool || adv.Selection.Metric != tt.wantSel.Metric || adv.Selection.Grain != tt.wantSel.Grain ||
					!slices.Equal(adv.Selection.Dimensions, tt.wantSel.Dimensions) || !slices.Equal(adv.Selection.Filters, tt.wantSel.Filters) {
					t.Errorf("selection %+v, want %+v", adv.Selection, tt.wantSel)
				}
				for _, want := range []string{string(tt.wantClass), tt.wantCatalog, tt.wantDef} {
					if !strings.Contains(adv.Message, want) {
						t.Errorf("message lacks %q:\n%s", want, adv.Message)
					}
				}
				advJSON, _ := json.Marshal(adv)
				for _, never := range []string{"revenue_xyz", "planet", pipelinetest.SecretFilter, "connection reset", "1.7"} {
					if strings.Contains(string(advJSON), never) {
						t.Errorf("advice repeats %q: %s", never, advJSON)
					}
				}
				if a.Outcome() != answer.Answered {
					for _, never := range []string{"revenue_xyz", "planet", "connection reset", "1.7"} {
						if strings.Contains(string(raw), never) {
							t.Errorf("answer repeats %q: %s", never, raw)
						}
					}
				}
			})
		}
	}
}

// TestRepair_ClientCallLoopOff: without the repair loop configured a
// client's call is not verified, as before: no advice.
func TestRepair_ClientCallLoopOff(t *testing.T) {
	reg, err := pipelinetest.MetricRegistry()
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(fakeProvider{}, tool.NewWall(reg, nil), pipelinetest.MetricExec{}, pipelinetest.OKResolver{}, &pipeline.Options{ResultIDs: &ledger.Sequence{}})
	a := p.Call(t.Context(), metricCall("share", pipelinetest.WindowEmpty, nil))
	if _, ok := a.Advice(); ok || a.Outcome() != answer.Answered {
		t.Errorf("loop off: %s, advice %t", a.Outcome(), ok)
	}
}
