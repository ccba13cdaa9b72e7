package shape

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/internal/phasetrace"
	"github.com/provenant/provenant/internal/sqlcond"
)

// The derived structures of a table dataset, built by Derive after every
// import so that an as-of question reads a bounded slice of the data
// rather than all of it:
//
//   - ValidToColumn on the table: the time of the next row of the row's
//     series (ordered by time, then key), or OpenEnd for the series'
//     latest row; a row is the latest of its series at t when
//     time <= t < _valid_to. Computed with LEAD.
//   - TABLE__cpi: checkpoints (_cp, _cp_ts), one every Every rows in time
//     order.
//   - TABLE__cp: for each checkpoint, the latest row of every series at
//     _cp_ts (all columns), built checkpoint by checkpoint from the
//     previous one and the rows since, with ROW_NUMBER (fillCheckpoints;
//     on DuckDB a rebuild numbers every row once and takes each series'
//     highest-numbered row per checkpoint by GROUP BY, buildCheckpoints,
//     with the same result).
//   - TABLE__series: every series with the time of its first row (the
//     census), computed with GROUP BY.
//
// The three are computed by different means so that a fault in one
// shows as a disagreement, not as an agreed wrong answer: the executor
// reads the checkpoint and the rows since it with a window function or
// aggregates (Options.Latest); the resolver keeps the rows whose
// [time, _valid_to) contains t and checks their number against the
// census.
const (
	ValidToColumn = "_valid_to"
	cpSuffix      = "__cp"
	cpiSuffix     = "__cpi"
	seriesSuffix  = "__series"
)

// OpenEnd is the _valid_to of a series' latest row.
const OpenEnd = "9999-12-31 00:00:00"

// MinEvery is the least number of rows between checkpoints the default
// spacing chooses on PostgreSQL; on DuckDB, twice it (see spacing).
const MinEvery = 2048

// MaxEvery is the most rows between checkpoints DeriveOptions.Every may
// ask for: far more than a table holds, and far enough from the 64-bit
// limit that the derivation's sums of row numbers and spacing stay in
// range (DuckDB failed with its overflow error at 2^63-1).
const MaxEvery = 1 << 40

// DeriveOptions tune Derive.
type DeriveOptions struct {
	// Every is the number of rows, in time order, between checkpoints.
	// When 0, the number of series, at least MinEvery, on PostgreSQL,
	// and twice that on DuckDB (see spacing).
	Every int
	// Reference derives by the reference formulation on any database:
	// the validity intervals by one UPDATE, the checkpoints one statement
	// per checkpoint, each from the one before (fillCheckpoints). Without
	// it, a DuckDB database builds the checkpoints set-based
	// (buildCheckpoints); the two give the same rows, which a test holds.
	Reference bool
	// Rebuild rebuilds every structure after an append with rows not
	// later than those before it, instead of deriving only what they
	// change (deriveLate). The two answer alike; a rebuild spaces the
	// checkpoints anew.
	Rebuild bool
	// RollupKeys builds TABLE__rollup_keys (see DeriveRollupKeys): per
	// hour and group, the rows' number and the lthash of their keys, from
	// which a metric's provenance over a long window is combined instead
	// of hashing every key. Once the table exists, every Derive keeps it
	// up to date, whatever this option says.
	RollupKeys bool
	// SliceMinRows is the least rows an hour, on average over the stored
	// hours, from which the key digests are also kept by slice
	// (TABLE__rollup_slices, see DeriveRollupKeys): 0 means
	// DefaultSliceMinRows; a negative number keeps them whatever the
	// rows' density.
	SliceMinRows int
	// ValueSliceMinRows is the same for the value rollups
	// (TABLE__rollup_value_slices, see DeriveRollupValues), except that 0
	// means DefaultSliceMinRows on PostgreSQL and none on DuckDB.
	ValueSliceMinRows int
	// RollupValues builds TABLE__rollup_values (see DeriveRollupValues):
	// per hour and group, the partials of the catalog's count, duration
	// and entries measures, from which a metric over a long window is
	// summed instead of sequencing every row. It needs Catalog (the
	// measures); ImportOptions sets it from the layout. Once the table
	// exists, every Derive given the catalog keeps it up to date, whatever
	// this option says; a Derive without the catalog drops it (it could
	// not be kept, and a stale rollup would be summed by the compiled
	// query and the resolver alike).
	RollupValues bool
	// Catalog is the catalog whose measures the value rollups store.
	Catalog *catalog.Catalog
	// WindowKeys builds TABLE__window_keys (see DeriveWindowKeys): per
	// hour and combination of WindowGroups, the rows' number and the
	// lthash of their keys, from which a large window's count and digest
	// are combined (Options.WindowDigests). ImportOptions fills
	// WindowGroups from the catalog when it is empty. Once the table
	// exists, every Derive keeps it up to date, whatever this option says.
	WindowKeys   bool
	WindowGroups []string
}

