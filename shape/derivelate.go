package shape

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/internal/phasetrace"
)

// lateSuffix names the working table of deriveLate, created and dropped
// inside the import's transaction.
const lateSuffix = "__late"

// Bounds of deriveLate: an append of more than 1/lateMaxShare of the rows
// before it, or one that would leave a checkpoint interval holding more
// than lateMaxWiden times the spacing, rebuilds instead.
const (
	lateMaxShare = 8
	lateMaxWiden = 2
)

// deriveLate brings the derived structures up to date after an append
// some of whose rows (those without a validity interval yet) are not
// later than every row before it: telemetry that arrives late. A rebuild
// rewrites every row's interval and every checkpoint (at ten million
// events on PostgreSQL, 514 s and a table twice its size in dead rows
// for a thousand late rows, bench/results/late-rows.md); this touches
// only what the new rows change:
//
//   - the intervals of the new rows and of the row before each of them in
//     its series (its interval now ends at the new row), found among the
//     rows of the new rows' series whose intervals reach the earliest new
//     row, with LEAD as a rebuild computes them;
//   - the census entries of new series, and the first time of a series
//     that got an earlier row;
//   - each checkpoint whose instant falls in a new row's interval: the
//     new row replaces its series' row there; and the copies, in earlier
//     checkpoints, of the intervals that now end at a new row;
//   - checkpoints after the last one, spaced as a rebuild would.
//
// The checkpoints keep their instants, so the rows between two of them
// grow by the late rows that fall between them: the structures answer as
// a rebuild's would (every checkpoint still holds the latest row of every
// series at its instant; shapetest.CheckCheckpoints holds that), but are
// not a rebuild's row for row. To bound what a question reads, it
// reports false, having changed nothing but the working table it drops,
// when the append holds more than an eighth of the rows before it or
// would leave a checkpoint interval with more than twice the spacing's
// rows: Derive then rebuilds everything.
func deriveLate(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, a appended, o *DeriveOptions) (bool, error) {
	// The new rows are found by their ingestion numbers, through its
	// index, when they all follow the old rows' (as every import numbers
	// them); otherwise, rebuild.
	if a.old == 0 || a.new == 0 || a.new*lateMaxShare > a.old || a.newMinSeq <= a.oldMaxSeq {
		return false, nil
	}
	phasetrace.Mark("derive: before late rows")
	rel, lateRel := quoteName(table), quoteName(table+lateSuffix)
	boundsRel, pairsRel, closesRel := quoteName(table+lateSuffix+"_bounds"), quoteName(table+lateSuffix+"_pairs"), quoteName(table+lateSuffix+"_closes")
	working := []string{lateRel, boundsRel, pairsRel, closesRel}
	cpiRel, cpRel, censusRel := quoteName(table+cpiSuffix), quoteName(table+cpSuffix), quoteName(table+seriesSuffix)
	key, ts, vt, seq := ident(ds.Key.Value), ident(ds.Time.Value), ident(ValidToColumn), ident(SeqColumn)
	var series []string
	for _, e := range ds.SeriesEntities() {
		series = append(series, ident(e.Column.Value))
	}
	open := "CAST('" + OpenEnd + "' AS TIMESTAMP)"
	fail := func(what string, err error) error {
		return fmt.Errorf("derive %s: late rows: %s: %w", table, what, err)
	}
	exec := func(what, q string, args ...any) error {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fail(what, err)
		}
		return nil
	}
	// match renders the series columns of a and b equal.
	match := func(a, b string) string {
		var m []string
		for _, c := range series {
			m = append(m, a+"."+c+" = "+b+"."+c)
		}
		return strings.Join(m, " AND ")
	}
	prefixed := func(p string) string {
		var out []string
		for _, c := range series {
			out = append(out, p+"."+c)
		}
		return strings.Join(out, ", ")
	}
	every, err := spacing(ctx, tx, censusRel, o)
	if err != nil {
		return false, fail("checkpoint spacing", err)
	}
	for _, r := range working {
		if err := exec("working table", "DROP TABLE IF EXISTS "+r); err != nil {
			return false, err
		}
	}
	// The rows whose intervals may change: in each series with new rows,
	// every row from the last old row at or before the earliest new one
	// (the new row's predecessor; from the earliest new row when there is
	// none) to the latest new row: the new rows, the old rows between
	// them, and the predecessor, whose interval may now end at a new row.
	// Within a series these are consecutive in (time, key) order, so LEAD
	// over them gives each its next row, but for the last: an old row
	// keeps its interval (no new row follows it: _nv stays NULL, and NULL
	// <> _old is not true, so nothing below changes it), a new row's ends
	// at the next old row, looked up below. _old is the interval's end
	// before the append (NULL for a new row), _nv after it. Every lookup
	// is by series and time (the point questions' index on PostgreSQL)
	// or by ingestion number.
	// The series' bounds go into a table of their own first: joined in
	// one statement, PostgreSQL looked the predecessor up once per row of
	// the series rather than once per series. Each series' rows are then
	// read by a LATERAL subquery, which PostgreSQL runs as one index range
	// scan per series: as a join, it hashed the whole table (5.7 s at 10M
	// events, against 1,000 late rows). OFFSET 0 keeps PostgreSQL from
	// pulling the subquery up into that join.
	oldMax := fmt.Sprint(a.oldMaxSeq)
	if err := exec("working table", "CREATE TABLE "+boundsRel+" AS SELECT "+prefixed("n")+", n._x, COALESCE((SELECT MAX(o."+ts+") FROM "+rel+
		" o WHERE "+match("o", "n")+" AND o."+ts+" <= n._m AND o."+seq+" <= "+oldMax+"), n._m) AS _lo FROM (SELECT "+strings.Join(series, ", ")+
		", MIN("+ts+") AS _m, MAX("+ts+") AS _x FROM "+rel+" WHERE "+seq+" > "+oldMax+" GROUP BY "+strings.Join(series, ", ")+") n"); err != nil {
		return false, err
	}
	if err := exec("working table", "CREATE TABLE "+lateRel+" AS SELECT w."+seq+" AS _s, w."+key+" AS _k, w."+ts+" AS _t, "+prefixed("w")+
		", w."+vt+" AS _old, w._nv FROM (SELECT r."+seq+", r."+key+", r."+ts+", "+prefixed("r")+", r."+vt+", LEAD(r."+ts+") OVER (PARTITION BY "+
		prefixed("r")+" ORDER BY r."+ts+", r."+key+") AS _nv FROM "+boundsRel+" b CROSS JOIN LATERAL (SELECT r."+seq+", r."+key+", r."+ts+", "+
		prefixed("r")+", r."+vt+" FROM "+rel+" r WHERE "+match("r", "b")+" AND r."+ts+" >= b._lo AND r."+ts+" <= b._x OFFSET 0) r) w"); err != nil {
		return false, err
	}
	drop := func() error {
		for _, r := range working {
			if err := exec("drop working tables", "DROP TABLE IF EXISTS "+r); err != nil {
				return err
			}
		}
		return nil
	}
	if err := exec("last intervals", "UPDATE "+lateRel+" SET _nv = COALESCE((SELECT MIN(o."+ts+") FROM "+rel+" o WHERE "+match("o", lateRel)+
		" AND o."+seq+" <= "+oldMax+" AND o."+ts+" >= "+lateRel+"._t AND (o."+ts+" > "+lateRel+"._t OR o."+key+" > "+lateRel+"._k)), "+open+
		") WHERE _nv IS NULL AND _old IS NULL"); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late working table")
	// The checkpoint intervals the new rows fall in (a new row's is the
	// first checkpoint at or after it), and how many rows each would hold.
	var widest int64
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(k.n), 0) FROM (SELECT (SELECT COUNT(*) FROM "+rel+" r WHERE r."+ts+" > u.lo AND r."+ts+
		" <= u.hi) AS n FROM (SELECT DISTINCT c._cp_ts AS hi, COALESCE(p._cp_ts, CAST('0001-01-01 00:00:00' AS TIMESTAMP)) AS lo FROM (SELECT MIN(c2._cp) AS up FROM "+
		lateRel+" l JOIN "+cpiRel+" c2 ON c2._cp_ts >= l._t WHERE l._old IS NULL GROUP BY l._s) f JOIN "+cpiRel+" c ON c._cp = f.up LEFT JOIN "+
		cpiRel+" p ON p._cp = c._cp - 1) u) k").Scan(&widest); err != nil {
		return false, fail("checkpoint intervals", err)
	}
	if widest > int64(lateMaxWiden*every) {
		return false, drop()
	}
	phasetrace.Mark("derive: late interval bound")
	if err := exec("validity intervals", "UPDATE "+rel+" SET "+vt+" = l._nv FROM "+lateRel+" l WHERE "+rel+"."+seq+" = l._s AND (l._old IS NULL OR l._old <> l._nv)"); err != nil {
		return false, err
	}
	// Census: new series, and series that got an earlier first row.
	if err := exec("census", "INSERT INTO "+censusRel+" SELECT "+prefixed("l")+", MIN(l._t) FROM "+lateRel+" l WHERE l._old IS NULL AND NOT EXISTS (SELECT 1 FROM "+
		censusRel+" c WHERE "+match("c", "l")+") GROUP BY "+prefixed("l")); err != nil {
		return false, err
	}
	if err := exec("census", "UPDATE "+censusRel+" SET _first_ts = f._m FROM (SELECT "+prefixed("l")+", MIN(l._t) AS _m FROM "+lateRel+
		" l WHERE l._old IS NULL GROUP BY "+prefixed("l")+") f WHERE "+match(censusRel, "f")+" AND f._m < "+censusRel+"._first_ts"); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late validity, census")
	// Checkpoints whose instant a new row's interval holds: the new row is
	// its series' latest there. The pairs go into a small table first, as
	// do the intervals closed below: joined to the checkpoints in one
	// statement, PostgreSQL scanned all of them (9.8M rows at 10M events)
	// rather than probing their index.
	if err := exec("checkpoints", "CREATE TABLE "+pairsRel+" AS SELECT c._cp, l._s, "+prefixed("l")+" FROM "+lateRel+" l JOIN "+cpiRel+
		" c ON l._t <= c._cp_ts AND c._cp_ts < l._nv WHERE l._old IS NULL"); err != nil {
		return false, err
	}
	if err := exec("checkpoints", "DELETE FROM "+cpRel+" USING "+pairsRel+" p WHERE "+cpRel+"._cp = p._cp AND "+match(cpRel, "p")); err != nil {
		return false, err
	}
	var cols []string
	for _, c := range dataColumns(ds) {
		cols = append(cols, "r."+c)
	}
	if err := exec("checkpoints", "INSERT INTO "+cpRel+" SELECT p._cp, "+strings.Join(cols, ", ")+", r."+vt+" FROM "+pairsRel+" p JOIN "+rel+
		" r ON r."+seq+" = p._s"); err != nil {
		return false, err
	}
	// Earlier checkpoints' copies of the intervals that now end at a new
	// row.
	if err := exec("checkpoint intervals", "CREATE TABLE "+closesRel+" AS SELECT c._cp, "+prefixed("l")+", l._k, l._nv FROM "+lateRel+" l JOIN "+cpiRel+
		" c ON l._t <= c._cp_ts AND c._cp_ts < l._old WHERE l._old IS NOT NULL AND l._old <> l._nv"); err != nil {
		return false, err
	}
	if err := exec("checkpoint intervals", "UPDATE "+cpRel+" SET "+vt+" = x._nv FROM "+closesRel+" x WHERE "+cpRel+"._cp = x._cp AND "+match(cpRel, "x")+
		" AND "+cpRel+"."+key+" = x._k"); err != nil {
		return false, err
	}
	if err := drop(); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late checkpoints")
	// Checkpoints after the last one, among the rows since it.
	var lastID int64
	var lastTS sql.NullString
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(_cp), 0), CAST(MAX(_cp_ts) AS VARCHAR) FROM "+cpiRel).Scan(&lastID, &lastTS); err != nil {
		return false, fail("read checkpoints", err)
	}
	if !lastTS.Valid {
		lastTS.String = "0001-01-01 00:00:00"
	}
	if err := exec("checkpoints", "INSERT INTO "+cpiRel+" SELECT CAST($1 AS BIGINT) + CAST(ROW_NUMBER() OVER (ORDER BY d.t) AS BIGINT), d.t FROM "+
		"(SELECT DISTINCT r.t FROM (SELECT "+ts+" AS t, ROW_NUMBER() OVER (ORDER BY "+ts+", "+key+") AS rn FROM "+rel+
		" WHERE "+ts+" > CAST($2 AS TIMESTAMP)) r WHERE MOD(r.rn, "+fmt.Sprint(every)+") = 0) d", lastID, lastTS.String); err != nil {
		return false, err
	}
	if err := fillCheckpoints(ctx, tx, ds, table, lastID, lastTS.String); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late new checkpoints")
	return true, nil
}
