package metrictest

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/metric"
)

// Plan returns the plan db makes of query with args, as text in which
// every expression a node computes is written out (PostgreSQL's EXPLAIN
// (VERBOSE)).
type Plan func(ctx context.Context, db *sql.DB, query string, args []any) (string, error)

// RunSecondsOnce checks, on random datasets with validity intervals and
// random requests of the warehouse catalog's metrics, that every statement
// of metric.RederiveSQL that computes a row's seconds inside the window
// (_secs, for duration measures and the window's condition) is planned by
// b to compute them once per row: the plan writes date_part out at most
// once. A planner that pulls the derived table computing _secs up into
// its parent writes the expression in at each of its references (one per
// duration column and one for the condition), and a 10,000,000-event
// hour's re-derivation then took half as long again on PostgreSQL.
func RunSecondsOnce(t *testing.T, b Backend, plan Plan) {
	cat := LoadCatalog(t, "warehouse.yaml")
	db := b.Open(t)
	n, checked := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		ctx := t.Context()
		sm := cat.SemanticModels[0]
		ds := cat.Dataset(sm.Dataset.Value)
		rel := "so_" + strconv.Itoa(n)
		if err := loadRows(ctx, db, ds, rel, genRows(rt, ds)); err != nil {
			rt.Fatal(err)
		}
		o := &metric.Options{
			Relations: map[string]string{ds.Name.Value: rel}, References: loadReferences(ctx, rt, db, cat, sm, ds, "soref_"+strconv.Itoa(n)),
			ValidTo: map[string]string{ds.Name.Value: ValidTo}, SkipKeys: rapid.Bool().Draw(rt, "skip keys"), MaxGoRows: -1,
		}
		m := rapid.SampledFrom(cat.Metrics).Draw(rt, "metric")
		req := genRequest(rt, cat, sm, ds, m)
		rec := &recorder{db: db}
		if _, err := metric.RederiveSQL(ctx, rec, cat, req, o); err != nil {
			rt.Fatalf("rederive: %v", err)
		}
		for _, s := range rec.stmts {
			if !strings.Contains(s.query, "_secs") {
				continue
			}
			checked++
			p, err := plan(ctx, db, s.query, s.args)
			if err != nil {
				rt.Fatalf("plan: %v\n%s", err, s.query)
			}
			if c := strings.Count(p, "date_part("); c > 1 {
				rt.Fatalf("a row's seconds are written out %d times in the plan of\n%s\nplan:\n%s", c, s.query, p)
			}
		}
	})
	if checked == 0 {
		t.Error("no statement computed a row's seconds: the check checked nothing")
	}
}

type recorded struct {
	query string
	args  []any
}

// recorder runs queries on db and keeps them.
type recorder struct {
	db    *sql.DB
	stmts []recorded
}

func (r *recorder) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r.stmts = append(r.stmts, recorded{query, args})
	return r.db.QueryContext(ctx, query, args...)
}
