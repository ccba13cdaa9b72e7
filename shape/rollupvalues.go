package shape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/internal/phasetrace"
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

// RollupValueSlicesSuffix names a table's value rollups by slice of an
// hour: TABLE__rollup_value_slices holds what TABLE__rollup_values holds,
// for every SliceWidth of the table's time rather than every hour (the
// column _hour holds the slice's start; a series' latest row is open to
// the same end, the end of the last hour holding a row). A metric's
// compiled query and its re-derivation sum a window's partial first and
// last hours from their whole slices and sequence only the rows of the
// partial slices (metric.ValueRollup.Slices): a tenth of an hour's rows
// at most, rather than up to a whole hour's. Kept by DeriveRollupValues
// on PostgreSQL once the rows are as dense as the key digests' slices
// need (DeriveOptions.ValueSliceMinRows), where a statement's cost follows
// its rows; on DuckDB only when asked.
const RollupValueSlicesSuffix = "__rollup_value_slices"

// DeriveRollupValues brings TABLE__rollup_values, and
// TABLE__rollup_value_slices when kept, up to date inside tx (Derive
// calls it after the validity intervals when DeriveOptions.RollupValues
// is set). Like DeriveRollupKeys, only the hours from the last stored
// hour on are recomputed (an append later than the stored rows changes no
// earlier hour: a series' latest row was open to the end of the last
// stored hour, and its next row comes at or after it), after the checks
// of RollupValuesAgree and, for the slices, that every earlier hour's
// slices add up to the hour. When a check fails (rows imported out of
// time order, a stored row altered, the catalog's layout changed) every
// hour is recomputed. Through Derive, which knows the rows an import
// added, rows imported out of time order (late rows) no longer do: the
// stored hours are checked against the rows before the import, with their
// intervals then (checkHeldValues), and of the earlier hours only those
// the late rows change are folded again (lateSpans), then checked like the
// hours from the last on. The slices are kept from the import after which
// the stored hours hold minSliceRows rows an hour on average (built then
// from the start; negative: from the first import; 0:
// DefaultSliceMinRows on PostgreSQL and never on DuckDB, where they cost
// a metric call more than they save, bench/results/value-slices.md), and
// from then on by every import, the hours and the slices folded from one
// read of the rows. Before the import may commit them, the hours just
// folded are checked against the rows by BuiltRollupValuesAgree and the
// slices against the hours; a disagreement is ErrRollupValuesBuilt. A
// row's next row is its series' next by LEAD, not _valid_to, which that
// check reads, so that a wrong interval fails the import.
func DeriveRollupValues(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, minSliceRows int) error {
	return deriveRollupValues(ctx, tx, cat, ds, table, minSliceRows, nil)
}

// heldValues is what checkHeldValues found of the stored value rollups
// before an append's rows got their intervals.
type heldValues struct {
	before int64     // the rows numbered up to before are those folded
	last   time.Time // the last stored hour
	agree  bool      // the hours before last agree with those rows
}

// checkHeldValues checks the stored value rollups against the rows
// numbered up to before, with their intervals as they are: called by
// Derive before the structures give an append's rows theirs. Nil when
// nothing is stored.
func checkHeldValues(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, before int64) (*heldValues, error) {
	rvName, slName := table+RollupValuesSuffix, table+RollupValueSlicesSuffix
	rvRel, slRel := quoteName(rvName), quoteName(slName)
	groups, measures := metric.ValueLayout(cat, ds)
	cols := valueColumns(groups, measures)
	fail := func(what string, err error) error {
		return fmt.Errorf("derive %s: rollup values: %s: %w", table, what, err)
	}
	// laid reports whether the table exists in this layout (when it does
	// not, deriveRollupValues makes it anew).
	laid := func(name string) (bool, error) {
		exists, err := tableExists(ctx, tx, name)
		if err != nil || !exists {
			return false, err
		}
		have, err := tableColumns(ctx, tx, quoteName(name))
		return err == nil && slices.Equal(have, cols), err
	}
	ok, err := laid(rvName)
	if err != nil {
		return nil, fail("look up table", err)
	}
	if !ok {
		return nil, nil
	}
	sliced, err := laid(slName)
	if err != nil {
		return nil, fail("look up table", err)
	}
	var last sql.NullTime
	if err := tx.QueryRowContext(ctx, "SELECT MAX(_hour) FROM "+rvRel).Scan(&last); err != nil {
		return nil, fail("read last hour", err)
	}
	if !last.Valid {
		return nil, nil
	}
	h := &heldValues{before: before, last: last.Time.UTC()}
	at := h.last
	if h.agree, err = valuesAgree(ctx, tx, cat, ds, table, time.Time{}, at, at.Add(-digestCheckHours*time.Hour), false, before); err != nil {
		return nil, fail("check", err)
	}
	if h.agree && sliced {
		if h.agree, err = valueSlicesAgree(ctx, tx, rvRel, slRel, groups, measures, at); err != nil {
			return nil, fail("check slices", err)
		}
	}
	return h, nil
}

