package metrictest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/metric"
)

// pools are the ids random rows draw from, by entity name, and the
// reference values of joined dimensions.
var pools = map[string][]string{
	"store": {"st-001", "st-002", "st-003"}, "product": {"pr-001", "pr-002", "pr-003", "pr-004"},
	"device": {"dev-0001", "dev-0002", "dev-0003", "dev-0004"}, "zone": {"zone-01", "zone-02", "zone-03"},
}

// base is the first instant of generated rows: a Saturday at 10:00, so
// that the 60 hours after it cross days, a month (February 1) and a week
// (Monday February 2).
var base = time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC)

// RunProperty checks, on random small datasets of both example catalogs
// and random requests (metric, dimensions, filters, window, grain, order,
// limit, scope), that the compiled SQL run on b equals the Go
// re-derivation (metric.Verify at the metric's tolerance).
func RunProperty(t *testing.T, b Backend) {
	for _, file := range Catalogs {
		t.Run(strings.TrimSuffix(file, ".yaml"), func(t *testing.T) {
			cat := LoadCatalog(t, file)
			db := b.Open(t)
			n := 0
			rapid.Check(t, func(rt *rapid.T) {
				n++
				sm := cat.SemanticModels[0]
				ds := cat.Dataset(sm.Dataset.Value)
				rel := "ev_" + strconv.Itoa(n)
				opts := &metric.Options{Relations: map[string]string{ds.Name.Value: rel}, References: loadReferences(t.Context(), rt, db, cat, sm, ds, "ref_"+strconv.Itoa(n))}
				rows := genRows(rt, ds)
				if err := loadRows(t.Context(), db, ds, rel, rows); err != nil {
					rt.Fatal(err)
				}
				m := rapid.SampledFrom(cat.Metrics).Draw(rt, "metric")
				req := genRequest(rt, cat, sm, ds, m)
				q, err := metric.Compile(cat, req, opts)
				if err != nil {
					rt.Fatalf("compile: %v", err)
				}
				got, err := q.Run(t.Context(), db)
				if err != nil {
					rt.Fatalf("run: %v\n%s", err, q.SQL)
				}
				want, err := metric.Rederive(t.Context(), db, cat, req, opts)
				if err != nil {
					rt.Fatalf("rederive: %v", err)
				}
				if err := metric.Verify(req, got, want, m.ToleranceOf()); err != nil {
					rt.Fatalf("%v\nSQL: %s\nargs: %v", err, q.SQL, q.Args)
				}
				// The SQL re-derivation, over the raw rows (sequenced by
				// numbering) and over their validity intervals, agrees with
				// both, groups, values and keys; so does Resolve on either
				// side of its threshold.
				whole := req
				whole.Limit, whole.Order = 0, metric.Order{}
				intervals := *opts
				intervals.ValidTo = map[string]string{ds.Name.Value: ValidTo}
				// The compiled query over the rows that reach the window
				// (its LEAD and LAG over them alone) gives the same table.
				qv, err := metric.Compile(cat, req, &intervals)
				if err != nil {
					rt.Fatalf("compile with intervals: %v", err)
				}
				gotv, err := qv.Run(t.Context(), db)
				if err != nil {
					rt.Fatalf("run with intervals: %v\n%s", err, qv.SQL)
				}
				if err := metric.Verify(req, gotv, want, m.ToleranceOf()); err != nil {
					rt.Fatalf("compiled with intervals: %v\nSQL: %s", err, qv.SQL)
				}
				small, large := *opts, *opts
				small.MaxGoRows, large.MaxGoRows = 1000, 1
				for _, v := range []struct {
					name string
					run  func() (*metric.Table, error)
				}{
					{"sql", func() (*metric.Table, error) { return metric.RederiveSQL(t.Context(), db, cat, req, opts) }},
					{"sql with intervals", func() (*metric.Table, error) { return metric.RederiveSQL(t.Context(), db, cat, req, &intervals) }},
					{"resolve in go", func() (*metric.Table, error) { return metric.Resolve(t.Context(), db, cat, req, &small) }},
					{"resolve in sql", func() (*metric.Table, error) { return metric.Resolve(t.Context(), db, cat, req, &large) }},
				} {
					re, err := v.run()
					if err != nil {
						rt.Fatalf("%s: %v", v.name, err)
					}
					if err := metric.Verify(req, got, re, m.ToleranceOf()); err != nil {
						rt.Fatalf("%s: compiled: %v", v.name, err)
					}
					if err := metric.Verify(whole, want, re, m.ToleranceOf()); err != nil {
						rt.Fatalf("%s: go: %v", v.name, err)
					}
					if !slices.Equal(re.Keys, want.Keys) {
						rt.Fatalf("%s: keys %v, go %v", v.name, re.Keys, want.Keys)
					}
					// A defect: one value moved beyond the tolerance is caught.
					for i, row := range got.Rows {
						if row.Value == nil {
							continue
						}
						bad := *got
						bad.Rows = slices.Clone(got.Rows)
						x := *row.Value + 1 + 2*m.ToleranceOf()*max(1, *row.Value)
						bad.Rows[i].Value = &x
						if metric.Verify(req, &bad, re, m.ToleranceOf()) == nil {
							rt.Fatalf("%s: a moved value at %d passed", v.name, i)
						}
						break
					}
				}
			})
		})
	}
}

