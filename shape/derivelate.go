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
//   - checkpoints after the last one, every spacing's rows counted from
//     its instant.
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
	if a.old == 0 || a.new == 0 || a.new*lateMaxShare > a.old {
		return false, nil
	}
	phasetrace.Mark("derive: before late rows")
	d, err := newIncrement(ctx, tx, ds, table, a, o)
	if err != nil {
		return false, err
	}
	if err := d.intervals(); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late working table")
	// The checkpoint intervals the new rows fall in (a new row's is the
	// first checkpoint at or after it), and how many rows each would hold.
	var widest int64
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(k.n), 0) FROM (SELECT (SELECT COUNT(*) FROM "+d.rel+" r WHERE r."+d.ts+" > u.lo AND r."+d.ts+
		" <= u.hi) AS n FROM (SELECT DISTINCT c._cp_ts AS hi, COALESCE(p._cp_ts, CAST('0001-01-01 00:00:00' AS TIMESTAMP)) AS lo FROM (SELECT MIN(c2._cp) AS up FROM "+
		d.lateRel+" l JOIN "+d.cpiRel+" c2 ON c2._cp_ts >= l._t WHERE l._old IS NULL GROUP BY l._s) f JOIN "+d.cpiRel+" c ON c._cp = f.up LEFT JOIN "+
		d.cpiRel+" p ON p._cp = c._cp - 1) u) k").Scan(&widest); err != nil {
		return false, d.fail("checkpoint intervals", err)
	}
	if widest > int64(lateMaxWiden*d.every) {
		return false, d.drop()
	}
	phasetrace.Mark("derive: late interval bound")
	if err := d.apply(); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late validity, census")
	// Checkpoints whose instant a new row's interval holds: the new row is
	// its series' latest there. The pairs go into a small table first, as
	// do the intervals closed (apply): joined to the checkpoints in one
	// statement, PostgreSQL scanned all of them (9.8M rows at 10M events)
	// rather than probing their index.
	if err := d.exec("checkpoints", "CREATE TABLE "+d.pairsRel+" AS SELECT c._cp, l._s, "+d.prefixed("l")+" FROM "+d.lateRel+" l JOIN "+d.cpiRel+
		" c ON l._t <= c._cp_ts AND c._cp_ts < l._nv WHERE l._old IS NULL"); err != nil {
		return false, err
	}
	if err := d.exec("checkpoints", "DELETE FROM "+d.cpRel+" USING "+d.pairsRel+" p WHERE "+d.cpRel+"._cp = p._cp AND "+d.match(d.cpRel, "p")); err != nil {
		return false, err
	}
	var cols []string
	for _, c := range dataColumns(ds) {
		cols = append(cols, "r."+c)
	}
	if err := d.exec("checkpoints", "INSERT INTO "+d.cpRel+" SELECT p._cp, "+strings.Join(cols, ", ")+", r."+d.vt+" FROM "+d.pairsRel+" p JOIN "+d.rel+
		" r ON r."+d.seq+" = p._s"); err != nil {
		return false, err
	}
	if err := d.drop(); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late checkpoints")
	// Checkpoints after the last one, among the rows since it.
	lastID, lastTS, err := d.lastCheckpoint()
	if err != nil {
		return false, err
	}
	if err := d.exec("checkpoints", "INSERT INTO "+d.cpiRel+" SELECT CAST($1 AS BIGINT) + CAST(ROW_NUMBER() OVER (ORDER BY d.t) AS BIGINT), d.t FROM "+
		"(SELECT DISTINCT r.t FROM (SELECT "+d.ts+" AS t, ROW_NUMBER() OVER (ORDER BY "+d.ts+", "+d.key+") AS rn FROM "+d.rel+
		" WHERE "+d.ts+" > CAST($2 AS TIMESTAMP)) r WHERE MOD(r.rn, "+fmt.Sprint(d.every)+") = 0) d", lastID, lastTS); err != nil {
		return false, err
	}
	if err := fillCheckpoints(ctx, tx, ds, table, lastID, lastTS); err != nil {
		return false, err
	}
	phasetrace.Mark("derive: late new checkpoints")
	return true, nil
}

// readAppend reads what an append added to table (see appended), and
// whether every new row is later than every old one. Each read is a few
// index probes on PostgreSQL (the greatest ingestion number and time of an
// old row: backward scans of their indexes that stop at the first old
// row; the new rows: a range of the ingestion numbers' index), so that an
// append's derivation does not read the whole table. The new rows are
// those numbered after every old row, as import numbers them; the old
// rows are counted as the greatest old number, exact for a table whose
// rows are numbered 1..n as imports leave it (otherwise the checkpoints
// of an append are spaced from another origin, which only moves them).
func readAppend(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string) (appended, bool, error) {
	var a appended
	rel, ts, vt, seq := quoteName(table), ident(ds.Time.Value), ident(ValidToColumn), ident(SeqColumn)
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX("+seq+"), 0) FROM "+rel+" WHERE "+vt+" IS NOT NULL").Scan(&a.oldMaxSeq); err != nil {
		return a, false, fmt.Errorf("derive %s: read the append: %w", table, err)
	}
	a.old = a.oldMaxSeq
	var newMin, oldMax sql.NullTime
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*), MIN("+ts+") FROM "+rel+" WHERE "+seq+" > $1", a.oldMaxSeq).Scan(&a.new, &newMin); err != nil {
		return a, false, fmt.Errorf("derive %s: read the append: %w", table, err)
	}
	if err := tx.QueryRowContext(ctx, "SELECT MAX("+ts+") FROM "+rel+" WHERE "+vt+" IS NOT NULL").Scan(&oldMax); err != nil {
		return a, false, fmt.Errorf("derive %s: read the append: %w", table, err)
	}
	later := newMin.Valid && oldMax.Valid && oldMax.Time.Before(newMin.Time)
	return a, later, nil
}

