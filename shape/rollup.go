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

// MetricEdges describes the checkpoints Derive builds for a dataset in
// table to metric.Compile and metric.RederiveSQL, which bound by them the
// rows reaching into a window from before it.
func MetricEdges(table string) metric.EdgeBound {
	return metric.EdgeBound{Checkpoints: table + cpSuffix, CheckpointIndex: table + cpiSuffix}
}

// DeriveRollupKeys brings TABLE__rollup_keys, and TABLE__rollup_slices
// when kept, up to date inside tx (Derive calls it after the other
// derived structures when DeriveOptions.RollupKeys is set or the keys'
// table exists): grouped by RollupGroups, indexed by the part's start,
// kept as deriveDigests keeps every digest table. The slices are kept
// once the stored hours hold minSliceRows rows an hour on average (0:
// DefaultSliceMinRows; negative: from the start), and from then on by
// every import: every key is hashed once, into its slice, and an hour's
// digest and count combine its slices' (each hour's count is still
// checked against its rows, and the slices' digests against the rows'
// keys). Below that density a window's edge hours hold too few rows for
// the slices to pay (a statement more, against a few keys hashed).
// Called here it knows no import's rows: rows earlier than the last
// stored part fail the count check and every part is re-hashed. Derive
// knows them and adds such late rows' keys to the stored parts of both
// tables, hashed from the rows for each (deriveDigests).
func DeriveRollupKeys(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, minSliceRows int) error {
	return deriveRollupKeys(ctx, tx, ds, table, minSliceRows, 0)
}

// deriveRollupKeys is DeriveRollupKeys knowing that the rows numbered
// (_ingest_seq) after before are those an import has just added, 0 if
// not known (see deriveDigests).
func deriveRollupKeys(ctx context.Context, tx *sql.Tx, ds *catalog.Dataset, table string, minSliceRows int, before int64) error {
	groups := RollupGroups(ds)
	sliced, err := tableExists(ctx, tx, table+RollupSlicesSuffix)
	if err != nil {
		return fmt.Errorf("derive %s: rollup slices: look up table: %w", table, err)
	}
	if !sliced && minSliceRows >= 0 {
		// The hours from the rows; the slices only once dense enough.
		if err := deriveDigests(ctx, tx, ds, table, RollupKeysSuffix, "rollup keys", groups, false, time.Hour, "", before); err != nil {
			return err
		}
		if minSliceRows == 0 {
			minSliceRows = DefaultSliceMinRows
		}
		var rows, hours sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT SUM(_n), COUNT(DISTINCT _hour) FROM "+quoteName(table+RollupKeysSuffix)).Scan(&rows, &hours); err != nil {
			return fmt.Errorf("derive %s: rollup slices: read density: %w", table, err)
		}
		if !hours.Valid || hours.Int64 == 0 || rows.Int64/hours.Int64 < int64(minSliceRows) {
			return nil
		}
		return deriveDigests(ctx, tx, ds, table, RollupSlicesSuffix, "rollup slices", groups, false, SliceWidth, "", before)
	}
	// The slices first, from the rows; the hours then combine them.
	if err := deriveDigests(ctx, tx, ds, table, RollupSlicesSuffix, "rollup slices", groups, false, SliceWidth, "", before); err != nil {
		return err
	}
	return deriveDigests(ctx, tx, ds, table, RollupKeysSuffix, "rollup keys", groups, false, time.Hour, RollupSlicesSuffix, before)
}

// DefaultSliceMinRows is the least rows an hour on average from which
// DeriveRollupKeys keeps the slices: between the generator's 1,000,000
// events over 30 days (1,389 rows an hour), where the slices cost more
// than they save, and its 10,000,000 (13,889), where they save a fifth of
// a call's CPU (bench/results/slices.md).
const DefaultSliceMinRows = 5000

// RollupSlicesSuffix names a table's key digests by slice of an hour:
// TABLE__rollup_slices holds what TABLE__rollup_keys holds, for every
// SliceWidth of the table's time rather than every hour (the column _hour
// holds the slice's start). A metric's provenance sums a window's partial
// first and last hours from their whole slices and hashes only the keys
// of the rows in the partial slices (metric.Rollup.Slices): a tenth of an
// hour's rows at most, rather than up to half of one. Kept by
// DeriveRollupKeys once the rows are dense enough to pay for them; a
// database without them has its edges hashed by the hour.
const RollupSlicesSuffix = "__rollup_slices"

// SliceWidth is a rollup slice's length: a divisor of an hour.
const SliceWidth = 10 * time.Minute

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

