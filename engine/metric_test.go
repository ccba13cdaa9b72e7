package engine_test

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/metric"
	mfixture "github.com/provenant/provenant/metric/fixture"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
	"github.com/provenant/provenant/tool"
)

// openFixture is enginetest.OpenFixture.
func openFixture(t *testing.T, cat *catalog.Catalog, m *catalog.Metric) (*engine.Engine, *mfixture.File) {
	t.Helper()
	return enginetest.OpenFixture(t, cat, m)
}

// metricProposal is a fixture case as a query_metric call, as a client
// would send it (decoded JSON), and the caller's scope.
func metricProposal(t *testing.T, name string, r mfixture.Request) (tool.Proposal, tool.Scope) {
	t.Helper()
	args := map[string]any{
		"metric": name,
		"start":  r.Window.Start.UTC().Format(tool.TimestampLayout),
		"end":    r.Window.End.UTC().Format(tool.TimestampLayout),
	}
	if len(r.Dimensions) > 0 {
		args["dimensions"] = r.Dimensions
	}
	var filters []any
	for _, f := range r.Filters {
		filters = append(filters, map[string]any{"dimension": f.Dimension, "op": f.Op, "values": f.Values})
	}
	if filters != nil {
		args["filters"] = filters
	}
	if r.Grain != "" {
		args["grain"] = r.Grain
	}
	if r.Order.By != "" {
		args["order"] = map[string]any{"by": r.Order.By, "desc": r.Order.Desc}
	}
	if r.Limit != 0 {
		args["limit"] = r.Limit
	}
	// Round-trip through JSON, as every surface decodes a call.
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	var params map[string]any
	if err := json.Unmarshal(b, &params); err != nil {
		t.Fatal(err)
	}
	scope := tool.AllStores()
	if r.Scope != nil {
		scope = tool.StoresOnly(*r.Scope...)
	}
	return tool.Proposal{Tool: shape.QueryMetric, Params: params}, scope
}

