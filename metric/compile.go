package metric

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/internal/sqlcond"
)

// Options say where a catalog's datasets and reference tables live; nil
// means at their declared tables.
type Options struct {
	// Relations maps a dataset name to the table or view that holds it
	// (as shape.Source.Relations).
	Relations map[string]string
	// References maps an entity name to the table or view that holds its
	// reference (as shape.Source.References).
	References map[string]string
	// ValidTo maps a dataset name to the column of its relation that
	// holds each row's validity end (its series' next row's time, or a
	// far future for the latest row: shape.Derive's _valid_to); absent
	// when the relation has none. Compile reads it only to skip the rows
	// that end before the window (its durations and entries still come
	// from LEAD and LAG); RederiveSQL takes durations from it.
	ValidTo map[string]string
	// MaxGoRows is the most rows Resolve lets Rederive read before it
	// re-derives in SQL instead: DefaultMaxGoRows when 0, always SQL when
	// negative.
	MaxGoRows int
	// Rollups maps a dataset name to its per-hour key digests, which
	// RollupKeys sums; absent when it has none.
	Rollups map[string]Rollup
	// ValueRollups maps a dataset name to its per-hour value rollups:
	// Compile answers a request they fit (see ValueRollup) from them and
	// the window's edge rows, and Resolve, given SkipKeys, re-derives it
	// by RederiveValues; absent, neither reads them.
	ValueRollups map[string]ValueRollup
	// SpotHours is how many whole hours RederiveValues re-derives from
	// the rows to check the stored rollups: DefaultSpotHours when 0, none
	// when negative.
	SpotHours int
	// SkipKeys: RederiveSQL leaves Table.Keys empty (a caller that sums
	// them from the digests, RollupKeys, needs the values alone).
	SkipKeys bool
	// KnownRows is the number of the request's contributing rows when
	// the caller has counted them itself (the resolver's own summation of
	// the key digests, RollupKeys); 0 when unknown. Resolve, given
	// SkipKeys, re-derives from the rows rather than the value rollups
	// when it is at most ResolveRows.
	KnownRows int
	// ResolveRows is the most contributing rows (KnownRows) for which
	// Resolve re-derives the values from the rows even when the value
	// rollups answer the request: DefaultResolveRows when 0, never (the
	// rollups whenever they answer) when negative.
	ResolveRows int
	// ResolveFrom is the least span of whole hours for which Resolve
	// re-derives from the value rollups (given the rows are not few, as
	// above): ResolveFromRollups when 0. A database that reads rows
	// slowly against its statements' fixed cost (PostgreSQL) gains from a
	// shorter span; the stored hours the spot check does not cover are
	// then trusted as the compiled query trusts them.
	ResolveFrom time.Duration
	// Edges maps a dataset name (one with ValidTo) to the structures
	// that bound the reads of the rows reaching into a window from
	// before it (see EdgeBound); absent, those rows are found by their
	// validity alone among every row before the window's end, which a
	// time index (PostgreSQL's) reads from the first row.
	Edges map[string]EdgeBound
	// KeyOrder, when set, renders a text expression so that the database
	// orders it bytewise (PostgreSQL: COLLATE "C"), for the key floors'
	// MIN (Rollup.Floors, Rollup.CheckFloors); nil: as it is, on a
	// database that orders text bytewise (DuckDB).
	KeyOrder func(expr string) string
}

// EdgeBound names the checkpoints shape.Derive keeps beside a relation
// with validity intervals (shape's TABLE__cp, the latest row of every
// series at each checkpoint, and TABLE__cpi, the checkpoints' times), which
// bound the rows reaching into a window from before it: a row before the
// start whose validity ends at or after it is the latest of its series at
// every instant in between. The compiled query and the re-derivation read
// different checkpoints:
//
//   - Compile takes the latest row of every series at the last checkpoint
//     strictly before the instant (as RollupKeys) and the rows after it;
//   - RederiveSQL (and the edges and spot check of RederiveValues) takes
//     those at the checkpoint before that one and the rows after it.
type EdgeBound struct {
	Checkpoints, CheckpointIndex string
}

