package shape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
)

// Execute answers a call with the executor's formulation: one query,
// pushed into the database.
func (s *Snapshot) Execute(ctx context.Context, c Call) (Result, error) {
	p, err := s.e.plan(c)
	if err != nil {
		return Result{}, err
	}
	if p.mem != nil {
		release, err := s.e.memTurnFor(ctx, p)
		if err != nil {
			return Result{}, fmt.Errorf("execute %s: %w", p.tool.Name.Value, err)
		}
		defer release()
		return s.memExecute(p, c)
	}
	release, err := s.e.sqlTurn(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("execute %s: %w", p.tool.Name.Value, err)
	}
	defer release()
	if r, ok, err := s.executeBatched(ctx, p, c); ok || err != nil {
		return r, err
	}
	if err := s.begin(ctx); err != nil {
		return Result{}, err
	}
	ds := p.ds.Name.Value
	// A window's query returns many rows and the join that carries the
	// version costs PostgreSQL more than the query it saves (0.91 against
	// 0.84 ms a call at 1M events); a window reads the version on its own.
	if !s.knowsVersion(ds) && p.tool.Shape.Value != catalog.ShapeCountRowsInWindow {
		if p.derived && s.e.index(p) == nil {
			// No checkpoint index is kept yet: it is read at the
			// snapshot's version, which is read first.
			if _, err := s.DataVersion(ctx, ds); err != nil {
				return Result{}, err
			}
		} else {
			s.fold = true
		}
	}
	v, keys, err := s.execute(ctx, p, c)
	folded, index := s.fold, s.foldIndex
	s.fold, s.foldIndex = false, ""
	if err != nil {
		return Result{}, s.readFailed(ds, err)
	}
	if folded && p.derived && index != s.versions[ds] {
		// The kept checkpoint index is of another version than the
		// snapshot's (an import since): answer again with the
		// snapshot's own.
		if v, keys, err = s.execute(ctx, p, c); err != nil {
			return Result{}, s.readFailed(ds, err)
		}
	}
	return s.result(ctx, p, v, keys)
}

func (s *Snapshot) execute(ctx context.Context, p *plan, c Call) (fact.Value, []string, error) {
	switch p.tool.Shape.Value {
	case catalog.ShapeLatestValue:
		return s.execLatest(ctx, p, c)
	case catalog.ShapeCountEntitiesWhere, catalog.ShapeListEntitiesInState:
		if s.e.latest == LatestAggregate {
			return s.execEntitiesAgg(ctx, p, c)
		}
		return s.execEntities(ctx, p, c)
	case catalog.ShapeCountRowsInWindow:
		return s.execWindow(ctx, p, c)
	}
	return fact.Value{}, nil, ErrUnknownTool
}

