package metric

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
	"github.com/provenant/provenant/lthash"
)

// Rollup names a dataset's per-hour key digests (shape's
// TABLE__rollup_keys): for every hour (_hour) and combination of the group
// columns, the number of rows with a key (_n) and the lthash of their keys
// (_lthash, lthash.Hash.MarshalBinary).
type Rollup struct {
	Relation string
	Groups   []string
	// Checkpoints and CheckpointIndex, when set, are the dataset's
	// checkpoints (shape's TABLE__cp and TABLE__cpi): the rows reaching
	// into a window from before it are looked for among the last
	// checkpoint's rows and the rows after it.
	Checkpoints, CheckpointIndex string
	// Slices, when set, names the same digests by slice of an hour
	// (shape's TABLE__rollup_slices: the column _hour holds a slice's
	// start), each SliceWidth long, a divisor of an hour: RollupKeys then
	// sums a window's partial first and last hours from their whole
	// slices and reads the keys of the rows in its partial slices only.
	Slices     string
	SliceWidth time.Duration
	// Sums, when set, sums the stored digests in place of reading them
	// (a cache of the relation: shape keeps their running sums per group
	// for one data version). RollupKeys calls it with the window's whole
	// hours and the admission as a predicate on a part's group values.
	Sums DigestSummer
	// CheckSums, when set, is the resolver's own DigestSummer, apart from
	// Sums and kept otherwise (shape's per-hour totals over every group,
	// read from the relation once per data version): a caller that
	// re-derives a provenance the executor summed from Sums puts it in
	// Sums's place. It may answer ErrNotSummed, and RollupKeys then reads
	// the stored digests.
	CheckSums DigestSummer
	// Floors, when set, keeps the dataset's key floors: RollupKeys then
	// reads the least keys only from the window's hours that can hold
	// them (FirstKeysHold does not use it).
	Floors FloorKeeper
	// CheckFloors, when set, keeps FirstKeysHold's own floors, apart
	// from Floors and computed otherwise (the least key of each hour
	// over every group, readHourFloors): FirstKeysHold then reads only
	// the window's hours whose least key is at or below the last listed
	// key. RollupKeys does not use it.
	CheckFloors FloorKeeper
}

// A DigestSummer sums the stored digests of the parts whose hour is in
// [lo, hi) and whose group values (nil: empty) admit accepts: their row
// count and the combination of their digests.
type DigestSummer interface {
	SumDigests(ctx context.Context, db Querier, lo, hi time.Time, admit func(groups []*string) bool) (int, lthash.Hash, error)
}

// ErrNotSummed is a DigestSummer's answer when it keeps no sums for the
// parts admit accepts (a summer of every group's totals, asked for some
// groups): RollupKeys then reads the stored digests.
var ErrNotSummed = errors.New("metric: the digests' sums are not kept for these parts")

// An HourCounter is a DigestSummer that also answers firstThreshold's
// question from its sums: the end of the first stored hour in [lo, hi)
// at which the admitted parts' rows, counted from lo in hour order, reach
// n (the zero time when they do not). Without it RollupKeys reads the
// hours' counts from the relation.
type HourCounter interface {
	HoursReach(ctx context.Context, db Querier, lo, hi time.Time, admit func(groups []*string) bool, n int) (time.Time, error)
}

// A FloorKeeper keeps a dataset's key floors (KeyFloors) for the
// snapshot's data version: KeyFloors returns them, computed by read when
// it keeps none of that version, or nil when the database may order text
// otherwise than bytewise and Options.KeyOrder cannot make it (its MIN is
// then not the bytewise least). RollupKeys's executor side reads the
// least keys from the hours Rollup.Floors allow; FirstKeysHold reads the
// hours its own, Rollup.CheckFloors, allow, never Floors.
type FloorKeeper interface {
	KeyFloors(ctx context.Context, db Querier, read FloorRead) (*KeyFloors, error)
}

// A FloorRead computes key floors from the rows of the dataset's relation
// that meet where (an SQL condition on its columns, unqualified; "" for
// every row): a keeper that holds the floors of an earlier version of an
// append-only dataset may read those of the rows added since and lower
// the old ones by them (KeyFloors.Lower).
type FloorRead func(ctx context.Context, db Querier, where string) (*KeyFloors, error)

// KeyFloors are a dataset's least keys, bytewise, by hour and group (the
// rollup groups): Least[g][i] is the least key among the rows with a key
// of group Groups[g] starting in Hours[i] ("" for none). An hour absent
// from Hours holds no row with a key.
type KeyFloors struct {
	Hours  []time.Time // ascending
	Groups [][]*string // each group's values (nil: empty)
	Least  [][]string
}

// maxFloorRanges is the most time ranges leastKeys reads the window's
// keys from; an answer needing more reads the whole window.
const maxFloorRanges = 8

