package metrictest

import (
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
)

// RunEdges checks, on random datasets derived by shape.Derive with
// checkpoints every 1 to 6 rows (so that windows start at, just after and
// between checkpoints; rows on whole hours, so that a window often starts
// at a row's time and a checkpoint's), and random requests, that the edge
// bounds (metric.Options.Edges, shape.MetricEdges) change no answer:
//
//   - the compiled query bounded by the checkpoints returns exactly the
//     table of the compiled query without them, and so does the one
//     answered from the value rollups, whose edges are bounded alike;
//   - RederiveSQL bounded by the checkpoint before returns exactly the table and
//     the keys of RederiveSQL without it, and RederiveValues (its edges
//     and spot check) the table of RederiveValues without it.
func RunEdges(t *testing.T, b Backend) {
	for _, file := range Catalogs {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			cat := LoadCatalog(t, file)
			db := b.Open(t)
			n, asked := 0, 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				ctx := t.Context()
				sm := cat.SemanticModels[0]
				ds := cat.Dataset(sm.Dataset.Value)
				rows := genRows(rt, ds)
				for i := range rows {
					if rapid.IntRange(0, 3).Draw(rt, "off the hour") == 0 {
						rows[i].at = rows[i].at.Add(time.Duration(rapid.IntRange(1, 3599).Draw(rt, "second")) * time.Second)
					}
				}
				rel := "ed_" + strconv.Itoa(n)
				if err := loadRows(ctx, db, ds, rel, rows); err != nil {
					rt.Fatal(err)
				}
				every := rapid.IntRange(1, 6).Draw(rt, "every")
				deriveIn(ctx, rt, db, func(tx *sql.Tx) error {
					return shape.Derive(ctx, tx, ds, rel, &shape.DeriveOptions{Every: every, RollupValues: true, Catalog: cat})
				})
				opts := &metric.Options{
					Relations: map[string]string{ds.Name.Value: rel}, References: loadReferences(ctx, rt, db, cat, sm, ds, "edref_"+strconv.Itoa(n)),
					ValidTo: map[string]string{ds.Name.Value: ValidTo},
				}
				bounded := *opts
				bounded.Edges = map[string]metric.EdgeBound{ds.Name.Value: shape.MetricEdges(rel)}
				vals := *opts
				vals.ValueRollups = map[string]metric.ValueRollup{ds.Name.Value: shape.MetricValueRollup(cat, ds, rel)}
				valsBounded := vals
				valsBounded.Edges = bounded.Edges
				for range 4 {
					m := rapid.SampledFrom(cat.Metrics).Draw(rt, "metric")
					req := genRequest(rt, cat, sm, ds, m)
					if len(rows) > 0 && rapid.Bool().Draw(rt, "start at a row") {
						// A window starting at a row's time, a checkpoint's
						// when the row is one's: a row whose validity ends
						// exactly at the start is LAG's, not the window's.
						req.Start = rapid.SampledFrom(rows).Draw(rt, "row").at
						if !req.End.After(req.Start) {
							req.End = req.Start.Add(time.Duration(rapid.IntRange(1, 30).Draw(rt, "hours")) * time.Hour)
						}
					}
					asked++
					want := compiled(rt, ctx, db, cat, req, opts)
					if got := compiled(rt, ctx, db, cat, req, &bounded); tableDiff(got, want) != "" {
						rt.Fatalf("compiled with the checkpoints' bound differs (%s):\n%s\nwant\n%s", tableDiff(got, want), showTable(got), showTable(want))
					}
					if metric.Plannable(cat, req, &vals) {
						if got := compiled(rt, ctx, db, cat, req, &valsBounded); tableDiff(got, want) != "" {
							rt.Fatalf("compiled from the value rollups with the checkpoints' bound differs (%s):\n%s\nwant\n%s", tableDiff(got, want), showTable(got), showTable(want))
						}
						w, err := metric.RederiveValues(ctx, db, cat, req, &vals)
						if err != nil {
							rt.Fatalf("rederive values: %v", err)
						}
						g, err := metric.RederiveValues(ctx, db, cat, req, &valsBounded)
						if err != nil {
							rt.Fatalf("rederive values with the earlier checkpoint's bound: %v", err)
						}
						if d := tableDiff(g, w); d != "" {
							rt.Fatalf("RederiveValues with the earlier checkpoint's bound differs (%s):\n%s\nwant\n%s", d, showTable(g), showTable(w))
						}
					}
					w, err := metric.RederiveSQL(ctx, db, cat, req, opts)
					if err != nil {
						rt.Fatalf("rederive: %v", err)
					}
					g, err := metric.RederiveSQL(ctx, db, cat, req, &bounded)
					if err != nil {
						rt.Fatalf("rederive with the earlier checkpoint's bound: %v", err)
					}
					if d := tableDiff(g, w); d != "" {
						rt.Fatalf("RederiveSQL with the earlier checkpoint's bound differs (%s):\n%s\nwant\n%s", d, showTable(g), showTable(w))
					}
					if !slices.Equal(g.Keys, w.Keys) {
						rt.Fatalf("RederiveSQL with the earlier checkpoint's bound lists keys %v, want %v", g.Keys, w.Keys)
					}
				}
			})
			t.Logf("%d requests over %d cases", asked, n)
		})
	}
}

