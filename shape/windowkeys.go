package shape

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/lthash"
)

// WindowKeysSuffix names a table's per-hour window key digests:
// TABLE__window_keys holds, for every hour of the table's time (_hour)
// and every combination of its group columns (WindowGroups: the columns
// the catalog's window tools fix or filter by, the warehouse's zone and
// status), the number of the rows (_n) and the lthash of their keys
// (_lthash, the 2,048 bytes of lthash.Hash.MarshalBinary). A window of
// more rows than the provenance limit takes its count and digest from
// the stored digests of its whole hours and the keys of its edge rows
// (Options.WindowDigests) instead of reading every key. Built by Derive
// when DeriveOptions.WindowKeys is set; once built, every Derive keeps it
// up to date.
const WindowKeysSuffix = "__window_keys"

// WindowGroups are the columns dataset ds's window digests are grouped
// by, for catalog cat: for every count_rows_in_window tool over ds whose
// filter is an enumerated attribute, its fixed entity's column and the
// attribute's column, and the scope entity's column when ds has it; nil
// when no window tool can be served from digests. In declared order:
// entities, then attributes.
func WindowGroups(cat *catalog.Catalog, ds *catalog.Dataset) []string {
	want := map[string]bool{}
	for _, t := range cat.ReadTools() {
		if t.Shape.Value != catalog.ShapeCountRowsInWindow || t.Dataset.Value != ds.Name.Value || t.Filter == nil || t.Filter.Conditions != nil {
			continue
		}
		at, a := ds.Entity(t.At.Value), ds.Attribute(t.Filter.Attribute.Value)
		if at == nil || a == nil || !a.Enumerated() {
			continue
		}
		want[at.Column.Value], want[a.Column.Value] = true, true
	}
	if len(want) == 0 {
		return nil
	}
	if s := ds.Entity(cat.ScopeEntity.Value); s != nil {
		want[s.Column.Value] = true
	}
	var out []string
	for _, e := range ds.Entities {
		if want[e.Column.Value] {
			out = appendNew(out, e.Column.Value)
		}
	}
	for _, a := range ds.Attributes {
		if want[a.Column.Value] {
			out = appendNew(out, a.Column.Value)
		}
	}
	return out
}

// digestCheckHours is how many stored hours before the recomputed ones an
// import re-hashes from the rows and compares with the stored digests
// (both digest tables, and the entries of the value rollups).
const digestCheckHours = 2

// digestTable is one table of per-hour key digests grouped by columns:
// what DeriveWindowKeys and DeriveRollupKeys build and check.
type digestTable struct {
	ds     *catalog.Dataset
	table  string // the rows' table
	rel    string // the digests' relation, quoted
	groups []string
	// width is a part's length: an hour, or a divisor of one (the rollup
	// slices); the column _hour holds each part's start either way.
	width time.Duration
	// finer, when set, is a digest table of the same groups and shorter
	// parts (quoted), already up to date: hash combines its parts rather
	// than hashing the rows' keys again.
	finer string
	// after, when positive, limits the rows hashed to those numbered
	// after it (SeqColumn): an import's (newParts).
	after int64
}

// bucket renders the start of the part holding time ts: the hour, or the
// slice of the hour (minutes counted in whole widths), in the SQL both
// databases run.
func (d *digestTable) bucket(ts string) string {
	if d.width == 0 || d.width == time.Hour {
		return "date_trunc('hour', " + ts + ")"
	}
	m := strconv.Itoa(int(d.width / time.Minute))
	return "(date_trunc('hour', " + ts + ") + CAST(FLOOR(date_part('minute', " + ts + ") / " + m + ") AS INTEGER) * INTERVAL '" + m + " minutes')"
}

// part is a part's length (an hour when unset).
func (d *digestTable) part() time.Duration {
	if d.width == 0 {
		return time.Hour
	}
	return d.width
}

