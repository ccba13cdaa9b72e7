package metric

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/internal/sqlcond"
)

// DefaultMaxGoRows is the most rows Resolve lets the Go re-derivation
// read; beyond it, it re-derives in SQL. Measured on the warehouse demo
// (20,000 rows, DuckDB, a week by zone): Rederive 70 to 77 ms,
// RederiveSQL 16 to 25 ms; the Go re-derivation pays for moving every
// row through database/sql.
const DefaultMaxGoRows = 5000

// ResolveFromRollups is the least span of whole hours for which Resolve,
// given SkipKeys and value rollups, re-derives by RederiveValues; a
// shorter window is re-derived from the rows alone (RederiveSQL or
// Rederive), which also checks every stored hour the compiled query
// summed. Measured at 10,000,000 events on DuckDB (one client, medians
// of 15): an eight-hour shift took 25.4 ms by RederiveSQL without keys
// and 83.8 ms by RederiveValues, a week 141.6 ms and 33.9 ms.
const ResolveFromRollups = 24 * time.Hour

// DefaultResolveRows is the most contributing rows (Options.KnownRows)
// for which Resolve re-derives a request's values from the rows
// (RederiveSQL) although the value rollups answer it: below it, the rows'
// one statement costs less than RederiveValues's six (its last stored
// hour, the spot check's stored and recomputed hours, the stored hours,
// the head and the tail) and checks every hour the compiled query summed,
// not one. Measured on DuckDB, one client, medians of 15
// (bench/results/scale-metric-valroll-phases-duckdb.md): the demo's week
// (16,620 rows) 10.0 ms from the rows and 26.6 ms by RederiveValues;
// 1,000,000 events, a week (189,280 rows) 25.3 and 24.9 ms; 10,000,000
// events, a week (1,895,061 rows) 141.6 and 33.9 ms.
const DefaultResolveRows = 100_000

// Resolve re-derives req's table for a resolver: with Options.SkipKeys,
// from the value rollups (RederiveValues) when they answer it, its
// whole hours span at least Options.ResolveFrom (ResolveFromRollups when
// 0) and the contributing rows
// are not known to be few (Options.KnownRows above Options.ResolveRows);
// otherwise by Rederive (in Go) when
// the rows it would read, those before the window's end, are at most
// Options.MaxGoRows (DefaultMaxGoRows when 0; a negative value always
// chooses SQL), else by RederiveSQL. Both give every group and the
// contributing rows' keys. Counting the rows reads at most MaxGoRows+1 of
// them.
func Resolve(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options) (*Table, error) {
	r, err := resolve(cat, req)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	if o.SkipKeys {
		few := o.ResolveRows
		if few == 0 {
			few = DefaultResolveRows
		}
		from := o.ResolveFrom
		if from <= 0 {
			from = ResolveFromRollups
		}
		if p, ok := planValues(r, o); ok && p.f.Sub(p.a) >= from && (few < 0 || o.KnownRows <= 0 || o.KnownRows > few) {
			return RederiveValues(ctx, db, cat, req, o)
		}
	}
	limit := o.MaxGoRows
	if limit == 0 {
		limit = DefaultMaxGoRows
	}
	if limit > 0 {
		rel, err := datasetRelation(r, o)
		if err != nil {
			return nil, err
		}
		q := "SELECT COUNT(*) FROM (SELECT 1 AS one FROM " + quoteName(rel) + " x WHERE x." + ident(r.ds.Time.Value) +
			" < CAST($1 AS TIMESTAMP) LIMIT " + strconv.Itoa(limit+1) + ") n"
		var n int
		if err := queryRow(ctx, db, q, r.req.End.UTC().Format(sqlTime)).Scan(&n); err != nil {
			return nil, fmt.Errorf("resolve metric: count rows: %w", err)
		}
		if n <= limit {
			return Rederive(ctx, db, cat, req, o)
		}
	}
	return RederiveSQL(ctx, db, cat, req, o)
}

// queryRow runs a query expected to return one row.
func queryRow(ctx context.Context, db Querier, q string, args ...any) *rowScanner {
	rows, err := db.QueryContext(ctx, q, args...)
	return &rowScanner{rows: rows, err: err}
}

type rowScanner struct {
	rows *sql.Rows
	err  error
}

