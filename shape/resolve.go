package shape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
)

// Resolve re-derives a call independently of Execute and judges r: the
// latest rows as those whose validity interval contains the instant (the
// derived _valid_to, or, on a plain table or files, the rows equal to
// their series' last by LAST_VALUE), a window by one read from the
// start's hour with its lower bound judged in Go (the difference of two
// prefixes when the count and digest are computed in SQL), and every
// listed key looked up and its row judged in Go against the call.
func (s *Snapshot) Resolve(ctx context.Context, c Call, r Result) (Verdict, error) {
	p, err := s.e.plan(c)
	if err != nil {
		return Verdict{}, err
	}
	if r.Tool != c.Tool {
		return Verdict{}, nil
	}
	if p.mem != nil {
		release, err := s.e.memTurnFor(ctx, p)
		if err != nil {
			return Verdict{}, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
		}
		defer release()
		return s.memResolve(ctx, p, c, r)
	}
	release, err := s.e.sqlTurn(ctx)
	if err != nil {
		return Verdict{}, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	defer release()
	d, err := s.rederive(ctx, p, c, r.Keys)
	if err != nil {
		return Verdict{}, s.readFailed(p.ds.Name.Value, err)
	}
	var v Verdict
	if d.set != nil {
		v, err = s.verdictOn(ctx, p, c, r, d.v, *d.set, d.consistent, d.known)
	} else {
		v, err = s.verdict(ctx, p, c, r, d.v, d.keys, d.consistent, d.known)
	}
	if err != nil {
		return Verdict{}, s.readFailed(p.ds.Name.Value, err)
	}
	// After every read of the call: files read in place carry no
	// snapshot, so their version is checked once the reads are done.
	if err := s.stillCurrent(p.ds.Name.Value); err != nil {
		return Verdict{}, err
	}
	return v, nil
}

// rederived is the resolver's re-derivation of a call, before it judges
// an answer.
type rederived struct {
	v    fact.Value
	keys []string
	// known are rows the re-derivation read of asserted keys: an
	// asserted key among them is judged on that row, any other is looked
	// up.
	known      knownRows
	consistent bool
	// set, when not nil, is the re-derived key set by its count and
	// digest (read in SQL) and first keys; keys are then those first.
	set *keySet
}

// rederive runs the resolver's formulation of c; asserted are the keys
// an answer lists, whose rows a window's re-derivation keeps.
func (s *Snapshot) rederive(ctx context.Context, p *plan, c Call, asserted []string) (rederived, error) {
	var (
		d   = rederived{consistent: true}
		err error
	)
	switch {
	case p.derived && p.tool.Shape.Value != catalog.ShapeCountRowsInWindow:
		var known map[string]row
		d.v, d.keys, known, d.consistent, err = s.resolveLive(ctx, p, c)
		d.known = rowMap(known)
	case p.tool.Shape.Value == catalog.ShapeLatestValue:
		d.v, d.keys, err = s.resolveLatest(ctx, p, c)
	case p.tool.Shape.Value == catalog.ShapeCountRowsInWindow:
		sum, ok, serr := s.resolveWindowSummed(ctx, p, c, asserted)
		if ok || serr != nil {
			return sum, serr
		}
		d.v, d.keys, d.known, d.set, err = s.resolveWindow(ctx, p, c, asserted)
	default:
		d.v, d.keys, err = s.resolveEntities(ctx, p, c)
	}
	return d, err
}

// verdict compares the re-derived value and keys with r's, then judges
// every listed key's row (known, or looked up).
func (s *Snapshot) verdict(ctx context.Context, p *plan, c Call, r Result, v fact.Value, keys []string, consistent bool, known knownRows) (Verdict, error) {
	return s.verdictOn(ctx, p, c, r, v, s.fullSet(keys), consistent, known)
}

// verdictOn is verdict on a re-derived key set given by its count,
// digest and first keys.
func (s *Snapshot) verdictOn(ctx context.Context, p *plan, c Call, r Result, v fact.Value, set keySet, consistent bool, known knownRows) (Verdict, error) {
	verdict := Verdict{
		ValueMatches: consistent && v.Equal(r.Value),
		Complete:     consistent && set.n == r.Rows && set.digest == r.Digest && slices.Equal(set.listed, r.Keys),
		Enumerated:   set.n,
	}
	var err error
	verdict.ProvenanceValid, err = s.judgeKeys(ctx, p, c, r, known)
	if err != nil {
		return Verdict{}, err
	}
	return verdict, nil
}

// windowArgs reads a window call's arguments: its bounds, the fixed
// entity's value and the condition.
func (p *plan) windowArgs(c Call) (start, end time.Time, at string, pr *catalog.Predicate, err error) {
	if start, err = instant(c, "start"); err != nil {
		return
	}
	if end, err = instant(c, "end"); err != nil {
		return
	}
	if at, err = arg(c, p.at.Column.Value); err != nil {
		return
	}
	pr, err = p.condition(c)
	return
}

// lastRows renders, for the plain formulation, the rows of rel up to ts
// (filtered by extra, rendered on alias r) with the time and key of their
// series' last row up to ts (LAST_VALUE over the whole series, ordered by
// time then key). A row whose own time and key are those
// (lastCondition) is its series' latest at ts; two rows sharing the
// latest key both are, so a key that is not unique stays visible. One sort
// per series, where an anti-join against every later row costs the square
// of a series' length.
func (p *plan) lastRows(ts, extra string) string {
	part := make([]string, len(p.series))
	for i, e := range p.series {
		part[i] = col("r", e.Column.Value)
	}
	t, k := col("r", p.ds.Time.Value), col("r", p.ds.Key.Value)
	over := " OVER (PARTITION BY " + strings.Join(part, ", ") + " ORDER BY " + t + ", " + k +
		" ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"
	return "(SELECT r.*, LAST_VALUE(" + t + ")" + over + " AS _provenant_lt, LAST_VALUE(" + k + ")" + over +
		" AS _provenant_lk FROM " + p.rel + " r WHERE " + t + " <= " + ts + extra + ")"
}

// lastCondition is true of a lastRows row (alias a) that is its series'
// latest.
func (p *plan) lastCondition() string {
	return col("a", p.ds.Time.Value) + " = a._provenant_lt AND " + col("a", p.ds.Key.Value) + " = a._provenant_lk"
}

func (s *Snapshot) resolveLatest(ctx context.Context, p *plan, c Call) (fact.Value, []string, error) {
	asOf, err := instant(c, "as_of")
	if err != nil {
		return fact.Value{}, nil, err
	}
	vals, err := p.seriesArgs(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	q := &query{}
	ts := q.instant(asOf)
	var series string
	for i, e := range p.series {
		series += " AND " + col("r", e.Column.Value) + " = " + q.param(vals[i])
	}
	sqlText := "SELECT CAST(" + col("a", p.ds.Key.Value) + " AS VARCHAR), " + col("a", p.attr.Column.Value) +
		" FROM " + p.lastRows(ts, series) + " a WHERE " + p.lastCondition() + p.scopeSQL(q, "a", c.Scope)
	rows, err := s.query(ctx, sqlText, q.args...)
	if err != nil {
		return fact.Value{}, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	defer rows.Close()
	v := fact.NoObservation(attrKind(p.attr))
	var keys []string
	for rows.Next() {
		var k string
		cell := newCell(p.attr)
		if err := rows.Scan(&k, cell.dest()); err != nil {
			return fact.Value{}, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
		}
		if cell.valid() {
			if v, err = cell.value(p.attr); err != nil {
				return fact.Value{}, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
			}
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return fact.Value{}, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	if len(keys) > 1 {
		// Two latest rows: the key is not unique. The value cannot stand.
		v = fact.Value{Kind: v.Kind, Unit: v.Unit, Text: "(ambiguous)", Observed: true}
	}
	return v, keys, nil
}

func (s *Snapshot) resolveEntities(ctx context.Context, p *plan, c Call) (fact.Value, []string, error) {
	asOf, err := instant(c, "as_of")
	if err != nil {
		return fact.Value{}, nil, err
	}
	pr, err := p.condition(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	q := &query{}
	ts := q.instant(asOf)
	cond, err := p.predicate(q, "a", pr)
	if err != nil {
		return fact.Value{}, nil, err
	}
	where := p.lastCondition() + " AND " + cond
	if p.at != nil {
		atValue, err := arg(c, p.at.Column.Value)
		if err != nil {
			return fact.Value{}, nil, err
		}
		where += " AND " + col("a", p.at.Column.Value) + " = " + q.param(atValue)
	}
	where += p.scopeSQL(q, "a", c.Scope)
	sqlText := "SELECT CAST(" + col("a", p.ds.Key.Value) + " AS VARCHAR), " + col("a", p.entity.Column.Value) +
		" FROM " + p.lastRows(ts, "") + " a WHERE " + where
	return s.entityRows(ctx, p, sqlText, q.args)
}

func (s *Snapshot) resolveWindow(ctx context.Context, p *plan, c Call, asserted []string) (fact.Value, []string, knownRows, *keySet, error) {
	start, end, atValue, pr, err := p.windowArgs(c)
	if err != nil {
		return fact.Value{}, nil, nil, nil, err
	}
	if dg := s.digester(); dg != nil {
		return s.resolveWindowPrefixes(ctx, p, c, dg, start, end, atValue, pr, keySetOf(asserted))
	}
	// One read: the rows at the fixed entity meeting the condition in
	// the whole hours that cover the window (from the start's hour to the
	// end of the end's hour), in SQL; which of them fall in the window
	// (at or after start, before end) is judged here, in Go, on each
	// row's time, and the count is of those. The executor bounds the
	// window in its SQL; this formulation bounds it on neither instant
	// in SQL, and judges both after the read.
	q := &query{}
	cond, err := p.predicate(q, "a", pr)
	if err != nil {
		return fact.Value{}, nil, nil, nil, err
	}
	sqlText := "SELECT " + strings.Join(p.rowProjection("a"), ", ") + " FROM " + p.rel + " a WHERE " +
		col("a", p.at.Column.Value) + " = " + q.param(atValue) + " AND " + cond +
		" AND " + col("a", p.ds.Time.Value) + " >= " + q.instant(windowFrom(start)) +
		" AND " + col("a", p.ds.Time.Value) + " < " + q.instant(windowTo(end)) + p.scopeSQL(q, "a", c.Scope)
	// The rows of the asserted keys are judged as they come, and the
	// judgement kept by the keys' position (an answer lists its keys
	// sorted; unsorted, they are judged wrong without their rows). A
	// window's row backs its count by being in it: the value does not
	// enter the judgement.
	known := newListedRows(asserted)
	walk := keyWalk{keys: known.keys}
	b := p.bounds(c)
	var keys []string
	if err := s.scanRows(ctx, p, sqlText, q.args, func(k string, sc *rowScan) {
		if t := sc.time.UTC(); t.Before(start) || !t.Before(end) {
			return
		}
		if keys == nil {
			keys = make([]string, 0, s.replayedRows)
		}
		keys = append(keys, k)
		if i, ok := walk.find(k); ok {
			known.add(i, p.judgeRow(c, b, pr, row{time: sc.time, cols: p.cols, sv: sc.sv, nv: sc.nv}, fact.Value{}))
		}
	}); err != nil {
		return fact.Value{}, nil, nil, nil, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	return fact.RowCount(len(keys)), keys, known, nil, nil
}

// keySetOf is the set of keys.
func keySetOf(keys []string) map[string]struct{} {
	set := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		set[k] = struct{}{}
	}
	return set
}

// knownRows are the rows a re-derivation read of the keys an answer
// lists.
type knownRows interface {
	// has reports whether a row of the i-th listed key, k, was read.
	has(i int, k string) bool
	// backs reports whether it backs the answer: one row (a key two rows
	// share backs nothing) that judge accepts.
	backs(i int, k string, judge func(row) bool) bool
}

// rowMap holds rows by key (addRow).
type rowMap map[string]row

func (m rowMap) has(_ int, k string) bool {
	_, ok := m[k]
	return ok
}

func (m rowMap) backs(_ int, k string, judge func(row) bool) bool {
	rw, ok := m[k]
	return ok && !rw.dup && judge(rw)
}

// listedRows holds, by the position of each of sorted listed keys, the
// judgement of the key's row, made as the row was read: no row kept, and
// no map built and probed per call (a window lists up to MaxKeys keys
// and reads their rows among thousands).
type listedRows struct {
	keys  []string // the listed keys; none when they are not sorted
	state []uint8  // rowUnread, rowBacks, rowBacksNot
}

// A listed key's row: not read; read once and backing the answer; read
// and not backing it, or read twice.
const (
	rowUnread uint8 = iota
	rowBacks
	rowBacksNot
)

func newListedRows(keys []string) *listedRows {
	if len(keys) == 0 || !slices.IsSorted(keys) {
		return &listedRows{}
	}
	return &listedRows{keys: keys, state: make([]uint8, len(keys))}
}

func (l *listedRows) has(i int, k string) bool {
	return i < len(l.keys) && l.state[i] != rowUnread && l.keys[i] == k
}

func (l *listedRows) backs(i int, k string, _ func(row) bool) bool {
	return l.has(i, k) && l.state[i] == rowBacks
}

// add records the judgement of a row of the i-th key; a second row of
// the key leaves it backing nothing (as addRow).
func (l *listedRows) add(i int, backs bool) {
	switch {
	case l.state[i] != rowUnread || !backs:
		l.state[i] = rowBacksNot
	default:
		l.state[i] = rowBacks
	}
}

// keyWalk finds keys among sorted keys (the first of equal ones), for
// keys asked in mostly increasing order, as a window's rows come: a
// cursor moves forward with them, and a key less than the one asked
// before is searched for.
type keyWalk struct {
	keys    []string
	at      int
	last    string
	started bool
}

func (w *keyWalk) find(k string) (int, bool) {
	if len(w.keys) == 0 {
		return 0, false
	}
	if w.started && k < w.last {
		return slices.BinarySearch(w.keys, k)
	}
	w.started, w.last = true, k
	for w.at < len(w.keys) && w.keys[w.at] < k {
		w.at++
	}
	return w.at, w.at < len(w.keys) && w.keys[w.at] == k
}

// windowFrom is where the resolver's one read of a window starts: the
// start's hour (UTC), never after start.
func windowFrom(start time.Time) time.Time { return start.UTC().Truncate(time.Hour) }

// windowTo is where it ends: the end of the end's hour (UTC), always
// after end, so that end is judged in Go too.
func windowTo(end time.Time) time.Time { return end.UTC().Truncate(time.Hour).Add(time.Hour) }

// resolveWindowPrefixes re-derives a window as the difference of two
// prefixes, with the count and digest in SQL (a Digester): the rows up
// to end EXCEPT the rows before start.
func (s *Snapshot) resolveWindowPrefixes(ctx context.Context, p *plan, c Call, dg Digester, start, end time.Time, atValue string, pr *catalog.Predicate, asserted map[string]struct{}) (fact.Value, []string, knownRows, *keySet, error) {
	q := &query{}
	at := q.param(atValue)
	// With checkpoints, both prefixes start at the last checkpoint at or
	// before start, so that neither reads all history.
	lower := ""
	if p.derived {
		_, cpTS, err := s.checkpoint(ctx, p, start)
		if err != nil {
			return fact.Value{}, nil, nil, nil, err
		}
		lower = "CAST(" + q.param(cpTS) + " AS TIMESTAMP)"
	}
	prefix := func(alias, bound string) (string, error) {
		cond, err := p.predicate(q, alias, pr)
		if err != nil {
			return "", err
		}
		sqlText := "SELECT " + strings.Join(named(p.rowProjection(alias)), ", ") + " FROM " + p.rel + " " + alias +
			" WHERE " + col(alias, p.at.Column.Value) + " = " + at + " AND " + cond +
			" AND " + col(alias, p.ds.Time.Value) + " < " + bound
		if lower != "" {
			sqlText += " AND " + col(alias, p.ds.Time.Value) + " >= " + lower
		}
		return sqlText, nil
	}
	upTo, err := prefix("a", q.instant(end))
	if err != nil {
		return fact.Value{}, nil, nil, nil, err
	}
	upTo += p.scopeSQL(q, "a", c.Scope)
	before, err := prefix("b", q.instant(start))
	if err != nil {
		return fact.Value{}, nil, nil, nil, err
	}
	// Whole rows (the columns a judgement reads), so that the judgement of
	// the asserted keys needs no second read; only theirs are kept.
	return s.resolveWindowDigest(ctx, p, dg, q, upTo+" EXCEPT "+before, asserted)
}

// resolveLive re-derives an as-of shape through the derived structures:
// the rows of the checkpoint and since whose validity interval
// [time, _valid_to) contains as_of are the latest of their series, and
// there must be exactly one per series the census says had begun by
// as_of. The condition, the fixed entity and the scope are judged in
// the same SQL, as flags, so that the count covers every series.
// consistent is false when the count disagrees with the census.
func (s *Snapshot) resolveLive(ctx context.Context, p *plan, c Call) (v fact.Value, keys []string, known map[string]row, consistent bool, err error) {
	asOf, err := instant(c, "as_of")
	if err != nil {
		return fact.Value{}, nil, nil, false, err
	}
	q := &query{args: make([]any, 0, 12)} // a point call binds about eight
	cpID, cpTS, err := s.checkpoint(ctx, p, asOf)
	if err != nil {
		return fact.Value{}, nil, nil, false, err
	}
	// Series restriction: the series a latest_value names, or the fixed
	// entity when it is part of the series.
	var restrictCols, restrictVals []string
	switch p.tool.Shape.Value {
	case catalog.ShapeLatestValue:
		vals, err := p.seriesArgs(c)
		if err != nil {
			return fact.Value{}, nil, nil, false, err
		}
		for i, e := range p.series {
			restrictCols, restrictVals = append(restrictCols, e.Column.Value), append(restrictVals, vals[i])
		}
	default:
		if p.at != nil && slices.Contains(p.series, p.at) {
			atValue, err := arg(c, p.at.Column.Value)
			if err != nil {
				return fact.Value{}, nil, nil, false, err
			}
			restrictCols, restrictVals = []string{p.at.Column.Value}, []string{atValue}
		}
	}
	var flag, out string
	switch p.tool.Shape.Value {
	case catalog.ShapeLatestValue:
		flag = "1 = 1"
		out = col("a", p.attr.Column.Value)
	default:
		pr, err := p.condition(c)
		if err != nil {
			return fact.Value{}, nil, nil, false, err
		}
		if flag, err = p.predicate(q, "a", pr); err != nil {
			return fact.Value{}, nil, nil, false, err
		}
		if p.at != nil {
			atValue, err := arg(c, p.at.Column.Value)
			if err != nil {
				return fact.Value{}, nil, nil, false, err
			}
			flag += " AND " + col("a", p.at.Column.Value) + " = " + q.param(atValue)
		}
		out = col("a", p.entity.Column.Value)
	}
	flag += p.scopeSQL(q, "a", c.Scope)
	// The rest is bound in the order the text names it, so that the text
	// is kept per plan and flag (Engine.text): the flag names its own
	// placeholders, bound first.
	at := sqlInstant(asOf)
	censusAt := q.bind(at)
	censusRestrictAt := q.bindAll(restrictVals)
	tAt, cpAt := q.bind(at), q.bind(cpID)
	cpRestrictAt := q.bindAll(restrictVals)
	cpTSAt := q.bind(cpTS)
	sinceRestrictAt := q.bindAll(restrictVals)
	sqlText := s.e.text(textKey{p: p, form: formResolveLive, shape: flag}, func() string {
		restrict := func(alias string, first int) string {
			w := make([]string, len(restrictCols))
			for i, cname := range restrictCols {
				w[i] = col(alias, cname) + " = " + placeholder(first+i)
			}
			return strings.Join(w, " AND ")
		}
		and := func(w string) string {
			if w == "" {
				return ""
			}
			return " AND " + w
		}
		// The rows that meet the call come back, each carrying the
		// number of live rows (a window count over them all), beside the
		// census (how many series had begun by as_of, an uncorrelated
		// subquery computed once); when none meets it, one live row comes
		// back unflagged for its count, and when there is none, the
		// census alone (a one-row relation left-joined): one query
		// whatever the answer, so that a pipeline holds it all.
		census := "SELECT COUNT(*) FROM " + p.censusRel + " s WHERE s._first_ts <= " + instantText(censusAt) +
			and(restrict("s", censusRestrictAt))
		proj := p.rowProjection("a")
		inner := make([]string, len(proj))
		outer := make([]string, len(proj))
		for i, e := range proj {
			inner[i] = e + " AS _p" + strconv.Itoa(i)
			outer[i] = "z._p" + strconv.Itoa(i)
		}
		t := instantText(tAt)
		cp, since := p.candidateSidesText(placeholder(cpAt), placeholder(cpTSAt), t, p.colList+", "+ident(ValidToColumn),
			and(restrict("c", cpRestrictAt)), and(restrict("r", sinceRestrictAt)))
		live := "FROM (" + cp + " UNION ALL " + since + ") a WHERE " + col("a", ValidToColumn) + " > " + t
		if len(restrictCols) == 0 && s.e.countLive {
			// Store-wide, the live rows are counted apart from the rows
			// that meet the call, each side by its own COUNT: the window
			// below holds every live row (one per series, 2,000 at 2,000
			// series) in a tuplestore to count them before it returns the
			// first, where the flagged rows are a few of them and a
			// checkpoint's live rows are counted from its index alone when
			// the index carries _valid_to (PostgreSQL: Derive's INCLUDE).
			// At 1M events on PostgreSQL, about 4.0 against 5.7 ms of
			// backend CPU for this statement (bench/results/pgwide.md);
			// DuckDB keeps the window (Engine.countLive). The live rows
			// are the same (candidates, _valid_to after as_of); a count
			// that is not the census's still marks the answer
			// inconsistent.
			validTo := " AND " + col("c", ValidToColumn) + " > " + t
			cpN, sinceN := p.candidateSidesText(placeholder(cpAt), placeholder(cpTSAt), t, "COUNT(*)", validTo, " AND "+col("r", ValidToColumn)+" > "+t)
			return "SELECT z._k, z._o, z._f, n._live, n._n, " + strings.Join(outer, ", ") + " FROM (SELECT (" + census + ") AS _n, (" + cpN + ") + (" + sinceN +
				") AS _live) n LEFT JOIN (SELECT CAST(" + col("a", p.ds.Key.Value) + " AS VARCHAR) AS _k, " + out + " AS _o, 1 AS _f, " + strings.Join(inner, ", ") + " " + live +
				" AND " + flag + ") z ON 1 = 1"
		}
		return "SELECT z._k, z._o, z._f, z._live, n._n, " + strings.Join(outer, ", ") + " FROM (SELECT (" + census + ") AS _n) n LEFT JOIN (SELECT * FROM (SELECT CAST(" +
			col("a", p.ds.Key.Value) + " AS VARCHAR) AS _k, " + out + " AS _o, CASE WHEN " + flag + " THEN 1 ELSE 0 END AS _f, COUNT(*) OVER () AS _live, ROW_NUMBER() OVER () AS _rn, " +
			strings.Join(inner, ", ") + " " + live + ") y WHERE y._f = 1 OR y._rn = 1) z ON 1 = 1"
	})
	rows, err := s.query(ctx, sqlText, q.args...)
	if errors.Is(err, errPending) {
		return fact.Value{}, nil, nil, false, err // collected: nothing to report
	}
	if err != nil {
		return fact.Value{}, nil, nil, false, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	defer rows.Close()
	var nLive, begun, flagged sql.NullInt64
	var ids []string
	known = map[string]row{}
	if p.tool.Shape.Value == catalog.ShapeLatestValue {
		v = fact.NoObservation(attrKind(p.attr))
	}
	// One set of destinations, reused for every row.
	var k sql.NullString
	var id sql.NullString
	var dest any = &id
	var cell *cell
	if p.tool.Shape.Value == catalog.ShapeLatestValue {
		cell = newCell(p.attr)
		dest = cell.dest()
	}
	sc := p.newRowScan()
	scan := append([]any{&k, dest, &flagged, &nLive, &begun}, sc.nullDest()...)
	for rows.Next() {
		if err := rows.Scan(scan...); err != nil {
			return fact.Value{}, nil, nil, false, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
		}
		if flagged.Int64 != 1 {
			continue // the count's row, or none
		}
		sc.fromNull()
		keys = append(keys, k.String)
		addRow(known, sc.key, sc.row(p))
		if cell != nil && cell.valid() {
			if v, err = cell.value(p.attr); err != nil {
				return fact.Value{}, nil, nil, false, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
			}
		} else if cell == nil && id.Valid {
			ids = append(ids, id.String)
		}
	}
	if err := rows.Err(); err != nil {
		return fact.Value{}, nil, nil, false, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	if p.tool.Shape.Value != catalog.ShapeLatestValue {
		v = p.entityValue(ids)
	}
	return v, keys, known, nLive.Int64 == begun.Int64, nil
}

// row is one looked-up row: its time and the columns a judgement reads
// (the plan's lookupColumns, in its order).
type row struct {
	dup  bool // two rows have the row's key
	time time.Time
	cols *rowCols
	sv   []sql.NullString  // entity and enumerated columns
	nv   []sql.NullFloat64 // numeric columns
}

// rowCols places a plan's judged columns in a row, shared by its rows.
type rowCols struct {
	str, num map[string]int
}

func newRowCols(strs, nums []string) *rowCols {
	c := &rowCols{str: make(map[string]int, len(strs)), num: make(map[string]int, len(nums))}
	for i, s := range strs {
		c.str[s] = i
	}
	for i, n := range nums {
		c.num[n] = i
	}
	return c
}

// judgeKeys looks every listed key up and judges its row against the
// call: it exists, its time fits, it is the series, fixed entity and scope
// the call names, it meets the condition, and it carries the value (a
// scalar) or one of the ids (a count or list) it backs. Every id of a
// fully listed result must be backed by some key.
func (s *Snapshot) judgeKeys(ctx context.Context, p *plan, c Call, r Result, known knownRows) (bool, error) {
	if len(r.Keys) == 0 {
		return r.Rows == 0, nil
	}
	if r.Rows < len(r.Keys) || !slices.IsSorted(r.Keys) {
		return false, nil
	}
	if known == nil {
		known = rowMap(nil)
	}
	var unknown []string
	for i, k := range r.Keys {
		if !known.has(i, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 && p.mem != nil {
		return false, nil // every row in memory was offered: these keys have none
	}
	var found map[string]row
	if len(unknown) > 0 {
		var err error
		if found, err = s.lookup(ctx, p, c, unknown); err != nil {
			return false, err
		}
	}
	var err error
	var pr *catalog.Predicate
	if p.tool.Filter != nil {
		if pr, err = p.condition(c); err != nil {
			return false, err
		}
	}
	backed := map[string]bool{}
	b := p.bounds(c)
	b.sortedIDs = slices.IsSorted(r.Value.IDs)
	judge := func(rw row) bool {
		if !p.judgeRow(c, b, pr, rw, r.Value) {
			return false
		}
		if p.entity != nil {
			backed[rw.strAt(p.entity.Column.Value).String] = true
		}
		return true
	}
	for i, k := range r.Keys {
		if known.has(i, k) {
			if !known.backs(i, k, judge) {
				return false, nil
			}
			continue
		}
		if !rowMap(found).backs(i, k, judge) {
			return false, nil
		}
	}
	if p.entity != nil && r.Rows == len(r.Keys) && len(backed) != len(r.Value.IDs) {
		return false, nil
	}
	return true, nil
}

// lookupColumns are the columns a judgement reads, beyond key and time
// (see judgeRow), computed once per plan.
func (p *plan) lookupColumns() (strs, nums []string) { return p.judgeStrs, p.judgeNums }

// judgedColumns computes lookupColumns: the series (latest_value), the
// counted or listed entity, the fixed entity, the scope entity, and the
// attributes the value (latest_value) or any condition the filter can
// name reads.
func (p *plan) judgedColumns() (strs, nums []string) {
	add := func(e *catalog.Entity) {
		if e != nil {
			strs = appendNew(strs, e.Column.Value)
		}
	}
	if p.tool.Shape.Value == catalog.ShapeLatestValue {
		for _, e := range p.series {
			add(e)
		}
	}
	add(p.entity)
	add(p.at)
	add(p.scope)
	var attrCols []string
	if p.attr != nil {
		attrCols = append(attrCols, p.attr.Column.Value)
	}
	if f := p.tool.Filter; f != nil {
		for _, v := range p.tool.FilterValues(p.ds) {
			if pr, err := p.condition(Call{Args: map[string]string{f.Param.Value: v}}); err == nil {
				attrCols = p.predicateColumns(pr, attrCols)
			}
		}
	}
	for _, a := range p.ds.Attributes {
		if !slices.Contains(attrCols, a.Column.Value) {
			continue
		}
		if a.Enumerated() {
			strs = appendNew(strs, a.Column.Value)
		} else {
			nums = appendNew(nums, a.Column.Value)
		}
	}
	return strs, nums
}

// lookup reads the rows of the given keys, by key. For a window it reads
// only rows inside the window (a key outside it backs nothing), so that a
// store can serve the lookup from the window's slice of the data.
func (s *Snapshot) lookup(ctx context.Context, p *plan, c Call, keys []string) (map[string]row, error) {
	proj := p.rowProjection("x")
	// Through the derived structures, a key that can back an as-of value
	// is a row of the checkpoint at or before as_of or a row since it: the
	// lookup reads that slice, not the whole table.
	var (
		sliced bool
		cpID   int64
		cpTS   string
		asOf   time.Time
		err    error
	)
	if p.derived && p.tool.Shape.Value != catalog.ShapeCountRowsInWindow {
		if asOf, err = instant(c, "as_of"); err != nil {
			return nil, err
		}
		if cpID, cpTS, err = s.checkpoint(ctx, p, asOf); err != nil {
			return nil, err
		}
		sliced = true
	}
	out := make(map[string]row, len(keys))
	const chunk = 500
	for lo := 0; lo < len(keys); lo += chunk {
		hi := min(lo+chunk, len(keys))
		q := &query{}
		from := p.rel
		if sliced {
			from = "(" + p.candidates(q, cpID, cpTS, q.instant(asOf), nil, false) + ")"
		}
		sqlText := "SELECT " + strings.Join(proj, ", ") + " FROM " + from + " x WHERE " +
			col("x", p.ds.Key.Value) + " IN " + q.list(keys[lo:hi])
		if p.tool.Shape.Value == catalog.ShapeCountRowsInWindow {
			start, err1 := instant(c, "start")
			end, err2 := instant(c, "end")
			if err1 != nil || err2 != nil {
				return nil, &ArgError{Param: "start", Reason: "is not a window"}
			}
			sqlText += " AND " + col("x", p.ds.Time.Value) + " >= " + q.instant(start) +
				" AND " + col("x", p.ds.Time.Value) + " < " + q.instant(end)
		}
		if err := s.scanRows(ctx, p, sqlText, q.args, func(k string, sc *rowScan) { addRow(out, k, sc.row(p)) }); err != nil {
			return nil, fmt.Errorf("look up keys of %s: %w", p.tool.Name.Value, err)
		}
	}
	return out, nil
}

// rowProjection selects, from the row aliased alias, what a judgement
// reads: the key, the time, the entity and enumerated columns, the
// numeric columns (as DOUBLE PRECISION), in the order newRowScan scans.
func (p *plan) rowProjection(alias string) []string {
	strs, nums := p.lookupColumns()
	proj := []string{"CAST(" + col(alias, p.ds.Key.Value) + " AS VARCHAR)", col(alias, p.ds.Time.Value)}
	for _, cname := range strs {
		proj = append(proj, col(alias, cname))
	}
	for _, cname := range nums {
		proj = append(proj, "CAST("+col(alias, cname)+" AS DOUBLE PRECISION)")
	}
	return proj
}

// rowScan holds the scan destinations of one rowProjection.
type rowScan struct {
	key  string
	time time.Time
	nk   sql.NullString
	nt   sql.NullTime
	sv   []sql.NullString
	nv   []sql.NullFloat64
	dest []any
}

func (p *plan) newRowScan() *rowScan {
	strs, nums := p.lookupColumns()
	sc := &rowScan{sv: make([]sql.NullString, len(strs)), nv: make([]sql.NullFloat64, len(nums))}
	sc.dest = []any{&sc.key, &sc.time}
	for i := range sc.sv {
		sc.dest = append(sc.dest, &sc.sv[i])
	}
	for i := range sc.nv {
		sc.dest = append(sc.dest, &sc.nv[i])
	}
	return sc
}

// nullDest are the scan's destinations for a row that may be all null
// (an outer join's): the key and time as nullable; fromNull then sets
// them.
func (sc *rowScan) nullDest() []any {
	return append([]any{&sc.nk, &sc.nt}, sc.dest[2:]...)
}

func (sc *rowScan) fromNull() { sc.key, sc.time = sc.nk.String, sc.nt.Time }

func (sc *rowScan) row(p *plan) row {
	return row{time: sc.time, cols: p.cols, sv: slices.Clone(sc.sv), nv: slices.Clone(sc.nv)}
}

// addRow adds a row by key; two rows that share a key leave neither
// (no key of them can be provenance), and a later third adds none.
func addRow(out map[string]row, k string, rw row) {
	if prev, dup := out[k]; dup {
		prev.dup = true
		out[k] = prev
		return
	}
	out[k] = rw
}

// scanRows reads the rows of a rowProjection query.
// each gets the scan, reused: it keeps a row with sc.row.
func (s *Snapshot) scanRows(ctx context.Context, p *plan, sqlText string, args []any, each func(k string, sc *rowScan)) error {
	rows, err := s.query(ctx, sqlText, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	sc := p.newRowScan()
	for rows.Next() {
		if err := rows.Scan(sc.dest...); err != nil {
			return err
		}
		each(sc.key, sc)
	}
	return rows.Err()
}

// callBounds are a call's instants, parsed once for every row judged; ok
// is false when one the shape needs does not parse (no row fits then).
type callBounds struct {
	asOf, start, end time.Time
	ok               bool
	// sortedIDs: the asserted value's ids are sorted (as a count or list
	// the executor built is), checked once.
	sortedIDs bool
}

// hasID reports whether ids (the asserted value's) holds id: by binary
// search when they are sorted, else by a scan.
func (b callBounds) hasID(ids []string, id string) bool {
	if b.sortedIDs {
		_, found := slices.BinarySearch(ids, id)
		return found
	}
	return slices.Contains(ids, id)
}

func (p *plan) bounds(c Call) callBounds {
	var b callBounds
	var err1, err2 error
	if p.tool.Shape.Value == catalog.ShapeCountRowsInWindow {
		b.start, err1 = instant(c, "start")
		b.end, err2 = instant(c, "end")
	} else {
		b.asOf, err1 = instant(c, "as_of")
	}
	b.ok = err1 == nil && err2 == nil
	return b
}

// judgeRow decides in Go whether one row backs the call's value.
func (p *plan) judgeRow(c Call, b callBounds, pr *catalog.Predicate, rw row, v fact.Value) bool {
	t := rw.time.UTC()
	str := func(column string) (string, bool) {
		s := rw.strAt(column)
		return s.String, s.Valid
	}
	if p.scope != nil && !c.Scope.IsAll() {
		if s, ok := str(p.scope.Column.Value); !ok || !c.Scope.allows(s) {
			return false
		}
	} else if p.scope == nil && !c.Scope.IsAll() {
		return false
	}
	switch p.tool.Shape.Value {
	case catalog.ShapeLatestValue:
		if !b.ok || t.After(b.asOf) {
			return false
		}
		for _, e := range p.series {
			if s, ok := str(e.Column.Value); !ok || s != c.Args[e.Column.Value] {
				return false
			}
		}
		return p.rowCarries(rw, v)
	case catalog.ShapeCountEntitiesWhere, catalog.ShapeListEntitiesInState:
		if !b.ok || t.After(b.asOf) {
			return false
		}
		if p.at != nil {
			if s, ok := str(p.at.Column.Value); !ok || s != c.Args[p.at.Column.Value] {
				return false
			}
		}
		id, ok := str(p.entity.Column.Value)
		if !ok || !b.hasID(v.IDs, id) {
			return false
		}
		return p.meets(pr, rw)
	case catalog.ShapeCountRowsInWindow:
		if !b.ok || t.Before(b.start) || !t.Before(b.end) {
			return false
		}
		if s, ok := str(p.at.Column.Value); !ok || s != c.Args[p.at.Column.Value] {
			return false
		}
		return p.meets(pr, rw)
	}
	return false
}

// rowCarries reports whether a row's attribute is the scalar value v.
func (p *plan) rowCarries(rw row, v fact.Value) bool {
	if !v.Observed {
		return false
	}
	if p.attr.Enumerated() {
		s := rw.strAt(p.attr.Column.Value)
		return s.Valid && s.String == v.Text
	}
	n := rw.numAt(p.attr.Column.Value)
	if !n.Valid {
		return false
	}
	if attrKind(p.attr) == fact.KindInteger {
		return n.Float64 == float64(v.Int)
	}
	return n.Float64 == v.Num
}

// rowValues reads a row's columns: a row read from SQL, or one held in
// memory.
type rowValues interface {
	strAt(column string) sql.NullString
	numAt(column string) sql.NullFloat64
}

func (rw row) strAt(column string) sql.NullString {
	if i, ok := rw.cols.str[column]; ok {
		return rw.sv[i]
	}
	return sql.NullString{}
}

func (rw row) numAt(column string) sql.NullFloat64 {
	if i, ok := rw.cols.num[column]; ok {
		return rw.nv[i]
	}
	return sql.NullFloat64{}
}

// meets evaluates a predicate on a row in Go; an empty value meets no
// comparison.
func (p *plan) meets(pr *catalog.Predicate, rw row) bool { return meetsRow(p, pr, rw) }

// meetsRow is meets on any row (generic, so that a memory row is not
// boxed per call).
func meetsRow[R rowValues](p *plan, pr *catalog.Predicate, rw R) bool {
	if pr == nil {
		return true
	}
	if len(pr.Any) > 0 {
		for _, s := range pr.Any {
			if meetsRow(p, s, rw) {
				return true
			}
		}
		return false
	}
	if len(pr.All) > 0 {
		for _, s := range pr.All {
			if !meetsRow(p, s, rw) {
				return false
			}
		}
		return true
	}
	a := p.ds.Attribute(pr.Attribute.Value)
	if a == nil || pr.Value == nil {
		return false
	}
	if a.Enumerated() {
		s := rw.strAt(a.Column.Value)
		if !s.Valid {
			return false
		}
		in := slices.ContainsFunc(pr.Value.Items, func(x catalog.Scalar) bool { return x.Str == s.String })
		switch pr.Op.Value {
		case "eq", "in":
			return in
		case "ne", "not_in":
			return !in
		}
		return false
	}
	n := rw.numAt(a.Column.Value)
	if !n.Valid {
		return false
	}
	in := slices.ContainsFunc(pr.Value.Items, func(x catalog.Scalar) bool { return x.Num == n.Float64 })
	x := pr.Value.Items[0].Num
	switch pr.Op.Value {
	case "eq", "in":
		return in
	case "ne", "not_in":
		return !in
	case "lt":
		return n.Float64 < x
	case "le":
		return n.Float64 <= x
	case "gt":
		return n.Float64 > x
	case "ge":
		return n.Float64 >= x
	}
	return false
}