// increment holds what an incremental derivation (deriveAppend,
// deriveLate) works with: the relations, the quoted columns, and the
// working tables, which live and die inside the import's transaction.
type increment struct {
	ctx   context.Context
	tx    *sql.Tx
	table string
	a     appended
	every int

	rel, cpiRel, cpRel, censusRel           string
	lateRel, boundsRel, pairsRel, closesRel string
	key, ts, vt, seq                        string
	series                                  []string
	oldMax                                  string // a.oldMaxSeq, as SQL
}

func newIncrement(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, a appended, o *DeriveOptions) (*increment, error) {
	d := &increment{ctx: ctx, tx: tx, table: table, a: a,
		rel: quoteName(table), cpiRel: quoteName(table + cpiSuffix), cpRel: quoteName(table + cpSuffix), censusRel: quoteName(table + seriesSuffix),
		lateRel: quoteName(table + lateSuffix), boundsRel: quoteName(table + lateSuffix + "_bounds"),
		pairsRel: quoteName(table + lateSuffix + "_pairs"), closesRel: quoteName(table + lateSuffix + "_closes"),
		key: ident(ds.Key.Value), ts: ident(ds.Time.Value), vt: ident(ValidToColumn), seq: ident(SeqColumn),
		oldMax: fmt.Sprint(a.oldMaxSeq),
	}
	for _, e := range ds.SeriesEntities() {
		d.series = append(d.series, ident(e.Column.Value))
	}
	every, err := spacing(ctx, tx, d.censusRel, o)
	if err != nil {
		return nil, d.fail("checkpoint spacing", err)
	}
	d.every = every
	for _, r := range d.working() {
		if err := d.exec("working table", "DROP TABLE IF EXISTS "+r); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *increment) working() []string {
	return []string{d.lateRel, d.boundsRel, d.pairsRel, d.closesRel}
}

func (d *increment) fail(what string, err error) error {
	return fmt.Errorf("derive %s: %s: %w", d.table, what, err)
}

func (d *increment) exec(what, q string, args ...any) error {
	if _, err := d.tx.ExecContext(d.ctx, q, args...); err != nil {
		return d.fail(what, err)
	}
	return nil
}

// drop drops the working tables.
func (d *increment) drop() error {
	for _, r := range d.working() {
		if err := d.exec("drop working tables", "DROP TABLE IF EXISTS "+r); err != nil {
			return err
		}
	}
	return nil
}

// match renders the series columns of a and b equal.
func (d *increment) match(a, b string) string {
	var m []string
	for _, c := range d.series {
		m = append(m, a+"."+c+" = "+b+"."+c)
	}
	return strings.Join(m, " AND ")
}

// prefixed lists the series columns of p.
func (d *increment) prefixed(p string) string {
	var out []string
	for _, c := range d.series {
		out = append(out, p+"."+c)
	}
	return strings.Join(out, ", ")
}

// lastCheckpoint is the last checkpoint's number and time, or 0 and the
// earliest time.
func (d *increment) lastCheckpoint() (int64, string, error) {
	var id int64
	var ts sql.NullString
	if err := d.tx.QueryRowContext(d.ctx, "SELECT COALESCE(MAX(_cp), 0), CAST(MAX(_cp_ts) AS VARCHAR) FROM "+d.cpiRel).Scan(&id, &ts); err != nil {
		return 0, "", d.fail("read checkpoints", err)
	}
	if !ts.Valid {
		ts.String = "0001-01-01 00:00:00"
	}
	return id, ts.String, nil
}

// intervals builds the working table of the rows whose intervals may
// change: in each series with new rows, every row from the last old row
// at or before the earliest new one (the new row's predecessor; from the
// earliest new row when there is none) to the latest new row: the new
// rows, the old rows between them, and the predecessor, whose interval
// may now end at a new row. Within a series these are consecutive in
// (time, key) order, so LEAD over them gives each its next row, but for
// the last: an old row keeps its interval (no new row follows it: _nv
// stays NULL, and NULL <> _old is not true, so nothing in apply changes
// it), a new row's ends at the next old row, looked up here. _old is the
// interval's end before the append (NULL for a new row), _nv after it.
// Every lookup is by series and time (the point questions' index on
// PostgreSQL) or by ingestion number.
func (d *increment) intervals() error {
	// The series' bounds go into a table of their own first: joined in
	// one statement, PostgreSQL looked the predecessor up once per row of
	// the series rather than once per series. Each series' rows are then
	// read by a LATERAL subquery, which PostgreSQL runs as one index range
	// scan per series: as a join, it hashed the whole table (5.7 s at 10M
	// events, against 1,000 late rows). OFFSET 0 keeps PostgreSQL from
	// pulling the subquery up into that join.
	all := strings.Join(d.series, ", ")
	if err := d.exec("working table", "CREATE TABLE "+d.boundsRel+" AS SELECT "+d.prefixed("n")+", n._x, COALESCE((SELECT MAX(o."+d.ts+") FROM "+d.rel+
		" o WHERE "+d.match("o", "n")+" AND o."+d.ts+" <= n._m AND o."+d.seq+" <= "+d.oldMax+"), n._m) AS _lo FROM (SELECT "+all+
		", MIN("+d.ts+") AS _m, MAX("+d.ts+") AS _x FROM "+d.rel+" WHERE "+d.seq+" > "+d.oldMax+" GROUP BY "+all+") n"); err != nil {
		return err
	}
	rows := d.boundsRel + " b CROSS JOIN LATERAL (SELECT r." + d.seq + ", r." + d.key + ", r." + d.ts + ", " + d.prefixed("r") + ", r." + d.vt + " FROM " + d.rel +
		" r WHERE " + d.match("r", "b") + " AND r." + d.ts + " >= b._lo AND r." + d.ts + " <= b._x OFFSET 0) r"
	if err := d.exec("working table", "CREATE TABLE "+d.lateRel+" AS SELECT w."+d.seq+" AS _s, w."+d.key+" AS _k, w."+d.ts+" AS _t, "+d.prefixed("w")+
		", w."+d.vt+" AS _old, w._nv FROM (SELECT r."+d.seq+", r."+d.key+", r."+d.ts+", "+d.prefixed("r")+", r."+d.vt+", LEAD(r."+d.ts+") OVER (PARTITION BY "+
		d.prefixed("r")+" ORDER BY r."+d.ts+", r."+d.key+") AS _nv FROM "+rows+") w"); err != nil {
		return err
	}
	open := "CAST('" + OpenEnd + "' AS TIMESTAMP)"
	if err := d.exec("last intervals", "UPDATE "+d.lateRel+" SET _nv = COALESCE((SELECT MIN(o."+d.ts+") FROM "+d.rel+" o WHERE "+d.match("o", d.lateRel)+
		" AND o."+d.seq+" <= "+d.oldMax+" AND o."+d.ts+" >= "+d.lateRel+"._t AND (o."+d.ts+" > "+d.lateRel+"._t OR o."+d.key+" > "+d.lateRel+"._k)), "+open+
		") WHERE _nv IS NULL AND _old IS NULL"); err != nil {
		return err
	}
	return nil
}

// apply writes the working table's intervals into the table, the census
// entries of new series and the earlier first times of others, and the
// intervals that now end at a new row into the copies the checkpoints
// hold of them.
func (d *increment) apply() error {
	if err := d.exec("validity intervals", "UPDATE "+d.rel+" SET "+d.vt+" = l._nv FROM "+d.lateRel+" l WHERE "+d.rel+"."+d.seq+
		" = l._s AND (l._old IS NULL OR l._old <> l._nv)"); err != nil {
		return err
	}
	if err := d.exec("census", "INSERT INTO "+d.censusRel+" SELECT "+d.prefixed("l")+", MIN(l._t) FROM "+d.lateRel+" l WHERE l._old IS NULL AND NOT EXISTS (SELECT 1 FROM "+
		d.censusRel+" c WHERE "+d.match("c", "l")+") GROUP BY "+d.prefixed("l")); err != nil {
		return err
	}
	if err := d.exec("census", "UPDATE "+d.censusRel+" SET _first_ts = f._m FROM (SELECT "+d.prefixed("l")+", MIN(l._t) AS _m FROM "+d.lateRel+
		" l WHERE l._old IS NULL GROUP BY "+d.prefixed("l")+") f WHERE "+d.match(d.censusRel, "f")+" AND f._m < "+d.censusRel+"._first_ts"); err != nil {
		return err
	}
	// The checkpoints holding an interval that now ends at a new row: from
	// the row's time to the interval's old end (the open end for a series'
	// latest row), in a small table first (see deriveLate).
	if err := d.exec("checkpoint intervals", "CREATE TABLE "+d.closesRel+" AS SELECT c._cp, "+d.prefixed("l")+", l._k, l._nv FROM "+d.lateRel+" l JOIN "+d.cpiRel+
		" c ON l._t <= c._cp_ts AND c._cp_ts < l._old WHERE l._old IS NOT NULL AND l._old <> l._nv"); err != nil {
		return err
	}
	return d.exec("checkpoint intervals", "UPDATE "+d.cpRel+" SET "+d.vt+" = x._nv FROM "+d.closesRel+" x WHERE "+d.cpRel+"._cp = x._cp AND "+d.match(d.cpRel, "x")+
		" AND "+d.cpRel+"."+d.key+" = x._k")
}