// Query is a compiled request: SQL text with positional parameters ($1,
// $2, ...) and their arguments, in the subset DuckDB and PostgreSQL both
// run. Its result columns are the requested dimensions (text), then the
// bucket (a timestamp) when the grain is not none, then the value (double
// precision, null for none).
type Query struct {
	SQL  string
	Args []any
	// Dimensions are the requested dimensions, in column order.
	Dimensions []string
	// Bucketed reports whether a bucket column follows the dimensions.
	Bucketed bool
	// Tables are the tables the SQL reads, sorted.
	Tables []string

	r *resolved
}

// Hash is the SHA-256 of the SQL text, in lowercase hex: the compiled
// query's identity in provenance and logs (the arguments are not in it).
func (q *Query) Hash() string {
	h := sha256.Sum256([]byte(q.SQL))
	return hex.EncodeToString(h[:])
}

// Compile checks req against cat (a valid catalog) and renders its SQL.
// No name or value from the request is written into the SQL text: values
// are parameters, and the only identifiers are the catalog's declared
// tables and columns; the grain and the operators come from closed sets.
// A request that does not fit is a *RequestError.
func Compile(cat *catalog.Catalog, req Request, o *Options) (*Query, error) {
	r, err := resolve(cat, req)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	c := &compiler{r: r, o: o}
	render := c.render
	if p, ok := planValues(r, o); ok {
		render = func() (string, error) { return c.renderValues(p) }
	}
	sqlText, err := render()
	if err == nil {
		err = c.err
	}
	if err != nil {
		return nil, err
	}
	q := &Query{SQL: sqlText, Args: c.args, Bucketed: r.grain != catalog.GrainNone, r: r}
	for _, d := range r.dims {
		q.Dimensions = append(q.Dimensions, d.Name.Value)
	}
	for t := range c.tables {
		q.Tables = append(q.Tables, t)
	}
	slices.Sort(q.Tables)
	return q, nil
}

// params accumulates a statement's positional arguments ($1, $2, ...),
// the form DuckDB, PostgreSQL and its wire-compatible engines all take;
// every SQL renderer of this package embeds it.
type params struct {
	args []any
}

// param binds v and returns its placeholder.
func (p *params) param(v any) string {
	p.args = append(p.args, v)
	return "$" + strconv.Itoa(len(p.args))
}

// instant binds a time as a TIMESTAMP (UTC, no time zone).
func (p *params) instant(t time.Time) string {
	return "CAST(" + p.param(t.UTC().Format(sqlTime)) + " AS TIMESTAMP)"
}

type compiler struct {
	params
	r      *resolved
	o      *Options
	tables map[string]bool
	err    error // the first relation without a table
	// win, when set, is the window a kind's subquery reads instead of
	// the request's (renderValues: the edges of a window answered from
	// the value rollups), as SQL expressions.
	win *sqlWindow
}

// sqlWindow is a half-open window [start(), end()) as SQL expressions, each
// call binding its parameters anew.
type sqlWindow struct {
	start, end func() string
}

func (c *compiler) startAt() string {
	if c.win != nil {
		return c.win.start()
	}
	return c.instant(c.r.req.Start)
}

func (c *compiler) endAt() string {
	if c.win != nil {
		return c.win.end()
	}
	return c.instant(c.r.req.End)
}

// ErrNoRelation is returned by Compile and Rederive for a dataset or a
// reference declared with files: and not mapped to a relation in Options.
var ErrNoRelation = errors.New("no relation for the dataset or reference (declared with files: and not in Options)")

const sqlTime = "2006-01-02 15:04:05.999999"

func ident(s string) string { return sqlcond.Ident(s) }

// quoteName quotes a relation name, schema.table allowed.
func quoteName(s string) string { return sqlcond.QuoteName(s) }

func (c *compiler) relation() string {
	name, err := datasetRelation(c.r, c.o)
	if err != nil && c.err == nil {
		c.err = err
	}
	c.read(name)
	return quoteName(name)
}

// datasetRelation returns the relation holding the request's dataset.
func datasetRelation(r *resolved, o *Options) (string, error) {
	name := r.ds.Table.Value
	if rel, ok := o.Relations[r.ds.Name.Value]; ok {
		name = rel
	}
	if name == "" {
		return "", fmt.Errorf("compile metric: dataset %s: %w", r.ds.Name.Value, ErrNoRelation)
	}
	return name, nil
}