// valueColumns are a value rollup table's columns, in order.
func valueColumns(groups []string, measures []*catalog.Measure) []string {
	cols := []string{"_hour"}
	cols = append(cols, groups...)
	cols = append(cols, "_n")
	for _, m := range measures {
		cols = append(cols, metric.ValueColumn(m.Name.Value))
	}
	return cols
}

// hourSpan is the hours in [lo, hi).
type hourSpan struct{ lo, hi time.Time }

// lateSpans reads the hours before last whose value parts the rows
// numbered after before change: for each such row starting before last,
// the hours from its own to that of the next row numbered up to before in
// its series (whose previous row it now is; the interval it splits ends
// there), or to last when none follows; merged, in order. Each row's next
// is a lookup by series and time, as deriveLate's.
func lateSpans(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, before int64, last time.Time) ([]hourSpan, error) {
	rel, ts, key, seq := quoteName(table), ident(ds.Time.Value), ident(ds.Key.Value), ident(SeqColumn)
	var match []string
	for _, e := range ds.SeriesEntities() {
		c := ident(e.Column.Value)
		match = append(match, "o."+c+" = n."+c)
	}
	old := strconv.FormatInt(before, 10)
	rows, err := tx.QueryContext(ctx, "SELECT n."+ts+", (SELECT MIN(o."+ts+") FROM "+rel+" o WHERE "+strings.Join(match, " AND ")+" AND o."+seq+" <= "+old+
		" AND o."+ts+" >= n."+ts+" AND (o."+ts+" > n."+ts+" OR o."+key+" > n."+key+")) FROM "+rel+" n WHERE n."+seq+" > "+old+
		" AND n."+ts+" < CAST($1 AS TIMESTAMP)", last.Format(sqlTime))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var spans []hourSpan
	for rows.Next() {
		var t time.Time
		var next sql.NullTime
		if err := rows.Scan(&t, &next); err != nil {
			return nil, err
		}
		hi := last
		if next.Valid {
			// The next row's own hour changes too (its previous row).
			hi = min64(last, next.Time.UTC().Truncate(time.Hour).Add(time.Hour))
		}
		spans = append(spans, hourSpan{lo: t.UTC().Truncate(time.Hour), hi: hi})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(spans, func(a, b hourSpan) int { return a.lo.Compare(b.lo) })
	var merged []hourSpan
	for _, sp := range spans {
		if n := len(merged); n > 0 && !sp.lo.After(merged[n-1].hi) {
			merged[n-1].hi = max64(merged[n-1].hi, sp.hi)
			continue
		}
		merged = append(merged, sp)
	}
	return merged, nil
}

// deriveRollupValues is DeriveRollupValues given what checkHeldValues
// found (nil: nothing known of an append).
func deriveRollupValues(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, minSliceRows int, held *heldValues) error {
	rvName, slName := table+RollupValuesSuffix, table+RollupValueSlicesSuffix
	rvRel, slRel := quoteName(rvName), quoteName(slName)
	groups, measures := metric.ValueLayout(cat, ds)
	fail := func(what string, err error) error {
		return fmt.Errorf("derive %s: rollup values: %s: %w", table, what, err)
	}
	cols := valueColumns(groups, measures)
	// ensure reports whether a table of this layout exists, dropping one
	// of another layout (the catalog changed), and creates it when create
	// is set.
	ensure := func(name, suffix string, create bool) (bool, error) {
		rel := quoteName(name)
		exists, err := tableExists(ctx, tx, name)
		if err != nil {
			return false, fail("look up table", err)
		}
		if exists {
			have, err := tableColumns(ctx, tx, rel)
			if err != nil {
				return false, fail("read columns", err)
			}
			if slices.Equal(have, cols) {
				return true, nil
			}
			if _, err := tx.ExecContext(ctx, "DROP TABLE "+rel); err != nil {
				return false, fail("drop table", err)
			}
		}
		if !create {
			return false, nil
		}
		sel := "CAST(NULL AS TIMESTAMP) AS _hour"
		for _, g := range groups {
			sel += ", " + ident(g)
		}
		sel += ", CAST(0 AS BIGINT) AS _n"
		for _, m := range measures {
			sel += ", CAST(NULL AS DOUBLE PRECISION) AS " + ident(metric.ValueColumn(m.Name.Value))
		}
		if _, err := tx.ExecContext(ctx, "CREATE TABLE "+rel+" AS SELECT "+sel+" FROM "+quoteName(table)+" WHERE 1 = 0"); err != nil {
			return false, fail("create table", err)
		}
		_, base, ok := strings.Cut(table, ".")
		if !ok {
			base = table
		}
		if _, err := tx.ExecContext(ctx, "CREATE INDEX "+ident(base+suffix+"_idx")+" ON "+rel+" (_hour)"); err != nil {
			return false, fail("index", err)
		}
		return false, nil
	}
	exists, err := ensure(rvName, RollupValuesSuffix, true)
	if err != nil {
		return err
	}
	sliced, err := ensure(slName, RollupValueSlicesSuffix, false)
	if err != nil {
		return err
	}
	var from time.Time
	var spans []hourSpan // earlier hours an append's late rows change
	if exists && held != nil {
		// Checked against the rows before the append (checkHeldValues).
		if held.agree {
			from = held.last
			if spans, err = lateSpans(ctx, tx, ds, table, held.before, from); err != nil {
				return fail("read late rows", err)
			}
		}
	} else if exists {
		var last sql.NullTime
		if err := tx.QueryRowContext(ctx, "SELECT MAX(_hour) FROM "+rvRel).Scan(&last); err != nil {
			return fail("read last hour", err)
		}
		if last.Valid {
			ok, err := RollupValuesAgree(ctx, tx, cat, ds, table, last.Time.UTC())
			if err != nil {
				return fail("check", err)
			}
			if ok && sliced {
				if ok, err = valueSlicesAgree(ctx, tx, rvRel, slRel, groups, measures, last.Time.UTC()); err != nil {
					return fail("check slices", err)
				}
			}
			if ok {
				from = last.Time.UTC()
			}
		}
	}
	// threshold, when the slices are not kept yet: the rows an hour from
	// which they are (0: never).
	var threshold int64
	if !sliced {
		switch {
		case minSliceRows < 0:
			// The slices from the start: every hour folded again.
			if _, err := ensure(slName, RollupValueSlicesSuffix, true); err != nil {
				return err
			}
			sliced, from = true, time.Time{}
		case minSliceRows > 0:
			threshold = int64(minSliceRows)
		default:
			// By default on PostgreSQL only: DuckDB's statements cost
			// about the same whatever the edge's rows, and the slices'
			// statements more than they save (value-slices.md).
			duck, err := isDuckDBTx(ctx, tx)
			if err != nil {
				return fail("look up database", err)
			}
			if !duck {
				threshold = DefaultSliceMinRows
			}
		}
	}
	// A build from the start folds the slices alongside whenever they
	// may be kept, so that the rows are read once.
	maybe := threshold > 0 && from.IsZero()
	widths := []time.Duration{time.Hour}
	if sliced || maybe {
		widths = append(widths, SliceWidth)
	}
	kept := []string{rvRel}
	if sliced {
		kept = append(kept, slRel)
	}
	for _, rel := range kept {
		if from.IsZero() {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+rel); err != nil {
				return fail("clear", err)
			}
		} else if _, err := tx.ExecContext(ctx, "DELETE FROM "+rel+" WHERE _hour >= CAST($1 AS TIMESTAMP)", from.Format(sqlTime)); err != nil {
			return fail("clear hours", err)
		}
	}
	// checkBuilt checks the hours just folded against the rows (hours set)
	// and the slices kept against the hours, before the import may commit
	// them.
	checkBuilt := func(hours bool) error {
		ok, err := true, error(nil)
		if hours {
			ok, err = BuiltRollupValuesAgree(ctx, tx, cat, ds, table, from)
			for _, sp := range spans {
				if err != nil || !ok {
					break
				}
				ok, err = valuesAgree(ctx, tx, cat, ds, table, sp.lo, sp.hi, sp.lo, true, 0)
			}
		}
		if err == nil && ok && sliced {
			ok, err = valueSlicesAgree(ctx, tx, rvRel, slRel, groups, measures, time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC))
		}
		if err != nil {
			return fail("check built", err)
		}
		if !ok {
			return fail("check built", ErrRollupValuesBuilt)
		}
		return nil
	}
	phasetrace.Mark("derive: rollup values: checks")
	// The earlier hours late rows change, folded again from their rows.
	for _, sp := range spans {
		for _, rel := range kept {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+rel+" WHERE _hour >= CAST($1 AS TIMESTAMP) AND _hour < CAST($2 AS TIMESTAMP)",
				sp.lo.Format(sqlTime), sp.hi.Format(sqlTime)); err != nil {
				return fail("clear hours", err)
			}
		}
		folded, err := foldValues(ctx, tx, cat, ds, table, sp.lo, sp.hi, widths)
		if err != nil {
			return fail("fold rows", err)
		}
		for i, rel := range kept {
			if err := insertValueParts(ctx, tx, rel, cols, folded[i]); err != nil {
				return fail("insert", err)
			}
		}
	}
	phasetrace.Mark("derive: rollup values: late hours")
	folded, err := foldValues(ctx, tx, cat, ds, table, from, time.Time{}, widths)
	if err != nil {
		return fail("fold rows", err)
	}
	if err := insertValueParts(ctx, tx, rvRel, cols, folded[0]); err != nil {
		return fail("insert", err)
	}
	if sliced {
		if err := insertValueParts(ctx, tx, slRel, cols, folded[1]); err != nil {
			return fail("insert", err)
		}
	}
	phasetrace.Mark("derive: rollup values: fold")
	if err := checkBuilt(true); err != nil {
		return err
	}
	phasetrace.Mark("derive: rollup values: check built")
	if threshold == 0 {
		return nil
	}
	// The density from the stored hours (a row counts in the hour it
	// starts in); once dense enough, the slices from the start.
	var rows, hours sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT SUM(_n), COUNT(DISTINCT CASE WHEN _n > 0 THEN _hour END) FROM "+rvRel).Scan(&rows, &hours); err != nil {
		return fail("read density", err)
	}
	if !hours.Valid || hours.Int64 == 0 || rows.Int64/hours.Int64 < threshold {
		return nil
	}
	if _, err := ensure(slName, RollupValueSlicesSuffix, true); err != nil {
		return err
	}
	parts := []valuePart(nil)
	if maybe {
		parts = folded[1]
	} else {
		// Dense from this import on: the slices of every hour, once.
		all, err := foldValues(ctx, tx, cat, ds, table, time.Time{}, time.Time{}, []time.Duration{SliceWidth})
		if err != nil {
			return fail("fold rows", err)
		}
		parts = all[0]
	}
	if err := insertValueParts(ctx, tx, slRel, cols, parts); err != nil {
		return fail("insert", err)
	}
	sliced = true
	return checkBuilt(false)
}