// sums returns the running sums of the snapshot's data version, read
// when the engine holds none of it.
func (x *snapshotSums) sums(ctx context.Context, db metric.Querier) (*digestSums, error) {
	version, err := x.s.DataVersion(ctx, x.ds)
	if err != nil {
		return nil, err
	}
	x.s.e.mu.Lock()
	c := x.s.e.sums[x.ds]
	x.s.e.mu.Unlock()
	if c == nil || c.version != version {
		if c, err = readDigestSums(ctx, db, x.rel, x.groups, version); err != nil {
			return nil, err
		}
		x.s.e.mu.Lock()
		if x.s.e.sums == nil {
			x.s.e.sums = map[string]*digestSums{}
		}
		x.s.e.sums[x.ds] = c
		x.s.e.mu.Unlock()
	}
	return c, nil
}

// HoursReach implements metric.HourCounter from the running sums: the
// stored hours from lo on, in order, each the admitted groups' rows.
func (x *snapshotSums) HoursReach(ctx context.Context, db metric.Querier, lo, hi time.Time, admit func(groups []*string) bool, n int) (time.Time, error) {
	c, err := x.sums(ctx, db)
	if err != nil {
		return time.Time{}, err
	}
	var admitted []*digestGroup
	for gi := range c.groups {
		if admit(c.groups[gi].vals) {
			admitted = append(admitted, &c.groups[gi])
		}
	}
	i, _ := slices.BinarySearchFunc(c.hours, lo, time.Time.Compare)
	j, _ := slices.BinarySearchFunc(c.hours, hi, time.Time.Compare)
	var got int64
	for ; i < j; i++ {
		for _, g := range admitted {
			got += g.n[i+1] - g.n[i]
		}
		if got >= int64(n) {
			return c.hours[i].Add(time.Hour), nil
		}
	}
	return time.Time{}, nil
}