// referenceRelation returns the relation holding entity e's reference.
func referenceRelation(e *catalog.Entity, o *Options) (string, error) {
	name := e.Reference.Table.Value
	if rel, ok := o.References[e.Name.Value]; ok {
		name = rel
	}
	if name == "" {
		return "", fmt.Errorf("compile metric: reference of %s: %w", e.Name.Value, ErrNoRelation)
	}
	return name, nil
}

func (c *compiler) read(name string) {
	if c.tables == nil {
		c.tables = map[string]bool{}
	}
	c.tables[name] = true
}

// referenceOf returns the relation holding entity e's reference.
func (c *compiler) referenceOf(e *catalog.Entity) string {
	name, err := referenceRelation(e, c.o)
	if err != nil && c.err == nil {
		c.err = err
	}
	c.read(name)
	return quoteName(name)
}

const dbl = "DOUBLE PRECISION"

// measure column names in the union: m0, m1, ...; dimensions d0, ...;
// the bucket b.
func mcol(i int) string { return "m" + strconv.Itoa(i) }
func dcol(i int) string { return "d" + strconv.Itoa(i) }

func (c *compiler) render() (string, error) {
	parts, err := c.kinds()
	if err != nil {
		return "", err
	}
	return c.outer(parts, "MAX")
}

// kinds renders one subquery per kind of row set, each giving the group
// columns and its measures (null for the others).
func (c *compiler) kinds() ([]string, error) {
	r := c.r
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
		s, err := c.kind(kind, idx)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	return parts, nil
}

// outer renders the query over the union of parts: each group's measures
// combined by fn (MAX when every part holds a group once per kind, SUM
// when the parts are pieces of the window to add), the metric's value,
// the running total, the order and the limit.
func (c *compiler) outer(parts []string, fn string) (string, error) {
	r := c.r
	var group []string
	for i := range r.dims {
		group = append(group, "u."+dcol(i))
	}
	if r.grain != catalog.GrainNone {
		group = append(group, "u.b")
	}
	agg := make([]string, len(r.measures))
	for i, m := range r.measures {
		a := fn + "(u." + mcol(i) + ")"
		if zeroWhenEmpty(m) {
			a = "COALESCE(" + a + ", 0)"
		}
		agg[i] = a
	}
	value, err := c.value(r.metric, agg, 0)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i := range r.dims {
		b.WriteString("u." + dcol(i) + " AS " + dcol(i) + ", ")
	}
	if r.grain != catalog.GrainNone {
		b.WriteString("u.b AS b, ")
	}
	b.WriteString("CAST(" + value + " AS " + dbl + ") AS v FROM (")
	b.WriteString(strings.Join(parts, " UNION ALL "))
	b.WriteString(") u")
	if len(group) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(group, ", "))
	}
	inner := b.String()
	if r.metric.Type.Value == catalog.MetricCumulative && r.grain != catalog.GrainNone {
		// A running total over every bucket of the window (a time spine,
		// the buckets written by Buckets) for each group that has a row:
		// a bucket without one carries the total forward.
		var part, on, sel []string
		for i := range r.dims {
			part = append(part, "g."+dcol(i))
			on = append(on, "v."+dcol(i)+" IS NOT DISTINCT FROM g."+dcol(i))
			sel = append(sel, "g."+dcol(i)+" AS "+dcol(i))
		}
		groups := "SELECT DISTINCT 1 AS o FROM (" + inner + ") x"
		if len(part) > 0 {
			var d []string
			for i := range r.dims {
				d = append(d, "x."+dcol(i)+" AS "+dcol(i))
			}
			groups = "SELECT DISTINCT " + strings.Join(d, ", ") + " FROM (" + inner + ") x"
		}
		var spine []string
		for _, b := range Buckets(r.req.Start, r.req.End, r.grain) {
			spine = append(spine, "(CAST('"+b.Format(sqlTime)+"' AS TIMESTAMP))")
		}
		over := "ORDER BY s.b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
		if len(part) > 0 {
			over = "PARTITION BY " + strings.Join(part, ", ") + " " + over
		}
		on = append(on, "v.b = s.b")
		sel = append(sel, "s.b AS b", "CAST(SUM(COALESCE(v.v, 0)) OVER ("+over+") AS "+dbl+") AS v")
		inner = "SELECT " + strings.Join(sel, ", ") + " FROM (" + groups + ") g CROSS JOIN (VALUES " + strings.Join(spine, ", ") +
			") AS s(b) LEFT JOIN (" + inner + ") v ON " + strings.Join(on, " AND ")
	}
	return "SELECT * FROM (" + inner + ") t" + c.orderBy() + c.limit(), nil
}