func (s *rowScanner) Scan(dest ...any) error {
	if s.err != nil {
		return s.err
	}
	defer s.rows.Close()
	if !s.rows.Next() {
		if err := s.rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := s.rows.Scan(dest...); err != nil {
		return err
	}
	return s.rows.Close()
}

// RederiveSQL computes the table Compile's query computes by a second SQL
// formulation, planned differently, for inputs too large for Rederive:
//
//   - a series' rows are sequenced by numbering them (ROW_NUMBER, ascending)
//     and joining each row to its neighbours by number (a self-join),
//     where Compile reads them with LEAD and LAG and takes the latest by a
//     descending ROW_NUMBER;
//   - on a relation with validity intervals (Options.ValidTo: each row's
//     next row's time, which shape.Derive computes at import), it reads
//     only the rows that reach into the window (time before its end,
//     validity end at or after its start: the window's rows and one row
//     per series before it), a row's duration is its interval clipped to
//     the window, and a series' latest row before the end is the one
//     whose interval holds it; an entries measure finds a row's
//     predecessor as the row whose interval ends at the row's time (a
//     join, no sort: byInterval), and numbers the rows instead when rows
//     it admits share a series and a time, which intervals cannot order;
//     with Options.Edges, the rows before the window are
//     looked for from the checkpoint before the one Compile reads
//     (sqlRederiver.reaching);
//   - the measures are aggregated per group in SQL, the metric's formula,
//     the order and the running total are computed in Go (the code
//     Rederive uses).
//
// The contributing rows' keys are read by a second query (the window's
// rows, or those reaching into it, that the scope and the filters admit),
// sorted in Go. The table has every group (no limit), sorted by
// dimensions then bucket.
func RederiveSQL(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options) (*Table, error) {
	r, err := resolve(cat, req)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	g := &sqlRederiver{r: r, o: o, validTo: o.ValidTo[r.ds.Name.Value]}
	t, err := g.readGroups(ctx, db)
	if err != nil {
		return nil, err
	}
	if o.SkipKeys {
		return t, nil
	}
	g.args = nil
	keysSQL, err := g.keysSQL()
	if err != nil {
		return nil, err
	}
	if t.Keys, err = readKeys(ctx, db, keysSQL, g.args); err != nil {
		return nil, err
	}
	return t, nil
}

// sqlRederiver renders RederiveSQL's queries.
type sqlRederiver struct {
	r       *resolved
	o       *Options
	validTo string // the validity end column, "" when the relation has none
	// numbered makes an entries measure on a relation with validity
	// intervals find each row's predecessor by numbering the rows
	// (ROW_NUMBER) rather than by the intervals (byInterval): the
	// formulation for rows that share a series and a time.
	numbered bool
	params
}

// byIntervals reports whether the aggregate query finds rows'
// predecessors by their validity intervals, and so reports ties.
func (g *sqlRederiver) byIntervals() bool {
	return g.validTo != "" && g.hasEntries() && !g.numbered && !g.onlyRows()
}

func (g *sqlRederiver) onlyRows() bool {
	k := g.kinds()
	return len(k) == 1 && k[kindRows]
}

func (g *sqlRederiver) at(which string) string {
	t := g.r.req.End
	if which == "start" {
		t = g.r.req.Start
	}
	return g.instant(t)
}

func (g *sqlRederiver) kinds() map[int]bool {
	k := map[int]bool{}
	for _, m := range g.r.measures {
		k[kindOf(m)] = true
	}
	return k
}

// hasEntries reports whether a measure needs each row's predecessor.
func (g *sqlRederiver) hasEntries() bool {
	for _, m := range g.r.measures {
		if m.Agg.Value == catalog.AggEntries {
			return true
		}
	}
	return false
}

func (g *sqlRederiver) hasDuration() bool {
	for _, m := range g.r.measures {
		if m.Agg.Value == catalog.AggDuration {
			return true
		}
	}
	return false
}

// base renders the candidate rows as a derived table of the columns the
// computation reads, plus, as needed, _nx (the next row's time, null when
// none), _last (1 for the series' latest row before the end) and _pv<i>
// (1 when the row's predecessor meets entries measure i's filter).
func (g *sqlRederiver) base(forKeys bool) (string, error) {
	r, ds := g.r, g.r.ds
	rel, err := datasetRelation(r, g.o)
	if err != nil {
		return "", err
	}
	kinds := g.kinds()
	ts, key := ident(ds.Time.Value), ident(ds.Key.Value)
	need := r.columns()
	cols := []string{key, ts}
	for _, e := range ds.Entities {
		if need[e.Column.Value] && !slices.Contains(cols, ident(e.Column.Value)) {
			cols = append(cols, ident(e.Column.Value))
		}
	}
	for _, a := range ds.Attributes {
		if need[a.Column.Value] && !slices.Contains(cols, ident(a.Column.Value)) {
			cols = append(cols, ident(a.Column.Value))
		}
	}
	var series []string
	for _, e := range ds.SeriesEntities() {
		series = append(series, ident(e.Column.Value))
	}
	sel := func(alias string) string {
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = alias + "." + c
		}
		return strings.Join(out, ", ")
	}
	if g.onlyRows() {
		return "(SELECT " + sel("x") + " FROM " + quoteName(rel) + " x WHERE x." + ts + " >= " + g.at("start") +
			" AND x." + ts + " < " + g.at("end") + ")", nil
	}
	entries := g.hasEntries() && !forKeys
	var where string
	if g.validTo != "" {
		vt := ident(g.validTo)
		src := g.reaching(rel, append(slices.Clone(cols), vt))
		where = "x." + ts + " < " + g.at("end") + " AND x." + vt + " >= " + g.at("start")
		// The validity end, and the latest flag, straight from the
		// interval; no sequencing unless a measure counts entries.
		extra := ", x." + vt + " AS _nx, CASE WHEN x." + vt + " >= " + g.at("end") + " THEN 1 ELSE 0 END AS _last"
		if !entries {
			return "(SELECT " + sel("x") + extra + " FROM " + src + " x WHERE " + where + ")", nil
		}
		rows := "(SELECT " + sel("x") + extra + " FROM " + src + " x WHERE " + where + ")"
		if !g.numbered {
			return g.byInterval(rows, cols, series)
		}
		num := "(SELECT " + sel("x") + extra + ", ROW_NUMBER() OVER (PARTITION BY " + prefixed("x", series) +
			" ORDER BY x." + ts + ", x." + key + ") AS _i FROM " + src + " x WHERE " + where + ")"
		return g.joined(num, cols, series, false, true)
	}
	// No intervals: number every row before the end within its series,
	// count the series, and join each row to its neighbours by number.
	where = "x." + ts + " < " + g.at("end")
	num := "(SELECT " + sel("x") + ", ROW_NUMBER() OVER (PARTITION BY " + prefixed("x", series) +
		" ORDER BY x." + ts + ", x." + key + ") AS _i, COUNT(*) OVER (PARTITION BY " + prefixed("x", series) +
		") AS _n FROM " + quoteName(rel) + " x WHERE " + where + ")"
	return g.joined(num, cols, series, kinds[kindSeq] && g.hasDuration(), entries)
}

