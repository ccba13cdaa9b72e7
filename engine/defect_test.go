package engine_test

import (
	"slices"
	"testing"

	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

// fixture is a store behind a resolver, with the executor as the source
// of honest results to tamper with.
type fixture struct {
	d    *retail.Dataset
	wall *tool.Wall
	exec pipeline.Executor
	res  pipeline.Resolver
}

func (f *fixture) call(t *testing.T, name string, params map[string]any) tool.Call {
	t.Helper()
	c, err := f.wall.Check(tool.Proposal{Tool: name, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) honest(t *testing.T, c tool.Call) fact.Result {
	t.Helper()
	r, err := f.exec.Execute(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustResult(t *testing.T, r fact.Result, v fact.Value, ids []string) fact.Result {
	t.Helper()
	p, err := fact.Events(ids)
	if err != nil {
		t.Fatal(err)
	}
	out, err := fact.NewResult(r.Tool, r.Args, v, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResolve_DefectInjection tampers with honest results over the demo
// store in each way the resolver must catch, and checks that the retail
// engine's resolver (the shapes' second formulation, over the store file
// held in memory) fails exactly the right clauses.
func TestResolve_DefectInjection(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	wall, exec, res := enginetest.Parts(t, d)
	f := &fixture{d: d, wall: wall, exec: exec, res: res}
	asOf := "2026-01-06T08:00:00Z"
	countCall := f.call(t, "count_stores_with_condition", map[string]any{"condition": "NON_COMPLIANT", "as_of": asOf})
	count := f.honest(t, countCall)
	ids := count.Provenance.EventIDs()
	if len(ids) < 3 {
		t.Fatalf("fixture needs a count with several events, got %d", len(ids))
	}

	// An event that exists but fails the filter: a COMPLIANT latest scan.
	var compliantID string
	for _, e := range f.d.Events {
		if e.Flag == retail.Compliant && e.Timestamp <= asOf {
			compliantID = e.ID
			break
		}
	}
	// An event that satisfies the filter but is not its pair's latest
	// scan: an older non-compliant scan superseded by a later one.
	staleID := staleSatisfying(t, f.d, asOf, ids)

	stateCall := f.call(t, "get_stock_state", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": asOf})
	state := f.honest(t, stateCall)

	absentCall := f.call(t, "list_products_in_state", map[string]any{"store_id": "st-003", "state": "OVERSTOCK", "as_of": "2026-01-01T00:00:01Z"})

	tests := []struct {
		name   string
		call   tool.Call
		result fact.Result
		want   fact.Verdict
	}{
		{"honest count", countCall, count, fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}},
		{"honest scalar", stateCall, state, fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}},
		{"honest absence", absentCall, f.honest(t, absentCall), fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}},
		{"dangling pointer", countCall,
			mustResult(t, count, count.Value, append(slices.Clone(ids[1:]), "evt-999999")),
			fact.Verdict{ProvenanceValid: false, ValueMatches: true, Complete: false}},
		// The shapes hold provenance to the value it backs: rows that no
		// longer back every counted store, or that carry another state
		// than the one asserted, fail ProvenanceValid as well.
		{"dropped event", countCall,
			mustResult(t, count, count.Value, ids[:len(ids)-1]),
			fact.Verdict{ProvenanceValid: false, ValueMatches: true, Complete: false}},
		{"extra event failing the filter", countCall,
			mustResult(t, count, count.Value, append(slices.Clone(ids), compliantID)),
			fact.Verdict{ProvenanceValid: false, ValueMatches: true, Complete: false}},
		{"extra stale event", countCall,
			mustResult(t, count, count.Value, append(slices.Clone(ids), staleID)),
			fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: false}},
		{"wrong count", countCall,
			mustResult(t, count, fact.Value{Kind: fact.KindEntityCount, Observed: true, Count: count.Value.Count + 1, IDs: count.Value.IDs}, ids),
			fact.Verdict{ProvenanceValid: true, ValueMatches: false, Complete: true}},
		{"wrong store list", countCall,
			mustResult(t, count, fact.EntityCount("store_ids", append(slices.Clone(count.Value.IDs[1:]), "st-999")), ids),
			fact.Verdict{ProvenanceValid: false, ValueMatches: false, Complete: true}},
		{"wrong state", stateCall,
			mustResult(t, state, fact.Text(otherState(state.Value.Text)), state.Provenance.EventIDs()),
			fact.Verdict{ProvenanceValid: false, ValueMatches: false, Complete: true}},
		{"faked absence", countCall,
			fakedAbsence(t, countCall, count),
			fact.Verdict{ProvenanceValid: true, ValueMatches: false, Complete: false}},
		{"pointer to another pair's event", stateCall,
			mustResult(t, state, state.Value, []string{otherPairEvent(f.d, "st-003", "pr-007", asOf)}),
			fact.Verdict{ProvenanceValid: false, ValueMatches: true, Complete: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.res.Resolve(t.Context(), tt.call, tt.result)
			if err != nil {
				t.Fatal(err)
			}
			got.Enumerated = 0
			if got != tt.want {
				t.Errorf("Resolve() = %+v, want %+v", got, tt.want)
			}
			if got.OK() != (tt.want == fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}) {
				t.Errorf("OK() = %t", got.OK())
			}
		})
	}
}

func fakedAbsence(t *testing.T, c tool.Call, honest fact.Result) fact.Result {
	t.Helper()
	r, err := fact.NewResult(honest.Tool, honest.Args, fact.EntityCount("store_ids", nil),
		fact.Absent(fact.Attest(c.Tool(), c.Args(), "retail-demo-v1")))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func staleSatisfying(t *testing.T, d *retail.Dataset, asOf string, latest []string) string {
	t.Helper()
	m := retail.CondNonCompliant.Match()
	for _, e := range d.Events {
		if e.Timestamp <= asOf && m.Accepts(e) && !slices.Contains(latest, e.ID) {
			return e.ID
		}
	}
	t.Fatal("demo store has no superseded non-compliant scan")
	return ""
}

func otherState(s string) string {
	if s == string(retail.InStock) {
		return string(retail.LowStock)
	}
	return string(retail.InStock)
}

func otherPairEvent(d *retail.Dataset, store, product, asOf string) string {
	for _, e := range d.Events {
		if e.StoreID == store && e.ProductID != product && e.Timestamp <= asOf {
			return e.ID
		}
	}
	return ""
}