// orderBy sorts by the requested order, then every dimension and the
// bucket ascending; empty values last.
func (c *compiler) orderBy() string {
	r := c.r
	var keys []string
	dir := " ASC"
	if r.req.Order.Desc {
		dir = " DESC"
	}
	switch by := r.req.Order.By; by {
	case "":
	case OrderValue:
		keys = append(keys, "t.v"+dir+" NULLS LAST")
	default:
		keys = append(keys, "t."+dcol(slices.Index(r.req.Dimensions, by))+dir+" NULLS LAST")
	}
	for i := range r.dims {
		keys = append(keys, "t."+dcol(i)+" ASC NULLS LAST")
	}
	if r.grain != catalog.GrainNone {
		keys = append(keys, "t.b ASC")
	}
	if len(keys) == 0 {
		return ""
	}
	return " ORDER BY " + strings.Join(keys, ", ")
}

func (c *compiler) limit() string {
	if c.r.req.Limit == 0 {
		return ""
	}
	return " LIMIT " + c.param(int64(c.r.req.Limit))
}

// value renders a metric's value over the aggregated measure columns agg
// (indexed as r.measures).
func (c *compiler) value(m *catalog.Metric, agg []string, depth int) (string, error) {
	if depth > len(c.r.cat.Metrics) {
		return "", errors.New("compile metric: expression too deep")
	}
	of := func(name string) (string, error) {
		for i, x := range c.r.measures {
			if x.Name.Value == name {
				return "CAST(" + agg[i] + " AS " + dbl + ")", nil
			}
		}
		return "", errors.New("compile metric: measure not read")
	}
	switch m.Type.Value {
	case catalog.MetricSimple, catalog.MetricCumulative:
		return of(m.Measure.Value)
	case catalog.MetricRatio:
		n, err := of(m.Numerator.Value)
		if err != nil {
			return "", err
		}
		d, err := of(m.Denominator.Value)
		if err != nil {
			return "", err
		}
		return "(" + n + " / NULLIF(" + d + ", 0))", nil
	case catalog.MetricDerived:
		if m.Expression == nil {
			return "", errors.New("compile metric: derived metric without an expression")
		}
		return c.expr(m.Expression, agg, depth)
	}
	return "", errors.New("compile metric: unknown metric type")
}

func (c *compiler) expr(e *catalog.Expr, agg []string, depth int) (string, error) {
	switch {
	case e.Op == 0 && e.IsNum:
		lit, err := sqlcond.Number(e.Num)
		if err != nil {
			return "", err
		}
		return "CAST(" + lit + " AS " + dbl + ")", nil
	case e.Op == 0:
		m := c.r.cat.Metric(e.Metric)
		if m == nil {
			return "", errors.New("compile metric: expression names an undeclared metric")
		}
		return c.value(m, agg, depth+1)
	}
	l, err := c.expr(e.L, agg, depth)
	if err != nil {
		return "", err
	}
	rr, err := c.expr(e.R, agg, depth)
	if err != nil {
		return "", err
	}
	switch e.Op {
	case '+', '-', '*':
		return "(" + l + " " + string(e.Op) + " " + rr + ")", nil
	case '/':
		return "(" + l + " / NULLIF(" + rr + ", 0))", nil
	}
	return "", errors.New("compile metric: unknown operator")
}

// number renders a catalog number as a literal: numbers come from the