// insertValueParts inserts parts into the value rollup table rel of
// columns cols.
func insertValueParts(ctx context.Context, tx *sql.Tx, rel string, cols []string, parts []valuePart) error {
	qcols := make([]string, len(cols))
	for i, c := range cols {
		qcols[i] = ident(c)
	}
	const batch = 256
	for i := 0; i < len(parts); i += batch {
		var q strings.Builder
		q.WriteString("INSERT INTO " + rel + " (" + strings.Join(qcols, ", ") + ") VALUES ")
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
			return err
		}
	}
	return nil
}

// valueSlicesAgree reports whether, for every hour before `before` and
// every group, the slices of the value rollups add up to the stored hour:
// the same parts, the same rows and counts, durations to a relative 1e-9
// (the hours themselves are checked against the rows by
// RollupValuesAgree; a slice moved within its hour is left to
// metric.RederiveValues's spot check of a slice).
func valueSlicesAgree(ctx context.Context, tx *sql.Tx, rvRel, slRel string, groups []string, measures []*catalog.Measure, before time.Time) (bool, error) {
	sel := []string{"_hour"}
	ssel := []string{"date_trunc('hour', _hour)"}
	by := []string{"date_trunc('hour', _hour)"}
	for _, g := range groups {
		sel = append(sel, "CAST("+ident(g)+" AS VARCHAR)")
		ssel = append(ssel, "CAST("+ident(g)+" AS VARCHAR)")
		by = append(by, ident(g))
	}
	sel = append(sel, "CAST(_n AS DOUBLE PRECISION)")
	ssel = append(ssel, "CAST(SUM(_n) AS DOUBLE PRECISION)")
	for _, m := range measures {
		c := ident(metric.ValueColumn(m.Name.Value))
		sel = append(sel, "CAST("+c+" AS DOUBLE PRECISION)")
		ssel = append(ssel, "CAST(SUM("+c+") AS DOUBLE PRECISION)")
	}
	at := before.UTC().Format(sqlTime)
	read := func(q string) (map[string][]float64, error) {
		return readGroups[float64](ctx, tx, true, false, len(groups), 1+len(measures), q, at)
	}
	hours, err := read("SELECT " + strings.Join(sel, ", ") + " FROM " + rvRel + " WHERE _hour < CAST($1 AS TIMESTAMP)")
	if err != nil {
		return false, err
	}
	sums, err := read("SELECT " + strings.Join(ssel, ", ") + " FROM " + slRel + " WHERE _hour < CAST($1 AS TIMESTAMP) GROUP BY " + strings.Join(by, ", "))
	if err != nil {
		return false, err
	}
	return sameParts(hours, sums), nil
}