type genRow struct {
	key  string
	at   time.Time
	vals map[string]any // column → value (nil for empty)
}

// genRows draws up to 40 rows over 60 hourly instants (so ties in time
// are common) with fixed-width keys.
func genRows(t *rapid.T, ds *catalog.Dataset) []genRow {
	n := rapid.IntRange(0, 40).Draw(t, "rows")
	seen := map[string]bool{}
	var out []genRow
	for range n {
		k := fmt.Sprintf("k-%04d", rapid.IntRange(0, 9999).Draw(t, "key"))
		r := genRow{key: k, at: base.Add(time.Duration(rapid.IntRange(0, 59).Draw(t, "hour")) * time.Hour), vals: map[string]any{}}
		for _, e := range ds.Entities {
			r.vals[e.Column.Value] = rapid.SampledFrom(pools[e.Name.Value]).Draw(t, e.Name.Value)
		}
		for _, a := range ds.Attributes {
			switch {
			case a.Optional && rapid.Bool().Draw(t, "null"):
				r.vals[a.Column.Value] = nil
			case a.Enumerated():
				r.vals[a.Column.Value] = rapid.SampledFrom(refValues(a.Values)).Draw(t, a.Name.Value)
			case a.Type.Value == "integer":
				r.vals[a.Column.Value] = int64(rapid.IntRange(0, 100).Draw(t, a.Name.Value))
			default:
				r.vals[a.Column.Value] = float64(rapid.IntRange(0, 200).Draw(t, a.Name.Value)) / 2
			}
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

func refValues(rs []catalog.Ref) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Value
	}
	return out
}

// ValidTo is the validity end column loadRows adds: each row's series'
// next row's time (by time, then key), computed here in Go, or a far
// future for a series' latest row (what shape.Derive's _valid_to holds).
const ValidTo = "_valid_to"

// loadRows creates table rel in the layout ingest gives ds, plus ValidTo,
// and inserts rows with plain INSERTs (the property test makes a table per
// case).
func loadRows(ctx context.Context, db *sql.DB, ds *catalog.Dataset, rel string, rows []genRow) error {
	cols := []string{ds.Key.Value, ds.Time.Value}
	defs := []string{ingest.Quote(ds.Key.Value) + " VARCHAR NOT NULL", ingest.Quote(ds.Time.Value) + " TIMESTAMP NOT NULL"}
	for _, e := range ds.Entities {
		cols = append(cols, e.Column.Value)
		defs = append(defs, ingest.Quote(e.Column.Value)+" VARCHAR NOT NULL")
	}
	for _, a := range ds.Attributes {
		cols = append(cols, a.Column.Value)
		typ := "VARCHAR"
		switch {
		case a.Enumerated():
		case a.Type.Value == "integer":
			typ = "BIGINT"
		default:
			typ = "DOUBLE PRECISION"
		}
		defs = append(defs, ingest.Quote(a.Column.Value)+" "+typ)
	}
	defs = append(defs, ingest.Quote(ValidTo)+" TIMESTAMP")
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+ingest.Quote(rel)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	validTo := validity(ds, rows)
	for i, r := range rows {
		args := []any{r.key, r.at.UTC().Format("2006-01-02 15:04:05")}
		ph := []string{"$1", "CAST($2 AS TIMESTAMP)"}
		for _, c := range cols[2:] {
			args = append(args, r.vals[c])
			ph = append(ph, "$"+strconv.Itoa(len(args)))
		}
		args = append(args, validTo[i].UTC().Format("2006-01-02 15:04:05"))
		ph = append(ph, "CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
		cols := append(slices.Clone(cols), ValidTo)
		var qc []string
		for _, c := range cols {
			qc = append(qc, ingest.Quote(c))
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO "+ingest.Quote(rel)+" ("+strings.Join(qc, ", ")+") VALUES ("+strings.Join(ph, ", ")+")", args...); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
	}
	return nil
}

// validity returns each row's validity end: its series' next row's time,
// by time then key, or 9999-12-31 for the latest.
func validity(ds *catalog.Dataset, rows []genRow) []time.Time {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	seriesOf := func(r genRow) string {
		var b strings.Builder
		for _, e := range ds.SeriesEntities() {
			fmt.Fprintf(&b, "%v\x00", r.vals[e.Column.Value])
		}
		return b.String()
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := rows[a], rows[b]
		if c := strings.Compare(seriesOf(x), seriesOf(y)); c != 0 {
			return c
		}
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return strings.Compare(x.key, y.key)
	})
	out := make([]time.Time, len(rows))
	for j, i := range idx {
		out[i] = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
		if j+1 < len(idx) && seriesOf(rows[idx[j+1]]) == seriesOf(rows[i]) {
			out[i] = rows[idx[j+1]].at
		}
	}
	return out
}

// loadReference creates entity e's reference table as rel: some of the
// pool's ids (a missing id leaves its joined dimensions empty), each with
// a random value of every joined dimension.
func loadReference(ctx context.Context, db *sql.DB, cat *catalog.Catalog, sm *catalog.SemanticModel, e *catalog.Entity, rel string, t *rapid.T) error {
	r := e.Reference
	cols := []string{r.ID.Value, r.DisplayName.Value}
	cols = append(cols, refValues(r.Columns)...)
	var defs []string
	for i, c := range cols {
		d := ingest.Quote(c) + " VARCHAR"
		if i == 0 {
			d += " NOT NULL PRIMARY KEY"
		}
		defs = append(defs, d)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+ingest.Quote(rel)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return fmt.Errorf("create reference: %w", err)
	}
	for _, id := range pools[e.Name.Value] {
		if rapid.IntRange(0, 4).Draw(t, "missing") == 0 {
			continue
		}
		args := []any{id, "name of " + id}
		for _, c := range r.Columns {
			var vals []string
			for _, d := range sm.Dimensions {
				if d.Entity.Value == e.Name.Value && d.Column.Value == c.Value {
					vals = refValues(d.Values)
				}
			}
			if len(vals) == 0 {
				vals = []string{"a", "b"}
			}
			// Two values of the pool, so groups form.
			args = append(args, rapid.SampledFrom(vals[:min(2, len(vals))]).Draw(t, c.Value))
		}
		var ph []string
		for i := range args {
			ph = append(ph, "$"+strconv.Itoa(i+1))
		}
		var qc []string
		for _, c := range cols {
			qc = append(qc, ingest.Quote(c))
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO "+ingest.Quote(rel)+" ("+strings.Join(qc, ", ")+") VALUES ("+strings.Join(ph, ", ")+")", args...); err != nil {
			return fmt.Errorf("insert reference: %w", err)
		}
	}
	return nil
}

// genRequest draws a valid request for m.
func genRequest(t *rapid.T, cat *catalog.Catalog, sm *catalog.SemanticModel, ds *catalog.Dataset, m *catalog.Metric) metric.Request {
	allowed := refValues(m.Dimensions)
	req := metric.Request{Metric: m.Name.Value, Scope: metric.All()}
	for _, d := range allowed {
		if len(req.Dimensions) < 2 && rapid.IntRange(0, 2).Draw(t, "dim?") == 0 {
			req.Dimensions = append(req.Dimensions, d)
		}
	}
	if rapid.Bool().Draw(t, "shuffle") {
		slices.Reverse(req.Dimensions)
	}
	for range rapid.IntRange(0, 2).Draw(t, "filters") {
		d := sm.Dimension(rapid.SampledFrom(allowed).Draw(t, "filter dim"))
		vals := dimensionValues(ds, sm, d)
		op := rapid.SampledFrom(metric.Ops()).Draw(t, "op")
		var vs []string
		if op == "eq" || op == "ne" {
			vs = []string{rapid.SampledFrom(vals).Draw(t, "value")}
		} else {
			vs = rapid.SliceOfNDistinct(rapid.SampledFrom(vals), 1, 3, rapid.ID[string]).Draw(t, "values")
		}
		req.Filters = append(req.Filters, metric.Filter{Dimension: d.Name.Value, Op: op, Values: vs})
	}
	a := rapid.IntRange(-2, 62).Draw(t, "start")
	b := rapid.IntRange(a+1, 64).Draw(t, "end")
	req.Start, req.End = base.Add(time.Duration(a)*time.Hour), base.Add(time.Duration(b)*time.Hour)
	if rapid.Bool().Draw(t, "minutes") {
		req.Start = req.Start.Add(30 * time.Minute)
	}
	if m.Grain.Value != catalog.GrainNone {
		var gs []string
		for _, g := range catalog.Grains() {
			if g == catalog.GrainNone || catalog.GrainRank(g) >= catalog.GrainRank(m.Grain.Value) {
				gs = append(gs, g)
			}
		}
		req.Grain = rapid.SampledFrom(gs).Draw(t, "grain")
	}
	switch rapid.IntRange(0, 3).Draw(t, "order") {
	case 1:
		req.Order = metric.Order{By: metric.OrderValue, Desc: rapid.Bool().Draw(t, "desc")}
		req.Limit = rapid.IntRange(0, 3).Draw(t, "limit")
	case 2:
		if len(req.Dimensions) > 0 {
			req.Order = metric.Order{By: rapid.SampledFrom(req.Dimensions).Draw(t, "by"), Desc: rapid.Bool().Draw(t, "desc")}
		}
	}
	if rapid.Bool().Draw(t, "scoped") {
		scope := ds.Entity(cat.ScopeEntity.Value)
		req.Scope = metric.Only(rapid.SliceOfNDistinct(rapid.SampledFrom(pools[scope.Name.Value]), 0, 2, rapid.ID[string]).Draw(t, "scope")...)
	}
	return req
}

// dimensionValues returns the values a filter on d may take in generated
// data.
func dimensionValues(ds *catalog.Dataset, sm *catalog.SemanticModel, d *catalog.Dimension) []string {
	if d.Entity.Value != "" {
		vals := refValues(d.Values)
		return vals[:min(3, len(vals))]
	}
	for _, e := range ds.Entities {
		if e.Column.Value == d.Column.Value {
			return pools[e.Name.Value]
		}
	}
	for _, a := range ds.Attributes {
		if a.Column.Value == d.Column.Value {
			return refValues(a.Values)
		}
	}
	return nil
}

// loadReferences loads a reference table for every entity of ds that
// declares one, named prefix_ENTITY, and returns the entity → table map
// a metric.Options takes.
func loadReferences(ctx context.Context, rt *rapid.T, db *sql.DB, cat *catalog.Catalog, sm *catalog.SemanticModel, ds *catalog.Dataset, prefix string) map[string]string {
	refs := map[string]string{}
	for _, e := range ds.Entities {
		if e.Reference == nil {
			continue
		}
		ref := prefix + "_" + e.Name.Value
		refs[e.Name.Value] = ref
		if err := loadReference(ctx, db, cat, sm, e, ref, rt); err != nil {
			rt.Fatal(err)
		}
	}
	return refs
}

// deriveIn runs derive in a transaction of its own and commits it.
func deriveIn(ctx context.Context, rt interface{ Fatal(...any) }, db *sql.DB, derive func(*sql.Tx) error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		rt.Fatal(err)
	}
	defer tx.Rollback()
	if err := derive(tx); err != nil {
		rt.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		rt.Fatal(err)
	}
}