// DeriveWindowKeys brings TABLE__window_keys up to date inside tx (Derive
// calls it when DeriveOptions.WindowKeys is set or the table exists). A
// new table is grouped by groups (WindowGroups) and indexed by them and
// the hour; an existing one keeps its own columns. See deriveDigests:
// called here it knows no import's rows, so rows earlier than the last
// stored hour fail its count check and every hour is re-hashed; Derive
// adds such late rows to the stored hours instead.
func DeriveWindowKeys(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, groups []string) error {
	return deriveWindowKeys(ctx, tx, ds, table, groups, 0)
}

// deriveWindowKeys is DeriveWindowKeys knowing that the rows numbered
// after before are those an import has just added, 0 if not known.
func deriveWindowKeys(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, groups []string, before int64) error {
	return deriveDigests(ctx, tx, ds, table, WindowKeysSuffix, "window keys", groups, true, time.Hour, "", before)
}

// deriveDigests brings the digest table TABLE+suffix up to date inside
// tx. Only the parts from the last stored part on are recomputed, after
// two checks: every earlier (part, group)'s stored count equals the
// rows' count (one GROUP BY over the rows before it), and the digests of
// the digestCheckHours stored parts before the last equal a
// recomputation from their rows. When before is positive (the rows
// numbered after it are an import's, Derive), both checks read only the
// rows numbered up to before, those the stored digests were built from,
// and the new rows earlier than the last part (late rows) are hashed
// alone and added to the stored parts of their (part, group), inserted
// when not stored: lthash addition is exact, so the table equals a
// rebuild's, and the keys hashed are the import's rather than the
// table's (the count check still counts every earlier row). A table
// combined from a finer one (finer) hashes its late rows from the rows
// too, and its check takes them off the finer parts, which already hold
// them. When a check fails every part is recomputed from every row. A
// stored digest older than the checked parts whose count is right is not
// re-hashed: an import does not catch it (CheckWindowKeys re-hashes
// every hour). A new table is grouped by groups and indexed by the hour,
// after the groups when indexGroups (a window reads one group's hours; a
// metric many groups' hours); none is made when groups is empty and
// indexGroups (a catalog with no window a digest can serve).
func deriveDigests(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table, suffix, what string, groups []string, indexGroups bool, width time.Duration, finer string, before int64) error {
	fail := func(step string, err error) error {
		return fmt.Errorf("derive %s: %s: %s: %w", table, what, step, err)
	}
	d := &digestTable{ds: ds, table: table, rel: quoteName(table + suffix), width: width}
	if finer != "" {
		d.finer = quoteName(table + finer)
	}
	exists, err := tableExists(ctx, tx, table+suffix)
	if err != nil {
		return fail("look up table", err)
	}
	var from time.Time // recompute the parts from this one on; zero: all
	// late are the new rows' parts before from, added to the stored ones.
	var late []rollupPart
	if !exists {
		if len(groups) == 0 && indexGroups {
			return nil
		}
		d.groups = groups
		sel := "CAST(NULL AS TIMESTAMP) AS _hour"
		for _, g := range groups {
			sel += ", " + ident(g)
		}
		if _, err := tx.ExecContext(ctx, "CREATE TABLE "+d.rel+" AS SELECT "+sel+", CAST(0 AS BIGINT) AS _n, CAST(NULL AS BYTEA) AS _lthash FROM "+
			quoteName(table)+" WHERE 1 = 0"); err != nil {
			return fail("create table", err)
		}
		_, base, ok := strings.Cut(table, ".")
		if !ok {
			base = table
		}
		var cols []string
		if indexGroups {
			for _, g := range groups {
				cols = append(cols, ident(g))
			}
		}
		if _, err := tx.ExecContext(ctx, "CREATE INDEX "+ident(base+suffix+"_idx")+" ON "+d.rel+" ("+strings.Join(append(cols, "_hour"), ", ")+")"); err != nil {
			return fail("index", err)
		}
	} else {
		if d.groups, err = digestGroupColumns(ctx, tx, d.rel); err != nil {
			return fail("read columns", err)
		}
		var lastPart sql.NullTime
		if err := tx.QueryRowContext(ctx, "SELECT MAX(_hour) FROM "+d.rel).Scan(&lastPart); err != nil {
			return fail("read last hour", err)
		}
		if lastPart.Valid {
			last := lastPart.Time.UTC()
			ok, err := d.countsAgree(ctx, tx, last, before)
			if err != nil {
				return fail("check counts", err)
			}
			if ok && before > 0 {
				// Hashed before the digests' check, which subtracts them
				// from its recomputation: the stored digests do not hold
				// them yet, a finer table's parts (updated) already do.
				if late, err = d.newParts(ctx, tx, before, last); err != nil {
					return fail("hash late keys", err)
				}
			}
			if ok {
				var check sql.NullTime
				if err := tx.QueryRowContext(ctx, "SELECT MIN(h._hour) FROM (SELECT DISTINCT _hour FROM "+d.rel+" WHERE _hour < CAST($1 AS TIMESTAMP) ORDER BY _hour DESC LIMIT "+
					strconv.Itoa(digestCheckHours)+") h", last.Format(sqlTime)).Scan(&check); err != nil {
					return fail("read hours to check", err)
				}
				if check.Valid {
					ok, err = d.digestsAgree(ctx, tx, check.Time.UTC(), last, late)
				}
				if err != nil {
					return fail("check digests", err)
				}
			}
			if ok {
				from = last
			} else {
				late = nil
			}
		}
	}
	if from.IsZero() {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+d.rel); err != nil {
			return fail("clear", err)
		}
	} else if _, err := tx.ExecContext(ctx, "DELETE FROM "+d.rel+" WHERE _hour >= CAST($1 AS TIMESTAMP)", from.Format(sqlTime)); err != nil {
		return fail("clear hours", err)
	}
	parts, err := d.hash(ctx, tx, from, time.Time{})
	if err != nil {
		return fail("hash keys", err)
	}
	if err := d.insert(ctx, tx, parts); err != nil {
		return fail("insert", err)
	}
	if err := d.add(ctx, tx, late); err != nil {
		return fail("add late keys", err)
	}
	return nil
}

