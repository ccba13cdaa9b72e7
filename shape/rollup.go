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
	"github.com/provenant/provenant/metric"
)

// RollupKeysSuffix names a table's per-hour key digests: TABLE__rollup_keys
// holds, for every hour of the table's time (date_trunc('hour', time), the
// column _hour) and every combination of its group columns (RollupGroups),
// the number of the rows (_n) and the lthash of their keys (_lthash, the
// 2,048 bytes of lthash.Hash.MarshalBinary). A metric's provenance over a
// window of many hours combines the stored digests of its whole hours with
// the hashes of its edge rows' keys (metric.LargeKeys) instead of reading
// and hashing every key. Built by Derive when DeriveOptions.RollupKeys is
// set.
const RollupKeysSuffix = "__rollup_keys"

// RollupGroups are the columns a dataset's key digests are grouped by: its
// entities' columns that are not series columns (the warehouse's zone), in
// declared order. A request whose scope and filters name only these
// columns can be answered from the digests.
func RollupGroups(ds *catalog.Dataset) []string {
	series := map[string]bool{}
	for _, e := range ds.SeriesEntities() {
		series[e.Column.Value] = true
	}
	var out []string
	for _, e := range ds.Entities {
		if !series[e.Column.Value] {
			out = append(out, e.Column.Value)
		}
	}
	return out
}

// MetricRollup describes the key digests and checkpoints Derive builds
// for dataset ds in table to metric.RollupKeys.
func MetricRollup(ds *catalog.Dataset, table string) metric.Rollup {
	return metric.Rollup{Relation: table + RollupKeysSuffix, Groups: RollupGroups(ds), Checkpoints: table + cpSuffix, CheckpointIndex: table + cpiSuffix}
}

// rollupCheckHours is how many stored hours before the recomputed ones an
// import re-hashes from the rows and compares with the stored digests.
const rollupCheckHours = 2

// DeriveRollupKeys brings TABLE__rollup_keys up to date inside tx (Derive
// calls it after the other derived structures when
// DeriveOptions.RollupKeys is set; it reads only the key, the time and the
// group columns). Only the hours from the last stored hour
// on are recomputed (an append later than the stored rows touches no
// earlier hour), after two checks that cost little against a table of any
// size: every earlier (hour, group)'s stored count equals the rows' count
// (one GROUP BY), and the digests of the rollupCheckHours stored hours
// before the last equal a recomputation from their rows (older digests
// are checked by their counts alone). When a check fails (rows
// were imported out of time order, and the validity intervals were rebuilt
// with them) every hour is recomputed.
func DeriveRollupKeys(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string) error {
	rkRel := quoteName(table + RollupKeysSuffix)
	rel := quoteName(table)
	groups := RollupGroups(ds)
	gcols := make([]string, len(groups))
	for i, g := range groups {
		gcols[i] = ident(g)
	}
	fail := func(what string, err error) error {
		return fmt.Errorf("derive %s: rollup keys: %s: %w", table, what, err)
	}
	exists, err := tableExists(ctx, tx, table+RollupKeysSuffix)
	if err != nil {
		return fail("look up table", err)
	}
	var from time.Time // recompute the hours from this one on; zero: all
	if !exists {
		sel := "CAST(NULL AS TIMESTAMP) AS _hour"
		for _, g := range gcols {
			sel += ", " + g
		}
		if _, err := tx.ExecContext(ctx, "CREATE TABLE "+rkRel+" AS SELECT "+sel+", CAST(0 AS BIGINT) AS _n, CAST(NULL AS BYTEA) AS _lthash FROM "+
			rel+" WHERE 1 = 0"); err != nil {
			return fail("create table", err)
		}
		_, base, ok := strings.Cut(table, ".")
		if !ok {
			base = table
		}
		if _, err := tx.ExecContext(ctx, "CREATE INDEX "+ident(base+RollupKeysSuffix+"_idx")+" ON "+rkRel+" (_hour)"); err != nil {
			return fail("index", err)
		}
	} else {
		var last sql.NullTime
		if err := tx.QueryRowContext(ctx, "SELECT MAX(_hour) FROM "+rkRel).Scan(&last); err != nil {
			return fail("read last hour", err)
		}
		if last.Valid {
			ok, err := rollupCountsAgree(ctx, tx, ds, table, last.Time)
			if err != nil {
				return fail("check counts", err)
			}
			if ok {
				// The stored hours before the last, up to rollupCheckHours.
				var check sql.NullTime
				if err := tx.QueryRowContext(ctx, "SELECT MIN(h._hour) FROM (SELECT DISTINCT _hour FROM "+rkRel+" WHERE _hour < CAST($1 AS TIMESTAMP) ORDER BY _hour DESC LIMIT "+
					strconv.Itoa(rollupCheckHours)+") h", last.Time.UTC().Format(sqlTime)).Scan(&check); err != nil {
					return fail("read hours to check", err)
				}
				if check.Valid {
					ok, err = rollupDigestsAgree(ctx, tx, ds, table, check.Time.UTC(), last.Time.UTC())
				}
				if err != nil {
					return fail("check digests", err)
				}
			}
			if ok {
				from = last.Time.UTC()
			}
		}
	}
	if from.IsZero() {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+rkRel); err != nil {
			return fail("clear", err)
		}
	} else if _, err := tx.ExecContext(ctx, "DELETE FROM "+rkRel+" WHERE _hour >= CAST($1 AS TIMESTAMP)", from.Format(sqlTime)); err != nil {
		return fail("clear hours", err)
	}
	parts, err := rollupHash(ctx, tx, ds, table, from, time.Time{})
	if err != nil {
		return fail("hash keys", err)
	}
	cols := "_hour"
	for _, g := range gcols {
		cols += ", " + g
	}
	cols += ", _n, _lthash"
	const batch = 64
	for i := 0; i < len(parts); i += batch {
		var q strings.Builder
		q.WriteString("INSERT INTO " + rkRel + " (" + cols + ") VALUES ")
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
			return fail("insert", err)
		}
	}
	return nil
}