// readKeyFloors computes a dataset's KeyFloors from its rows: one
// aggregate over every row, once per data version.
func readKeyFloors(k *keySQL, rel string) FloorRead {
	return func(ctx context.Context, db Querier, where string) (*KeyFloors, error) {
		ts := ident(k.r.ds.Time.Value)
		sel := "date_trunc('hour', " + ts + ") AS _h"
		var grp []string
		for i, g := range k.ru.Groups {
			sel += ", CAST(" + ident(g) + " AS VARCHAR) AS _g" + strconv.Itoa(i)
			grp = append(grp, "_g"+strconv.Itoa(i))
		}
		q := "SELECT " + sel + ", " + k.least() + " FROM " + quoteName(rel) + " WHERE " + k.keyed() + and(where) + " GROUP BY " + strings.Join(append([]string{"_h"}, grp...), ", ")
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("read key floors: %w", err)
		}
		defer rows.Close()
		type part struct {
			h     time.Time
			g     string
			vals  []sql.NullString
			least string
		}
		var parts []part
		for rows.Next() {
			var p part
			p.vals = make([]sql.NullString, len(k.ru.Groups))
			dest := []any{&p.h}
			for i := range p.vals {
				dest = append(dest, &p.vals[i])
			}
			dest = append(dest, &p.least)
			if err := rows.Scan(dest...); err != nil {
				return nil, fmt.Errorf("read key floors: %w", err)
			}
			p.h = p.h.UTC()
			p.g = floorGroupID(len(p.vals), func(i int) (string, bool) { return p.vals[i].String, p.vals[i].Valid })
			parts = append(parts, p)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read key floors: %w", err)
		}
		f := &KeyFloors{}
		hour := map[time.Time]int{}
		group := map[string]int{}
		for _, p := range parts {
			if _, ok := hour[p.h]; !ok {
				hour[p.h] = 0
				f.Hours = append(f.Hours, p.h)
			}
			if _, ok := group[p.g]; !ok {
				group[p.g] = len(f.Groups)
				vals := make([]*string, len(p.vals))
				for i, v := range p.vals {
					if v.Valid {
						vals[i] = &v.String
					}
				}
				f.Groups = append(f.Groups, vals)
			}
		}
		slices.SortFunc(f.Hours, time.Time.Compare)
		for i, h := range f.Hours {
			hour[h] = i
		}
		f.Least = make([][]string, len(f.Groups))
		for g := range f.Least {
			f.Least[g] = make([]string, len(f.Hours))
		}
		for _, p := range parts {
			f.Least[group[p.g]][hour[p.h]] = p.least
		}
		return f, nil
	}
}

// readHourFloors computes FirstKeysHold's floors from a dataset's rows:
// the least key of each hour (numbered from the epoch), over every group
// (KeyFloors with one group of no values), one aggregate over every row
// once per data version. It shares nothing with readKeyFloors, the
// executor's floors by hour and group: a floor too high on one side
// leaves out a key the other lists, which fails the check.
func readHourFloors(k *keySQL, rel string) FloorRead {
	return func(ctx context.Context, db Querier, where string) (*KeyFloors, error) {
		ts := ident(k.r.ds.Time.Value)
		q := "SELECT CAST(FLOOR(date_part('epoch', " + ts + ") / 3600) AS BIGINT) AS _h, " + k.least() + " FROM " + quoteName(rel) +
			" WHERE " + ts + " IS NOT NULL AND " + k.keyed() + and(where) + " GROUP BY 1 ORDER BY 1"
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("read hour floors: %w", err)
		}
		defer rows.Close()
		f := &KeyFloors{Groups: [][]*string{{}}, Least: [][]string{nil}}
		for rows.Next() {
			var h int64
			var least string
			if err := rows.Scan(&h, &least); err != nil {
				return nil, fmt.Errorf("read hour floors: %w", err)
			}
			t := time.Unix(h*3600, 0).UTC()
			if n := len(f.Hours); n > 0 && !t.After(f.Hours[n-1]) {
				return nil, fmt.Errorf("read hour floors: hour %d out of order", h)
			}
			f.Hours = append(f.Hours, t)
			f.Least[0] = append(f.Least[0], least)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read hour floors: %w", err)
		}
		return f, nil
	}
}

// floorGroupID identifies a group of n values (value i and whether it is
// not null): readKeyFloors's and Lower's identity of a group.
func floorGroupID(n int, value func(i int) (string, bool)) string {
	var b strings.Builder
	for i := range n {
		if v, ok := value(i); ok {
			b.WriteString("v" + v + "\x00")
		} else {
			b.WriteString("n\x00")
		}
	}
	return b.String()
}

// and renders " AND (where)", or "" for no condition.
func and(where string) string {
	if where == "" {
		return ""
	}
	return " AND (" + where + ")"
}