// tableOf reads an answer's table back as a metric table.
func tableOf(t *testing.T, v fact.Value, dims int) *metric.Table {
	t.Helper()
	if v.Kind != fact.KindTable || v.Table == nil {
		t.Fatalf("value kind %s, want a table", v.Kind)
	}
	ft := v.Table
	out := &metric.Table{}
	bucketed := len(ft.Columns) == dims+2
	for _, r := range ft.Rows {
		row := metric.Row{}
		for i := range dims {
			if r[i].Valid {
				s := r[i].Text
				row.Dims = append(row.Dims, &s)
			} else {
				row.Dims = append(row.Dims, nil)
			}
		}
		if bucketed {
			row.Bucket = r[dims].Instant
		}
		if c := r[len(r)-1]; c.Valid {
			x := c.Num
			row.Value = &x
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// TestQueryMetric_Fixtures: every case of every metric fixture of both
// example catalogs, called as query_metric through the pipeline, is
// verified and its table is the fixture's hand-computed one; the code's
// sentence passes grounding against the answer's own ledger.
func TestQueryMetric_Fixtures(t *testing.T) { runFixtures(t, openFixture) }

// TestQueryMetric_FixturesPostgres is TestQueryMetric_Fixtures on
// PostgreSQL (one REPEATABLE READ snapshot per request). Skipped without
// PROVENANT_POSTGRES_DSN outside CI (pgtest).
func TestQueryMetric_FixturesPostgres(t *testing.T) {
	runFixtures(t, func(t *testing.T, cat *catalog.Catalog, m *catalog.Metric) (*engine.Engine, *mfixture.File) {
		db := pgtest.Open(t)
		src := shape.Source{DB: db, Snapshot: &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}}
		return enginetest.OpenFixtureOn(t, cat, m, src, postgres.NewSink(db, enginetest.Derived()))
	})
}

func runFixtures(t *testing.T, open func(*testing.T, *catalog.Catalog, *catalog.Metric) (*engine.Engine, *mfixture.File)) {
	for _, name := range []string{"warehouse", "retail"} {
		cat, err := catalogs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cat.Metrics {
			t.Run(name+"/"+m.Name.Value, func(t *testing.T) {
				e, fx := open(t, cat, m)
				for _, c := range fx.Cases {
					t.Run(c.Name, func(t *testing.T) {
						p, scope := metricProposal(t, m.Name.Value, c.Request)
						a := e.Pipeline.Call(pipeline.WithScope(t.Context(), scope), p)
						if a.Outcome() != answer.Answered && a.Outcome() != answer.Absence {
							t.Fatalf("outcome %s (%s)", a.Outcome(), a.Reason())
						}
						v, _ := a.Value()
						got := tableOf(t, v, len(c.Request.Dimensions))
						if err := mfixture.Compare(got, c.Expect, c.Request.Order.By != "", m.ToleranceOf()); err != nil {
							t.Errorf("table: %v", err)
						}
						if c.Keys != nil {
							prov, _ := a.Provenance()
							if prov.NumEvents() != len(c.Keys) {
								t.Errorf("provenance lists %d rows, want %d", prov.NumEvents(), len(c.Keys))
							}
						}
						if rep, ok := a.Grounding(); !ok || rep.Verdict != grounding.Pass {
							t.Errorf("grounding of %q: %+v", a.Text(), rep)
						}
					})
				}
			})
		}
	}
}

// TestQueryMetric_RowsPaged: a metric answer behind more rows than the
// provenance limit lists the first keys with the count and digest, and
// the rows pager hands out every contributing key, page by page, whose
// digest is the answer's.
func TestQueryMetric_RowsPaged(t *testing.T) {
	e := enginetest.OpenWarehouse(t, 5000, &engine.Options{ProvenanceLimit: 200})
	a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: map[string]any{
		"metric": "observed_time", "dimensions": []any{"zone"}, "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}})
	prov, ok := a.Provenance()
	if a.Outcome() != answer.Answered || !ok || prov.Complete() || prov.NumEvents() <= 200 {
		t.Fatalf("answer %s, provenance of %d rows listed in full=%t; want a large set listed in part", a.Outcome(), prov.NumEvents(), prov.Complete())
	}
	var all []string
	for page := 1; ; page++ {
		rp, err := e.RowsPage(t.Context(), a.ResultIDs()[0], page, tool.AllStores())
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		all = append(all, rp.EventIDs...)
		if page == rp.Pages {
			break
		}
	}
	if len(all) != prov.NumEvents() || fact.Digest(all) != prov.EventDigest() {
		t.Errorf("pages hold %d keys (digest %s), want %d (%s)", len(all), fact.Digest(all), prov.NumEvents(), prov.EventDigest())
	}
	if _, err := e.RowsPage(t.Context(), a.ResultIDs()[0], 1, tool.StoresOnly("zone-01")); err == nil {
		t.Error("another scope paged the rows")
	}
}

// TestQueryMetric_TableBounded: a query_metric call whose table would
// have more than metric.MaxRows rows is rejected (budget_exceeded), with
// a detail that names the bound and no argument's value; one within it is
// answered. Before the bound, a running total by store and category per
// day over 1,000 days answered 144,000 rows (a 6.6 MB body, about 300
// MB of the server's memory a call), and 64 such calls at once could
// take the machine's memory.
func TestQueryMetric_TableBounded(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	call := func(start, end string) answer.Answer {
		return e.Pipeline.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: map[string]any{
			"metric": "cumulative_scans", "dimensions": []any{"store", "category"}, "grain": "day", "start": start, "end": end}})
	}
	tests := []struct {
		name, start, end string
		rejected         bool
		rows             int // answered: 24 stores by 6 categories by the days
	}{
		{"1,000 days", "2024-01-01T00:00:00Z", "2026-09-27T00:00:00Z", true, 0},
		{"60 days", "2026-01-01T00:00:00Z", "2026-03-02T00:00:00Z", false, 8640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := call(tt.start, tt.end)
			if !tt.rejected {
				v, ok := a.Value()
				if a.Outcome() != answer.Answered || !ok || v.Table == nil {
					t.Fatalf("outcome %s (%v), want a table answered", a.Outcome(), a.Reason())
				}
				if n := len(v.Table.Rows); n != tt.rows || n > metric.MaxRows {
					t.Errorf("%d rows, want %d (at most %d)", n, tt.rows, metric.MaxRows)
				}
				return
			}
			r := a.Reason()
			if a.Outcome() != answer.Rejected || r.Kind != answer.ReasonBudgetExceeded {
				t.Fatalf("outcome %s, reason %v; want rejected, budget_exceeded", a.Outcome(), r)
			}
			if !strings.Contains(r.Detail, "more than 10000 rows") {
				t.Errorf("detail %q does not name the bound", r.Detail)
			}
			for _, v := range []string{tt.start, tt.end, "cumulative_scans", "store", "category"} {
				if strings.Contains(r.Detail, v) {
					t.Errorf("detail %q repeats an argument", r.Detail)
				}
			}
		})
	}
}