func (x *snapshotSums) SumDigests(ctx context.Context, db metric.Querier, lo, hi time.Time, admit func([]*string) bool) (int, lthash.Hash, error) {
	c, err := x.sums(ctx, db)
	if err != nil {
		return 0, lthash.Hash{}, err
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

// hourTotals are a dataset's key digests at one data version summed over
// every group hour by hour, for the resolver (checkSums): about 2 KB an
// hour, a twentieth of the executor's running sums at 20 groups.
type hourTotals struct {
	version string
	hours   []time.Time // ascending
	n       []int64
	h       []lthash.Hash
	groups  [][]*string // every group a stored part names
}

// checkSums sums a dataset's digests for the resolver's
// metric.RollupKeys (metric.Rollup.CheckSums), apart from the executor's
// running sums and computed otherwise: every group's digests added hour
// by hour, read once per data version, summed over the window's hours
// when the request admits every group (no filter or scope that leaves
// one out), else metric.ErrNotSummed and the stored digests are read.
type checkSums struct {
	s   *Snapshot
	ds  string
	rel string
	// groups are the rollup's group columns.
	groups []string
}

// SumDigests implements metric.DigestSummer.
func (x *checkSums) SumDigests(ctx context.Context, db metric.Querier, lo, hi time.Time, admit func([]*string) bool) (int, lthash.Hash, error) {
	version, err := x.s.DataVersion(ctx, x.ds)
	if err != nil {
		return 0, lthash.Hash{}, err
	}
	x.s.e.mu.Lock()
	t := x.s.e.totals[x.ds]
	x.s.e.mu.Unlock()
	if t == nil || t.version != version {
		if t, err = readHourTotals(ctx, db, x.rel, x.groups, version); err != nil {
			return 0, lthash.Hash{}, err
		}
		x.s.e.mu.Lock()
		if x.s.e.totals == nil {
			x.s.e.totals = map[string]*hourTotals{}
		}
		x.s.e.totals[x.ds] = t
		x.s.e.mu.Unlock()
	}
	for _, g := range t.groups {
		if !admit(g) {
			return 0, lthash.Hash{}, metric.ErrNotSummed
		}
	}
	var (
		n int64
		h lthash.Hash
	)
	for i, at := range t.hours {
		if !at.Before(lo) && at.Before(hi) {
			n += t.n[i]
			h.Combine(&t.h[i])
		}
	}
	return int(n), h, nil
}

// readHourTotals reads a dataset's key digests and adds them up hour by
// hour, noting every group they name.
func readHourTotals(ctx context.Context, db metric.Querier, rel string, groups []string, version string) (*hourTotals, error) {
	sel := "_hour, _n, _lthash"
	for _, g := range groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
	}
	rows, err := db.QueryContext(ctx, "SELECT "+sel+" FROM "+quoteName(rel))
	if err != nil {
		return nil, fmt.Errorf("read key digests by hour: %w", err)
	}
	defer rows.Close()
	t := &hourTotals{version: version}
	at := map[time.Time]int{}
	seen := map[string]bool{}
	for rows.Next() {
		var (
			hour time.Time
			n    int64
			b    sql.RawBytes // combined before the next row: no copy
		)
		vals := make([]sql.NullString, len(groups))
		dest := []any{&hour, &n, &b}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read key digests by hour: %w", err)
		}
		i, ok := at[hour.UTC()]
		if !ok {
			i = len(t.hours)
			at[hour.UTC()] = i
			t.hours = append(t.hours, hour.UTC())
			t.n = append(t.n, 0)
			t.h = append(t.h, lthash.Hash{})
		}
		t.n[i] += n
		if err := t.h[i].CombineBinary(b); err != nil {
			return nil, fmt.Errorf("read key digests by hour: %w", err)
		}
		id := rollupPart{groups: vals}
		if key := id.id(); !seen[key] {
			seen[key] = true
			g := make([]*string, len(vals))
			for j, v := range vals {
				if v.Valid {
					g[j] = &v.String
				}
			}
			t.groups = append(t.groups, g)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read key digests by hour: %w", err)
	}
	return t, nil
}

// versionFloors are a dataset's key floors at one data version.
type versionFloors struct {
	version string
	f       *metric.KeyFloors
}

// KeyFloors implements metric.FloorKeeper: the executor's floors of the
// snapshot's data version, computed by read once per version, on DuckDB
// (it orders text bytewise, so its MIN is the bytewise least key) or on
// a database whose Pipeliner orders text bytewise on demand (KeyOrderer,
// metric.Options.KeyOrder: PostgreSQL's COLLATE "C").
func (x *snapshotSums) KeyFloors(ctx context.Context, db metric.Querier, read metric.FloorRead) (*metric.KeyFloors, error) {
	return x.s.keptFloors(ctx, floorsKey{ds: x.ds}, db, read)
}

// checkFloors keeps the resolver's own key floors of a dataset
// (metric.Rollup.CheckFloors), apart from the executor's.
type checkFloors struct {
	s  *Snapshot
	ds string
}

// KeyFloors implements metric.FloorKeeper as snapshotSums.KeyFloors
// does, in a place of its own.
func (x *checkFloors) KeyFloors(ctx context.Context, db metric.Querier, read metric.FloorRead) (*metric.KeyFloors, error) {
	return x.s.keptFloors(ctx, floorsKey{ds: x.ds, check: true}, db, read)
}

// floorsKey names one kept set of key floors: a dataset's, the
// executor's or (check) the resolver's.
type floorsKey struct {
	ds    string
	check bool
}

// keptFloors returns the floors kept under key for the snapshot's data
// version, computed by read when none of that version are kept; nil on
// a database other than DuckDB whose Pipeliner cannot order text
// bytewise (KeyOrderer).
//
// The executor's floors (key.check false) of an earlier version whose
// watermark ("seq:N") the snapshot's passes are lowered by the floors of
// the rows added since (_ingest_seq above N), where the import appends
// rows numbered after every stored one: a served database that keeps
// receiving imports reads each row once, not every row per version. The
// resolver's floors are read whole at each version, so that a row the
// watermark does not cover (one that arrived out of order) can make the
// executor list other keys, never both sides miss it.
func (s *Snapshot) keptFloors(ctx context.Context, key floorsKey, db metric.Querier, read metric.FloorRead) (*metric.KeyFloors, error) {
	if !isDuckDB(s.e.src.DB) && s.e.keyOrder() == nil {
		return nil, nil
	}
	version, err := s.DataVersion(ctx, key.ds)
	if err != nil {
		return nil, err
	}
	kept := func() *versionFloors {
		s.e.mu.Lock()
		defer s.e.mu.Unlock()
		return s.e.floors[key]
	}
	if c := kept(); c != nil && c.version == version {
		return c.f, nil
	}
	s.e.floorsBuild.Lock()
	defer s.e.floorsBuild.Unlock()
	c := kept()
	if c != nil && c.version == version {
		return c.f, nil
	}
	var f *metric.KeyFloors
	if before, ok := appendedSince(c, version, key.check); ok {
		added, err := read(ctx, db, ident(SeqColumn)+" > "+strconv.FormatInt(before, 10))
		if err != nil {
			return nil, err
		}
		f = c.f.Lower(added)
	} else if f, err = read(ctx, db, ""); err != nil {
		return nil, err
	}
	s.e.mu.Lock()
	if s.e.floors == nil {
		s.e.floors = map[floorsKey]*versionFloors{}
	}
	s.e.floors[key] = &versionFloors{version: version, f: f}
	s.e.mu.Unlock()
	return f, nil
}

// appendedSince reports whether floors kept at c's version can be brought
// to version by the rows after c's watermark, and that watermark: both
// versions watermarks ("seq:N"), the new one greater, and the floors the
// executor's (check false).
func appendedSince(c *versionFloors, version string, check bool) (int64, bool) {
	if c == nil || c.f == nil || check {
		return 0, false
	}
	before, ok := watermark(c.version)
	if !ok {
		return 0, false
	}
	now, ok := watermark(version)
	return before, ok && now > before
}

// watermark reads a data version of the form DataVersion gives a
// relation with an ingestion sequence ("seq:N").
func watermark(version string) (int64, bool) {
	n, ok := strings.CutPrefix(version, "seq:")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(n, 10, 64)
	return v, err == nil
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