// spacing is the rows between checkpoints: o.Every if set, else, on
// PostgreSQL, the number of series the census holds, at least MinEvery
// (E = S), and on DuckDB twice that (E = 2S, at least 2·MinEvery). A
// store-wide question reads one checkpoint's rows (one per series, S) and
// the rows since it (E/2 on average), and the checkpoints hold S rows
// every E: E = S costs a call about 1.5S rows and checkpoints as many
// rows as the table, E = 2S about 2S rows and half the table. On
// PostgreSQL the rows are the cost: at 16 clients on two cores E = S took
// a third off a store-wide call's p95 (2,000 series, 100k to 10M events:
// counts 66.3/65.6/57.7 to 51.0/47.9/42.4 ms) with no slower import. On
// DuckDB a call's statements are the cost: E = S left its store-wide
// calls' CPU where it was (alternated at 1M events, within 3%) and
// wrote twice the checkpoint rows, its import slower at 10M events
// (bench/results/spacing-es.md). Any
// spacing answers alike; an append may choose another than the
// structures were built with (more series), which costs nothing but the
// row-for-row equality with a rebuild.
func spacing(ctx context.Context, tx *sql.Tx, censusRel string, o *DeriveOptions) (int, error) {
	if o != nil && o.Every > MaxEvery {
		return 0, fmt.Errorf("checkpoint spacing: %d rows is more than %d", o.Every, MaxEvery)
	}
	if o != nil && o.Every > 0 {
		return o.Every, nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+censusRel).Scan(&n); err != nil {
		return 0, fmt.Errorf("count series: %w", err)
	}
	duck, err := isDuckDBTx(ctx, tx)
	if err != nil {
		return 0, err
	}
	if duck {
		return max(2*MinEvery, 2*n), nil
	}
	return max(MinEvery, n), nil
}

// Derive brings the derived structures of table (the dataset's table, or
// another holding its rows) up to date inside tx. After an append whose
// rows are all later than the rows before it (telemetry imported in time
// order), it updates only what they change (see deriveAppend), so that
// its cost grows with the append, not with the table, and the result is
// a rebuild's, row for row. After an append of late rows (some not later
// than those before it), it also updates only what they change, keeping
// the checkpoints' instants (see deriveLate), unless the append is large
// or would widen a checkpoint interval past twice the spacing; otherwise
// it rebuilds everything. The opt-in rollups kept (key digests, window
// digests, value rollups) are then brought up to date knowing which rows
// the append added, so that late rows are added to them rather than
// folded again with every stored row.
// It reads and writes only with portable SQL: LEAD, ROW_NUMBER, GROUP BY,
// CREATE TABLE AS, UPDATE ... FROM.
func Derive(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, o *DeriveOptions) error {
	// Digests and value rollups once built are kept up to date by every
	// import, with the option or without: a stale one would be summed
	// alike by the executor and the resolver.
	keep := o != nil && o.RollupKeys
	win := o != nil && o.WindowKeys
	values := o != nil && o.RollupValues
	var valuesExist bool
	for _, t := range []struct {
		on     *bool
		suffix string
	}{{&keep, RollupKeysSuffix}, {&win, WindowKeysSuffix}, {&valuesExist, RollupValuesSuffix}} {
		if *t.on {
			continue
		}
		var err error
		if *t.on, err = tableExists(ctx, tx, table+t.suffix); err != nil {
			return fmt.Errorf("derive %s: %w", table, err)
		}
	}
	var cat *catalog.Catalog
	if o != nil {
		cat = o.Catalog
	}
	switch {
	case values && cat == nil:
		return fmt.Errorf("derive %s: rollup values: no catalog in the options", table)
	case valuesExist && cat == nil:
		for _, suffix := range []string{RollupValuesSuffix, RollupValueSlicesSuffix} {
			if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+quoteName(table+suffix)); err != nil {
				return fmt.Errorf("derive %s: drop rollup values: %w", table, err)
			}
		}
		valuesExist = false
	}
	values = values || valuesExist
	// The rows numbered after before are the append's, read before the
	// structures give them intervals, so that the rollups can add what
	// they change to what they held (0: not known; they fold again from
	// their last hour, or from the start when their checks fail).
	var before int64
	var held *heldValues
	if keep || win || values {
		has, err := columnExists(ctx, tx, table, ValidToColumn)
		if err == nil && has {
			// A table loaded without an import (metrictest's) has no
			// numbering: no append is known.
			has, err = columnExists(ctx, tx, table, SeqColumn)
		}
		if err != nil {
			return fmt.Errorf("derive %s: %w", table, err)
		}
		if has {
			a, _, err := readAppend(ctx, tx, ds, table)
			if err != nil {
				return err
			}
			before = a.oldMaxSeq
		}
		if values && valuesExist && before > 0 {
			// The value rollups are checked against the rows they were
			// folded from while those still have their intervals.
			if held, err = checkHeldValues(ctx, tx, cat, ds, table, before); err != nil {
				return err
			}
			phasetrace.Mark("derive: rollup values: check held")
		}
	}
	if err := deriveStructures(ctx, tx, ds, table, o); err != nil {
		return err
	}
	if keep {
		minRows := 0
		if o != nil {
			minRows = o.SliceMinRows
		}
		if err := deriveRollupKeys(ctx, tx, ds, table, minRows, before); err != nil {
			return err
		}
		phasetrace.Mark("derive: rollup keys")
	}
	if win {
		var groups []string
		if o != nil {
			groups = o.WindowGroups
		}
		if err := deriveWindowKeys(ctx, tx, ds, table, groups, before); err != nil {
			return err
		}
		phasetrace.Mark("derive: window keys")
	}
	if values {
		return deriveRollupValues(ctx, tx, cat, ds, table, o.ValueSliceMinRows, held)
	}
	return nil
}