// sameParts reports whether a and b hold the same parts, each value
// within a relative 1e-9 of the other's.
func sameParts(a, b map[string][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for id, x := range a {
		y, ok := b[id]
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Abs(x[i]-y[i]) > 1e-9*math.Max(1, math.Abs(x[i])) {
				return false
			}
		}
	}
	return true
}

// readGroups reads rows of ([part start,] groups..., values...) into a
// map by valueID (the zero time when withStart is unset), nulls as 0,
// leaving out the rows whose values are all 0 when skipZero is set.
func readGroups[T int64 | float64](ctx context.Context, tx *sql.Tx, withStart, skipZero bool, groups, width int, q string, args ...any) (map[string][]T, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]T{}
	for rows.Next() {
		var h time.Time
		g := make([]sql.NullString, groups)
		v := make([]sql.Null[T], width)
		var dest []any
		if withStart {
			dest = append(dest, &h)
		}
		for i := range g {
			dest = append(dest, &g[i])
		}
		for i := range v {
			dest = append(dest, &v[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		x := make([]T, len(v))
		zero := true
		for i := range v {
			x[i] = v[i].V
			zero = zero && x[i] == 0
		}
		if !skipZero || !zero {
			out[valueID(h.UTC(), g)] = x
		}
	}
	return out, rows.Err()
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

// foldValues computes the (part start, group) parts of the hours at or
// after from (zero: all) and before to (zero: no bound; an hour), one
// list per width of widths (each a divisor of an hour): the rows reaching
// from (validity end at or after it) and starting before to, a run of
// consecutive rows of every series, so that LEAD and LAG over them are
// LEAD and LAG over all but at the run's ends, where they are not read
// (the first row starts before from, the last one's interval is cut at
// to), read once with their flags and next row's time, folded in Go into
// the parts each starts in and overlaps.
func foldValues(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, from, to time.Time, widths []time.Duration) ([][]valuePart, error) {
	groups, measures := metric.ValueLayout(cat, ds)
	rel := quoteName(table)
	ts := ident(ds.Time.Value)
	var cap time.Time // the end of the last hour holding a row
	var maxTS sql.NullTime
	if err := tx.QueryRowContext(ctx, "SELECT MAX("+ts+") FROM "+rel).Scan(&maxTS); err != nil {
		return nil, err
	}
	out := make([][]valuePart, len(widths))
	if !maxTS.Valid {
		return out, nil
	}
	cap = maxTS.Time.UTC().Truncate(time.Hour).Add(time.Hour)
	if !to.IsZero() && to.Before(cap) {
		cap = to
	}
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
	var where []string
	if !from.IsZero() {
		args = append(args, from.Format(sqlTime))
		where = append(where, "s."+ident(ValidToColumn)+" >= CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	if !to.IsZero() {
		args = append(args, to.Format(sqlTime))
		where = append(where, "s."+ts+" < CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	index := make([]map[string]int, len(widths))
	for i := range index {
		index[i] = map[string]int{}
	}
	part := func(k int, h time.Time, g []sql.NullString) *valuePart {
		id := valueID(h, g)
		i, ok := index[k][id]
		if !ok {
			i = len(out[k])
			index[k][id] = i
			out[k] = append(out[k], valuePart{hour: h, groups: g, vals: make([]float64, len(measures))})
		}
		return &out[k][i]
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
			for k, width := range widths {
				p := part(k, t.Truncate(width), gs)
				p.n++
				for i, m := range measures {
					if m.Agg.Value != catalog.AggDuration {
						p.vals[i] += float64(f[i])
					}
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
		for k, width := range widths {
			for h := begin.Truncate(width); h.Before(end); h = h.Add(width) {
				lo, hi := max64(begin, h), min64(end, h.Add(width))
				if !lo.Before(hi) {
					continue
				}
				p := part(k, h, gs)
				secs := float64(hi.Sub(lo).Microseconds()) / 1e6
				for i, m := range measures {
					if m.Agg.Value == catalog.AggDuration && f[i] == 1 {
						p.vals[i] += secs
					}
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for k := range out {
		slices.SortFunc(out[k], func(a, b valuePart) int { return a.hour.Compare(b.hour) })
	}
	return out, nil
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
	return valuesAgree(ctx, tx, cat, ds, table, time.Time{}, before.UTC(), before.UTC().Add(-digestCheckHours*time.Hour), false, 0)
}

// ErrRollupValuesBuilt means the value rollups an import had just folded
// disagreed with the rows they were folded from (BuiltRollupValuesAgree):
// a fault of the derivation, never of the data. The import fails and
// nothing is stored.
var ErrRollupValuesBuilt = errors.New("the value rollups just built disagree with the rows")

// BuiltRollupValuesAgree checks the stored value rollups of every hour at
// or after from (zero: every hour) against the rows, formulated apart
// from the fold that built them (SQL aggregates where the fold adds in
// Go, validity intervals where it reads each row's next by LEAD): every
// (hour, group)'s row count, counts and entries (LAG over the rows
// reaching from), and every group's durations summed over those hours
// (the validity intervals clipped to from and to the end of the last
// hour holding a row, to a relative 1e-9). DeriveRollupValues runs it
// on the hours it has just folded, so that no hour is stored unchecked;
// a duration moved between two hours of one group is the one fault it
// leaves to metric.RederiveValues's spot check.
func BuiltRollupValuesAgree(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, from time.Time) (bool, error) {
	var maxTS sql.NullTime
	if err := tx.QueryRowContext(ctx, "SELECT MAX("+ident(ds.Time.Value)+") FROM "+quoteName(table)).Scan(&maxTS); err != nil {
		return false, err
	}
	if !maxTS.Valid {
		return true, nil
	}
	end := maxTS.Time.UTC().Truncate(time.Hour).Add(time.Hour)
	return valuesAgree(ctx, tx, cat, ds, table, from.UTC(), end, from.UTC(), true, 0)
}

// valuesAgree checks the stored value rollups of the hours in [lo, hi)
// (lo zero: from the first) against the rows: every (hour, group)'s row
// count and counts, the entries of the hours at or after entriesFrom,
// and the durations of the validity intervals clipped to [lo, hi): every
// (hour, group)'s when hourly is set, else every group's summed over the
// hours (one GROUP BY, no hour split). With upto above 0, only the rows
// numbered up to it are read (those an append came after).
func valuesAgree(ctx context.Context, tx *sql.Tx, cat *catalog.Catalog, ds *catalog.Dataset, table string, lo, hi, entriesFrom time.Time, hourly bool, upto int64) (bool, error) {
	groups, measures := metric.ValueLayout(cat, ds)
	rel, rvRel := quoteName(table), quoteName(table+RollupValuesSuffix)
	ts := ident(ds.Time.Value)
	at := hi.Format(sqlTime)
	// The zero lo bounds nothing: every stored time is after year 1.
	low := lo.Format(sqlTime)
	only := "" // the rows read, when not all
	if upto > 0 {
		only = " AND s." + ident(SeqColumn) + " <= " + strconv.FormatInt(upto, 10)
	}
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
		return readGroups[int64](ctx, tx, true, true, len(groups), width, q, args...)
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
	args = append(args, low, at)
	floor, cut := "CAST($"+strconv.Itoa(len(args)-1)+" AS TIMESTAMP)", "CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)"
	sel := append([]string{"date_trunc('hour', s." + ts + ")"}, prefixedAll("s.", gcast)...)
	sel = append(sel, "COUNT(*)")
	for _, f := range flags {
		sel = append(sel, "SUM("+f+")")
	}
	by := []string{"date_trunc('hour', s." + ts + ")"}
	for _, g := range groups {
		by = append(by, "s."+ident(g))
	}
	got, err := perHour(1+len(counts), "SELECT "+strings.Join(sel, ", ")+" FROM "+rel+" s WHERE s."+ts+" >= "+floor+" AND s."+ts+" < "+cut+only+" GROUP BY "+strings.Join(by, ", "), args...)
	if err != nil {
		return false, err
	}
	kept, err := perHour(1+len(counts), "SELECT "+strings.Join(append(append([]string{"_hour"}, gcast...), append([]string{"_n"}, countCols...)...), ", ")+
		" FROM "+rvRel+" WHERE _hour >= CAST($1 AS TIMESTAMP) AND _hour < CAST($2 AS TIMESTAMP)", low, at)
	if err != nil || !same(got, kept) {
		return false, err
	}
	if len(entries) > 0 {
		from := max64(entriesFrom, lo).Format(sqlTime)
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
			ident(ValidToColumn)+" >= "+lo+" AND s."+ts+" < "+hi+only+") x WHERE x._t >= "+lo+" GROUP BY "+strings.Join(oby, ", "), args...)
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
	args = append(args, at, low)
	var gsel, gby, rsel, ssel []string
	for _, g := range groups {
		gsel = append(gsel, "CAST(s."+ident(g)+" AS VARCHAR)")
		gby = append(gby, "s."+ident(g))
		ssel = append(ssel, "CAST("+ident(g)+" AS VARCHAR)")
	}
	vt := "s." + ident(ValidToColumn)
	secs := "EXTRACT(EPOCH FROM (CASE WHEN " + vt + " < CAST($1 AS TIMESTAMP) THEN " + vt + " ELSE CAST($1 AS TIMESTAMP) END - " +
		"CASE WHEN s." + ts + " > CAST($2 AS TIMESTAMP) THEN s." + ts + " ELSE CAST($2 AS TIMESTAMP) END))"
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
	if hourly {
		return hourlyDurationsAgree(ctx, tx, ds, rel, rvRel, groups, measures, durs, low, at, only)
	}
	sums := func(q string, args ...any) (map[string][]float64, error) {
		return readGroups[float64](ctx, tx, false, false, len(groups), len(durs), q, args...)
	}
	rowSums, err := sums("SELECT "+strings.Join(append(gsel, rsel...), ", ")+" FROM "+rel+" s WHERE s."+ts+" < CAST($1 AS TIMESTAMP) AND "+vt+" > CAST($2 AS TIMESTAMP)"+only+groupBy(gby), args...)
	if err != nil {
		return false, err
	}
	var sgby []string
	for _, g := range groups {
		sgby = append(sgby, "s."+ident(g))
	}
	keptSums, err := sums("SELECT "+strings.Join(ssel, ", ")+" FROM "+rvRel+" s WHERE s._hour >= CAST($1 AS TIMESTAMP) AND s._hour < CAST($2 AS TIMESTAMP)"+groupBy(sgby), low, at)
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

// hourlyDurationsAgree checks the stored durations of every (hour, group)
// in [low, at) against the rows' validity intervals clipped to it: a row
// within one hour by a plain aggregate, a row spanning hours (a small
// share of them) split into its hours by generate_series; each stored
// measure's seconds to a relative 1e-9. only narrows the rows read (SQL
// beginning " AND ", or empty).
func hourlyDurationsAgree(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, rel, rvRel string, groups []string, measures []*catalog.Measure, durs []int, low, at, only string) (bool, error) {
	args := []any{at, low}
	bind := func(v string) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	ts, vt := "s."+ident(ds.Time.Value), "s."+ident(ValidToColumn)
	begin := "CASE WHEN " + ts + " > CAST($2 AS TIMESTAMP) THEN " + ts + " ELSE CAST($2 AS TIMESTAMP) END"
	end := "CASE WHEN " + vt + " < CAST($1 AS TIMESTAMP) THEN " + vt + " ELSE CAST($1 AS TIMESTAMP) END"
	first, last := "date_trunc('hour', "+begin+")", "date_trunc('hour', "+end+" - INTERVAL '1 microsecond')"
	where := " WHERE " + ts + " < CAST($1 AS TIMESTAMP) AND " + vt + " > CAST($2 AS TIMESTAMP)" + only + " AND "
	var gsel, outer, by []string
	for i, g := range groups {
		gsel = append(gsel, "CAST(s."+ident(g)+" AS VARCHAR) AS _g"+strconv.Itoa(i))
		outer = append(outer, "u._g"+strconv.Itoa(i))
		by = append(by, "u._g"+strconv.Itoa(i))
	}
	// branch selects a row's hour and, per duration measure, its seconds
	// in the hour from its start (from) to its end (to).
	branch := func(hour, from, to string) ([]string, error) {
		sel := append([]string{hour + " AS _h"}, gsel...)
		for k, i := range durs {
			cond := "1 = 1"
			if p := measurePredicate(ds, measures[i]); p != nil {
				x, err := sqlcond.Predicate(ds, "s", p, bind)
				if err != nil {
					return nil, err
				}
				cond = x
			}
			sel = append(sel, "CASE WHEN "+cond+" THEN EXTRACT(EPOCH FROM ("+to+" - "+from+")) ELSE 0 END AS _d"+strconv.Itoa(k))
		}
		return sel, nil
	}
	one, err := branch(first, begin, end)
	if err != nil {
		return false, err
	}
	many, err := branch("g._h",
		"CASE WHEN "+begin+" > g._h THEN "+begin+" ELSE g._h END",
		"CASE WHEN "+end+" < g._h + INTERVAL '1 hour' THEN "+end+" ELSE g._h + INTERVAL '1 hour' END")
	if err != nil {
		return false, err
	}
	sel := append([]string{"u._h"}, outer...)
	for k := range durs {
		sel = append(sel, "CAST(SUM(u._d"+strconv.Itoa(k)+") AS DOUBLE PRECISION)")
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM (SELECT " + strings.Join(one, ", ") + " FROM " + rel + " s" + where + first + " >= " + last +
		" UNION ALL SELECT " + strings.Join(many, ", ") + " FROM " + rel + " s, LATERAL generate_series(" + first + ", " + end +
		" - INTERVAL '1 microsecond', INTERVAL '1 hour') AS g(_h)" + where + first + " < " + last + ") u GROUP BY " + strings.Join(append([]string{"u._h"}, by...), ", ")
	got, err := readGroups[float64](ctx, tx, true, true, len(groups), len(durs), q, args...)
	if err != nil {
		return false, err
	}
	kept := []string{"_hour"}
	for _, g := range groups {
		kept = append(kept, "CAST("+ident(g)+" AS VARCHAR)")
	}
	for _, i := range durs {
		kept = append(kept, "CAST("+ident(metric.ValueColumn(measures[i].Name.Value))+" AS DOUBLE PRECISION)")
	}
	stored, err := readGroups[float64](ctx, tx, true, true, len(groups), len(durs),
		"SELECT "+strings.Join(kept, ", ")+" FROM "+rvRel+" WHERE _hour >= CAST($1 AS TIMESTAMP) AND _hour < CAST($2 AS TIMESTAMP)", low, at)
	if err != nil {
		return false, err
	}
	return sameParts(got, stored), nil
}