// execRows runs an executor query and calls each after scanning every
// row into dest. When the snapshot folds (Execute), the query also reads
// the data version, in the same statement: one round trip fewer per
// call. The version comes from a one-row relation left-joined to the
// query's rows, so that it comes back when the query has none.
func (s *Snapshot) execRows(ctx context.Context, p *plan, sqlText string, args []any, dest []any, each func() error) error {
	var ver, present sql.NullInt64
	fold := s.fold && !s.collecting
	if fold {
		sqlText = "SELECT v._ver, w.* FROM (SELECT MAX(" + ident(SeqColumn) + ") AS _ver FROM " + p.rel +
			") v LEFT JOIN (SELECT 1 AS _present, x.* FROM (" + sqlText + ") x) w ON 1 = 1"
		dest = append([]any{&ver, &present}, dest...)
	}
	rows, err := s.query(ctx, sqlText, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if fold && !present.Valid {
			continue // the version's row: the query has none
		}
		if err := each(); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if fold {
		s.versions[p.ds.Name.Value] = fmt.Sprintf("seq:%d", ver.Int64)
	}
	return nil
}

// result sorts and digests the keys and names the snapshot.
func (s *Snapshot) result(ctx context.Context, p *plan, v fact.Value, keys []string) (Result, error) {
	version, err := s.DataVersion(ctx, p.ds.Name.Value)
	if err != nil {
		return Result{}, err
	}
	set := s.fullSet(keys)
	if s.agg != nil { // the count and digest were read in SQL (execWindowDigest)
		set = *s.agg
	}
	s.agg = nil
	r := Result{Tool: p.tool.Name.Value, Value: v, Rows: set.n, Digest: set.digest, DataVersion: version, Keys: set.listed}
	if s.listAll {
		r.Keys = distinctSorted(keys)
	}
	return r, nil
}

// execLatest: the newest row of the series at or before as_of, by an
// ordered scan of the series (an index on series, time, key serves it).
func (s *Snapshot) execLatest(ctx context.Context, p *plan, c Call) (fact.Value, []string, error) {
	asOf, err := instant(c, "as_of")
	if err != nil {
		return fact.Value{}, nil, err
	}
	vals, err := p.seriesArgs(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	// The arguments are bound in the order the text names them, so that
	// the text is kept per plan and scope shape (Engine.text).
	q := &query{args: make([]any, 0, 8)} // a point call binds about five
	var asOfAt, cpAt, cpTSAt, seriesAt, sinceAt int
	if p.derived {
		cpID, cpTS, err := s.checkpoint(ctx, p, asOf)
		if err != nil {
			return fact.Value{}, nil, err
		}
		asOfAt, cpAt = q.bind(sqlInstant(asOf)), q.bind(cpID)
		seriesAt = q.bindAll(vals)
		cpTSAt = q.bind(cpTS)
		sinceAt = q.bindAll(vals)
	} else {
		seriesAt = q.bindAll(vals)
		asOfAt = q.bind(sqlInstant(asOf))
	}
	sb := p.scopeBind(q, c.Scope)
	sqlText := s.e.text(textKey{p: p, form: formExecLatest, scope: sb.n}, func() string {
		seriesFilter := func(alias string, first int) string {
			w := make([]string, len(p.series))
			for i, e := range p.series {
				w[i] = col(alias, e.Column.Value) + " = " + placeholder(first+i)
			}
			return strings.Join(w, " AND ")
		}
		ts := instantText(asOfAt)
		from, where := p.rel+" x", ""
		if p.derived {
			// The rows since the checkpoint are cut to their latest in
			// the side's own ORDER BY ... LIMIT 1: a descending probe of
			// the (series, time, key) index that reads one row, where
			// sorting the union would read every row of the series since
			// the checkpoint (at 10M events on PostgreSQL, a hundred heap
			// pages a call).
			cp, since := p.candidateSidesText(placeholder(cpAt), placeholder(cpTSAt), ts, p.colList,
				" AND "+seriesFilter("c", seriesAt), " AND "+seriesFilter("r", sinceAt))
			since = "SELECT * FROM (" + since + " ORDER BY r." + p.time + " DESC, r." + p.key + " DESC LIMIT 1) s"
			from, where = "("+cp+" UNION ALL "+since+") x", "1 = 1"
		} else {
			where = seriesFilter("x", seriesAt) + " AND " + col("x", p.ds.Time.Value) + " <= " + ts
		}
		inner := "SELECT CAST(" + col("x", p.ds.Key.Value) + " AS VARCHAR) AS k, " +
			col("x", p.attr.Column.Value) + " AS v"
		if p.scope != nil {
			inner += ", " + col("x", p.scope.Column.Value) + " AS " + ident(p.scope.Column.Value)
		}
		inner += " FROM " + from + " WHERE " + where +
			" ORDER BY " + col("x", p.ds.Time.Value) + " DESC, " + col("x", p.ds.Key.Value) + " DESC LIMIT 1"
		return "SELECT y.k, y.v FROM (" + inner + ") y WHERE 1 = 1" + p.scopeText("y", sb)
	})
	v := fact.NoObservation(attrKind(p.attr))
	var keys []string
	var k sql.NullString
	cell := newCell(p.attr)
	err = s.execRows(ctx, p, sqlText, q.args, []any{&k, cell.dest()}, func() error {
		if !k.Valid {
			return errors.New("a row has no key")
		}
		if !cell.valid() {
			return fmt.Errorf("latest row has no value for attribute %s", p.attr.Name.Value)
		}
		var err error
		if v, err = cell.value(p.attr); err != nil {
			return err
		}
		keys = append(keys, k.String)
		return nil
	})
	if errors.Is(err, errPending) {
		return fact.Value{}, nil, err // collected: nothing to report
	}
	if err != nil {
		return fact.Value{}, nil, fmt.Errorf("execute %s: %w", p.tool.Name.Value, err)
	}
	return v, keys, nil
}

// latestInput is what both executor formulations of an as-of entity
// question start from: the call's condition, the columns they read, and
// the rows that can be latest (the checkpoint's and those since it, or
// every row up to as_of), filtered by the fixed entity when it is part of
// the series (which keeps every row of the series it selects).
type latestInput struct {
	q           *query
	pr          *catalog.Predicate
	proj        []string // the columns read, from the rows aliased x
	from, where string   // the candidate rows: FROM from x WHERE where
	atValue     string   // the fixed entity's value, if any
	atInSeries  bool     // the fixed entity is part of the series
	// cp and since, when split was asked for and the dataset is derived:
	// the candidate rows' two sides apart (from is then unset), the
	// checkpoint's rows and the rows since it, every declared column.
	cp, since string
}

func (s *Snapshot) latestInput(ctx context.Context, p *plan, c Call, withTime, split bool) (*latestInput, error) {
	asOf, err := instant(c, "as_of")
	if err != nil {
		return nil, err
	}
	in := &latestInput{q: &query{}}
	if in.pr, err = p.condition(c); err != nil {
		return nil, err
	}
	ts := in.q.instant(asOf)
	cols := []string{p.ds.Key.Value}
	if withTime {
		cols = append(cols, p.ds.Time.Value)
	}
	cols = appendNew(cols, p.entity.Column.Value)
	for _, e := range p.series {
		cols = appendNew(cols, e.Column.Value)
		in.atInSeries = in.atInSeries || p.at != nil && e == p.at
	}
	if p.at != nil {
		cols = appendNew(cols, p.at.Column.Value)
		if in.atValue, err = arg(c, p.at.Column.Value); err != nil {
			return nil, err
		}
	}
	if p.scope != nil {
		cols = appendNew(cols, p.scope.Column.Value)
	}
	cols = p.predicateColumns(in.pr, cols)
	in.proj = make([]string, len(cols))
	for i, cname := range cols {
		in.proj[i] = col("x", cname)
	}
	atFilter := func(alias string) string {
		if p.at == nil || !in.atInSeries {
			return ""
		}
		return col(alias, p.at.Column.Value) + " = " + in.q.param(in.atValue)
	}
	in.from, in.where = p.rel, col("x", p.ds.Time.Value)+" <= "+ts
	if p.derived {
		cpID, cpTS, err := s.checkpoint(ctx, p, asOf)
		if err != nil {
			return nil, err
		}
		if split {
			f := func(alias string) string {
				if w := atFilter(alias); w != "" {
					return " AND " + w
				}
				return ""
			}
			in.cp, in.since = p.candidateSides(in.q, cpID, cpTS, ts, p.colList, f)
			return in, nil
		}
		in.from, in.where = "("+p.candidates(in.q, cpID, cpTS, ts, atFilter, false)+")", "1 = 1"
	} else if w := atFilter("x"); w != "" {
		in.where += " AND " + w
	}
	return in, nil
}

// filter is the condition, the fixed entity (when not part of the
// series) and the scope, on the latest rows aliased y.
func (in *latestInput) filter(p *plan, c Call) (string, error) {
	where, err := p.predicate(in.q, "y", in.pr)
	if err != nil {
		return "", err
	}
	if p.at != nil && !in.atInSeries {
		where += " AND " + col("y", p.at.Column.Value) + " = " + in.q.param(in.atValue)
	}
	return where + p.scopeSQL(in.q, "y", c.Scope), nil
}

// execEntities (LatestWindow): the latest row of every series at or
// before as_of by a window function (ROW_NUMBER over the series, newest
// first, greatest key first), then the condition, the fixed entity and
// the scope on those rows. On a derived dataset the window runs over the
// rows since the checkpoint only, and a series none of them belongs to
// keeps its checkpoint row (an anti-join): the checkpoint's rows, one per
// series, are not sorted again (at 2,000 series and 4,096 rows between
// checkpoints on PostgreSQL, 1.8 ms against 2.9 ms).
func (s *Snapshot) execEntities(ctx context.Context, p *plan, c Call) (fact.Value, []string, error) {
	in, err := s.latestInput(ctx, p, c, false, true)
	if err != nil {
		return fact.Value{}, nil, err
	}
	partition := make([]string, len(p.series))
	for i, e := range p.series {
		partition[i] = col("x", e.Column.Value)
	}
	from, where := in.from, in.where
	if in.cp != "" {
		from, where = "_since", "1 = 1"
	}
	inner := "SELECT " + strings.Join(in.proj, ", ") + ", ROW_NUMBER() OVER (PARTITION BY " +
		strings.Join(partition, ", ") + " ORDER BY " + col("x", p.ds.Time.Value) + " DESC, " +
		col("x", p.ds.Key.Value) + " DESC) AS _provenant_rn FROM " + from + " x WHERE " + where
	cond, err := in.filter(p, c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	pick := "SELECT CAST(" + col("y", p.ds.Key.Value) + " AS VARCHAR), " + col("y", p.entity.Column.Value)
	sqlText := pick + " FROM (" + inner + ") y WHERE y._provenant_rn = 1 AND " + cond
	if in.cp != "" {
		cpCond, err := in.filter(p, c)
		if err != nil {
			return fact.Value{}, nil, err
		}
		same := make([]string, len(p.series))
		for i, e := range p.series {
			same[i] = col("s", e.Column.Value) + " = " + col("y", e.Column.Value)
		}
		sqlText = "WITH _since AS (" + in.since + ") " + sqlText + " UNION ALL " + pick + " FROM (" + in.cp + ") y WHERE " + cpCond +
			" AND NOT EXISTS (SELECT 1 FROM _since s WHERE " + strings.Join(same, " AND ") + ")"
	}
	return s.entityRows(ctx, p, sqlText, in.q.args)
}

// execEntitiesAgg (LatestAggregate): the latest row of every series at or before as_of by
// aggregation: each series' greatest time (GROUP BY), then the greatest
// key among its rows at that time, joined back to the rows; then the
// condition, the fixed entity and the scope on those rows.
func (s *Snapshot) execEntitiesAgg(ctx context.Context, p *plan, c Call) (fact.Value, []string, error) {
	in, err := s.latestInput(ctx, p, c, true, false)
	if err != nil {
		return fact.Value{}, nil, err
	}
	// _c: the rows that can be latest; _t: each series' greatest time;
	// _k: each series' greatest key at that time; the answer: the rows of
	// _c that are _k's.
	seriesOf := func(alias string) []string {
		out := make([]string, len(p.series))
		for i, e := range p.series {
			out[i] = col(alias, e.Column.Value)
		}
		return out
	}
	same := func(a, b string) string {
		var w []string
		for _, e := range p.series {
			w = append(w, col(a, e.Column.Value)+" = "+col(b, e.Column.Value))
		}
		return strings.Join(w, " AND ")
	}
	t, k := p.ds.Time.Value, p.ds.Key.Value
	with := "WITH _c AS (SELECT " + strings.Join(in.proj, ", ") + " FROM " + in.from + " x WHERE " + in.where + "), " +
		"_t AS (SELECT " + strings.Join(seriesOf("c"), ", ") + ", MAX(" + col("c", t) + ") AS _mt FROM _c c GROUP BY " +
		strings.Join(seriesOf("c"), ", ") + "), " +
		"_k AS (SELECT " + strings.Join(seriesOf("c"), ", ") + ", m._mt, MAX(" + col("c", k) + ") AS _mk FROM _c c JOIN _t m ON " +
		same("c", "m") + " AND " + col("c", t) + " = m._mt GROUP BY " + strings.Join(seriesOf("c"), ", ") + ", m._mt) "
	where, err := in.filter(p, c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	sqlText := with + "SELECT CAST(" + col("y", k) + " AS VARCHAR), " + col("y", p.entity.Column.Value) +
		" FROM _c y JOIN _k l ON " + same("y", "l") + " AND " + col("y", t) + " = l._mt AND " + col("y", k) + " = l._mk WHERE " + where
	return s.entityRows(ctx, p, sqlText, in.q.args)
}

// entityRows reads (key, entity) rows into an entity count or list.
func (s *Snapshot) entityRows(ctx context.Context, p *plan, sqlText string, args []any) (fact.Value, []string, error) {
	var keys, ids []string
	var k, id sql.NullString
	err := s.execRows(ctx, p, sqlText, args, []any{&k, &id}, func() error {
		if !k.Valid {
			return errors.New("a row has no key")
		}
		if !id.Valid {
			return fmt.Errorf("a row has no %s", p.entity.Name.Value)
		}
		keys = append(keys, k.String)
		ids = append(ids, id.String)
		return nil
	})
	if err != nil {
		return fact.Value{}, nil, fmt.Errorf("query %s: %w", p.tool.Name.Value, err)
	}
	return p.entityValue(ids), keys, nil
}

// entityValue builds a count or list of distinct entity ids.
func (p *plan) entityValue(ids []string) fact.Value {
	ids = distinctSorted(ids)
	if ids == nil {
		ids = []string{}
	}
	field := p.entity.Name.Value + "_ids"
	if p.tool.Shape.Value == catalog.ShapeCountEntitiesWhere {
		return fact.EntityCount(field, ids)
	}
	return fact.EntityList(field, ids)
}

// execWindow: every row at the fixed entity meeting the filter with
// start <= time < end.
func (s *Snapshot) execWindow(ctx context.Context, p *plan, c Call) (fact.Value, []string, error) {
	if v, keys, ok, err := s.execWindowSummed(ctx, p, c); ok || err != nil {
		return v, keys, err
	}
	start, end, atValue, pr, err := p.windowArgs(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	q := &query{}
	cond, err := p.predicate(q, "x", pr)
	if err != nil {
		return fact.Value{}, nil, err
	}
	sqlText := "SELECT CAST(" + col("x", p.ds.Key.Value) + " AS VARCHAR) AS _k FROM " + p.rel + " x WHERE " +
		col("x", p.at.Column.Value) + " = " + q.param(atValue) + " AND " + cond +
		" AND " + col("x", p.ds.Time.Value) + " >= " + q.instant(start) +
		" AND " + col("x", p.ds.Time.Value) + " < " + q.instant(end) + p.scopeSQL(q, "x", c.Scope)
	if dg := s.digester(); dg != nil {
		return s.execWindowDigest(ctx, p, dg, q, sqlText)
	}
	keys, err := s.keyRows(ctx, p, sqlText, q.args)
	if err != nil {
		return fact.Value{}, nil, err
	}
	return fact.RowCount(len(keys)), keys, nil
}

// keyRows reads a single column of keys.
func (s *Snapshot) keyRows(ctx context.Context, p *plan, sqlText string, args []any) ([]string, error) {
	var keys []string
	var k sql.NullString
	err := s.execRows(ctx, p, sqlText, args, []any{&k}, func() error {
		if !k.Valid {
			return errors.New("a row has no key")
		}
		if keys == nil {
			keys = make([]string, 0, s.replayedRows)
		}
		keys = append(keys, k.String)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", p.tool.Name.Value, err)
	}
	return keys, nil
}

func appendNew(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// attrKind is the value kind of an attribute.
func attrKind(a *catalog.Attribute) fact.Kind {
	switch {
	case a.Enumerated():
		return fact.KindText
	case a.Type.Value == "integer":
		return fact.KindInteger
	}
	return fact.KindNumber
}

// cell scans one attribute value of either type.
type cell struct {
	kind fact.Kind
	s    sql.NullString
	i    sql.NullInt64
	f    sql.NullFloat64
}

func newCell(a *catalog.Attribute) *cell { return &cell{kind: attrKind(a)} }

func (c *cell) dest() any {
	switch c.kind {
	case fact.KindText:
		return &c.s
	case fact.KindInteger:
		return &c.i
	}
	return &c.f
}

func (c *cell) valid() bool { return c.s.Valid || c.i.Valid || c.f.Valid }

func (c *cell) value(a *catalog.Attribute) (fact.Value, error) {
	switch c.kind {
	case fact.KindText:
		return fact.Text(c.s.String), nil
	case fact.KindInteger:
		return fact.Integer(c.i.Int64, a.Unit.Value), nil
	}
	return fact.Number(c.f.Float64, a.Unit.Value)
}