// deriveStructures is Derive without the rollups.
func deriveStructures(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, o *DeriveOptions) error {
	rel := quoteName(table)
	key, ts := ident(ds.Key.Value), ident(ds.Time.Value)
	series := make([]string, 0, len(ds.Series))
	for _, e := range ds.SeriesEntities() {
		series = append(series, ident(e.Column.Value))
	}
	cols := dataColumns(ds)
	exec := func(what, q string, args ...any) error {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("derive %s: %s: %w", table, what, err)
		}
		return nil
	}
	// Validity intervals. The column is added only when missing: DuckDB
	// refuses to alter a table an index depends on, even to do nothing.
	has, err := columnExists(ctx, tx, table, ValidToColumn)
	if err != nil {
		return fmt.Errorf("derive %s: %w", table, err)
	}
	if !has {
		if err := exec("add column", "ALTER TABLE "+rel+" ADD COLUMN "+ident(ValidToColumn)+" TIMESTAMP"); err != nil {
			return err
		}
	} else {
		done, a, err := deriveAppend(ctx, tx, ds, table, o)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if o == nil || !o.Rebuild {
			if done, err = deriveLate(ctx, tx, ds, table, a, o); err != nil || done {
				return err
			}
		}
	}
	// Rows only ever arrive without an interval (or all at once with
	// theirs, MoveStaged), and every interval is set over all the rows
	// there are: when none is missing, every one is current.
	missing := true
	if has {
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+rel+" WHERE "+ident(ValidToColumn)+" IS NULL").Scan(&n); err != nil {
			return fmt.Errorf("derive %s: count rows without intervals: %w", table, err)
		}
		missing = n > 0
	}
	// In ingestion order: on PostgreSQL an UPDATE writes each row anew,
	// in the order the join meets the rows, and rows written in series
	// order would scatter every time range over the whole table. Rows
	// are matched on their _ingest_seq, unique like the key but an
	// integer: DuckDB's join on it costs a third of one on the text key.
	if missing {
		if err := exec("validity intervals", "UPDATE "+rel+" SET "+ident(ValidToColumn)+" = x.nv FROM (SELECT "+ident(SeqColumn)+" AS s, "+
			validTo(ts, key, series)+" AS nv FROM "+rel+" ORDER BY "+ident(SeqColumn)+") x WHERE "+rel+"."+ident(SeqColumn)+" = x.s"); err != nil {
			return err
		}
	}
	phasetrace.Mark("derive: validity")
	censusRel := quoteName(table + seriesSuffix)
	cpiRel, cpRel := quoteName(table+cpiSuffix), quoteName(table+cpSuffix)
	onDuck, err := isDuckDBTx(ctx, tx)
	if err != nil {
		return fmt.Errorf("derive %s: %w", table, err)
	}
	// On PostgreSQL the derived tables that exist are emptied (DELETE)
	// and filled again, never replaced: a table dropped and created anew
	// is, to a REPEATABLE READ snapshot taken before the import
	// committed, the new table with none of its rows visible, so that a
	// call in flight when an import committed read no census and no
	// checkpoints and failed verification. Rows deleted and inserted are
	// seen by each snapshot as of its own time, and readers never wait
	// for the import's locks. DuckDB, one writer to a file, replaces
	// them (its own buildCheckpoints).
	refill := !onDuck
	for _, suffix := range []string{seriesSuffix, cpiSuffix, cpSuffix} {
		if !refill {
			break
		}
		if refill, err = tableExists(ctx, tx, table+suffix); err != nil {
			return fmt.Errorf("derive %s: %w", table, err)
		}
	}
	// Census.
	census := "SELECT " + strings.Join(series, ", ") + ", MIN(" + ts + ") AS _first_ts FROM " + rel + " GROUP BY " + strings.Join(series, ", ")
	if refill {
		if err := exec("census", "DELETE FROM "+censusRel); err != nil {
			return err
		}
		if err := exec("census", "INSERT INTO "+censusRel+" ("+strings.Join(series, ", ")+", _first_ts) "+census); err != nil {
			return err
		}
	} else {
		if err := exec("census", "DROP TABLE IF EXISTS "+censusRel); err != nil {
			return err
		}
		if err := exec("census", "CREATE TABLE "+censusRel+" AS "+census); err != nil {
			return err
		}
	}
	// Checkpoint times: the time of every Every-th row in (time, key)
	// order, distinct, numbered from 1.
	every, err := spacing(ctx, tx, censusRel, o)
	if err != nil {
		return fmt.Errorf("derive %s: %w", table, err)
	}
	phasetrace.Mark("derive: census")
	for _, r := range []string{cpiRel, cpRel} {
		q := "DROP TABLE IF EXISTS " + r
		if refill {
			q = "DELETE FROM " + r
		}
		if err := exec("checkpoints", q); err != nil {
			return err
		}
	}
	_, base, ok := strings.Cut(table, ".")
	if !ok {
		base = table
	}
	indexCheckpoints := func() error {
		q := "CREATE INDEX " + ident(base+cpSuffix+"_idx") + " ON " + cpRel + " (_cp, " + strings.Join(series, ", ") + ")"
		if !onDuck {
			// The index carries _valid_to (PostgreSQL 11's INCLUDE;
			// DuckDB has none), so that the resolver counts a
			// checkpoint's live rows from the index alone, without a
			// heap visit per series (resolveLive).
			q += " INCLUDE (" + ident(ValidToColumn) + ")"
		}
		return exec("index checkpoints", q)
	}
	duck := onDuck && (o == nil || !o.Reference)
	if duck {
		// One sort of every row, then set-based (buildCheckpoints); the
		// index after the rows, built once.
		if err := buildCheckpoints(ctx, tx, ds, table, every); err != nil {
			return err
		}
		phasetrace.Mark("derive: checkpoints (set)")
		if err := indexCheckpoints(); err != nil {
			return err
		}
	} else {
		cpi := "SELECT CAST(ROW_NUMBER() OVER (ORDER BY d.t) AS BIGINT) AS _cp, d.t AS _cp_ts FROM " +
			"(SELECT DISTINCT r.t FROM (SELECT " + ts + " AS t, ROW_NUMBER() OVER (ORDER BY " + ts + ", " + key + ") AS rn FROM " + rel + ") r WHERE MOD(r.rn, " +
			fmt.Sprint(every) + ") = 0) d"
		if refill {
			// The tables and their indexes are kept.
			if err := exec("checkpoints", "INSERT INTO "+cpiRel+" (_cp, _cp_ts) "+cpi); err != nil {
				return err
			}
		} else {
			if err := exec("checkpoints", "CREATE TABLE "+cpiRel+" AS "+cpi); err != nil {
				return err
			}
			colList := strings.Join(cols, ", ")
			if err := exec("checkpoints", "CREATE TABLE "+cpRel+" AS SELECT CAST(0 AS BIGINT) AS _cp, "+colList+", "+ident(ValidToColumn)+
				" FROM "+rel+" WHERE 1 = 0"); err != nil {
				return err
			}
			// Indexes for PostgreSQL, where a checkpoint's rows and a series'
			// census entry are otherwise found by a scan; DuckDB's zone maps find
			// them without (the rows are written in checkpoint order). The
			// checkpoints' index comes before they are filled: each checkpoint is
			// built from the previous one's rows, which a scan would find in time
			// growing with every checkpoint before it (10M events, 2,441
			// checkpoints: 413 s to import on PostgreSQL).
			if err := indexCheckpoints(); err != nil {
				return err
			}
		}
		phasetrace.Mark("derive: cpi")
		if err := fillCheckpoints(ctx, tx, ds, table, 0, "0001-01-01 00:00:00"); err != nil {
			return err
		}
		phasetrace.Mark("derive: fill checkpoints")
	}
	// A point question's census is one series' entry: without this index
	// PostgreSQL scans the census for it (0.3 ms of a 0.4 ms resolver
	// query at 2,000 series; 0.005 ms with it). A census refilled keeps
	// its index.
	if refill {
		return nil
	}
	if err := exec("index census", "CREATE INDEX "+ident(base+seriesSuffix+"_idx")+" ON "+censusRel+" ("+strings.Join(series, ", ")+")"); err != nil {
		return err
	}
	return nil
}