// keyed is the condition that a row has a key (not null, not empty): the
// rows whose keys a provenance lists (metric's readKeys drops the others),
// and so the rows the digests count.
func keyed(key string) string {
	return key + " IS NOT NULL AND CAST(" + key + " AS VARCHAR) <> ''"
}

// rollupPart is one (hour, group) of the key digests.
type rollupPart struct {
	hour   time.Time
	groups []sql.NullString
	n      int64
	hash   lthash.Hash
}

func (p *rollupPart) id() string {
	var b strings.Builder
	b.WriteString(p.hour.UTC().Format(time.RFC3339))
	for _, g := range p.groups {
		if g.Valid {
			b.WriteString("\x00v" + g.String)
		} else {
			b.WriteString("\x00n")
		}
	}
	return b.String()
}

// rollupHash computes the (hour, group) parts of the rows with time at or
// after from (zero: all) and before to (zero: no bound), from the rows:
// the keys of each part cross as one string_agg text, read again row by
// row for a part whose keys hold a newline (the count disagrees).
func rollupHash(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, from, to time.Time) ([]rollupPart, error) {
	rel := quoteName(table)
	groups := RollupGroups(ds)
	ts, key := ident(ds.Time.Value), ident(ds.Key.Value)
	sel := "date_trunc('hour', " + ts + ") AS _h"
	by := "1"
	for i, g := range groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
		by += ", " + strconv.Itoa(i+2)
	}
	where := []string{keyed(key)}
	var args []any
	if !from.IsZero() {
		args = append(args, from.UTC().Format(sqlTime))
		where = append(where, ts+" >= CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	if !to.IsZero() {
		args = append(args, to.UTC().Format(sqlTime))
		where = append(where, ts+" < CAST($"+strconv.Itoa(len(args))+" AS TIMESTAMP)")
	}
	q := "SELECT " + sel + ", COUNT(*), string_agg(CAST(" + key + " AS VARCHAR), chr(10)) FROM " + rel +
		" WHERE " + strings.Join(where, " AND ") + " GROUP BY " + by
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	var parts []rollupPart
	var redo []int
	for rows.Next() {
		p := rollupPart{groups: make([]sql.NullString, len(groups))}
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
		q := "SELECT CAST(" + key + " AS VARCHAR) FROM " + rel + " WHERE " + ts + " >= CAST($1 AS TIMESTAMP) AND " + ts + " < CAST($2 AS TIMESTAMP)"
		args := []any{p.hour.Format(sqlTime), p.hour.Add(time.Hour).Format(sqlTime)}
		for j, g := range groups {
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
		var n int64
		for kr.Next() {
			var k sql.NullString
			if err := kr.Scan(&k); err != nil {
				kr.Close()
				return nil, err
			}
			p.hash.AddString(k.String)
			n++
		}
		kr.Close()
		if err := kr.Err(); err != nil {
			return nil, err
		}
		p.n = n
	}
	return parts, nil
}

// rollupCountsAgree reports whether every stored (hour, group) before
// `before` counts the rows the table has there, and no such row is
// missing from the digests: one GROUP BY over the rows before it.
func rollupCountsAgree(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, before time.Time) (bool, error) {
	groups := RollupGroups(ds)
	ts := ident(ds.Time.Value)
	sel, stored := "date_trunc('hour', "+ts+")", "_hour"
	by := "1"
	for i, g := range groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
		stored += ", CAST(" + ident(g) + " AS VARCHAR)"
		by += ", " + strconv.Itoa(i+2)
	}
	read := func(q string) (map[string]int64, error) {
		rows, err := tx.QueryContext(ctx, q, before.UTC().Format(sqlTime))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			p := rollupPart{groups: make([]sql.NullString, len(groups))}
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
	have, err := read("SELECT " + sel + ", COUNT(*) FROM " + quoteName(table) + " WHERE " + ts + " < CAST($1 AS TIMESTAMP) AND " + keyed(ident(ds.Key.Value)) + " GROUP BY " + by)
	if err != nil {
		return false, err
	}
	kept, err := read("SELECT " + stored + ", _n FROM " + quoteName(table+RollupKeysSuffix) + " WHERE _hour < CAST($1 AS TIMESTAMP)")
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

// rollupDigestsAgree recomputes the digests of the hours in [from, to)
// from the rows and compares them with the stored ones.
func rollupDigestsAgree(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, from, to time.Time) (bool, error) {
	parts, err := rollupHash(ctx, tx, ds, table, from, to)
	if err != nil {
		return false, err
	}
	groups := RollupGroups(ds)
	sel := "_hour"
	for _, g := range groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+sel+", _n, _lthash FROM "+quoteName(table+RollupKeysSuffix)+
		" WHERE _hour >= CAST($1 AS TIMESTAMP) AND _hour < CAST($2 AS TIMESTAMP)", from.UTC().Format(sqlTime), to.UTC().Format(sqlTime))
	if err != nil {
		return false, err
	}
	defer rows.Close()
	kept := map[string]rollupPart{}
	for rows.Next() {
		p := rollupPart{groups: make([]sql.NullString, len(groups))}
		var b []byte
		dest := []any{&p.hour}
		for i := range p.groups {
			dest = append(dest, &p.groups[i])
		}
		dest = append(dest, &p.n, &b)
		if err := rows.Scan(dest...); err != nil {
			return false, err
		}
		if err := p.hash.UnmarshalBinary(b); err != nil {
			return false, nil
		}
		p.hour = p.hour.UTC()
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

// digestSums is a dataset's key digests at one data version, kept as
// running sums per group, so that the digests of any range of hours of a
// group cost one subtraction: about 2 KB for every stored part, as the
// table itself.
type digestSums struct {
	version string
	hours   []time.Time // the stored hours, ascending
	groups  []digestGroup
}

// digestGroup is one group's running sums: n[i] and h[i] over the parts of
// hours[:i].
type digestGroup struct {
	vals []*string
	n    []int64
	h    []lthash.Hash
}

// snapshotSums sums a dataset's digests for metric.RollupKeys from the
// engine's running sums of the snapshot's data version, read once per
// version (metric.Rollup.Sums).
type snapshotSums struct {
	s      *Snapshot
	ds     string
	rel    string
	groups []string
}

func (x *snapshotSums) SumDigests(ctx context.Context, db metric.Querier, lo, hi time.Time, admit func([]*string) bool) (int, lthash.Hash, error) {
	version, err := x.s.DataVersion(ctx, x.ds)
	if err != nil {
		return 0, lthash.Hash{}, err
	}
	x.s.e.mu.Lock()
	c := x.s.e.sums[x.ds]
	x.s.e.mu.Unlock()
	if c == nil || c.version != version {
		if c, err = readDigestSums(ctx, db, x.rel, x.groups, version); err != nil {
			return 0, lthash.Hash{}, err
		}
		x.s.e.mu.Lock()
		if x.s.e.sums == nil {
			x.s.e.sums = map[string]*digestSums{}
		}
		x.s.e.sums[x.ds] = c
		x.s.e.mu.Unlock()
	}
	i, _ := slices.BinarySearchFunc(c.hours, lo, time.Time.Compare)
	j, _ := slices.BinarySearchFunc(c.hours, hi, time.Time.Compare)
	var n int64
	var h lthash.Hash
	for _, g := range c.groups {
		if admit(g.vals) {
			n += g.n[j] - g.n[i]
			h.Combine(&g.h[j])
			h.Subtract(&g.h[i])
		}
	}
	return int(n), h, nil
}

// readDigestSums reads a digest table in hour order into running sums.
func readDigestSums(ctx context.Context, db metric.Querier, rel string, groups []string, version string) (*digestSums, error) {
	sel := "_hour"
	for _, g := range groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
	}
	rows, err := db.QueryContext(ctx, "SELECT "+sel+", _n, _lthash FROM "+quoteName(rel)+" ORDER BY _hour")
	if err != nil {
		return nil, fmt.Errorf("read key digests: %w", err)
	}
	defer rows.Close()
	type part struct {
		hour  int
		group int
		n     int64
		h     lthash.Hash
	}
	c := &digestSums{version: version}
	var parts []part
	index := map[string]int{}
	for rows.Next() {
		var hour time.Time
		vals := make([]sql.NullString, len(groups))
		var n int64
		var b []byte
		dest := []any{&hour}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		dest = append(dest, &n, &b)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read key digests: %w", err)
		}
		p := rollupPart{hour: hour.UTC(), groups: vals}
		id := p.id()
		id = id[strings.IndexByte(id, 0)+1:] // the group values alone
		if len(vals) == 0 {
			id = ""
		}
		g, ok := index[id]
		if !ok {
			g = len(c.groups)
			index[id] = g
			dg := digestGroup{vals: make([]*string, len(vals))}
			for i, v := range vals {
				if v.Valid {
					dg.vals[i] = &v.String
				}
			}
			c.groups = append(c.groups, dg)
		}
		if k := len(c.hours); k == 0 || c.hours[k-1].Before(p.hour) {
			c.hours = append(c.hours, p.hour)
		}
		q := part{hour: len(c.hours) - 1, group: g, n: n}
		if err := q.h.UnmarshalBinary(b); err != nil {
			return nil, fmt.Errorf("read key digests: %w", err)
		}
		parts = append(parts, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read key digests: %w", err)
	}
	for gi := range c.groups {
		g := &c.groups[gi]
		g.n = make([]int64, len(c.hours)+1)
		g.h = make([]lthash.Hash, len(c.hours)+1)
	}
	// Each part into its hour's slot, then running sums.
	for _, p := range parts {
		g := &c.groups[p.group]
		g.n[p.hour+1] += p.n
		g.h[p.hour+1].Combine(&p.h)
	}
	for gi := range c.groups {
		g := &c.groups[gi]
		for i := 1; i <= len(c.hours); i++ {
			g.n[i] += g.n[i-1]
			g.h[i].Combine(&g.h[i-1])
		}
	}
	return c, nil
}