// Lower returns floors holding, for every hour and group of f or g, the
// lesser of their least keys (bytewise; a missing one is none): the floors
// of the rows of both. Neither f nor g is changed.
func (f *KeyFloors) Lower(g *KeyFloors) *KeyFloors {
	id := func(vals []*string) string {
		return floorGroupID(len(vals), func(i int) (string, bool) {
			if vals[i] == nil {
				return "", false
			}
			return *vals[i], true
		})
	}
	out := &KeyFloors{}
	hours := map[time.Time]bool{}
	for _, x := range []*KeyFloors{f, g} {
		for _, h := range x.Hours {
			if !hours[h] {
				hours[h] = true
				out.Hours = append(out.Hours, h)
			}
		}
	}
	slices.SortFunc(out.Hours, time.Time.Compare)
	hour := make(map[time.Time]int, len(out.Hours))
	for i, h := range out.Hours {
		hour[h] = i
	}
	group := map[string]int{}
	for _, x := range []*KeyFloors{f, g} {
		for gi, vals := range x.Groups {
			gid := id(vals)
			o, ok := group[gid]
			if !ok {
				o = len(out.Groups)
				group[gid] = o
				out.Groups = append(out.Groups, vals)
				out.Least = append(out.Least, make([]string, len(out.Hours)))
			}
			for hi, least := range x.Least[gi] {
				if least == "" {
					continue
				}
				cur := &out.Least[o][hour[x.Hours[hi]]]
				if *cur == "" || least < *cur {
					*cur = least
				}
			}
		}
	}
	return out
}