// validTo renders a row's validity end: the time of the next row of its
// series, or OpenEnd.
func validTo(ts, key string, series []string) string {
	return "COALESCE(LEAD(" + ts + ") OVER (PARTITION BY " + strings.Join(series, ", ") + " ORDER BY " + ts + ", " + key +
		"), CAST('" + OpenEnd + "' AS TIMESTAMP))"
}

// MoveStaged moves an import's staged rows (table staging, holding the
// dataset's columns and SeqColumn) into table, as an import's
// ingest.SinkOptions.Move: into an empty table with each row's validity
// interval computed in the same statement, so that the Derive after it
// rewrites no row (on PostgreSQL an UPDATE writes every row anew and every
// index entry with it); into a table with rows, as they are, for Derive
// to bring up to date.
func MoveStaged(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table, staging string) error {
	rel := quoteName(table)
	has, err := columnExists(ctx, tx, table, ValidToColumn)
	if err != nil {
		return fmt.Errorf("move rows into %s: %w", table, err)
	}
	if !has {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE "+rel+" ADD COLUMN "+ident(ValidToColumn)+" TIMESTAMP"); err != nil {
			return fmt.Errorf("move rows into %s: add column: %w", table, err)
		}
	}
	var empty bool
	if err := tx.QueryRowContext(ctx, "SELECT NOT EXISTS (SELECT 1 FROM "+rel+")").Scan(&empty); err != nil {
		return fmt.Errorf("move rows into %s: %w", table, err)
	}
	cols := strings.Join(append(dataColumns(ds), ident(SeqColumn)), ", ")
	q := "INSERT INTO " + rel + " (" + cols + ") SELECT " + cols + " FROM " + quoteName(staging)
	if empty {
		series := make([]string, 0, len(ds.Series))
		for _, e := range ds.SeriesEntities() {
			series = append(series, ident(e.Column.Value))
		}
		// In ingestion order, as the rows were read.
		q = "INSERT INTO " + rel + " (" + cols + ", " + ident(ValidToColumn) + ") SELECT " + cols + ", " +
			validTo(ident(ds.Time.Value), ident(ds.Key.Value), series) + " FROM " + quoteName(staging) + " ORDER BY " + ident(SeqColumn)
	}
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("move rows into %s: %w", table, err)
	}
	return nil
}