// reaching renders the candidate rows of relation rel on a relation with
// validity intervals and checkpoints (Options.Edges), with the columns
// cols: the latest row of every series at the checkpoint before the one
// Compile reads (the last checkpoint strictly before the last one strictly
// before the window's start) and the rows after it. A row before the start
// whose validity reaches it is the latest of its series at that
// checkpoint when not after it (the caller's condition on the validity
// keeps it only when it does). Compile bounds the same rows by the next
// checkpoint (compiler.reaching), so a checkpoint at fault shows as a
// disagreement. Without checkpoints, rel itself.
func (g *sqlRederiver) reaching(rel string, cols []string) string {
	ds := g.r.ds
	b, ok := g.o.Edges[ds.Name.Value]
	if !ok || b.Checkpoints == "" || b.CheckpointIndex == "" {
		return quoteName(rel)
	}
	cpi := quoteName(b.CheckpointIndex)
	// The executor's checkpoint's time, then the one before it.
	before := func() string {
		return "(SELECT MAX(_cp_ts) FROM " + cpi + " WHERE _cp_ts < " + g.at("start") + ")"
	}
	sel := strings.Join(cols, ", ")
	return "(SELECT " + sel + " FROM " + quoteName(b.Checkpoints) + " WHERE _cp = (SELECT COALESCE(MAX(_cp), 0) FROM " + cpi + " WHERE _cp_ts < " + before() +
		") UNION ALL SELECT " + sel + " FROM " + quoteName(rel) + " WHERE " + ident(ds.Time.Value) + " > COALESCE((SELECT MAX(_cp_ts) FROM " + cpi +
		" WHERE _cp_ts < " + before() + "), CAST('0001-01-01 00:00:00' AS TIMESTAMP)))"
}

