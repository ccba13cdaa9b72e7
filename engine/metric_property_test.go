package engine_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/engine"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// TestQueryMetric_Property: random query_metric calls over the warehouse
// demo (any metric, dimensions, filters on declared values, grain, order,
// limit, window and caller scope, some of them invalid) are either
// answered or attested absent with every verdict clause true, or rejected
// naming a parameter or field; never an error, never an unverified answer.
// A scoped caller's table never shows a zone outside its scope.
func TestQueryMetric_Property(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.OpenWarehouse(t, 3000, nil)
	// The same data re-derived in SQL always (metric.RederiveSQL over the
	// derived validity intervals): the same answers, verified alike.
	inSQL := enginetest.OpenWarehouse(t, 3000, &engine.Options{MetricGoRows: -1})
	zones := []string{"zone-01", "zone-02", "zone-03", "zone-04", "zone-05", "zone-06"}
	values := map[string][]string{
		"zone":        zones,
		"device":      {"dev-0001", "dev-0002", "dev-0007", "dev-0040"},
		"device_type": {"AGV", "CONVEYOR", "SORTER", "LIFT"},
	}
	base := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	outcomes := map[answer.Outcome]int{}
	defer func() { t.Logf("outcomes: %v", outcomes) }()
	rapid.Check(t, func(rt *rapid.T) {
		m := rapid.SampledFrom(cat.Metrics).Draw(rt, "metric")
		var allowed []string
		for _, d := range m.Dimensions {
			allowed = append(allowed, d.Value)
		}
		params := map[string]any{"metric": m.Name.Value}
		dims := rapid.SliceOfNDistinct(rapid.SampledFrom(allowed), 0, 2, rapid.ID[string]).Draw(rt, "dimensions")
		if len(dims) > 0 {
			ds := make([]any, len(dims))
			for i, d := range dims {
				ds[i] = d
			}
			params["dimensions"] = ds
		}
		var filters []any
		for range rapid.IntRange(0, 2).Draw(rt, "filters") {
			dim := rapid.SampledFrom(allowed).Draw(rt, "filter dimension")
			op := rapid.SampledFrom([]string{"eq", "ne", "in", "not_in"}).Draw(rt, "op")
			n := 1
			if op == "in" || op == "not_in" {
				n = rapid.IntRange(1, 3).Draw(rt, "values")
			}
			vs := make([]any, n)
			for i := range vs {
				vs[i] = rapid.SampledFrom(values[dim]).Draw(rt, "value")
			}
			filters = append(filters, map[string]any{"dimension": dim, "op": op, "values": vs})
		}
		if filters != nil {
			params["filters"] = filters
		}
		start := base.Add(time.Duration(rapid.IntRange(-24, 72).Draw(rt, "start hour")) * time.Hour)
		end := start.Add(time.Duration(rapid.IntRange(0, 96).Draw(rt, "hours")) * time.Hour)
		params["start"], params["end"] = start.Format(tool.TimestampLayout), end.Format(tool.TimestampLayout)
		if g := rapid.SampledFrom([]string{"", "none", "day", "week"}).Draw(rt, "grain"); g != "" {
			params["grain"] = g
		}
		if rapid.Bool().Draw(rt, "by value") {
			params["order"] = map[string]any{"by": "value", "desc": rapid.Bool().Draw(rt, "desc")}
			if rapid.Bool().Draw(rt, "limited") {
				params["limit"] = float64(rapid.IntRange(1, 4).Draw(rt, "limit"))
			}
		}
		scope := tool.AllStores()
		var scoped []string
		if rapid.Bool().Draw(rt, "scoped") {
			scoped = rapid.SliceOfNDistinct(rapid.SampledFrom(zones), 1, 3, rapid.ID[string]).Draw(rt, "scope")
			scope = tool.StoresOnly(scoped...)
		}
		a := e.Pipeline.Call(pipeline.WithScope(t.Context(), scope), tool.Proposal{Tool: shape.QueryMetric, Params: params})
		outcomes[a.Outcome()]++
		b := inSQL.Pipeline.Call(pipeline.WithScope(t.Context(), scope), tool.Proposal{Tool: shape.QueryMetric, Params: params})
		if b.Outcome() != a.Outcome() {
			rt.Fatalf("re-derived in SQL: outcome %s (%s), in Go %s", b.Outcome(), b.Reason(), a.Outcome())
		}
		if v, ok := b.Verdict(); ok && !v.OK() {
			rt.Fatalf("re-derived in SQL: verdict %+v", v)
		}
		va, _ := a.Value()
		vb, _ := b.Value()
		if !reflect.DeepEqual(va, vb) {
			rt.Fatalf("re-derived in SQL: value %v, in Go %v", vb, va)
		}
		switch a.Outcome() {
		case answer.Answered, answer.Absence:
			if v, ok := a.Verdict(); !ok || !v.OK() {
				rt.Fatalf("%s without a full verdict: %+v", a.Outcome(), v)
			}
			if scoped != nil && len(dims) > 0 && dims[0] == "zone" {
				val, _ := a.Value()
				for _, r := range val.Table.Rows {
					if r[0].Valid && !strings.Contains(strings.Join(scoped, ","), r[0].Text) {
						rt.Fatalf("zone %s outside the scope %v", r[0].Text, scoped)
					}
				}
			}
		case answer.Rejected:
			if !strings.Contains(a.Reason().String(), "parameter ") {
				rt.Fatalf("rejection names no field: %s", a.Reason())
			}
		default:
			rt.Fatalf("outcome %s (%s) for %s", a.Outcome(), a.Reason(), fmt.Sprint(params))
		}
	})
}