// CheckWindowKeys re-hashes every hour of TABLE__window_keys from the
// rows and reports whether every stored count and digest equals it (and
// no (hour, group) is missing or extra): the whole check an import makes
// only for its last hours. false when the table does not exist.
func CheckWindowKeys(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string) (bool, error) {
	exists, err := tableExists(ctx, tx, table+WindowKeysSuffix)
	if err != nil || !exists {
		return false, err
	}
	d := &digestTable{ds: ds, table: table, rel: quoteName(table + WindowKeysSuffix)}
	if d.groups, err = digestGroupColumns(ctx, tx, d.rel); err != nil {
		return false, fmt.Errorf("check window keys: %w", err)
	}
	ok, err := d.digestsAgree(ctx, tx, time.Time{}, time.Time{}, nil)
	if err != nil {
		return false, fmt.Errorf("check window keys: %w", err)
	}
	return ok, nil
}

// digestGroupColumns reads a digest table's group columns: every column
// but _hour, _n and _lthash, in the table's order.
func digestGroupColumns(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, rel string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+rel+" WHERE 1 = 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cols {
		if c != "_hour" && c != "_n" && c != "_lthash" {
			out = append(out, c)
		}
	}
	return out, rows.Err()
}

// insert writes parts into the digest table.
func (d *digestTable) insert(ctx context.Context, tx *sql.Tx, parts []rollupPart) error {
	cols := "_hour"
	for _, g := range d.groups {
		cols += ", " + ident(g)
	}
	cols += ", _n, _lthash"
	const batch = 64
	for i := 0; i < len(parts); i += batch {
		var q strings.Builder
		q.WriteString("INSERT INTO " + d.rel + " (" + cols + ") VALUES ")
		var args []any
		for j, p := range parts[i:min(i+batch, len(parts))] {
			if j > 0 {
				q.WriteString(", ")
			}
			args = append(args, p.hour.Format(sqlTime))
			q.WriteString("(CAST($" + strconv.Itoa(len(args)) + " AS TIMESTAMP)")
			for _, g := range p.groups {
				if g.Valid {
					args = append(args, g.String)
				} else {
					args = append(args, nil)
				}
				q.WriteString(", $" + strconv.Itoa(len(args)))
			}
			b, _ := p.hash.MarshalBinary()
			args = append(args, p.n, b)
			q.WriteString(", $" + strconv.Itoa(len(args)-1) + ", $" + strconv.Itoa(len(args)) + ")")
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// hash computes the (hour, group) parts of the rows with time at or after
// from (zero: all) and before to (zero: no bound): the keys of each part
// cross as one string_agg text, read again row by row for a part whose
// keys hold a newline (the count disagrees).
func (d *digestTable) hash(ctx context.Context, tx *sql.Tx, from, to time.Time) ([]rollupPart, error) {
	if d.finer != "" {
		return d.combine(ctx, tx, from, to)
	}
	rel := quoteName(d.table)
	ts, key := ident(d.ds.Time.Value), ident(d.ds.Key.Value)
	sel := d.bucket(ts) + " AS _h"
	by := "1"
	for i, g := range d.groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
		by += ", " + strconv.Itoa(i+2)
	}
	where, args := d.span(from, to)
	q := "SELECT " + sel + ", COUNT(*), string_agg(CAST(" + key + " AS VARCHAR), chr(10)) FROM " + rel +
		" WHERE " + where + " GROUP BY " + by
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	var parts []rollupPart
	var redo []int
	for rows.Next() {
		p := rollupPart{groups: make([]sql.NullString, len(d.groups))}
		var all sql.NullString
		dest := []any{&p.hour}
		for i := range p.groups {
			dest = append(dest, &p.groups[i])
		}
		dest = append(dest, &p.n, &all)
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, err
		}
		p.hour = p.hour.UTC()
		keys := strings.Split(all.String, "\n")
		if int64(len(keys)) == p.n && all.Valid {
			p.hash.AddStrings(keys)
		} else {
			redo = append(redo, len(parts))
		}
		parts = append(parts, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, i := range redo {
		p := &parts[i]
		p.hash, p.n = lthash.Hash{}, 0
		where, args := d.span(p.hour, p.hour.Add(d.part()))
		q := "SELECT CAST(" + key + " AS VARCHAR) FROM " + rel + " WHERE " + where
		for j, g := range d.groups {
			if p.groups[j].Valid {
				args = append(args, p.groups[j].String)
				q += " AND CAST(" + ident(g) + " AS VARCHAR) = $" + strconv.Itoa(len(args))
			} else {
				q += " AND " + ident(g) + " IS NULL"
			}
		}
		kr, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		for kr.Next() {
			var k sql.NullString
			if err := kr.Scan(&k); err != nil {
				kr.Close()
				return nil, err
			}
			p.hash.AddString(k.String)
			p.n++
		}
		kr.Close()
		if err := kr.Err(); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// combine computes the parts of [from, to) (zero: no bound) by combining
// the parts of d.finer that start in them: every key hashed once, by the
// finer table's derivation.
func (d *digestTable) combine(ctx context.Context, tx *sql.Tx, from, to time.Time) ([]rollupPart, error) {
	sel := d.bucket("_hour") + " AS _h"
	for _, g := range d.groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
	}
	q, args := readParts(sel, d.finer, from, to)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var parts []rollupPart
	at := map[string]int{}
	for rows.Next() {
		p := rollupPart{groups: make([]sql.NullString, len(d.groups))}
		var n int64
		var b []byte
		dest := []any{&p.hour}
		for i := range p.groups {
			dest = append(dest, &p.groups[i])
		}
		dest = append(dest, &n, &b)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		p.hour = p.hour.UTC()
		i, ok := at[p.id()]
		if !ok {
			i = len(parts)
			at[p.id()] = i
			parts = append(parts, p)
		}
		if err := parts[i].hash.CombineBinary(b); err != nil {
			return nil, err
		}
		parts[i].n += n
	}
	return parts, rows.Err()
}

// readParts renders the read of digest table rel's parts starting in
// [from, to) (zero: no bound): sel, then _n and _lthash.
func readParts(sel, rel string, from, to time.Time) (string, []any) {
	var where []string
	var args []any
	if !from.IsZero() {
		args = append(args, from.UTC().Format(sqlTime))
		where = append(where, "_hour >= CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	if !to.IsZero() {
		args = append(args, to.UTC().Format(sqlTime))
		where = append(where, "_hour < CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	q := "SELECT " + sel + ", _n, _lthash FROM " + rel
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return q, args
}

// span renders the rows with a key and time in [from, to) (zero: no
// bound), numbered after d.after when it is positive.
func (d *digestTable) span(from, to time.Time) (string, []any) {
	ts := ident(d.ds.Time.Value)
	where := []string{keyed(ident(d.ds.Key.Value))}
	var args []any
	if !from.IsZero() {
		args = append(args, from.UTC().Format(sqlTime))
		where = append(where, ts+" >= CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	if !to.IsZero() {
		args = append(args, to.UTC().Format(sqlTime))
		where = append(where, ts+" < CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	if d.after > 0 {
		args = append(args, d.after)
		where = append(where, ident(SeqColumn)+" > $"+strconv.Itoa(len(args)))
	}
	return strings.Join(where, " AND "), args
}

// newParts hashes the keys of the rows numbered after before with time
// before to, by part and group: what an import adds to the stored parts
// before the recomputed ones. From the rows even when d combines a finer
// table's parts, which by now hold these rows too: the import's keys are
// hashed once more, rather than its parts told apart from the stored.
func (d *digestTable) newParts(ctx context.Context, tx *sql.Tx, before int64, to time.Time) ([]rollupPart, error) {
	n := *d
	n.finer, n.after = "", before
	return n.hash(ctx, tx, time.Time{}, to)
}

// add adds parts (each of a distinct part and group) to the stored parts
// of the same (part, group), and inserts those not stored. Only those
// stored parts are read, deleted and written again summed, a batch at a
// time: reads and writes bounded by the parts, not by the table or the
// other groups of their hours (late rows spread over a month touched a
// few thousand of the 72,000 window parts of a million events, and
// rewriting every part of their hours took seconds).
func (d *digestTable) add(ctx context.Context, tx *sql.Tx, parts []rollupPart) error {
	sel := "_hour"
	for _, g := range d.groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
	}
	sums := slices.Clone(parts)
	at := make(map[string]int, len(parts))
	for i, p := range parts {
		at[p.id()] = i
	}
	const batch = 64
	for i := 0; i < len(parts); i += batch {
		var or []string
		var args []any
		for _, p := range parts[i:min(i+batch, len(parts))] {
			args = append(args, p.hour.Format(sqlTime))
			and := []string{"_hour = CAST($" + strconv.Itoa(len(args)) + " AS TIMESTAMP)"}
			for j, g := range d.groups {
				if p.groups[j].Valid {
					args = append(args, p.groups[j].String)
					and = append(and, "CAST("+ident(g)+" AS VARCHAR) = $"+strconv.Itoa(len(args)))
				} else {
					and = append(and, ident(g)+" IS NULL")
				}
			}
			or = append(or, "("+strings.Join(and, " AND ")+")")
		}
		cond := " WHERE " + strings.Join(or, " OR ")
		rows, err := tx.QueryContext(ctx, "SELECT "+sel+", _n, _lthash FROM "+d.rel+cond, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			p, b, err := d.scanPart(rows)
			if err == nil {
				err = p.hash.UnmarshalBinary(b)
			}
			if err != nil {
				rows.Close()
				return err
			}
			p.hour = p.hour.UTC()
			k, ok := at[p.id()]
			if !ok {
				rows.Close()
				return fmt.Errorf("stored part %s read for no late part", p.hour.Format(sqlTime))
			}
			sums[k].n += p.n
			sums[k].hash.Combine(&p.hash)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+d.rel+cond, args...); err != nil {
			return err
		}
	}
	return d.insert(ctx, tx, sums)
}

// scanPart scans a stored part's row (_hour, the groups, _n, _lthash):
// the part, its digest left in binary for the caller to decode.
func (d *digestTable) scanPart(rows *sql.Rows) (rollupPart, []byte, error) {
	p := rollupPart{groups: make([]sql.NullString, len(d.groups))}
	var b []byte
	dest := []any{&p.hour}
	for i := range p.groups {
		dest = append(dest, &p.groups[i])
	}
	dest = append(dest, &p.n, &b)
	err := rows.Scan(dest...)
	return p, b, err
}

// countsAgree reports whether every stored (part, group) before `until`
// counts the rows the table has there, and no such row is missing from
// the digests: one GROUP BY over the rows before it, those numbered up
// to seq when it is positive (the rows the digests were built from).
func (d *digestTable) countsAgree(ctx context.Context, tx *sql.Tx, until time.Time, seq int64) (bool, error) {
	ts := ident(d.ds.Time.Value)
	sel, stored := d.bucket(ts), "_hour"
	by := "1"
	for i, g := range d.groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
		stored += ", CAST(" + ident(g) + " AS VARCHAR)"
		by += ", " + strconv.Itoa(i+2)
	}
	read := func(q string, args ...any) (map[string]int64, error) {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			p := rollupPart{groups: make([]sql.NullString, len(d.groups))}
			dest := []any{&p.hour}
			for i := range p.groups {
				dest = append(dest, &p.groups[i])
			}
			dest = append(dest, &p.n)
			if err := rows.Scan(dest...); err != nil {
				return nil, err
			}
			out[p.id()] += p.n
		}
		return out, rows.Err()
	}
	at := until.UTC().Format(sqlTime)
	where, args := ts+" < CAST($1 AS TIMESTAMP) AND "+keyed(ident(d.ds.Key.Value)), []any{at}
	if seq > 0 {
		where += " AND " + ident(SeqColumn) + " <= $2"
		args = append(args, seq)
	}
	have, err := read("SELECT "+sel+", COUNT(*) FROM "+quoteName(d.table)+" WHERE "+where+" GROUP BY "+by, args...)
	if err != nil {
		return false, err
	}
	kept, err := read("SELECT "+stored+", _n FROM "+d.rel+" WHERE _hour < CAST($1 AS TIMESTAMP)", at)
	if err != nil {
		return false, err
	}
	if len(have) != len(kept) {
		return false, nil
	}
	for id, n := range have {
		if kept[id] != n {
			return false, nil
		}
	}
	return true, nil
}

// digestsAgree recomputes the digests of the parts in [from, to) (zero:
// no bound) from the rows, less the parts late (rows the stored digests
// do not hold yet, newParts), and compares them with the stored ones.
func (d *digestTable) digestsAgree(ctx context.Context, tx *sql.Tx, from, to time.Time, late []rollupPart) (bool, error) {
	parts, err := d.hash(ctx, tx, from, to)
	if err != nil {
		return false, err
	}
	if len(late) > 0 {
		at := make(map[string]int, len(parts))
		for i := range parts {
			at[parts[i].id()] = i
		}
		for _, l := range late {
			if (!from.IsZero() && l.hour.Before(from)) || (!to.IsZero() && !l.hour.Before(to)) {
				continue
			}
			i, ok := at[l.id()]
			if !ok {
				return false, nil // a late row the recomputation does not hold
			}
			parts[i].n -= l.n
			parts[i].hash.Subtract(&l.hash)
		}
		// A part of late rows only is not stored.
		parts = slices.DeleteFunc(parts, func(p rollupPart) bool { return p.n == 0 && p.hash.IsZero() })
	}
	sel := "_hour"
	for _, g := range d.groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
	}
	q, args := readParts(sel, d.rel, from, to)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	kept := map[string]rollupPart{}
	for rows.Next() {
		p, b, err := d.scanPart(rows)
		if err != nil {
			return false, err
		}
		if err := p.hash.UnmarshalBinary(b); err != nil {
			return false, nil
		}
		p.hour = p.hour.UTC()
		if _, dup := kept[p.id()]; dup {
			return false, nil
		}
		kept[p.id()] = p
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	if len(kept) != len(parts) {
		return false, nil
	}
	for i := range parts {
		k, ok := kept[parts[i].id()]
		if !ok || k.n != parts[i].n || !k.hash.Equal(&parts[i].hash) {
			return false, nil
		}
	}
	return true, nil
}

// hasColumns reports whether groups holds every column of cols.
func hasColumns(groups []string, cols ...string) bool {
	for _, c := range cols {
		if !slices.Contains(groups, c) {
			return false
		}
	}
	return true
}