func prefixed(alias string, cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = alias + "." + c
	}
	return strings.Join(out, ", ")
}

// byInterval joins the candidate rows (with _nx, their validity end, and
// _last) to their predecessors by the validity intervals alone, with no
// sort: a row's predecessor is the row of its series whose interval ends
// at the row's time. Only the last row before that time has it, unless
// rows share the time: then the rows before the last of them end there
// too, and which one precedes a row is decided by keys. The join admits
// any such row other than the row itself, so a row with an earlier row at
// its time joins more than one and is marked (_tie); the caller re-runs
// the query by numbering (sqlRederiver.numbered), whose result then
// stands. A row joined to the wrong predecessor is always marked: its
// time's first row, which precedes it, ends at that time too.
func (g *sqlRederiver) byInterval(rows string, cols, series []string) (string, error) {
	r := g.r
	ts, key := ident(r.ds.Time.Value), ident(r.ds.Key.Value)
	var sel, on []string
	for _, c := range cols {
		sel = append(sel, "c."+c)
	}
	sel = append(sel, "c._nx", "c._last")
	for _, s := range series {
		on = append(on, "p."+s+" = c."+s)
	}
	on = append(on, "p._nx = c."+ts, "p."+ts+" <= c."+ts, "p."+key+" <> c."+key)
	pv, err := g.predecessorMet("p", "p."+key)
	if err != nil {
		return "", err
	}
	sel = append(sel, pv...)
	sel = append(sel, "CASE WHEN p."+ts+" = c."+ts+" THEN 1 ELSE 0 END AS _tie")
	return "(SELECT " + strings.Join(sel, ", ") + " FROM " + rows + " c LEFT JOIN " + rows + " p ON " +
		strings.Join(on, " AND ") + ")", nil
}

// joined joins the numbered rows num to their next row (next: _nx from it;
// otherwise from the interval already in num) and their predecessor
// (prev: _pv<i> per entries measure).
func (g *sqlRederiver) joined(num string, cols, series []string, next, prev bool) (string, error) {
	r := g.r
	var sel []string
	for _, c := range cols {
		sel = append(sel, "c."+c)
	}
	var from strings.Builder
	from.WriteString(num + " c")
	on := func(alias, delta string) string {
		var eq []string
		for _, s := range series {
			eq = append(eq, alias+"."+s+" = c."+s)
		}
		return strings.Join(eq, " AND ") + " AND " + alias + "._i = c._i " + delta
	}
	if g.validTo != "" {
		sel = append(sel, "c._nx", "c._last")
	} else {
		sel = append(sel, "CASE WHEN c._i = c._n THEN 1 ELSE 0 END AS _last")
		if next {
			sel = append(sel, "nx."+ident(r.ds.Time.Value)+" AS _nx")
			from.WriteString(" LEFT JOIN " + num + " nx ON " + on("nx", "+ 1"))
		} else {
			sel = append(sel, "CAST(NULL AS TIMESTAMP) AS _nx")
		}
	}
	if prev {
		from.WriteString(" LEFT JOIN " + num + " pv ON " + on("pv", "- 1"))
		pv, err := g.predecessorMet("pv", "pv._i")
		if err != nil {
			return "", err
		}
		sel = append(sel, pv...)
	}
	return "(SELECT " + strings.Join(sel, ", ") + " FROM " + from.String() + ")", nil
}