// kind renders the subquery of one kind of row set, with the measures idx
// (indexes into r.measures); the other measures are null.
func (c *compiler) kind(kind int, idx []int) (string, error) {
	r := c.r
	ds := r.ds
	rel := c.relation()
	timeCol, keyCol := ident(ds.Time.Value), ident(ds.Key.Value)
	var series []string
	for _, e := range ds.SeriesEntities() {
		series = append(series, "s."+ident(e.Column.Value))
	}
	// The window's start is bound only when the kind reads it: DuckDB
	// refuses a parameter the text does not use.
	end := c.endAt()
	start := ""
	if kind != kindLatest {
		start = c.startAt()
	}
	// src is the relation of candidate rows, aliased t, with the window
	// functions the kind needs computed over whole series (before the
	// scope and the filters, which judge each row on its own).
	var src string
	var where []string
	hasDuration := false
	// On a relation with validity intervals, the series computations
	// read only the rows that reach the instant (latest) or the window
	// (seq): a row's next row, when before the end, reaches the window
	// too, and a window row's previous row is the one reaching its start,
	// so LEAD and LAG over these rows equal LEAD and LAG over all.
	reach := ""
	if vt := c.o.ValidTo[r.ds.Name.Value]; vt != "" {
		switch kind {
		case kindLatest:
			reach = " AND s." + ident(vt) + " >= " + end
		case kindSeq:
			reach = " AND s." + ident(vt) + " >= " + c.startAt()
		}
	}
	switch kind {
	case kindRows:
		src = rel + " t"
		where = append(where, "t."+timeCol+" >= "+start, "t."+timeCol+" < "+end)
	case kindLatest:
		src = "(SELECT s.*, ROW_NUMBER() OVER (PARTITION BY " + strings.Join(series, ", ") +
			" ORDER BY s." + timeCol + " DESC, s." + keyCol + " DESC) AS _rn FROM " + c.reaching(rel, c.endAt) +
			" s WHERE s." + timeCol + " < " + end + reach + ") t"
		where = append(where, "t._rn = 1")
	case kindSeq:
		// One ordering of every candidate row, series first, rather than
		// a partition per series: DuckDB sorts the rows once instead of
		// partitioning them and sorting each part (a week's edges at
		// 10,000,000 events: 11 ms an edge against 7). A neighbour counts
		// only when it belongs to the row's series (IS NOT DISTINCT FROM:
		// PARTITION BY's grouping, nulls included); at either end of the
		// whole ordering the neighbour is null, as at a partition's.
		w := "(ORDER BY " + strings.Join(series, ", ") + ", s." + timeCol + ", s." + keyCol + ")"
		sameSeries := func(fn string) string {
			var same []string
			for _, c := range series {
				same = append(same, fn+"("+c+") OVER "+w+" IS NOT DISTINCT FROM "+c)
			}
			return strings.Join(same, " AND ")
		}
		neighbour := func(fn, x string) string {
			return "CASE WHEN " + sameSeries(fn) + " THEN " + fn + "(" + x + ") OVER " + w + " END"
		}
		// _secs: the seconds the row holds inside [start, end), from its
		// time (or start) to its series' next row (or end); 0 or less
		// when it ends before start. A double (date_part), as the
		// re-derivation's: PostgreSQL's EXTRACT gives a numeric, slower.
		secs := "date_part('epoch', (LEAST(COALESCE(" + neighbour("LEAD", "s."+timeCol) + ", " + end + "), " + end +
			") - GREATEST(s." + timeCol + ", " + start + ")))"
		cols := []string{"s.*", secs + " AS _secs"}
		for _, i := range idx {
			m := r.measures[i]
			if m.Agg.Value == catalog.AggDuration {
				hasDuration = true
			}
			if m.Agg.Value != catalog.AggEntries {
				continue
			}
			met, err := c.met("s", predicateOf(ds, m))
			if err != nil {
				return "", err
			}
			cols = append(cols, neighbour("LAG", met)+" AS _prev"+strconv.Itoa(i))
		}
		src = "(SELECT " + strings.Join(cols, ", ") + " FROM " + c.reaching(rel, c.startAt) + " s WHERE s." + timeCol + " < " + end + reach + ") t"
		inWindow := "t." + timeCol + " >= " + start
		if hasDuration {
			inWindow = "(" + inWindow + " OR " + secsCol + " > 0)"
		}
		where = append(where, inWindow)
	}
	// Reference joins, one per entity whose reference a requested or
	// filtered dimension reads.
	joins := map[string]string{}
	var joinSQL strings.Builder
	dimExpr := func(d *catalog.Dimension) string {
		if d.Entity.Value == "" {
			return "t." + ident(d.Column.Value)
		}
		alias, ok := joins[d.Entity.Value]
		if !ok {
			e := ds.Entity(d.Entity.Value)
			alias = "r" + strconv.Itoa(len(joins))
			joins[d.Entity.Value] = alias
			joinSQL.WriteString(" LEFT JOIN " + c.referenceOf(e) + " " + alias + " ON " + alias + "." +
				ident(e.Reference.ID.Value) + " = t." + ident(e.Column.Value))
		}
		return alias + "." + ident(d.Column.Value)
	}
	var sel, group []string
	for i, d := range r.dims {
		x := dimExpr(d)
		sel = append(sel, x+" AS "+dcol(i))
		group = append(group, x)
	}
	if r.grain != catalog.GrainNone {
		// The grain is one of a closed set, checked by resolve.
		x := "date_trunc('" + r.grain + "', t." + timeCol + ")"
		sel = append(sel, x+" AS b")
		group = append(group, x)
	}
	for i, m := range r.measures {
		if !slices.Contains(idx, i) {
			sel = append(sel, "CAST(NULL AS "+dbl+") AS "+mcol(i))
			continue
		}
		a, err := c.aggregate(kind, i, m, start, end)
		if err != nil {
			return "", err
		}
		sel = append(sel, "CAST("+a+" AS "+dbl+") AS "+mcol(i))
	}
	// The scope: a predicate on the scope entity's column, values bound.
	if !r.req.Scope.all {
		if len(r.req.Scope.values) == 0 {
			where = append(where, "1 = 0")
		} else {
			where = append(where, "t."+ident(r.scope.Column.Value)+" IN "+c.list(r.req.Scope.values))
		}
	}
	for _, f := range r.filters {
		x := dimExpr(f.dim)
		switch f.Op {
		case "eq":
			where = append(where, x+" = "+c.param(f.Values[0]))
		case "ne":
			where = append(where, x+" <> "+c.param(f.Values[0]))
		case "in":
			where = append(where, x+" IN "+c.list(f.Values))
		case "not_in":
			where = append(where, x+" NOT IN "+c.list(f.Values))
		}
	}
	s := "SELECT " + strings.Join(sel, ", ") + " FROM " + src + joinSQL.String() + " WHERE " + strings.Join(where, " AND ")
	if len(group) > 0 {
		s += " GROUP BY " + strings.Join(group, ", ")
	}
	return s, nil
}