// columnExists reports whether a table (schema.table, or a table of the
// current schema) has a column.
func columnExists(ctx context.Context, tx *sql.Tx, table, column string) (bool, error) {
	schema, name, qualified := strings.Cut(table, ".")
	q := "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2"
	args := []any{schema, column}
	if qualified {
		q = "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = $3"
		args = []any{schema, name, column}
	}
	var n int
	if err := tx.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return false, fmt.Errorf("look up column: %w", err)
	}
	return n > 0, nil
}

// fillCheckpoints builds the rows of every checkpoint after afterID
// (whose time is afterTS), in order: each the latest row per series among
// the previous checkpoint's rows and the rows since it.
func fillCheckpoints(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, afterID int64, afterTS string) error {
	rel := quoteName(table)
	cpiRel, cpRel := quoteName(table+cpiSuffix), quoteName(table+cpSuffix)
	key, ts := ident(ds.Key.Value), ident(ds.Time.Value)
	series := make([]string, 0, len(ds.Series))
	for _, e := range ds.SeriesEntities() {
		series = append(series, ident(e.Column.Value))
	}
	colList := strings.Join(dataColumns(ds), ", ")
	type cp struct {
		id int64
		ts string
	}
	var cps []cp
	rows, err := tx.QueryContext(ctx, "SELECT _cp, CAST(_cp_ts AS VARCHAR) FROM "+cpiRel+" WHERE _cp > $1 ORDER BY _cp", afterID)
	if err != nil {
		return fmt.Errorf("derive %s: read checkpoints: %w", table, err)
	}
	for rows.Next() {
		var c cp
		if err := rows.Scan(&c.id, &c.ts); err != nil {
			rows.Close()
			return fmt.Errorf("derive %s: read checkpoints: %w", table, err)
		}
		cps = append(cps, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("derive %s: read checkpoints: %w", table, err)
	}
	prevID, prevTS := afterID, afterTS
	for _, c := range cps {
		q := "INSERT INTO " + cpRel + " SELECT CAST($1 AS BIGINT), " + colList + ", " + ident(ValidToColumn) +
			" FROM (SELECT u.*, ROW_NUMBER() OVER (PARTITION BY " + strings.Join(series, ", ") + " ORDER BY " + ts + " DESC, " + key +
			" DESC) AS _provenant_rn FROM (SELECT " + colList + ", " + ident(ValidToColumn) + " FROM " + cpRel + " WHERE _cp = $2" +
			" UNION ALL SELECT " + colList + ", " + ident(ValidToColumn) + " FROM " + rel + " WHERE " + ts + " > CAST($3 AS TIMESTAMP) AND " +
			ts + " <= CAST($4 AS TIMESTAMP)) u) w WHERE w._provenant_rn = 1"
		if _, err := tx.ExecContext(ctx, q, c.id, prevID, prevTS, c.ts); err != nil {
			return fmt.Errorf("derive %s: checkpoint: %w", table, err)
		}
		prevID, prevTS = c.id, c.ts
	}
	return nil
}

// deriveAppend brings the derived structures up to date after an append
// whose rows (those numbered after the stored ones, see readAppend) are
// all later than every row before it, touching only what the new rows
// change: the validity of each series' previous latest row and of the new
// rows, the copies of those intervals in earlier checkpoints, the census
// entries of new series, and the checkpoints after the last one. It
// reports false, having changed nothing, when the append is not of that
// kind (no derived structures yet, or a new row at or before an earlier
// row's time): Derive then tries deriveLate, and else rebuilds
// everything. The new checkpoints are spaced as a rebuild would space
// them now.
func deriveAppend(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, o *DeriveOptions) (bool, appended, error) {
	for _, suffix := range []string{cpSuffix, cpiSuffix, seriesSuffix} {
		ok, err := tableExists(ctx, tx, table+suffix)
		if err != nil || !ok {
			return false, appended{}, err
		}
	}
	phasetrace.Mark("derive: before reading the append")
	a, later, err := readAppend(ctx, tx, ds, table)
	if err != nil || a.old == 0 || !later {
		return false, a, err
	}
	phasetrace.Mark("derive: read the append")
	d, err := newIncrement(ctx, tx, ds, table, a, o)
	if err != nil {
		return false, a, err
	}
	lastID, lastTS, err := d.lastCheckpoint()
	if err != nil {
		return false, a, err
	}
	// Checkpoint times among the new rows, numbered on from the old rows,
	// as a rebuild numbers them.
	if err := d.exec("checkpoints", "INSERT INTO "+d.cpiRel+" SELECT CAST($1 AS BIGINT) + CAST(ROW_NUMBER() OVER (ORDER BY d.t) AS BIGINT), d.t FROM "+
		"(SELECT DISTINCT r.t FROM (SELECT "+d.ts+" AS t, CAST($2 AS BIGINT) + ROW_NUMBER() OVER (ORDER BY "+d.ts+", "+d.key+") AS rn FROM "+d.rel+
		" WHERE "+d.seq+" > "+d.oldMax+") r WHERE MOD(r.rn, "+fmt.Sprint(d.every)+") = 0) d", lastID, a.old); err != nil {
		return false, a, err
	}
	// Validity: the new rows and each series' previous latest row; the
	// census; the copies in earlier checkpoints of the intervals that
	// just closed.
	phasetrace.Mark("derive: append checkpoint times")
	if err := d.intervals(); err != nil {
		return false, a, err
	}
	phasetrace.Mark("derive: append working table")
	if err := d.apply(); err != nil {
		return false, a, err
	}
	if err := d.drop(); err != nil {
		return false, a, err
	}
	phasetrace.Mark("derive: append validity, census")
	if err := fillCheckpoints(ctx, tx, ds, table, lastID, lastTS); err != nil {
		return false, a, err
	}
	return true, a, nil
}

// appended describes the rows of a table after an append (readAppend):
// how many it had before (old: with a validity interval) and how many it
// adds (new: numbered after them), and the greatest ingestion number of
// the old rows.
type appended struct {
	old, new  int64
	oldMaxSeq int64
}

// dataColumns are the dataset's declared columns, quoted: key, time,
// entities, attributes.
func dataColumns(ds *catalog.Dataset) []string {
	cols := []string{ident(ds.Key.Value), ident(ds.Time.Value)}
	for _, e := range ds.Entities {
		cols = append(cols, ident(e.Column.Value))
	}
	for _, a := range ds.Attributes {
		cols = append(cols, ident(a.Column.Value))
	}
	return cols
}

// quoteName quotes a possibly schema-qualified name.
func quoteName(name string) string { return sqlcond.QuoteName(name) }

// checkpoints is a derived table's checkpoint index (TABLE__cpi) at one
// data version, in checkpoint order.
type checkpoints struct {
	version string
	ids     []int64
	times   []time.Time
	texts   []string // the times as the database renders them
}

// checkpoint returns the last checkpoint at or before t: its id and time
// (as text), or id 0 and the earliest time when there is none. The index
// is read once per data version and kept: an import replaces it in the
// transaction that changes the version, so one version has one index.
//
// While the executor's query reads the version itself (Snapshot.fold),
// the kept index is used whatever its version, which is noted so that
// Execute can answer again should it not be the snapshot's.
func (s *Snapshot) checkpoint(ctx context.Context, p *plan, t time.Time) (int64, string, error) {
	cps := s.index(p)
	if s.fold && cps != nil {
		s.foldIndex = cps.version
	} else if version, err := s.DataVersion(ctx, p.ds.Name.Value); err != nil {
		return 0, "", err
	} else if cps == nil || cps.version != version {
		if cps, err = s.readCheckpoints(ctx, p, version); err != nil {
			return 0, "", err
		}
		s.e.mu.Lock()
		s.e.cps[p.cpiRel] = cps
		s.e.mu.Unlock()
	}
	// The last checkpoint whose time is at or before t.
	i, _ := slices.BinarySearchFunc(cps.times, t, func(c, t time.Time) int {
		if c.After(t) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return 0, "0001-01-01 00:00:00", nil
	}
	return cps.ids[i-1], cps.texts[i-1], nil
}

// index returns the kept checkpoint index of a plan's dataset, or nil.
func (e *Engine) index(p *plan) *checkpoints {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cps[p.cpiRel]
}

// readCheckpoints reads the checkpoint index in the snapshot.
func (s *Snapshot) readCheckpoints(ctx context.Context, p *plan, version string) (*checkpoints, error) {
	rows, err := s.tx.QueryContext(ctx, "SELECT _cp, _cp_ts, CAST(_cp_ts AS VARCHAR) FROM "+p.cpiRel+" ORDER BY _cp")
	if err != nil {
		return nil, fmt.Errorf("read checkpoints of %s: %w", p.tool.Name.Value, err)
	}
	defer rows.Close()
	cps := &checkpoints{version: version}
	for rows.Next() {
		var id int64
		var ts time.Time
		var text string
		if err := rows.Scan(&id, &ts, &text); err != nil {
			return nil, fmt.Errorf("read checkpoints of %s: %w", p.tool.Name.Value, err)
		}
		if n := len(cps.times); n > 0 && !ts.After(cps.times[n-1]) {
			return nil, fmt.Errorf("read checkpoints of %s: checkpoint %d is not later than the one before", p.tool.Name.Value, id)
		}
		cps.ids, cps.times, cps.texts = append(cps.ids, id), append(cps.times, ts.UTC()), append(cps.texts, text)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read checkpoints of %s: %w", p.tool.Name.Value, err)
	}
	return cps, nil
}

// candidates renders the rows that can be the latest of their series at
// ts (a bound placeholder): the rows of checkpoint cpID and the rows after
// its time cpTS up to ts, each side restricted by filter (which renders a
// predicate on the given alias, or ""). Every declared column is
// selected, with _valid_to when withValidTo.
func (p *plan) candidates(q *query, cpID int64, cpTS, ts string, filter func(alias string) string, withValidTo bool) string {
	cols := p.colList
	if withValidTo {
		cols += ", " + ident(ValidToColumn)
	}
	f := func(alias string) string {
		if filter == nil {
			return ""
		}
		if w := filter(alias); w != "" {
			return " AND " + w
		}
		return ""
	}
	cp, since := p.candidateSides(q, cpID, cpTS, ts, cols, f)
	return cp + " UNION ALL " + since
}

// candidateSides renders the two sides of candidates apart: the
// checkpoint's rows (one per series) and the rows since it, selecting
// cols, each restricted by f.
func (p *plan) candidateSides(q *query, cpID int64, cpTS, ts, cols string, f func(alias string) string) (cp, since string) {
	cpAt := q.param(cpID)
	fc := f("c")
	cpTSAt := q.param(cpTS)
	return p.candidateSidesText(cpAt, cpTSAt, ts, cols, fc, f("r"))
}

// candidateSidesText renders candidateSides with its placeholders bound
// apart: cpAt the checkpoint's number, cpTSAt its time, ts the instant;
// fc and fr restrict the checkpoint's rows (alias c) and those since
// (alias r).
func (p *plan) candidateSidesText(cpAt, cpTSAt, ts, cols, fc, fr string) (cp, since string) {
	return "SELECT " + cols + " FROM " + p.cpRel + " c WHERE c._cp = " + cpAt + fc,
		"SELECT " + cols + " FROM " + p.rel + " r WHERE r." + p.time + " > CAST(" + cpTSAt +
			" AS TIMESTAMP) AND r." + p.time + " <= " + ts + fr
}

// isDuckDBTx reports whether tx is a DuckDB transaction: DuckDB's
// version() is its release ("v1.3.2"), PostgreSQL's begins "PostgreSQL".
func isDuckDBTx(ctx context.Context, tx *sql.Tx) (bool, error) {
	var v string
	if err := tx.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return false, fmt.Errorf("read database version: %w", err)
	}
	return strings.HasPrefix(v, "v"), nil
}

// buildCheckpoints builds, on DuckDB, the checkpoint index and every
// checkpoint's rows in a few set-based statements instead of one
// statement per checkpoint (fillCheckpoints), with the same result:
//
//   - every row is numbered once in (time, key) order (rn, one sort,
//     kept in a temporary table with the row's _ingest_seq, time and
//     series);
//   - the checkpoint index is the distinct times of the rows numbered a
//     multiple of every, as the reference takes them;
//   - each row falls in the first checkpoint at or after its time: its
//     block of every rows (rn numbered 1 to every is block 1) ends with
//     a row at or after its time, and the block before it ends with a row
//     at or before it, so the row's checkpoint is the earlier block's
//     when that block's time is the row's own, else its own block's (two
//     equality joins; a row after the last checkpoint time falls in
//     none);
//   - per series and checkpoint, the latest such row is the one numbered
//     highest (GROUP BY, no sort);
//   - a series' latest row at checkpoint c is its latest row of the
//     greatest checkpoint at or before c that has one: each is expanded
//     over the checkpoints up to the series' next one (LEAD over the
//     series' few entries, generate_series).
//
// It reads neither _valid_to (copied into the checkpoints, as the
// reference copies it) nor the census, so a fault in the validity
// intervals still shows as a disagreement between executor and resolver.
func buildCheckpoints(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, every int) error {
	rel := quoteName(table)
	key, ts := ident(ds.Key.Value), ident(ds.Time.Value)
	seq := ident(SeqColumn)
	series := make([]string, 0, len(ds.Series))
	for _, e := range ds.SeriesEntities() {
		series = append(series, ident(e.Column.Value))
	}
	seriesList := strings.Join(series, ", ")
	cpiRel, cpRel := quoteName(table+cpiSuffix), quoteName(table+cpSuffix)
	e := fmt.Sprint(every)
	exec := func(what, q string) error {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("derive %s: %s: %w", table, what, err)
		}
		return nil
	}
	const ord = "_provenant_ord"
	if err := exec("checkpoints: order", "CREATE OR REPLACE TEMP TABLE "+ord+" AS SELECT "+seq+" AS _s, "+ts+" AS _t, "+seriesList+
		", ROW_NUMBER() OVER (ORDER BY "+ts+", "+key+") AS _rn FROM "+rel); err != nil {
		return err
	}
	defer tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+ord)
	phasetrace.Mark("derive: cp order")
	if err := exec("checkpoints", "CREATE TABLE "+cpiRel+" AS SELECT CAST(ROW_NUMBER() OVER (ORDER BY d.t) AS BIGINT) AS _cp, d.t AS _cp_ts FROM "+
		"(SELECT DISTINCT _t AS t FROM "+ord+" WHERE _rn % "+e+" = 0) d"); err != nil {
		return err
	}
	oSeries := make([]string, len(series))
	for i, c := range series {
		oSeries[i] = "o." + c
	}
	cols := dataColumns(ds)
	rCols := make([]string, len(cols))
	for i, c := range cols {
		rCols[i] = "r." + c
	}
	q := "INSERT INTO " + cpRel + " " +
		"WITH bt AS (SELECT o._rn // " + e + " AS j, o._t AS t, i._cp FROM " + ord + " o JOIN " + cpiRel + " i ON i._cp_ts = o._t WHERE o._rn % " + e + " = 0), " +
		"k AS (SELECT " + strings.Join(oSeries, ", ") + ", o._rn, o._s, CASE WHEN lo.t = o._t THEN lo._cp ELSE hi._cp END AS _k FROM " + ord + " o " +
		"LEFT JOIN bt lo ON lo.j = (o._rn + " + e + " - 1) // " + e + " - 1 LEFT JOIN bt hi ON hi.j = (o._rn + " + e + " - 1) // " + e + "), " +
		"l AS (SELECT " + seriesList + ", _k, arg_max(_s, _rn) AS _s FROM k WHERE _k IS NOT NULL GROUP BY " + seriesList + ", _k), " +
		"n AS (SELECT _s, _k, LEAD(_k) OVER (PARTITION BY " + seriesList + " ORDER BY _k) AS _nk FROM l), " +
		"x AS (SELECT _s, UNNEST(generate_series(_k, COALESCE(_nk - 1, (SELECT MAX(_cp) FROM " + cpiRel + ")))) AS _c FROM n) " +
		"SELECT CAST(x._c AS BIGINT) AS _cp, " + strings.Join(rCols, ", ") + ", r." + ident(ValidToColumn) + " FROM x JOIN " + rel + " r ON r." + seq + " = x._s ORDER BY x._c"
	if err := exec("checkpoints: create", "CREATE TABLE "+cpRel+" AS SELECT CAST(0 AS BIGINT) AS _cp, "+strings.Join(cols, ", ")+", "+ident(ValidToColumn)+
		" FROM "+rel+" WHERE 1 = 0"); err != nil {
		return err
	}
	phasetrace.Mark("derive: cpi")
	return exec("checkpoints: rows", q)
}
