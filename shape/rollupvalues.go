package shape

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/internal/sqlcond"
	"github.com/provenant/provenant/metric"
)

// RollupValuesSuffix names a table's per-hour value rollups:
// TABLE__rollup_values holds, for every hour (_hour) and every
// combination of the group columns (metric.ValueLayout: the non-series
// entities' columns and the enumerated attributes the semantic models
// offer as dimensions) that a row starts in or whose validity interval
// overlaps by a positive time, the rows starting in the hour (_n) and one
// column per stored measure (metric.ValueColumn): a count or entries
// measure over the rows starting in the hour, a duration measure's
// seconds of every row's interval [time, next row's time) inside the
// hour (a series' latest row open to the end of the last stored hour,
// the last hour holding a row). Built by Derive when
// DeriveOptions.RollupValues is set; metric.Compile and
// metric.RederiveValues read it (metric.ValueRollup).
const RollupValuesSuffix = "__rollup_values"

// MetricValueRollup describes the value rollups Derive builds for dataset
// ds of cat in table to metric.Options.ValueRollups.
func MetricValueRollup(cat *catalog.Catalog, ds *catalog.Dataset, table string) metric.ValueRollup {
	groups, measures := metric.ValueLayout(cat, ds)
	ru := metric.ValueRollup{Relation: table + RollupValuesSuffix, Groups: groups}
	for _, m := range measures {
		ru.Measures = append(ru.Measures, m.Name.Value)
	}
	return ru
}

// valuePart is one (hour, group) of the value rollups.
type valuePart struct {
	hour   time.Time
	groups []sql.NullString
	n      int64
	vals   []float64 // by stored measure
}

func valueID(hour time.Time, groups []sql.NullString) string {
	p := rollupPart{hour: hour, groups: groups}
	return p.id()
}

// DeriveRollupValues brings TABLE__rollup_values up to date inside tx
// (Derive calls it after the validity intervals when
// DeriveOptions.RollupValues is set). Like DeriveRollupKeys, only the
// hours from the last stored hour on are recomputed (an append later than
// the stored rows changes no earlier hour: a series' latest row was open
// to the end of the last stored hour, and its next row comes at or after
// it), after the checks of RollupValuesAgree. When a check fails (rows
// imported out of time order, a stored row altered, the catalog's layout
// changed) every hour is recomputed. A row's next row is its series' next
// by LEAD, not _valid_to, so that a wrong interval shows as a
// disagreement with metric.RederiveValues's spot check.
func DeriveRollupValues(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string) error {
	rvName := table + RollupValuesSuffix
	rvRel := quoteName(rvName)
	groups, measures := metric.ValueLayout(cat, ds)
	fail := func(what string, err error) error {
		return fmt.Errorf("derive %s: rollup values: %s: %w", table, what, err)
	}
	cols := []string{"_hour"}
	cols = append(cols, groups...)
	cols = append(cols, "_n")
	for _, m := range measures {
		cols = append(cols, metric.ValueColumn(m.Name.Value))
	}
	exists, err := tableExists(ctx, tx, rvName)
	if err != nil {
		return fail("look up table", err)
	}
	if exists {
		// A table of another layout (the catalog changed) is rebuilt.
		have, err := tableColumns(ctx, tx, rvRel)
		if err != nil {
			return fail("read columns", err)
		}
		if !slices.Equal(have, cols) {
			if _, err := tx.ExecContext(ctx, "DROP TABLE "+rvRel); err != nil {
				return fail("drop table", err)
			}
			exists = false
		}
	}
	var from time.Time
	if !exists {
		sel := "CAST(NULL AS TIMESTAMP) AS _hour"
		for _, g := range groups {
			sel += ", " + ident(g)
		}
		sel += ", CAST(0 AS BIGINT) AS _n"
		for _, m := range measures {
			sel += ", CAST(NULL AS DOUBLE PRECISION) AS " + ident(metric.ValueColumn(m.Name.Value))
		}
		if _, err := tx.ExecContext(ctx, "CREATE TABLE "+rvRel+" AS SELECT "+sel+" FROM "+quoteName(table)+" WHERE 1 = 0"); err != nil {
			return fail("create table", err)
		}
		_, base, ok := strings.Cut(table, ".")
		if !ok {
			base = table
		}
		if _, err := tx.ExecContext(ctx, "CREATE INDEX "+ident(base+RollupValuesSuffix+"_idx")+" ON "+rvRel+" (_hour)"); err != nil {
			return fail("index", err)
		}
	} else {
		var last sql.NullTime
		if err := tx.QueryRowContext(ctx, "SELECT MAX(_hour) FROM "+rvRel).Scan(&last); err != nil {
			return fail("read last hour", err)
		}
		if last.Valid {
			ok, err := RollupValuesAgree(ctx, tx, cat, ds, table, last.Time.UTC())
			if err != nil {
				return fail("check", err)
			}
			if ok {
				from = last.Time.UTC()
			}
		}
	}
	if from.IsZero() {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+rvRel); err != nil {
			return fail("clear", err)
		}
	} else if _, err := tx.ExecContext(ctx, "DELETE FROM "+rvRel+" WHERE _hour >= CAST($1 AS TIMESTAMP)", from.Format(sqlTime)); err != nil {
		return fail("clear hours", err)
	}
	parts, err := foldValues(ctx, tx, cat, ds, table, from)
	if err != nil {
		return fail("fold rows", err)
	}
	qcols := make([]string, len(cols))
	for i, c := range cols {
		qcols[i] = ident(c)
	}
	const batch = 256
	for i := 0; i < len(parts); i += batch {
		var q strings.Builder
		q.WriteString("INSERT INTO " + rvRel + " (" + strings.Join(qcols, ", ") + ") VALUES ")
		var args []any
		ph := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		for j, p := range parts[i:min(i+batch, len(parts))] {
			if j > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(CAST(" + ph(p.hour.Format(sqlTime)) + " AS TIMESTAMP)")
			for _, g := range p.groups {
				if g.Valid {
					q.WriteString(", " + ph(g.String))
				} else {
					q.WriteString(", " + ph(nil))
				}
			}
			q.WriteString(", " + ph(p.n))
			for _, v := range p.vals {
				q.WriteString(", CAST(" + ph(v) + " AS DOUBLE PRECISION)")
			}
			q.WriteString(")")
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return fail("insert", err)
		}
	}
	return nil
}