// floorRanges returns the ranges of [start, end) whose hours hold an
// admitted key at or below t by the floors, merged and in order; ok is
// false when they are more than maxFloorRanges.
func (f *KeyFloors) floorRanges(start, end time.Time, admit func([]*string) bool, t string) (ranges [][2]time.Time, ok bool) {
	var admitted []int
	for g, vals := range f.Groups {
		if admit(vals) {
			admitted = append(admitted, g)
		}
	}
	i, _ := slices.BinarySearchFunc(f.Hours, start.Truncate(time.Hour), time.Time.Compare)
	for ; i < len(f.Hours) && f.Hours[i].Before(end); i++ {
		holds := false
		for _, g := range admitted {
			if l := f.Least[g][i]; l != "" && l <= t {
				holds = true
				break
			}
		}
		if !holds {
			continue
		}
		from, to := f.Hours[i], f.Hours[i].Add(time.Hour)
		from, to = maxTime(from, start), minTime(to, end)
		if n := len(ranges); n > 0 && !ranges[n-1][1].Before(from) {
			ranges[n-1][1] = to
			continue
		}
		if len(ranges) == maxFloorRanges {
			return nil, false
		}
		ranges = append(ranges, [2]time.Time{from, to})
	}
	return ranges, true
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// ErrNoRollup is returned by RollupKeys for a request its digests cannot
// answer: the dataset has no digests or no validity intervals, the metric
// counts no window rows (only the latest row of each series: few keys),
// a filter or the scope is on a column the digests are not grouped by, or
// the window is shorter than two hours. The caller reads the keys instead.
var ErrNoRollup = errors.New("metric: request not answerable from key digests")

// Edges chooses how RollupKeys treats a window's partial first and last
// hours.
type Edges int

const (
	// EdgesAdd hashes the keys of the window's rows in its partial hours
	// and adds the stored digests of its whole hours only.
	EdgesAdd Edges = iota
	// EdgesNearest does the same for an edge of less than half an hour
	// inside the window, and otherwise adds the edge hour's stored digest
	// and removes the keys of its rows outside the window: at most half
	// an hour of rows hashed at either end.
	EdgesNearest
)

// KeySummary is the contributing rows' keys of a large result, summed
// rather than listed.
type KeySummary struct {
	// Count is the number of contributing rows (with a key).
	Count int
	// Hash is the lthash of their keys, each once.
	Hash lthash.Hash
	// First are the least keys in bytewise order, at most the requested
	// number, sorted.
	First []string
	// Stored and Hashed are the stored digests combined and the row keys
	// hashed (added or removed), for measurement.
	Stored, Hashed int
	// before are the keys of the contributing rows before the window
	// (sorted bytewise, distinct) as this summation read them, for its
	// first keys and for FirstKeysHold on the same side; beforeRead
	// reports that it read them (the metric has such rows).
	before     []string
	beforeRead bool
}

// RollupKeys sums the contributing rows' keys of req's table (the keys
// RederiveSQL lists) from the stored per-hour digests: the count and the
// lthash of the keys, and the first `first` keys in bytewise order. The
// contributing rows of a metric that counts window rows or sequences a
// series are the window's rows and, before the window, the rows whose
// validity reaches into it (a duration measure: _valid_to after the start)
// or holds its end (a latest measure), each admitted by the scope and the
// filters. The window's whole hours come from the digests, the rest from
// the rows (edges). Keys are assumed distinct (the dataset's key): the
// count and digest are over rows.
func RollupKeys(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options, first int, edges Edges) (*KeySummary, error) {
	k, rel, err := planRollup(cat, req, o)
	if err != nil {
		return nil, err
	}
	r, ru := k.r, k.ru
	start, end := r.req.Start.UTC(), r.req.End.UTC()
	// The pieces: stored hours [lo, hi), row ranges added or removed.
	h0, h1 := start.Truncate(time.Hour), end.Truncate(time.Hour)
	lo, hi := h0, h1
	type span struct {
		from, to time.Time
		sign     int
	}
	var spans []span
	// stored are the ranges of whole slices summed from ru.Slices.
	var stored [][2]time.Time
	if w := ru.SliceWidth; ru.Slices != "" && w > 0 && time.Hour%w == 0 {
		// An edge hour is its whole slices' digests and the rows of its
		// partial slice: added, or, for EdgesNearest past half the
		// slice, the slice's digest less the rows outside the window.
		if start.After(h0) {
			lo = h0.Add(time.Hour)
			s0 := start.Truncate(w)
			from := s0
			if start.After(s0) {
				if edges == EdgesNearest && start.Sub(s0) <= w/2 {
					spans = append(spans, span{s0, start, -1})
				} else {
					from = s0.Add(w)
					spans = append(spans, span{start, from, +1})
				}
			}
			if from.Before(lo) {
				stored = append(stored, [2]time.Time{from, lo})
			}
		}
		if end.After(h1) {
			s1 := end.Truncate(w)
			to := s1
			if end.After(s1) {
				if edges == EdgesNearest && end.Sub(s1) >= w/2 {
					to = s1.Add(w)
					spans = append(spans, span{end, to, -1})
				} else {
					spans = append(spans, span{s1, end, +1})
				}
			}
			if h1.Before(to) {
				stored = append(stored, [2]time.Time{h1, to})
			}
		}
	} else {
		if start.After(h0) {
			if edges == EdgesNearest && start.Sub(h0) <= 30*time.Minute {
				spans = append(spans, span{h0, start, -1})
			} else {
				lo = h0.Add(time.Hour)
				spans = append(spans, span{start, lo, +1})
			}
		}
		if end.After(h1) {
			if edges == EdgesNearest && end.Sub(h1) >= 30*time.Minute {
				hi = h1.Add(time.Hour)
				spans = append(spans, span{end, hi, -1})
			} else {
				spans = append(spans, span{h1, end, +1})
			}
		}
	}
	ts := ident(r.ds.Time.Value)
	var parts []string
	for i, s := range spans {
		parts = append(parts, "SELECT "+strconv.Itoa(i)+" AS p, "+k.key()+" AS k FROM "+quoteName(rel)+" WHERE "+ts+" >= "+k.at(s.from)+
			" AND "+ts+" < "+k.at(s.to)+" AND "+k.keyed()+k.admit())
	}
	if k.hasCross() {
		parts = append(parts, "SELECT "+strconv.Itoa(len(spans))+" AS p, "+k.key()+" AS k FROM "+k.before(rel)+" WHERE "+ts+" < "+k.at(start)+
			" AND "+k.cross()+" AND "+k.keyed()+k.admit())
	}
	// The stored hours and slices, admitted by the same conditions on
	// their groups: the hours from the running sums when kept, else read
	// with the slices; in the statement that reads the edges' keys.
	var reads []string
	if len(stored) > 0 {
		var in []string
		for _, r := range stored {
			in = append(in, "(_hour >= "+k.at(r[0])+" AND _hour < "+k.at(r[1])+")")
		}
		reads = append(reads, "SELECT _n, _lthash FROM "+quoteName(ru.Slices)+" WHERE ("+strings.Join(in, " OR ")+")"+k.admit())
	}
	sum := &KeySummary{beforeRead: k.hasCross()}
	summed := false
	if lo.Before(hi) && ru.Sums != nil {
		n, h, err := ru.Sums.SumDigests(ctx, db, lo, hi, k.admitGo(ru.Groups))
		switch {
		case errors.Is(err, ErrNotSummed):
		case err != nil:
			return nil, fmt.Errorf("sum metric keys: sum digests: %w", err)
		default:
			sum.Count += n
			sum.Hash.Combine(&h)
			sum.Stored = -1 // not counted
			summed = true
		}
	}
	if lo.Before(hi) && !summed {
		reads = append(reads, "SELECT _n, _lthash FROM "+quoteName(ru.Relation)+" WHERE _hour >= "+k.at(lo)+" AND _hour < "+k.at(hi)+k.admit())
	}
	// One statement: a row per edge part (its number, count and keys) and
	// a row per stored digest (part -1, its count and digest).
	var pieces []string
	if len(parts) > 0 {
		pieces = append(pieces, "SELECT z.p, COUNT(*) AS n, string_agg(z.k, chr(10)) AS keys, NULL AS h FROM ("+strings.Join(parts, " UNION ALL ")+") z GROUP BY z.p")
	}
	for _, r := range reads {
		pieces = append(pieces, "SELECT -1 AS p, d._n AS n, NULL AS keys, d._lthash AS h FROM ("+r+") d")
	}
	if len(pieces) > 0 {
		rows, err := db.QueryContext(ctx, strings.Join(pieces, " UNION ALL "), k.args...)
		if err != nil {
			return nil, fmt.Errorf("sum metric keys: read edge keys and digests: %w", err)
		}
		for rows.Next() {
			var p, n int
			var all sql.NullString
			var b sql.RawBytes // combined before the next row: no copy
			if err := rows.Scan(&p, &n, &all, &b); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sum metric keys: read edge keys and digests: %w", err)
			}
			if p < 0 {
				if err := sum.Hash.CombineBinary(b); err != nil {
					rows.Close()
					return nil, fmt.Errorf("sum metric keys: read digests: %w", err)
				}
				sum.Count += n
				if sum.Stored >= 0 {
					sum.Stored++
				}
				continue
			}
			keys := strings.Split(all.String, "\n")
			if len(keys) != n || !all.Valid {
				rows.Close()
				return nil, ErrNoRollup // a key holds a newline: read them all instead
			}
			if p == len(spans) {
				sum.before = slices.Compact(slices.Sorted(slices.Values(keys)))
			}
			if p < len(spans) && spans[p].sign < 0 {
				var h lthash.Hash
				h.AddStrings(keys)
				sum.Hash.Subtract(&h)
				sum.Count -= n
			} else {
				sum.Hash.AddStrings(keys)
				sum.Count += n
			}
			sum.Hashed += n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sum metric keys: read edge keys and digests: %w", err)
		}
	}
	if first > 0 {
		var (
			t      string
			ranges = [][2]time.Time{{start, end}}
		)
		// The floors, read at most once (a FloorKeeper need not keep
		// them).
		var (
			kept     *KeyFloors
			keptRead bool
		)
		floors := func() (*KeyFloors, error) {
			if ru.Floors == nil || keptRead {
				return kept, nil
			}
			f, err := ru.Floors.KeyFloors(ctx, db, readKeyFloors(k, rel))
			if err != nil {
				return nil, fmt.Errorf("sum metric keys: %w", err)
			}
			kept, keptRead = f, true
			return f, nil
		}
		// The rows before the window, when they alone hold `first` keys,
		// bound the least `first` of all by their own first-th least; it
		// is taken, with no statement, when the floors leave at most an
		// hour of the window that can hold a key at or below it (keys
		// that grow with time: none), else the window's first hours'.
		if sum.beforeRead && len(sum.before) >= first {
			f, err := floors()
			if err != nil {
				return nil, err
			}
			if f != nil {
				tb := sum.before[first-1]
				if r, ok := f.floorRanges(start, end, k.admitGo(ru.Groups), tb); ok && spanOf(r) <= time.Hour {
					t, ranges = tb, r
				}
			}
		}
		if t == "" {
			var err error
			if t, err = firstThreshold(ctx, db, k, rel, lo, hi, first); err != nil {
				return nil, err
			}
			if t != "" {
				f, err := floors()
				if err != nil {
					return nil, err
				}
				if f != nil {
					if r, ok := f.floorRanges(start, end, k.admitGo(ru.Groups), t); ok {
						ranges = r
					}
				}
			}
		}
		var err error
		if sum.First, err = leastKeys(ctx, db, k, rel, first, t, ranges, sum); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// spanOf is the time the ranges cover.
func spanOf(ranges [][2]time.Time) time.Duration {
	var d time.Duration
	for _, r := range ranges {
		d += r[1].Sub(r[0])
	}
	return d
}

// firstThreshold returns a key at least as great as the first-th least
// contributing key: the greatest of the least `first` keys of the
// window's rows up to the end of its first hours that hold `first` rows
// by the stored counts (a few hours, where the window holds days), or ""
// (no bound) when the stored counts do not reach `first`.
func firstThreshold(ctx context.Context, db Querier, k *keySQL, rel string, lo, hi time.Time, first int) (string, error) {
	if !lo.Before(hi) {
		return "", nil
	}
	var until time.Time
	if hc, ok := k.ru.Sums.(HourCounter); ok {
		var err error
		if until, err = hc.HoursReach(ctx, db, lo, hi, k.admitGo(k.ru.Groups), first); err != nil {
			return "", fmt.Errorf("sum metric keys: count hours: %w", err)
		}
	} else {
		var err error
		if until, err = hoursReach(ctx, db, k, lo, hi, first); err != nil {
			return "", err
		}
	}
	if until.IsZero() {
		return "", nil
	}
	// With EdgesNearest the stored hours may end after the window, and
	// keys of rows past its end could set a bound below the window's own
	// first-th key: read the window's rows only.
	if end := k.r.req.End.UTC(); until.After(end) {
		until = end
	}
	ts := ident(k.r.ds.Time.Value)
	k.args = nil
	q := "SELECT " + k.key() + " AS k FROM " + quoteName(rel) + " WHERE " + ts + " >= " + k.at(k.r.req.Start) + " AND " + ts + " < " + k.at(until) +
		" AND " + k.keyed() + k.admit() + " ORDER BY k LIMIT " + strconv.Itoa(first)
	keys, err := readKeyRows(ctx, db, q, k.args)
	if err != nil {
		return "", fmt.Errorf("sum metric keys: first keys: %w", err)
	}
	if len(keys) < first {
		return "", nil // fewer than the counts said: no bound
	}
	return slices.Max(keys), nil
}

// hoursReach reads the stored hours' counts in [lo, hi), in hour order,
// and returns the end of the first at which they reach first (the zero
// time when they do not).
func hoursReach(ctx context.Context, db Querier, k *keySQL, lo, hi time.Time, first int) (time.Time, error) {
	k.args = nil
	rows, err := db.QueryContext(ctx, "SELECT _hour, SUM(_n) FROM "+quoteName(k.ru.Relation)+" WHERE _hour >= "+k.at(lo)+" AND _hour < "+k.at(hi)+
		k.admit()+" GROUP BY _hour ORDER BY _hour", k.args...)
	if err != nil {
		return time.Time{}, fmt.Errorf("sum metric keys: read hour counts: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var h time.Time
		var c int64
		if err := rows.Scan(&h, &c); err != nil {
			return time.Time{}, fmt.Errorf("sum metric keys: read hour counts: %w", err)
		}
		if n += int(c); n >= first {
			return h.UTC().Add(time.Hour), nil
		}
	}
	if err := rows.Err(); err != nil {
		return time.Time{}, fmt.Errorf("sum metric keys: read hour counts: %w", err)
	}
	return time.Time{}, nil
}

// leastKeys reads the least `first` contributing keys, bytewise: those at
// or below t (every key when t is ""), sorted in Go. The window's rows are
// read from ranges, the parts of the window that can hold a key at or
// below t (with a bound; the whole window without one); the rows before
// the window are the summation's own (sum.before), not read again.
func leastKeys(ctx context.Context, db Querier, k *keySQL, rel string, first int, t string, ranges [][2]time.Time, sum *KeySummary) ([]string, error) {
	ts := ident(k.r.ds.Time.Value)
	k.args = nil
	bound := func() string {
		if t == "" {
			return ""
		}
		return " AND " + k.key() + " <= " + k.param(t)
	}
	lim := ""
	if t == "" {
		// No bound: the database's top-N, each side apart (a condition
		// joining them by OR reads every row before the window).
		lim = " ORDER BY k LIMIT " + strconv.Itoa(first)
		ranges = [][2]time.Time{{k.r.req.Start, k.r.req.End}}
	}
	var sides []string
	for _, r := range ranges {
		sides = append(sides, "SELECT "+k.key()+" AS k FROM "+quoteName(rel)+" WHERE "+ts+" >= "+k.at(r[0])+" AND "+ts+" < "+k.at(r[1])+
			" AND "+k.keyed()+bound()+k.admit()+lim)
	}
	if k.hasCross() && !sum.beforeRead {
		sides = append(sides, "SELECT "+k.key()+" AS k FROM "+k.before(rel)+" WHERE "+ts+" < "+k.at(k.r.req.Start)+
			" AND "+k.cross()+" AND "+k.keyed()+bound()+k.admit()+lim)
	}
	var keys []string
	if len(sides) > 0 {
		q := sides[0]
		if len(sides) > 1 {
			q = "SELECT u.k FROM ((" + strings.Join(sides, ") UNION ALL (") + ")) u"
		}
		var err error
		if t != "" {
			keys, err = readKeys(ctx, db, q, k.args) // sorted, distinct
		} else {
			if len(sides) > 1 {
				q += " ORDER BY k LIMIT " + strconv.Itoa(first)
			}
			keys, err = readKeyRows(ctx, db, q, k.args)
			if err == nil && !slices.IsSorted(keys) {
				// The database orders text by a collation other than
				// bytewise: its least keys need not be the least bytewise.
				return nil, ErrNoRollup
			}
		}
		if err != nil {
			return nil, fmt.Errorf("sum metric keys: first keys: %w", err)
		}
	}
	if sum.beforeRead {
		keys = mergeKeys(keys, sum.before)
	}
	if t != "" {
		keys = slices.DeleteFunc(keys, func(s string) bool { return s > t })
	}
	return keys[:min(first, len(keys))], nil
}

// mergeKeys merges two sorted lists of distinct keys into one.
func mergeKeys(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := make([]string, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// planRollup checks that req's contributing keys can be summed from the
// digests (else ErrNoRollup) and returns the renderer of its conditions
// and the dataset's relation.
func planRollup(cat *catalog.Catalog, req Request, o *Options) (*keySQL, string, error) {
	r, err := resolve(cat, req)
	if err != nil {
		return nil, "", err
	}
	if o == nil {
		o = &Options{}
	}
	ru, ok := o.Rollups[r.ds.Name.Value]
	vt := o.ValidTo[r.ds.Name.Value]
	if !ok || vt == "" || ru.Relation == "" {
		return nil, "", ErrNoRollup
	}
	var hasWindow, hasDuration, hasLatest bool
	for _, m := range r.measures {
		switch kindOf(m) {
		case kindRows:
			hasWindow = true
		case kindSeq:
			hasWindow = true
			hasDuration = hasDuration || m.Agg.Value == catalog.AggDuration
		case kindLatest:
			hasLatest = true
		}
	}
	if !hasWindow || r.req.End.Sub(r.req.Start) < 2*time.Hour {
		return nil, "", ErrNoRollup
	}
	if !r.req.Scope.all && !slices.Contains(ru.Groups, r.scope.Column.Value) {
		return nil, "", ErrNoRollup
	}
	for _, f := range r.filters {
		if f.dim.Entity.Value != "" || !slices.Contains(ru.Groups, f.dim.Column.Value) {
			return nil, "", ErrNoRollup
		}
	}
	rel, err := datasetRelation(r, o)
	if err != nil {
		return nil, "", err
	}
	return &keySQL{r: r, ru: ru, vt: ident(vt), hasDuration: hasDuration, hasLatest: hasLatest, order: o.KeyOrder}, rel, nil
}

// FirstKeysHold reports whether listed (sorted, distinct) are exactly the
// least len(listed) keys, bytewise, of req's contributing rows, by a
// formulation apart from RollupKeys's top-N: the contributing keys at or
// below the greatest listed one, read with a plain filter and no sort in
// the database, must be the listed ones. With Rollup.CheckFloors the
// window's rows are read only from the hours whose least key (by its own
// floors, never RollupKeys's) is at or below that one. own, when not nil,
// is the caller's own RollupKeys summation of req (the resolver's, never
// the executor's): the keys of the rows before the window are taken from
// it rather than read again. ErrNoRollup as RollupKeys.
func FirstKeysHold(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options, listed []string, own *KeySummary) (bool, error) {
	if len(listed) == 0 || !slices.IsSorted(listed) {
		return false, nil
	}
	k, rel, err := planRollup(cat, req, o)
	if err != nil {
		return false, err
	}
	ts := ident(k.r.ds.Time.Value)
	top := listed[len(listed)-1]
	ranges := [][2]time.Time{{k.r.req.Start, k.r.req.End}}
	if k.ru.CheckFloors != nil {
		f, err := k.ru.CheckFloors.KeyFloors(ctx, db, readHourFloors(k, rel))
		if err != nil {
			return false, fmt.Errorf("check metric first keys: %w", err)
		}
		if f != nil {
			if r, ok := f.floorRanges(k.r.req.Start, k.r.req.End, func([]*string) bool { return true }, top); ok {
				ranges = r
			}
		}
	}
	var sides []string
	for _, r := range ranges {
		sides = append(sides, "SELECT "+k.key()+" AS k FROM "+quoteName(rel)+" WHERE "+ts+" >= "+k.at(r[0])+" AND "+ts+" < "+k.at(r[1])+
			" AND "+k.keyed()+" AND "+k.key()+" <= "+k.param(top)+k.admit())
	}
	reuse := own != nil && own.beforeRead
	if k.hasCross() && !reuse {
		sides = append(sides, "SELECT "+k.key()+" AS k FROM "+k.before(rel)+" WHERE "+ts+" < "+k.at(k.r.req.Start)+" AND "+k.cross()+
			" AND "+k.keyed()+" AND "+k.key()+" <= "+k.param(top)+k.admit())
	}
	var got []string
	if len(sides) > 0 {
		if got, err = readKeys(ctx, db, strings.Join(sides, " UNION ALL "), k.args); err != nil {
			return false, fmt.Errorf("check metric first keys: %w", err)
		}
	}
	if reuse {
		got = mergeKeys(got, own.before)
	}
	// readKeys sorts bytewise and drops repeats; the database's <= may
	// follow another collation, so keep the keys bytewise at or below.
	got = slices.DeleteFunc(got, func(s string) bool { return s > top })
	return slices.Equal(got, listed), nil
}

// keySQL renders RollupKeys's conditions, collecting their parameters.
type keySQL struct {
	r                      *resolved
	ru                     Rollup
	vt                     string
	hasDuration, hasLatest bool
	order                  func(string) string // Options.KeyOrder
	params
}

// least renders the bytewise least key of the rows aggregated, for the
// key floors.
func (k *keySQL) least() string {
	if k.order != nil {
		return "MIN(" + k.order(k.key()) + ")"
	}
	return "MIN(" + k.key() + ")"
}

func (k *keySQL) at(t time.Time) string { return k.instant(t) } // the shorter name its many queries use

func (k *keySQL) key() string { return "CAST(" + ident(k.r.ds.Key.Value) + " AS VARCHAR)" }

// keyed: the row has a key (readKeys drops null and empty ones).
func (k *keySQL) keyed() string {
	key := ident(k.r.ds.Key.Value)
	return key + " IS NOT NULL AND CAST(" + key + " AS VARCHAR) <> ''"
}

func (k *keySQL) hasCross() bool { return k.hasDuration || k.hasLatest }

// before renders the rows that can reach into the window from before it:
// the relation, or, with checkpoints (Rollup.Checkpoints), the latest row
// of every series at the last checkpoint at or before the start and the
// rows after that checkpoint. A row before the start whose validity ends
// after it is the latest of its series at every instant between, so at
// that checkpoint when it is older; where every row before the start is
// a candidate, PostgreSQL read them all (160 ms for a week at 1,000,000
// events).
func (k *keySQL) before(rel string) string {
	if k.ru.Checkpoints == "" || k.ru.CheckpointIndex == "" {
		return quoteName(rel)
	}
	ds := k.r.ds
	cols := []string{ident(ds.Key.Value), ident(ds.Time.Value), k.vt}
	for _, g := range k.ru.Groups {
		if c := ident(g); !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	sel := strings.Join(cols, ", ")
	cpi := quoteName(k.ru.CheckpointIndex)
	return "(SELECT " + sel + " FROM " + quoteName(k.ru.Checkpoints) + " WHERE _cp = (SELECT COALESCE(MAX(_cp), 0) FROM " + cpi +
		" WHERE _cp_ts <= " + k.at(k.r.req.Start) + ") UNION ALL SELECT " + sel + " FROM " + quoteName(rel) + " WHERE " + ident(ds.Time.Value) +
		" > COALESCE((SELECT MAX(_cp_ts) FROM " + cpi + " WHERE _cp_ts <= " + k.at(k.r.req.Start) + "), CAST('0001-01-01 00:00:00' AS TIMESTAMP))) b"
}

// cross renders the condition on a row before the window that it
// contributes: its validity reaches past the start (a duration) or holds
// the end (a latest value); "" when none does.
func (k *keySQL) cross() string {
	switch {
	case k.hasDuration:
		return k.vt + " > " + k.at(k.r.req.Start)
	case k.hasLatest:
		return k.vt + " >= " + k.at(k.r.req.End)
	}
	return ""
}

func (k *keySQL) list(vs []string) string {
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = k.param(v)
	}
	return "(" + strings.Join(ph, ", ") + ")"
}

// admitGo is admit as a predicate on a part's group values (columns
// groups), with SQL's meaning: an empty value meets no condition.
func (k *keySQL) admitGo(groups []string) func([]*string) bool {
	type cond struct {
		col  int
		in   bool
		vals []string
	}
	var conds []cond
	if !k.r.req.Scope.all {
		conds = append(conds, cond{slices.Index(groups, k.r.scope.Column.Value), true, k.r.req.Scope.values})
	}
	for _, f := range k.r.filters {
		conds = append(conds, cond{slices.Index(groups, f.dim.Column.Value), f.Op == "eq" || f.Op == "in", f.Values})
	}
	return func(vals []*string) bool {
		for _, c := range conds {
			if c.col < 0 || c.col >= len(vals) || vals[c.col] == nil || slices.Contains(c.vals, *vals[c.col]) != c.in {
				return false
			}
		}
		return true
	}
}

// admit renders the scope and the filters as " AND ..." conditions on
// the relation's own columns (the rows' or the digests').
func (k *keySQL) admit() string {
	var b strings.Builder
	if !k.r.req.Scope.all {
		if len(k.r.req.Scope.values) == 0 {
			b.WriteString(" AND 1 = 0")
		} else {
			b.WriteString(" AND " + ident(k.r.scope.Column.Value) + " IN " + k.list(k.r.req.Scope.values))
		}
	}
	for _, f := range k.r.filters {
		op := " IN "
		if f.Op == "ne" || f.Op == "not_in" {
			op = " NOT IN "
		}
		b.WriteString(" AND " + ident(f.dim.Column.Value) + op + k.list(f.Values))
	}
	return b.String()
}