// reaching renders the rows a series computation reads from relation rel
// (quoted) when the dataset has validity intervals and checkpoints
// (Options.Edges): the latest row of every series at the last checkpoint
// strictly before the instant at (its start for a sequence, its end for a
// latest value) and the rows after that checkpoint, so that the rows
// before the checkpoint are not read (a time index reads every row
// before the end otherwise). A row before the instant whose validity
// reaches it (the kind's reach condition, applied over these rows too) is
// the latest of its series at the checkpoint when not after it; the
// strict bound keeps a row whose validity ends exactly at the instant,
// which a sequence's LAG needs. Without checkpoints, rel itself.
func (c *compiler) reaching(rel string, at func() string) string {
	ds := c.r.ds
	vt := c.o.ValidTo[ds.Name.Value]
	b, ok := c.o.Edges[ds.Name.Value]
	if !ok || vt == "" || b.Checkpoints == "" || b.CheckpointIndex == "" {
		return rel
	}
	c.read(b.Checkpoints)
	c.read(b.CheckpointIndex)
	sel := strings.Join(c.r.rowColumns(vt), ", ")
	cpi := quoteName(b.CheckpointIndex)
	return "(SELECT " + sel + " FROM " + quoteName(b.Checkpoints) + " WHERE _cp = (SELECT COALESCE(MAX(_cp), 0) FROM " + cpi + " WHERE _cp_ts < " + at() +
		") UNION ALL SELECT " + sel + " FROM " + rel + " WHERE " + ident(ds.Time.Value) + " > COALESCE((SELECT MAX(_cp_ts) FROM " + cpi +
		" WHERE _cp_ts < " + at() + "), CAST('0001-01-01 00:00:00' AS TIMESTAMP)))"
}