// tableColumns returns a relation's column names in order.
func tableColumns(ctx context.Context, tx *sql.Tx, rel string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT * FROM "+rel+" WHERE 1 = 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

// flagSQL renders, per stored measure, 1 when a row (alias s) counts for
// it, else 0: its filter met and, for entries, its series' previous row
// (LAG over w) not meeting it. Parameters are appended to args.
func flagSQL(ds *catalog.Dataset, measures []*catalog.Measure, w string, args *[]any) ([]string, error) {
	bind := func(v string) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	var out []string
	for _, m := range measures {
		met := "1"
		if p := measurePredicate(ds, m); p != nil {
			x, err := sqlcond.Predicate(ds, "s", p, bind)
			if err != nil {
				return nil, err
			}
			met = "CASE WHEN " + x + " THEN 1 ELSE 0 END"
		}
		if m.Agg.Value == catalog.AggEntries {
			prev := met
			if p := measurePredicate(ds, m); p != nil {
				x, err := sqlcond.Predicate(ds, "s", p, bind)
				if err != nil {
					return nil, err
				}
				prev = "CASE WHEN " + x + " THEN 1 ELSE 0 END"
			}
			met = "CASE WHEN " + met + " = 1 AND COALESCE(LAG(" + prev + ") OVER " + w + ", 0) = 0 THEN 1 ELSE 0 END"
		}
		out = append(out, met)
	}
	return out, nil
}

// measurePredicate is the measure's filter, or its condition's predicate.
func measurePredicate(ds *catalog.Dataset, m *catalog.Measure) *catalog.Predicate {
	if m.Filter != nil {
		return m.Filter
	}
	if m.Condition.Value != "" {
		if c := ds.Condition(m.Condition.Value); c != nil {
			return &c.Predicate
		}
	}
	return nil
}

// seriesWindow is the window over a series in time, then key, order.
func seriesWindow(ds *catalog.Dataset) string {
	var series []string
	for _, e := range ds.SeriesEntities() {
		series = append(series, "s."+ident(e.Column.Value))
	}
	return "(PARTITION BY " + strings.Join(series, ", ") + " ORDER BY s." + ident(ds.Time.Value) + ", s." + ident(ds.Key.Value) + ")"
}

// foldValues computes the (hour, group) parts of the hours at or after
// from (zero: all): the rows reaching from (validity end at or after it:
// a suffix of every series, so LEAD and LAG over them are LEAD and LAG
// over all) read once with their flags and next row's time, folded in Go
// into the hours each starts in and overlaps.
func foldValues(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, from time.Time) ([]valuePart, error) {
	groups, measures := metric.ValueLayout(cat, ds)
	rel := quoteName(table)
	ts := ident(ds.Time.Value)
	var cap time.Time // the end of the last hour holding a row
	var maxTS sql.NullTime
	if err := tx.QueryRowContext(ctx, "SELECT MAX("+ts+") FROM "+rel).Scan(&maxTS); err != nil {
		return nil, err
	}
	if !maxTS.Valid {
		return nil, nil
	}
	cap = maxTS.Time.UTC().Truncate(time.Hour).Add(time.Hour)
	hasDuration := slices.ContainsFunc(measures, func(m *catalog.Measure) bool { return m.Agg.Value == catalog.AggDuration })
	var args []any
	w := seriesWindow(ds)
	flags, err := flagSQL(ds, measures, w, &args)
	if err != nil {
		return nil, err
	}
	sel := []string{"s." + ts, "LEAD(s." + ts + ") OVER " + w}
	for _, g := range groups {
		sel = append(sel, "CAST(s."+ident(g)+" AS VARCHAR)")
	}
	sel = append(sel, flags...)
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + rel + " s"
	if !from.IsZero() {
		args = append(args, from.Format(sqlTime))
		q += " WHERE s." + ident(ValidToColumn) + " >= CAST($" + strconv.Itoa(len(args)) + " AS TIMESTAMP)"
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	index := map[string]int{}
	var parts []valuePart
	part := func(h time.Time, g []sql.NullString) *valuePart {
		id := valueID(h, g)
		i, ok := index[id]
		if !ok {
			i = len(parts)
			index[id] = i
			parts = append(parts, valuePart{hour: h, groups: g, vals: make([]float64, len(measures))})
		}
		return &parts[i]
	}
	var t time.Time
	var next sql.NullTime
	g := make([]sql.NullString, len(groups))
	f := make([]int64, len(measures))
	dest := []any{&t, &next}
	for i := range g {
		dest = append(dest, &g[i])
	}
	for i := range f {
		dest = append(dest, &f[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		t = t.UTC()
		gs := slices.Clone(g)
		if !t.Before(from) {
			p := part(t.Truncate(time.Hour), gs)
			p.n++
			for i, m := range measures {
				if m.Agg.Value != catalog.AggDuration {
					p.vals[i] += float64(f[i])
				}
			}
		}
		if !hasDuration {
			continue
		}
		end := cap
		if next.Valid && next.Time.UTC().Before(cap) {
			end = next.Time.UTC()
		}
		begin := t
		if begin.Before(from) {
			begin = from
		}
		for h := begin.Truncate(time.Hour); h.Before(end); h = h.Add(time.Hour) {
			lo, hi := max64(begin, h), min64(end, h.Add(time.Hour))
			if !lo.Before(hi) {
				continue
			}
			p := part(h, gs)
			secs := float64(hi.Sub(lo).Microseconds()) / 1e6
			for i, m := range measures {
				if m.Agg.Value == catalog.AggDuration && f[i] == 1 {
					p.vals[i] += secs
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(parts, func(a, b valuePart) int { return a.hour.Compare(b.hour) })
	return parts, nil
}

// prefixedAll returns each expression of xs with every column reference
// "CAST(c" made "CAST(<p>c" (the group casts over an aliased relation).
func prefixedAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strings.Replace(x, "CAST(", "CAST("+p, 1)
	}
	return out
}

func max64(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func min64(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// RollupValuesAgree checks the stored value rollups of the hours before
// `before` against the rows: every (hour, group)'s row count and counts
// (one GROUP BY, no window), the entries of the digestCheckHours hours
// before it (LAG over the rows reaching them), and every group's
// durations summed over all those hours (one GROUP BY over the validity
// intervals clipped at `before`, to a relative 1e-9). An altered count or
// duration is found wherever it is; an altered entries value only in the
// hours checked (older ones are left to metric.RederiveValues's spot
// check and to a re-derivation from the rows over short windows).
func RollupValuesAgree(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, before time.Time) (bool, error) {
	groups, measures := metric.ValueLayout(cat, ds)
	rel, rvRel := quoteName(table), quoteName(table+RollupValuesSuffix)
	ts := ident(ds.Time.Value)
	at := before.UTC().Format(sqlTime)
	// Per (hour, group): the rows and the counts of every hour before the
	// cut (one GROUP BY, no window), and the entries of the
	// digestCheckHours hours before it (LAG over the rows reaching them: a
	// suffix of every series).
	var counts, entries []*catalog.Measure
	var countCols, entryCols []string
	for _, m := range measures {
		switch m.Agg.Value {
		case catalog.AggCount:
			counts = append(counts, m)
			countCols = append(countCols, "CAST("+ident(metric.ValueColumn(m.Name.Value))+" AS BIGINT)")
		case catalog.AggEntries:
			entries = append(entries, m)
			entryCols = append(entryCols, "CAST("+ident(metric.ValueColumn(m.Name.Value))+" AS BIGINT)")
		}
	}
	var gcast []string
	for _, g := range groups {
		gcast = append(gcast, "CAST("+ident(g)+" AS VARCHAR)")
	}
	// perHour reads rows of (hour, groups..., integers...) into a map,
	// leaving out the parts whose integers are all 0 (a stored hour a
	// row overlaps and none starts in).
	perHour := func(width int, q string, args ...any) (map[string][]int64, error) {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string][]int64{}
		for rows.Next() {
			var h time.Time
			g := make([]sql.NullString, len(groups))
			v := make([]sql.NullInt64, width)
			dest := []any{&h}
			for i := range g {
				dest = append(dest, &g[i])
			}
			for i := range v {
				dest = append(dest, &v[i])
			}
			if err := rows.Scan(dest...); err != nil {
				return nil, err
			}
			n := make([]int64, len(v))
			zero := true
			for i := range v {
				n[i] = v[i].Int64
				zero = zero && n[i] == 0
			}
			if !zero {
				out[valueID(h.UTC(), g)] = n
			}
		}
		return out, rows.Err()
	}
	same := func(a, b map[string][]int64) bool {
		if len(a) != len(b) {
			return false
		}
		for id, n := range a {
			if !slices.Equal(b[id], n) {
				return false
			}
		}
		return true
	}
	var args []any
	flags, err := flagSQL(ds, counts, "", &args)
	if err != nil {
		return false, err
	}
	args = append(args, at)
	cut := "CAST($" + strconv.Itoa(len(args)) + " AS TIMESTAMP)"
	sel := append([]string{"date_trunc('hour', s." + ts + ")"}, prefixedAll("s.", gcast)...)
	sel = append(sel, "COUNT(*)")
	for _, f := range flags {
		sel = append(sel, "SUM("+f+")")
	}
	by := []string{"date_trunc('hour', s." + ts + ")"}
	for _, g := range groups {
		by = append(by, "s."+ident(g))
	}
	got, err := perHour(1+len(counts), "SELECT "+strings.Join(sel, ", ")+" FROM "+rel+" s WHERE s."+ts+" < "+cut+" GROUP BY "+strings.Join(by, ", "), args...)
	if err != nil {
		return false, err
	}
	kept, err := perHour(1+len(counts), "SELECT "+strings.Join(append(append([]string{"_hour"}, gcast...), append([]string{"_n"}, countCols...)...), ", ")+
		" FROM "+rvRel+" WHERE _hour < CAST($1 AS TIMESTAMP)", at)
	if err != nil || !same(got, kept) {
		return false, err
	}
	if len(entries) > 0 {
		from := before.UTC().Add(-digestCheckHours * time.Hour).Format(sqlTime)
		args = nil
		flags, err := flagSQL(ds, entries, seriesWindow(ds), &args)
		if err != nil {
			return false, err
		}
		args = append(args, from, at)
		lo, hi := "CAST($"+strconv.Itoa(len(args)-1)+" AS TIMESTAMP)", "CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)"
		inner := append([]string{"s." + ts + " AS _t"}, prefixedAll("s.", gcast)...)
		for i := range inner[1:] {
			inner[1+i] += " AS _g" + strconv.Itoa(i)
		}
		outer := []string{"date_trunc('hour', x._t)"}
		oby := []string{"date_trunc('hour', x._t)"}
		for i := range groups {
			outer = append(outer, "x._g"+strconv.Itoa(i))
			oby = append(oby, "x._g"+strconv.Itoa(i))
		}
		for i, f := range flags {
			inner = append(inner, f+" AS _f"+strconv.Itoa(i))
			outer = append(outer, "SUM(x._f"+strconv.Itoa(i)+")")
		}
		got, err := perHour(len(entries), "SELECT "+strings.Join(outer, ", ")+" FROM (SELECT "+strings.Join(inner, ", ")+" FROM "+rel+" s WHERE s."+
			ident(ValidToColumn)+" >= "+lo+" AND s."+ts+" < "+hi+") x WHERE x._t >= "+lo+" GROUP BY "+strings.Join(oby, ", "), args...)
		if err != nil {
			return false, err
		}
		kept, err := perHour(len(entries), "SELECT "+strings.Join(append(append([]string{"_hour"}, gcast...), entryCols...), ", ")+
			" FROM "+rvRel+" WHERE _hour >= CAST($1 AS TIMESTAMP) AND _hour < CAST($2 AS TIMESTAMP)", from, at)
		if err != nil || !same(got, kept) {
			return false, err
		}
	}
	// Durations per group, summed over the hours before the cut.
	var durs []int
	for i, m := range measures {
		if m.Agg.Value == catalog.AggDuration {
			durs = append(durs, i)
		}
	}
	if len(durs) == 0 {
		return true, nil
	}
	args = nil
	bind := func(v string) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	args = append(args, at)
	var gsel, gby, rsel, ssel []string
	for _, g := range groups {
		gsel = append(gsel, "CAST(s."+ident(g)+" AS VARCHAR)")
		gby = append(gby, "s."+ident(g))
		ssel = append(ssel, "CAST("+ident(g)+" AS VARCHAR)")
	}
	vt := "s." + ident(ValidToColumn)
	secs := "EXTRACT(EPOCH FROM (CASE WHEN " + vt + " < CAST($1 AS TIMESTAMP) THEN " + vt + " ELSE CAST($1 AS TIMESTAMP) END - s." + ts + "))"
	for _, i := range durs {
		m := measures[i]
		cond := "1 = 1"
		if p := measurePredicate(ds, m); p != nil {
			x, err := sqlcond.Predicate(ds, "s", p, bind)
			if err != nil {
				return false, err
			}
			cond = x
		}
		rsel = append(rsel, "CAST(SUM(CASE WHEN "+cond+" THEN "+secs+" ELSE 0 END) AS DOUBLE PRECISION)")
		ssel = append(ssel, "CAST(SUM(s."+ident(metric.ValueColumn(m.Name.Value))+") AS DOUBLE PRECISION)")
	}
	groupBy := func(cols []string) string {
		if len(cols) == 0 {
			return ""
		}
		return " GROUP BY " + strings.Join(cols, ", ")
	}
	sums := func(q string, args ...any) (map[string][]float64, error) {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string][]float64{}
		for rows.Next() {
			g := make([]sql.NullString, len(groups))
			v := make([]sql.NullFloat64, len(durs))
			var dest []any
			for i := range g {
				dest = append(dest, &g[i])
			}
			for i := range v {
				dest = append(dest, &v[i])
			}
			if err := rows.Scan(dest...); err != nil {
				return nil, err
			}
			x := make([]float64, len(v))
			for i := range v {
				x[i] = v[i].Float64
			}
			out[valueID(time.Time{}, g)] = x
		}
		return out, rows.Err()
	}
	rowSums, err := sums("SELECT "+strings.Join(append(gsel, rsel...), ", ")+" FROM "+rel+" s WHERE s."+ts+" < CAST($1 AS TIMESTAMP)"+groupBy(gby), args...)
	if err != nil {
		return false, err
	}
	var sgby []string
	for _, g := range groups {
		sgby = append(sgby, "s."+ident(g))
	}
	keptSums, err := sums("SELECT "+strings.Join(ssel, ", ")+" FROM "+rvRel+" s WHERE s._hour < CAST($1 AS TIMESTAMP)"+groupBy(sgby), at)
	if err != nil {
		return false, err
	}
	zero := func(x []float64) bool { return !slices.ContainsFunc(x, func(v float64) bool { return v != 0 }) }
	for id, x := range rowSums {
		y, ok := keptSums[id]
		if !ok && zero(x) {
			continue
		}
		if !ok || len(x) != len(y) {
			return false, nil
		}
		for i := range x {
			if math.Abs(x[i]-y[i]) > 1e-9*math.Max(1, math.Abs(x[i])) {
				return false, nil
			}
		}
	}
	for id, y := range keptSums {
		if _, ok := rowSums[id]; !ok && !zero(y) {
			return false, nil
		}
	}
	return true, nil
}