// RunEdgeCases checks the edge bounds at their boundaries on the
// warehouse catalog, with a checkpoint at every row (Every 1): a window
// starting exactly at a row's time (and a checkpoint's), whose series'
// previous row, before the window, ends its validity exactly at the start
// and is FAULT like it (so the row is no fault entry: LAG must see the
// previous row); and a window starting between rows, whose series' latest
// row before it reaches into it (observed time). The bounded compiled
// query and re-derivation must give the unbounded ones' tables and the
// hand-computed values.
func RunEdgeCases(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	sm := cat.SemanticModels[0]
	ds := cat.Dataset(sm.Dataset.Value)
	db := b.Open(t)
	ctx := t.Context()
	row := func(key, device, status string, at time.Time) genRow { return statusRow(ds, key, device, status, at) }
	h := func(n int) time.Time { return base.Add(time.Duration(n) * time.Hour) }
	rows := []genRow{
		row("k-01", "dev-0001", "FAULT", h(0)),
		row("k-02", "dev-0002", "RUNNING", h(1)),
		row("k-03", "dev-0002", "RUNNING", h(2)),
		row("k-04", "dev-0001", "FAULT", h(3)), // the window's first row; its previous row is FAULT
		row("k-05", "dev-0002", "RUNNING", h(4)),
		row("k-06", "dev-0003", "FAULT", h(5)),
		row("k-07", "dev-0002", "RUNNING", h(6)),
		row("k-08", "dev-0003", "FAULT", h(7)),
	}
	const rel = "edcase"
	if err := loadRows(ctx, db, ds, rel, rows); err != nil {
		t.Fatal(err)
	}
	deriveIn(ctx, t, db, func(tx *sql.Tx) error {
		return shape.Derive(ctx, tx, ds, rel, &shape.DeriveOptions{Every: 1, RollupValues: true, Catalog: cat})
	})
	opts := &metric.Options{Relations: map[string]string{ds.Name.Value: rel}, ValidTo: map[string]string{ds.Name.Value: ValidTo}}
	bounded := *opts
	bounded.Edges = map[string]metric.EdgeBound{ds.Name.Value: shape.MetricEdges(rel)}
	vals := *opts
	vals.ValueRollups = map[string]metric.ValueRollup{ds.Name.Value: shape.MetricValueRollup(cat, ds, rel)}
	vals.SpotHours = -1
	valsBounded := vals
	valsBounded.Edges = bounded.Edges
	tests := []struct {
		name       string
		metric     string
		start, end time.Time
		want       float64
	}{
		// k-04 is no entry (k-01 before it was FAULT); k-06 is; k-08 is not.
		{"a window starting at a checkpoint's row", "fault_count", h(3), h(8), 1},
		{"the same, its head a partial hour", "fault_count", h(3), h(7).Add(30 * time.Minute), 1},
		// Every row before 03:30 reaching into [03:30, 05:30): dev-0001's
		// k-04 (2 h), dev-0002's k-03 then k-05 (2 h); dev-0003 from 05:00.
		{"a window starting between rows", "observed_time", h(3).Add(30 * time.Minute), h(5).Add(30 * time.Minute), 4.5 * 3600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := metric.Request{Metric: tt.metric, Start: tt.start, End: tt.end, Scope: metric.All()}
			for _, o := range []struct {
				name string
				o    *metric.Options
			}{{"compiled", opts}, {"compiled, bounded", &bounded}, {"compiled from the value rollups, bounded", &valsBounded}} {
				q, err := metric.Compile(cat, req, o.o)
				if err != nil {
					t.Fatal(err)
				}
				tab, err := q.Run(ctx, db)
				if err != nil {
					t.Fatalf("%s: %v", o.name, err)
				}
				if len(tab.Rows) != 1 || tab.Rows[0].Value == nil || *tab.Rows[0].Value != tt.want {
					t.Errorf("%s: %s, want %g", o.name, showTable(tab), tt.want)
				}
			}
			for _, o := range []struct {
				name string
				o    *metric.Options
			}{{"rederived", opts}, {"rederived, bounded", &bounded}} {
				tab, err := metric.RederiveSQL(ctx, db, cat, req, o.o)
				if err != nil {
					t.Fatalf("%s: %v", o.name, err)
				}
				if len(tab.Rows) != 1 || tab.Rows[0].Value == nil || *tab.Rows[0].Value != tt.want {
					t.Errorf("%s: %s, want %g", o.name, showTable(tab), tt.want)
				}
			}
			if metric.Plannable(cat, req, &valsBounded) {
				tab, err := metric.RederiveValues(ctx, db, cat, req, &valsBounded)
				if err != nil {
					t.Fatal(err)
				}
				if len(tab.Rows) != 1 || tab.Rows[0].Value == nil || *tab.Rows[0].Value != tt.want {
					t.Errorf("RederiveValues, bounded: %s, want %g", showTable(tab), tt.want)
				}
			}
		})
	}
	// A checkpoint at fault: dev-0002's row left out of the checkpoint
	// at 03:00, the last before a window starting at 03:30. The compiled
	// query, which reads that checkpoint, loses k-03's half hour; the
	// re-derivation, which reads the checkpoint before it, does not: the
	// two disagree, so the answer would not ship.
	t.Run("a checkpoint at fault", func(t *testing.T) {
		if _, err := db.ExecContext(ctx, "DELETE FROM "+ingest.Quote(rel+"__cp")+" WHERE device_id = 'dev-0002' AND _cp = (SELECT _cp FROM "+
			ingest.Quote(rel+"__cpi")+" WHERE _cp_ts = CAST($1 AS TIMESTAMP))", h(3).Format("2006-01-02 15:04:05")); err != nil {
			t.Fatal(err)
		}
		req := metric.Request{Metric: "observed_time", Start: h(3).Add(30 * time.Minute), End: h(5).Add(30 * time.Minute), Scope: metric.All()}
		q, err := metric.Compile(cat, req, &bounded)
		if err != nil {
			t.Fatal(err)
		}
		got, err := q.Run(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		re, err := metric.RederiveSQL(ctx, db, cat, req, &bounded)
		if err != nil {
			t.Fatal(err)
		}
		if tableDiff(got, re) == "" {
			t.Errorf("the compiled query over a checkpoint at fault agrees with the re-derivation:\n%s", showTable(got))
		}
		if len(re.Rows) != 1 || re.Rows[0].Value == nil || *re.Rows[0].Value != 4.5*3600 {
			t.Errorf("re-derived over a checkpoint at fault: %s, want %g", showTable(re), 4.5*3600)
		}
	})
}

// statusRow is a row of the warehouse catalog's dataset: device's status
// at an instant, its other entities the pools' first and its attributes
// fixed.
func statusRow(ds *catalog.Dataset, key, device, status string, at time.Time) genRow {
	r := genRow{key: key, at: at, vals: map[string]any{}}
	for _, e := range ds.Entities {
		r.vals[e.Column.Value] = pools[e.Name.Value][0]
	}
	r.vals["device_id"] = device
	for _, a := range ds.Attributes {
		switch {
		case a.Optional:
			r.vals[a.Column.Value] = nil
		case a.Enumerated():
			r.vals[a.Column.Value] = a.Values[0].Value
		case a.Type.Value == "integer":
			r.vals[a.Column.Value] = int64(50)
		default:
			r.vals[a.Column.Value] = 20.0
		}
	}
	r.vals["status"] = status
	return r
}
