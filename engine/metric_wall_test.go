package engine_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// decoded is a JSON text as a surface decodes a call's arguments.
func decoded(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestQueryMetric_WallRejects: the wall refuses each bad metric call with
// a typed rejection naming the field at fault, and never echoes the
// rejected value.
func TestQueryMetric_WallRejects(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := openFixture(t, cat, cat.Metric("availability"))
	wall, _, _ := e.Parts()
	retailCat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	re, _ := openFixture(t, retailCat, retailCat.Metric("scan_count"))
	retailWall, _, _ := re.Parts()
	const window = `"start": "2026-01-05T08:00:00Z", "end": "2026-01-05T16:00:00Z"`
	tests := []struct {
		name      string
		params    string
		scope     *tool.Scope
		kind      tool.RejectKind
		param     string
		secret    string // a value the rejection must not repeat
		wantValid bool
		retail    bool // on the retail catalog, whose stores are declared
	}{
		{name: "valid", params: `{"metric": "availability", "dimensions": ["zone"], ` + window + `}`, wantValid: true},
		{name: "valid with every parameter", params: `{"metric": "fault_count", "dimensions": ["device"], "filters": [{"dimension": "zone", "op": "in", "values": ["zone-01", "zone-02"]}], "grain": "day", "order": {"by": "value", "desc": true}, "limit": 2, ` + window + `}`, wantValid: true},
		{name: "unknown metric", params: `{"metric": "uptime_secret", ` + window + `}`, kind: tool.Invalid, param: "metric", secret: "uptime_secret"},
		{name: "dimension of no metric", params: `{"metric": "availability", "dimensions": ["shoe_size"], ` + window + `}`, kind: tool.Invalid, param: "dimensions[0]", secret: "shoe_size"},
		{name: "dimensions not an array", params: `{"metric": "availability", "dimensions": "zone", ` + window + `}`, kind: tool.Invalid, param: "dimensions"},
		{name: "repeated dimension", params: `{"metric": "availability", "dimensions": ["zone", "zone"], ` + window + `}`, kind: tool.Invalid, param: "dimensions[1]"},
		{name: "unknown operator", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "regex", "values": ["zone-01"]}], ` + window + `}`, kind: tool.Invalid, param: "filters[0].op", secret: "regex"},
		{name: "eq with two values", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["zone-01", "zone-02"]}], ` + window + `}`, kind: tool.Invalid, param: "filters[0].values"},
		{name: "declared store", params: `{"metric": "scan_count", "filters": [{"dimension": "store", "op": "eq", "values": ["st-001"]}], ` + window + `}`, retail: true, wantValid: true},
		{name: "undeclared store", params: `{"metric": "scan_count", "filters": [{"dimension": "store", "op": "in", "values": ["st-001", "st-987"]}], ` + window + `}`, retail: true, kind: tool.Invalid, param: "filters[0].values[1]", secret: "st-987"},
		{name: "undeclared category", params: `{"metric": "scan_count", "filters": [{"dimension": "category", "op": "eq", "values": ["toys"]}], ` + window + `}`, retail: true, kind: tool.Invalid, param: "filters[0].values[0]", secret: "toys"},
		{name: "store outside the scope", params: `{"metric": "scan_count", "filters": [{"dimension": "store", "op": "eq", "values": ["st-001"]}], ` + window + `}`, retail: true, scope: ptr(tool.StoresOnly("st-002")), kind: tool.OutOfScope, param: "filters[0].values[0]"},
		{name: "device id of the wrong pattern", params: `{"metric": "availability", "filters": [{"dimension": "device", "op": "eq", "values": ["device_7"]}], ` + window + `}`, kind: tool.Invalid, param: "filters[0].values[0]", secret: "device_7"},
		{name: "undeclared attribute value", params: `{"metric": "availability", "filters": [{"dimension": "device_type", "op": "eq", "values": ["ROBOTX"]}], ` + window + `}`, kind: tool.Invalid, param: "filters[0].values[0]", secret: "ROBOTX"},
		{name: "filter key not declared", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["zone-01"], "column": "zone_id"}], ` + window + `}`, kind: tool.Invalid, param: "filters[0]", secret: "zone_id"},
		{name: "filter without op", params: `{"metric": "availability", "filters": [{"dimension": "zone", "values": ["zone-01"]}], ` + window + `}`, kind: tool.Invalid, param: "filters[0].op"},
		{name: "query in a filter value", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["zone-01' OR 1=1 --"]}], ` + window + `}`, kind: tool.RawQuery, param: "filters", secret: "OR 1=1"},
		{name: "reversed window", params: `{"metric": "availability", "start": "2026-01-05T16:00:00Z", "end": "2026-01-05T08:00:00Z"}`, kind: tool.Invalid, param: "start"},
		{name: "empty window", params: `{"metric": "availability", "start": "2026-01-05T08:00:00Z", "end": "2026-01-05T08:00:00Z"}`, kind: tool.Invalid, param: "window"},
		{name: "bad instant", params: `{"metric": "availability", "start": "2026-02-30T08:00:00Z", "end": "2026-03-05T08:00:00Z"}`, kind: tool.Invalid, param: "start", secret: "2026-02-30"},
		{name: "missing end", params: `{"metric": "availability", "start": "2026-01-05T08:00:00Z"}`, kind: tool.Invalid, param: "end"},
		{name: "grain finer than the metric", params: `{"metric": "availability", "grain": "day", ` + window + `}`, kind: tool.Invalid, param: "grain"},
		{name: "unknown grain", params: `{"metric": "fault_count", "grain": "hour", ` + window + `}`, kind: tool.Invalid, param: "grain", secret: "hour"},
		{name: "limit without order by value", params: `{"metric": "availability", "dimensions": ["zone"], "limit": 1, ` + window + `}`, kind: tool.Invalid, param: "limit"},
		{name: "limit out of range", params: `{"metric": "availability", "limit": 123456, "order": {"by": "value"}, ` + window + `}`, kind: tool.Invalid, param: "limit", secret: "123456"},
		{name: "limit not an integer", params: `{"metric": "availability", "limit": 1.5, "order": {"by": "value"}, ` + window + `}`, kind: tool.Invalid, param: "limit"},
		{name: "order by an unrequested dimension", params: `{"metric": "availability", "order": {"by": "zone"}, ` + window + `}`, kind: tool.Invalid, param: "order"},
		{name: "unexpected parameter", params: `{"metric": "availability", "sql": "x", ` + window + `}`, kind: tool.Invalid},
		{name: "filter on a zone outside the scope", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["zone-01"]}], ` + window + `}`, scope: ptr(tool.StoresOnly("zone-02")), kind: tool.OutOfScope, param: "filters[0].values[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scope := tool.AllStores()
			if tt.scope != nil {
				scope = *tt.scope
			}
			w := wall
			if tt.retail {
				w = retailWall
			}
			_, err := w.CheckScoped(tool.Proposal{Tool: shape.QueryMetric, Params: decoded(t, tt.params)}, scope)
			if tt.wantValid {
				if err != nil {
					t.Fatalf("CheckScoped = %v, want a call", err)
				}
				return
			}
			rej, ok := tool.IsRejection(err)
			if !ok {
				t.Fatalf("CheckScoped = %v, want a rejection", err)
			}
			if rej.Kind != tt.kind || rej.Param != tt.param {
				t.Errorf("rejection %s %q (%s), want %s %q", rej.Kind, rej.Param, rej.Reason, tt.kind, tt.param)
			}
			if tt.secret != "" && strings.Contains(rej.Error(), tt.secret) {
				t.Errorf("rejection %q echoes the rejected value", rej.Error())
			}
		})
	}
}

// tamper is an executor whose results are altered before the resolver
// sees them.
type tamper struct {
	pipeline.Executor
	alter func(fact.Result) fact.Result
}

func (x tamper) Execute(ctx context.Context, c tool.Call) (fact.Result, error) {
	r, err := x.Executor.Execute(ctx, c)
	if err != nil {
		return r, err
	}
	return x.alter(r), nil
}

// TestQueryMetric_Defects: a metric result altered after the executor (a
// value changed, a row dropped, a row invented, a contributing row left
// out of the provenance) fails the verdict and never ships as answered.
func TestQueryMetric_Defects(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := openFixture(t, cat, cat.Metric("availability"))
	wall, exec, res := e.Parts()
	params := `{"metric": "availability", "dimensions": ["device"], "start": "2026-01-05T08:00:00Z", "end": "2026-01-05T16:00:00Z"}`
	withTable := func(r fact.Result, f func(*fact.Table) *fact.Table) fact.Result {
		old := r.Value.Table
		rows := make([][]fact.Cell, len(old.Rows))
		for i, row := range old.Rows {
			rows[i] = append([]fact.Cell(nil), row...)
		}
		nt := f(&fact.Table{Columns: old.Columns, Rows: rows})
		out, err := fact.NewResult(r.Tool, r.Args, fact.TableValue(nt), r.Provenance)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name  string
		alter func(fact.Result) fact.Result
		value bool // the value clause still holds
		prov  bool // the provenance clause still holds
	}{
		{"honest", func(r fact.Result) fact.Result { return r }, true, true},
		{"value changed", func(r fact.Result) fact.Result {
			return withTable(r, func(t *fact.Table) *fact.Table {
				t.Rows[0][1] = fact.NumberCell(t.Rows[0][1].Num + 0.01)
				return t
			})
		}, false, true},
		{"row dropped", func(r fact.Result) fact.Result {
			return withTable(r, func(t *fact.Table) *fact.Table { t.Rows = t.Rows[1:]; return t })
		}, false, true},
		{"row invented", func(r fact.Result) fact.Result {
			return withTable(r, func(t *fact.Table) *fact.Table {
				t.Rows = append(t.Rows, []fact.Cell{fact.TextCell("dev-0099"), fact.NumberCell(0.5)})
				return t
			})
		}, false, true},
		{"group relabelled", func(r fact.Result) fact.Result {
			return withTable(r, func(t *fact.Table) *fact.Table { t.Rows[0][0] = fact.TextCell("dev-0099"); return t })
		}, false, true},
		{"a contributing row left out", func(r fact.Result) fact.Result {
			ids := r.Provenance.EventIDs()
			p, err := fact.Events(ids[1:])
			if err != nil {
				t.Fatal(err)
			}
			out, err := fact.NewResult(r.Tool, r.Args, r.Value, p)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}, true, false},
		{"the compiled query left out", func(r fact.Result) fact.Result {
			return withQuery(t, r, nil)
		}, true, false},
		{"another query's hash", func(r fact.Result) fact.Result {
			return withQuery(t, r, func(q *fact.Query) { q.SQLHash = strings.Repeat("0", 64) })
		}, true, false},
		{"a table it read replaced", func(r fact.Result) fact.Result {
			return withQuery(t, r, func(q *fact.Query) { q.Tables[0] = "devices" })
		}, true, false},
		{"a table it did not read added", func(r fact.Result) fact.Result {
			return withQuery(t, r, func(q *fact.Query) { q.Tables = append(q.Tables, "zones") })
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := wall.Check(tool.Proposal{Tool: shape.QueryMetric, Params: decoded(t, params)})
			if err != nil {
				t.Fatal(err)
			}
			r, err := exec.Execute(t.Context(), c)
			if err != nil {
				t.Fatal(err)
			}
			v, err := res.Resolve(t.Context(), c, tt.alter(r))
			if err != nil {
				t.Fatal(err)
			}
			if v.ValueMatches != tt.value || v.ProvenanceValid != tt.prov {
				t.Errorf("verdict %+v, want value_matches=%t provenance_valid=%t", v, tt.value, tt.prov)
			}
			// Through a pipeline: only the honest result ships.
			p := pipeline.New(rules.Provider{}, wall, tamper{exec, tt.alter}, res, nil)
			a := p.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: decoded(t, params)})
			if got, want := a.Outcome() == answer.Answered, tt.value && tt.prov; got != want {
				t.Errorf("pipeline outcome %s (%s), want answered=%t", a.Outcome(), a.Reason(), want)
			}
		})
	}
}

// withQuery returns r with its provenance's compiled query altered by
// alter, or left out when alter is nil; the events stay as they were.
func withQuery(t *testing.T, r fact.Result, alter func(*fact.Query)) fact.Result {
	t.Helper()
	q, ok := r.Provenance.Query()
	if !ok || len(q.Tables) == 0 || slices.Contains(q.Tables, "devices") {
		t.Fatalf("provenance %+v: want a compiled query that read no devices table", q)
	}
	p, err := fact.Events(r.Provenance.EventIDs())
	if err != nil {
		t.Fatal(err)
	}
	if alter != nil {
		alter(&q)
		if p, err = p.WithQuery(q); err != nil {
			t.Fatal(err)
		}
	}
	out, err := fact.NewResult(r.Tool, r.Args, r.Value, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