// rowColumns lists, quoted, the columns of the dataset's rows a request
// reads (its key, time, validity end vt and resolved.columns), in a fixed
// order.
func (r *resolved) rowColumns(vt string) []string {
	cols := []string{ident(r.ds.Key.Value), ident(r.ds.Time.Value), ident(vt)}
	need := r.columns()
	names := make([]string, 0, len(need))
	for n := range need {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if c := ident(n); !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

func (c *compiler) list(vs []string) string {
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = c.param(v)
	}
	return "(" + strings.Join(ph, ", ") + ")"
}

// secsCol is the seconds row t holds inside the window (the seq kind's
// _secs).
const secsCol = "t._secs"

// aggregate renders measure m (index i) of a kind's subquery.
func (c *compiler) aggregate(kind, i int, m *catalog.Measure, start, end string) (string, error) {
	ds := c.r.ds
	pred := predicateOf(ds, m)
	when := func(then, otherwise string) (string, error) {
		if pred == nil {
			return then, nil
		}
		p, err := c.predicate("t", pred)
		if err != nil {
			return "", err
		}
		return "CASE WHEN " + p + " THEN " + then + " ELSE " + otherwise + " END", nil
	}
	col := "t." + ident(m.Column.Value)
	switch m.Agg.Value {
	case catalog.AggCount:
		x, err := when("1", "0")
		return "SUM(" + x + ")", err
	case catalog.AggSum:
		x, err := when(col, "NULL")
		return "COALESCE(SUM(" + x + "), 0)", err
	case catalog.AggAvg, catalog.AggMin, catalog.AggMax:
		x, err := when(col, "NULL")
		return strings.ToUpper(m.Agg.Value) + "(" + x + ")", err
	case catalog.AggCountDistinct:
		x, err := when(col, "NULL")
		return "COUNT(DISTINCT " + x + ")", err
	case catalog.AggDuration:
		secs := secsCol
		x, err := when("CASE WHEN "+secs+" > 0 THEN "+secs+" ELSE 0 END", "0")
		return "SUM(" + x + ")", err
	case catalog.AggEntries:
		met := "1"
		if pred != nil {
			p, err := c.predicate("t", pred)
			if err != nil {
				return "", err
			}
			met = p
		}
		return "SUM(CASE WHEN t." + ident(ds.Time.Value) + " >= " + start + " AND " + met +
			" AND COALESCE(t._prev" + strconv.Itoa(i) + ", 0) = 0 THEN 1 ELSE 0 END)", nil
	}
	return "", errors.New("compile metric: unknown aggregation")
}

// met renders 1 when the row aliased alias meets pred, else 0 (an empty
// value meets nothing).
func (c *compiler) met(alias string, pred *catalog.Predicate) (string, error) {
	if pred == nil {
		return "1", nil
	}
	p, err := c.predicate(alias, pred)
	if err != nil {
		return "", err
	}
	return "CASE WHEN " + p + " THEN 1 ELSE 0 END", nil
}

// predicate renders a catalog predicate over the row aliased alias
// (sqlcond.Predicate, the renderer the shapes use too): enumerated values
// bound as parameters, numbers formatted from the catalog.
func (c *compiler) predicate(alias string, p *catalog.Predicate) (string, error) {
	sql, err := sqlcond.Predicate(c.r.ds, alias, p, func(v string) string { return c.param(v) })
	if err != nil {
		return "", fmt.Errorf("compile metric: %w", err)
	}
	return sql, nil
}

// Tables returns the tables cat's metrics may read, sorted, each once:
// each semantic model's dataset table and the reference tables its
// dimensions join (catalog.Catalog.MetricTables, the one definition).
// Every compiled query's Tables are among them when Options maps nothing
// elsewhere.
func Tables(cat *catalog.Catalog) []string { return cat.MetricTables() }