// predecessorMet renders, per entries measure i, _pv<i>: 1 when the
// predecessor joined as alias meets the measure's filter, 0 when it does
// not or when there is none (present is null: nothing met before the
// row).
func (g *sqlRederiver) predecessorMet(alias, present string) ([]string, error) {
	var sel []string
	for i, m := range g.r.measures {
		if m.Agg.Value != catalog.AggEntries {
			continue
		}
		met := "1"
		if p := predicateOf(g.r.ds, m); p != nil {
			x, err := g.predicate(alias, p)
			if err != nil {
				return nil, err
			}
			met = "CASE WHEN " + x + " THEN 1 ELSE 0 END"
		}
		sel = append(sel, "CASE WHEN "+present+" IS NULL THEN 0 ELSE "+met+" END AS _pv"+strconv.Itoa(i))
	}
	return sel, nil
}

func (g *sqlRederiver) predicate(alias string, p *catalog.Predicate) (string, error) {
	x, err := sqlcond.Predicate(g.r.ds, alias, p, func(v string) string { return g.param(v) })
	if err != nil {
		return "", fmt.Errorf("rederive metric in SQL: %w", err)
	}
	return x, nil
}

// secs renders the seconds row t holds inside the window: its column
// _secs, which admitted computes once per candidate row (secsOf) for
// the window's condition and every duration measure to read.
func (g *sqlRederiver) secs() string { return "t._secs" }

// secsOf renders the seconds the row aliased b holds inside the window, a
// double (date_part: PostgreSQL's EXTRACT gives a numeric, which costs a
// fifth of an hour's re-derivation there, bench/results/datepart-pg.md).
// Written once per row rather than in every column that reads it: on
// DuckDB the repeated expression cost a week's head or tail edge about
// half its time (bench/results/stmtcuts.md).
func (g *sqlRederiver) secsOf(b string) string {
	ts := b + "." + ident(g.r.ds.Time.Value)
	end := g.at("end")
	start := g.at("start")
	return "date_part('epoch', (CASE WHEN " + b + "._nx IS NULL OR " + b + "._nx > " + end + " THEN " + end + " ELSE " + b + "._nx END - CASE WHEN " +
		ts + " < " + start + " THEN " + start + " ELSE " + ts + " END))"
}

// admitted renders, for one kind, the contributing rows of base t: the
// kind's own condition, the scope and the filters, with the reference
// joins the dimensions need. It returns the FROM ... WHERE text and the
// dimension expressions.
func (g *sqlRederiver) admitted(kind int, base string) (string, []string, error) {
	r, ds := g.r, g.r.ds
	ts := "t." + ident(ds.Time.Value)
	var where []string
	switch kind {
	case kindRows:
		where = append(where, ts+" >= "+g.at("start"))
	case kindLatest:
		where = append(where, "t._last = 1")
	case kindSeq:
		in := ts + " >= " + g.at("start")
		if g.hasDuration() {
			in = "(" + in + " OR " + g.secs() + " > 0)"
		}
		where = append(where, in)
	}
	joins := map[string]string{}
	var joinSQL strings.Builder
	dimExpr := func(d *catalog.Dimension) (string, error) {
		if d.Entity.Value == "" {
			return "t." + ident(d.Column.Value), nil
		}
		alias, ok := joins[d.Entity.Value]
		if !ok {
			e := ds.Entity(d.Entity.Value)
			rel, err := referenceRelation(e, g.o)
			if err != nil {
				return "", err
			}
			alias = "f" + strconv.Itoa(len(joins))
			joins[d.Entity.Value] = alias
			joinSQL.WriteString(" LEFT JOIN " + quoteName(rel) + " " + alias + " ON t." + ident(e.Column.Value) + " = " +
				alias + "." + ident(e.Reference.ID.Value))
		}
		return alias + "." + ident(d.Column.Value), nil
	}
	var dims []string
	for _, d := range r.dims {
		x, err := dimExpr(d)
		if err != nil {
			return "", nil, err
		}
		dims = append(dims, x)
	}
	if !r.req.Scope.all {
		if len(r.req.Scope.values) == 0 {
			where = append(where, "1 = 0")
		} else {
			where = append(where, "t."+ident(r.scope.Column.Value)+" IN "+g.list(r.req.Scope.values))
		}
	}
	for _, f := range r.filters {
		x, err := dimExpr(f.dim)
		if err != nil {
			return "", nil, err
		}
		switch f.Op {
		case "eq":
			where = append(where, x+" IN ("+g.param(f.Values[0])+")")
		case "ne":
			where = append(where, x+" NOT IN ("+g.param(f.Values[0])+")")
		case "in":
			where = append(where, x+" IN "+g.list(f.Values))
		case "not_in":
			where = append(where, x+" NOT IN "+g.list(f.Values))
		}
	}
	if kind == kindSeq && g.hasDuration() {
		// OFFSET 0 keeps the derived table a table: PostgreSQL pulls a
		// plain subquery up into its parent and writes its expression in
		// at every reference of _secs, so each row's seconds were
		// computed once per measure column and once for the window's
		// condition (a 10,000,000-event hour's statement 18.4 ms, 11.7
		// with the fence; bench/results/secs-fence-pg.md).
		base = "(SELECT b.*, " + g.secsOf("b") + " AS _secs FROM " + base + " b OFFSET 0)"
	}
	return " FROM " + base + " t" + joinSQL.String() + " WHERE " + strings.Join(where, " AND "), dims, nil
}

func (g *sqlRederiver) list(vs []string) string {
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = g.param(v)
	}
	return "(" + strings.Join(ph, ", ") + ")"
}

// aggregateSQL renders one query of the groups and every measure: per
// kind, the admitted rows' contributions aggregated per group, the kinds
// joined by a union and grouped again.
func (g *sqlRederiver) aggregateSQL() (string, error) {
	r := g.r
	bucketed := r.grain != catalog.GrainNone
	var parts []string
	for _, kind := range []int{kindRows, kindLatest, kindSeq} {
		var idx []int
		for i, m := range r.measures {
			if kindOf(m) == kind {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		base, err := g.base(false)
		if err != nil {
			return "", err
		}
		from, dims, err := g.admitted(kind, base)
		if err != nil {
			return "", err
		}
		var sel, group []string
		for i, x := range dims {
			sel = append(sel, "CAST("+x+" AS VARCHAR) AS g"+strconv.Itoa(i))
			group = append(group, x)
		}
		if bucketed {
			x := "date_trunc('" + r.grain + "', t." + ident(r.ds.Time.Value) + ")"
			sel = append(sel, x+" AS gb")
			group = append(group, x)
		}
		for i, m := range r.measures {
			if !slices.Contains(idx, i) {
				for _, c := range []string{"n", "s", "lo", "hi", "dn"} {
					sel = append(sel, "CAST(NULL AS "+dbl+") AS "+c+strconv.Itoa(i))
				}
				continue
			}
			cs, err := g.measureCols(i, m)
			if err != nil {
				return "", err
			}
			sel = append(sel, cs...)
		}
		if g.byIntervals() {
			sel = append(sel, "CAST(SUM(t._tie) AS "+dbl+") AS ties")
		}
		s := "SELECT " + strings.Join(sel, ", ") + from
		if len(group) > 0 {
			s += " GROUP BY " + strings.Join(group, ", ")
		}
		parts = append(parts, s)
	}
	var outer, group []string
	for i := range r.dims {
		outer = append(outer, "u.g"+strconv.Itoa(i))
		group = append(group, "u.g"+strconv.Itoa(i))
	}
	if bucketed {
		outer = append(outer, "u.gb")
		group = append(group, "u.gb")
	}
	for i := range r.measures {
		n := strconv.Itoa(i)
		outer = append(outer, "SUM(u.n"+n+")", "SUM(u.s"+n+")", "MIN(u.lo"+n+")", "MAX(u.hi"+n+")", "SUM(u.dn"+n+")")
	}
	if g.byIntervals() {
		outer = append(outer, "SUM(u.ties)")
	}
	q := "SELECT " + strings.Join(outer, ", ") + " FROM (" + strings.Join(parts, " UNION ALL ") + ") u"
	if len(group) > 0 {
		q += " GROUP BY " + strings.Join(group, ", ")
	}
	return q, nil
}

// measureCols renders measure i's five aggregate columns over the
// admitted rows t: n (rows counted), s (their sum), lo and hi (minimum and
// maximum), dn (distinct values); those a measure does not use are null.
func (g *sqlRederiver) measureCols(i int, m *catalog.Measure) ([]string, error) {
	n := strconv.Itoa(i)
	null := "CAST(NULL AS " + dbl + ")"
	cond := "1 = 1"
	if p := predicateOf(g.r.ds, m); p != nil {
		x, err := g.predicate("t", p)
		if err != nil {
			return nil, err
		}
		cond = x
	}
	col := "t." + ident(m.Column.Value)
	num := func(x string) string { return "CAST(" + x + " AS " + dbl + ")" }
	out := func(cnt, sum, lo, hi, dn string) []string {
		return []string{cnt + " AS n" + n, sum + " AS s" + n, lo + " AS lo" + n, hi + " AS hi" + n, dn + " AS dn" + n}
	}
	switch m.Agg.Value {
	case catalog.AggCount:
		return out(num("COUNT(CASE WHEN "+cond+" THEN 1 END)"), null, null, null, null), nil
	case catalog.AggSum, catalog.AggAvg, catalog.AggMin, catalog.AggMax:
		v := "CASE WHEN " + cond + " THEN " + num(col) + " END"
		return out(num("COUNT("+v+")"), num("SUM("+v+")"), num("MIN("+v+")"), num("MAX("+v+")"), null), nil
	case catalog.AggCountDistinct:
		v := "CASE WHEN " + cond + " THEN " + col + " END"
		return out(null, null, null, null, num("COUNT(DISTINCT "+v+")")), nil
	case catalog.AggDuration:
		secs := g.secs()
		v := "CASE WHEN " + cond + " AND " + secs + " > 0 THEN " + secs + " END"
		return out(num("COUNT("+v+")"), num("SUM("+v+")"), null, null, null), nil
	case catalog.AggEntries:
		v := "CASE WHEN t." + ident(g.r.ds.Time.Value) + " >= " + g.at("start") + " AND " + cond + " AND t._pv" + n + " = 0 THEN 1 END"
		return out(num("COUNT("+v+")"), null, null, null, null), nil
	}
	return nil, fmt.Errorf("rederive metric in SQL: measure %s: unknown aggregation", m.Name.Value)
}

// readGroups runs the aggregate query and computes each group's value.
func (g *sqlRederiver) readGroups(ctx context.Context, db Querier) (*Table, error) {
	parts, err := g.aggregate(ctx, db)
	if err != nil {
		return nil, err
	}
	return g.r.finish(parts, g.r.grain != catalog.GrainNone), nil
}

// aggregate renders and runs the aggregate query and returns its rows.
// When it found predecessors by the validity intervals and a row the
// intervals cannot place (a tie in time, see byInterval) was admitted, it
// runs again numbering the rows.
func (g *sqlRederiver) aggregate(ctx context.Context, db Querier) ([]partial, error) {
	g.args = nil
	q, err := g.aggregateSQL()
	if err != nil {
		return nil, err
	}
	parts, ties, err := g.readPartials(ctx, db, q, g.args)
	if err != nil || !ties {
		return parts, err
	}
	g.numbered = true
	return g.aggregate(ctx, db)
}

// partial is one group's row of the aggregate query: its dimensions,
// bucket and five columns per measure (n, s, lo, hi, dn).
type partial struct {
	dims   []sql.NullString
	bucket sql.NullTime
	vals   []sql.NullFloat64
}

// readPartials runs the aggregate query and returns its rows, and whether
// any of them counted a tie (byIntervals).
func (g *sqlRederiver) readPartials(ctx context.Context, db Querier, q string, args []any) ([]partial, bool, error) {
	r := g.r
	bucketed := r.grain != catalog.GrainNone
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, false, fmt.Errorf("rederive metric in SQL: %w", err)
	}
	defer rows.Close()
	var out []partial
	var ties sql.NullFloat64
	tied, tiesCol := false, g.byIntervals()
	for rows.Next() {
		p := partial{dims: make([]sql.NullString, len(r.dims)), vals: make([]sql.NullFloat64, 5*len(r.measures))}
		var dest []any
		for i := range p.dims {
			dest = append(dest, &p.dims[i])
		}
		if bucketed {
			dest = append(dest, &p.bucket)
		}
		for i := range p.vals {
			dest = append(dest, &p.vals[i])
		}
		if tiesCol {
			dest = append(dest, &ties)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, false, fmt.Errorf("rederive metric in SQL: %w", err)
		}
		tied = tied || ties.Float64 > 0
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("rederive metric in SQL: %w", err)
	}
	return out, tied, nil
}

// finish computes each group's value from its partials, adds the one row
// over no rows of a table without groups, and orders the table.
func (r *resolved) finish(parts []partial, bucketed bool) *Table {
	t := &Table{Bucketed: bucketed}
	for _, d := range r.dims {
		t.Dimensions = append(t.Dimensions, d.Name.Value)
	}
	for _, p := range parts {
		row := Row{Dims: make([]*string, len(p.dims))}
		for i, d := range p.dims {
			if d.Valid {
				s := d.String
				row.Dims[i] = &s
			}
		}
		if t.Bucketed && p.bucket.Valid {
			row.Bucket = p.bucket.Time.UTC()
		}
		mv := map[string]*float64{}
		for i, m := range r.measures {
			get := func(j int) float64 { return p.vals[5*i+j].Float64 }
			var v float64
			switch m.Agg.Value {
			case catalog.AggCount, catalog.AggEntries:
				v = get(0)
			case catalog.AggSum, catalog.AggDuration:
				v = get(1)
			case catalog.AggCountDistinct:
				v = get(4)
			case catalog.AggAvg, catalog.AggMin, catalog.AggMax:
				if get(0) == 0 {
					mv[m.Name.Value] = nil
					continue
				}
				switch m.Agg.Value {
				case catalog.AggAvg:
					v = get(1) / get(0)
				case catalog.AggMin:
					v = get(2)
				default:
					v = get(3)
				}
			}
			mv[m.Name.Value] = &v
		}
		row.Value = r.metricValue(r.metric, mv, 0)
		t.Rows = append(t.Rows, row)
	}
	if len(r.dims) == 0 && !t.Bucketed && len(t.Rows) == 0 {
		// No group at all: the one row over no rows.
		mv := map[string]*float64{}
		for _, m := range r.measures {
			mv[m.Name.Value] = measureValue(m, acc{})
		}
		t.Rows = append(t.Rows, Row{Dims: []*string{}, Value: r.metricValue(r.metric, mv, 0)})
	}
	r.order(t)
	return t
}

// keysSQL renders the query of the contributing rows' keys: per kind, the
// rows it admits, in a union.
func (g *sqlRederiver) keysSQL() (string, error) {
	r := g.r
	var parts []string
	for _, kind := range []int{kindRows, kindLatest, kindSeq} {
		has := false
		for _, m := range r.measures {
			has = has || kindOf(m) == kind
		}
		if !has {
			continue
		}
		base, err := g.base(true)
		if err != nil {
			return "", err
		}
		from, _, err := g.admitted(kind, base)
		if err != nil {
			return "", err
		}
		parts = append(parts, "SELECT t."+ident(r.ds.Key.Value)+" AS k"+from)
	}
	return strings.Join(parts, " UNION ALL "), nil
}

// readKeys reads the keys query q's keys and returns them sorted
// bytewise, each once. They cross as one text (string_agg, newline
// separated, with their count: one value rather than a row per key, which
// costs a microsecond a row through database/sql); a key holding a
// newline (the count disagrees) makes it read them row by row instead.
func readKeys(ctx context.Context, db Querier, q string, args []any) ([]string, error) {
	var n int64
	var all sql.NullString
	if err := queryRow(ctx, db, "SELECT COUNT(z.k), string_agg(CAST(z.k AS VARCHAR), chr(10)) FROM ("+q+") z", args...).Scan(&n, &all); err != nil {
		return nil, fmt.Errorf("rederive metric in SQL: read keys: %w", err)
	}
	var keys []string
	if all.Valid {
		keys = strings.Split(all.String, "\n")
	}
	if int64(len(keys)) != n {
		var err error
		if keys, err = readKeyRows(ctx, db, q, args); err != nil {
			return nil, err
		}
	}
	keys = slices.DeleteFunc(keys, func(k string) bool { return k == "" })
	if !slices.IsSorted(keys) {
		slices.Sort(keys)
	}
	return slices.Compact(keys), nil
}

// readKeyRows reads the keys of q row by row.
func readKeyRows(ctx context.Context, db Querier, q string, args []any) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("rederive metric in SQL: read keys: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k sql.NullString
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("rederive metric in SQL: read keys: %w", err)
		}
		if k.Valid {
			keys = append(keys, k.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rederive metric in SQL: read keys: %w", err)
	}
	return keys, nil
}
