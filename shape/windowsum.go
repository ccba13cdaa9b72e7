package shape

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/lthash"
)

// A window of more rows than the provenance limit (MaxKeys) can take its
// count and digest from the per-hour window digests (TABLE__window_keys,
// Options.WindowDigests) instead of reading every key, twice over:
//
//   - the executor (execWindowSummed) adds the stored digests of the
//     hours from the nearest hour boundary at either end, and adds or
//     removes the keys of the rows between that boundary and the window's
//     edge (at most half an hour of rows at each end), with the count of
//     the stored hours from the engine's running counts; its first keys
//     are the database's top-N by key;
//   - the resolver (resolveWindowSummed) adds the stored digests and
//     counts, read in SQL, of the window's whole hours only and the keys
//     of its partial hours' rows, and checks the first keys by reading
//     the window's rows whose key is at or below the greatest listed one,
//     with no sort in the database (those rows also judge the listed
//     keys).
//
// The digest is then lthash's (fact.LtHashScheme), not the SHA-256 of the
// sorted keys. Both read the same stored digests: a stored digest that
// does not match its rows is caught by an import's checks (its last
// hours), CheckWindowKeys (every hour) and the rows resource, which
// recomputes the digest from every key; the resolver re-derives one whole
// hour of the window from its rows (spotHour) and refuses the answer when
// its stored count or digest differs, so it finds one altered hour of N
// with probability 1/N per call.
//
// Which windows: those whose whole hours alone hold more than MaxKeys
// rows by the stored counts; any other is answered the ordinary way, its
// answer unchanged.

// ErrWindowDigestMismatch is returned by the resolver's digest route when
// the stored count or digest of the window's spot hour differs from its
// rows: the answer is not verified.
var ErrWindowDigestMismatch = errors.New("shape: stored window digest differs from its rows")

// spotHour is the whole hour in [a, b) whose stored count and digest the
// resolver re-derives from the rows: drawn from the stream named
// shape/window-spot seeded by the call (tool, window, fixed entity and
// filter value), so a call checks the same hour every time and never by
// the clock.
func spotHour(tool string, wc windowCall, a, b time.Time) time.Time {
	f := fnv.New64a()
	f.Write([]byte("shape/window-spot\x00" + tool + "\x00" + wc.start.Format(time.RFC3339Nano) + "\x00" + wc.end.Format(time.RFC3339Nano) + "\x00" + wc.at + "\x00" + wc.value))
	hours := int(b.Sub(a) / time.Hour)
	return a.Add(time.Duration(rand.New(rand.NewPCG(f.Sum64(), 0)).IntN(hours)) * time.Hour)
}

// windowPlan is a window tool's digests: the relation and its group
// columns, the tool's fixed entity's and filter attribute's.
type windowPlan struct {
	rel     string // quoted
	groups  []string
	at, att int // indexes in groups
	scope   int // -1: the dataset has no scope entity
}

// compileWindowDigests sets the window plans of ds's tools that its
// digest table (name, with columns groups) can serve.
func compileWindowDigests(plans map[string]*plan, ds *catalog.Dataset, name string, groups []string) {
	for _, p := range plans {
		t := p.tool
		if p.ds != ds || t.Shape.Value != catalog.ShapeCountRowsInWindow || t.Filter == nil || t.Filter.Conditions != nil || p.at == nil {
			continue
		}
		a := ds.Attribute(t.Filter.Attribute.Value)
		if a == nil || !a.Enumerated() || !hasColumns(groups, p.at.Column.Value, a.Column.Value) {
			continue
		}
		w := &windowPlan{rel: quoteName(name), groups: groups, at: slices.Index(groups, p.at.Column.Value), att: slices.Index(groups, a.Column.Value), scope: -1}
		if p.scope != nil {
			if w.scope = slices.Index(groups, p.scope.Column.Value); w.scope < 0 {
				continue
			}
		}
		p.win = w
	}
}

// windowCounts are a digest table's stored counts at one data version, as
// running sums per group: a range of hours of a group costs one
// subtraction. 8 bytes per stored hour and group.
type windowCounts struct {
	version string
	hours   []time.Time // ascending
	groups  []windowCountGroup
}

type windowCountGroup struct {
	vals []sql.NullString
	cum  []int64 // cum[i]: the rows of hours[:i]
}

// sum is the stored count of the hours in [lo, hi) of the groups admit
// accepts.
func (w *windowCounts) sum(lo, hi time.Time, admit func([]sql.NullString) bool) int64 {
	i, _ := slices.BinarySearchFunc(w.hours, lo, time.Time.Compare)
	j, _ := slices.BinarySearchFunc(w.hours, hi, time.Time.Compare)
	if j <= i {
		return 0
	}
	var n int64
	for _, g := range w.groups {
		if admit(g.vals) {
			n += g.cum[j] - g.cum[i]
		}
	}
	return n
}

// windowCounts returns the stored counts of p's digest table at the
// snapshot's data version, read once per version and kept.
func (s *Snapshot) windowCounts(ctx context.Context, p *plan) (*windowCounts, error) {
	version, err := s.DataVersion(ctx, p.ds.Name.Value)
	if err != nil {
		return nil, err
	}
	s.e.mu.Lock()
	c := s.e.wcounts[p.win.rel]
	s.e.mu.Unlock()
	if c != nil && c.version == version {
		return c, nil
	}
	sel := "_hour"
	for _, g := range p.win.groups {
		sel += ", CAST(" + ident(g) + " AS VARCHAR)"
	}
	rows, err := s.query(ctx, "SELECT "+sel+", _n FROM "+p.win.rel+" ORDER BY _hour")
	if err != nil {
		return nil, fmt.Errorf("read window digest counts: %w", err)
	}
	defer rows.Close()
	c = &windowCounts{version: version}
	type part struct {
		hour, group int
		n           int64
	}
	var parts []part
	index := map[string]int{}
	for rows.Next() {
		var hour time.Time
		vals := make([]sql.NullString, len(p.win.groups))
		var n int64
		dest := []any{&hour}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		dest = append(dest, &n)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read window digest counts: %w", err)
		}
		rp := rollupPart{groups: vals}
		id := rp.id()
		g, ok := index[id]
		if !ok {
			g = len(c.groups)
			index[id] = g
			c.groups = append(c.groups, windowCountGroup{vals: vals})
		}
		hour = hour.UTC()
		if k := len(c.hours); k == 0 || c.hours[k-1].Before(hour) {
			c.hours = append(c.hours, hour)
		}
		parts = append(parts, part{hour: len(c.hours) - 1, group: g, n: n})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read window digest counts: %w", err)
	}
	for gi := range c.groups {
		c.groups[gi].cum = make([]int64, len(c.hours)+1)
	}
	for _, pt := range parts {
		c.groups[pt.group].cum[pt.hour+1] += pt.n
	}
	for gi := range c.groups {
		g := &c.groups[gi]
		for i := 1; i <= len(c.hours); i++ {
			g.cum[i] += g.cum[i-1]
		}
	}
	s.e.mu.Lock()
	if s.e.wcounts == nil {
		s.e.wcounts = map[string]*windowCounts{}
	}
	s.e.wcounts[p.win.rel] = c
	s.e.mu.Unlock()
	return c, nil
}

// windowCall is a window call's arguments as the digest routes read them.
type windowCall struct {
	start, end time.Time
	at, value  string
	scope      Scope
}

// admitGo accepts a group of the call: its fixed entity and filter value,
// within the scope.
func (w *windowPlan) admitGo(wc windowCall) func([]sql.NullString) bool {
	return func(v []sql.NullString) bool {
		if !v[w.at].Valid || v[w.at].String != wc.at || !v[w.att].Valid || v[w.att].String != wc.value {
			return false
		}
		return wc.scope.IsAll() || v[w.scope].Valid && wc.scope.allows(v[w.scope].String)
	}
}

// admitSQL renders the same on the digest table's rows aliased alias.
func (w *windowPlan) admitSQL(q *query, alias string, wc windowCall) string {
	out := col(alias, w.groups[w.at]) + " = " + q.param(wc.at) + " AND " + col(alias, w.groups[w.att]) + " = " + q.param(wc.value)
	if !wc.scope.IsAll() {
		out += " AND " + col(alias, w.groups[w.scope]) + " IN " + q.list(wc.scope.values)
	}
	return out
}

// summedWindow reports whether a call is answered from the digests: the
// plan has them, the call is not listing every key, its scope can be
// judged on the groups, and its whole hours hold more than MaxKeys rows
// by the stored counts.
func (s *Snapshot) summedWindow(ctx context.Context, p *plan, c Call) (windowCall, bool, error) {
	if p.win == nil || s.listAll || s.collecting || (!c.Scope.IsAll() && (p.win.scope < 0 || len(c.Scope.values) == 0)) {
		return windowCall{}, false, nil
	}
	start, end, at, pr, err := p.windowArgs(c)
	if err != nil {
		return windowCall{}, false, err
	}
	if len(pr.Value.Items) != 1 {
		return windowCall{}, false, nil
	}
	wc := windowCall{start: start.UTC(), end: end.UTC(), at: at, value: pr.Value.Items[0].Str, scope: c.Scope}
	a, b := ceilHour(wc.start), wc.end.Truncate(time.Hour)
	if !a.Before(b) {
		return wc, false, nil
	}
	counts, err := s.windowCounts(ctx, p)
	if err != nil {
		return wc, false, err
	}
	return wc, counts.sum(a, b, p.win.admitGo(wc)) > int64(s.e.maxKeys), nil
}

// pipelinedWindow decides, before a pipeline's queries are collected
// (executeBatched), whether a call may be pipelined: any call but a
// window its digests serve may; such a window only when the counts the
// engine keeps say it is not summed, and version is then their data
// version, which must turn out to be the snapshot's.
func (s *Snapshot) pipelinedWindow(p *plan, c Call) (version string, ok bool) {
	if p.win == nil {
		return "", true
	}
	s.e.mu.Lock()
	counts := s.e.wcounts[p.win.rel]
	s.e.mu.Unlock()
	if counts == nil {
		return "", false
	}
	if !c.Scope.IsAll() && (p.win.scope < 0 || len(c.Scope.values) == 0) {
		return counts.version, true
	}
	start, end, at, pr, err := p.windowArgs(c)
	if err != nil || len(pr.Value.Items) != 1 {
		return counts.version, true // answered the ordinary way, or refused
	}
	wc := windowCall{start: start.UTC(), end: end.UTC(), at: at, value: pr.Value.Items[0].Str, scope: c.Scope}
	a, b := ceilHour(wc.start), wc.end.Truncate(time.Hour)
	if a.Before(b) && counts.sum(a, b, p.win.admitGo(wc)) > int64(s.e.maxKeys) {
		return "", false
	}
	return counts.version, true
}

func ceilHour(t time.Time) time.Time {
	h := t.Truncate(time.Hour)
	if h.Before(t) {
		return h.Add(time.Hour)
	}
	return h
}

// windowRows renders the call's rows with time in [from, to) on alias x,
// with a key.
func (p *plan) windowRows(q *query, wc windowCall, from, to time.Time) string {
	k := col("x", p.ds.Key.Value)
	return p.rel + " x WHERE " + col("x", p.at.Column.Value) + " = " + q.param(wc.at) + " AND " + col("x", p.win.groups[p.win.att]) + " = " + q.param(wc.value) +
		" AND " + col("x", p.ds.Time.Value) + " >= " + q.instant(from) + " AND " + col("x", p.ds.Time.Value) + " < " + q.instant(to) +
		" AND " + k + " IS NOT NULL AND CAST(" + k + " AS VARCHAR) <> ''" + p.scopeSQL(q, "x", wc.scope)
}

// keyOrder renders a bytewise ORDER BY term on a text column: DuckDB
// compares text bytewise; PostgreSQL is told to (COLLATE "C").
func (s *Snapshot) keyOrder(col string) string {
	if s.e.prepare { // DuckDB's driver
		return col
	}
	return col + ` COLLATE "C"`
}

// execWindowSummed is the executor's digest route (see above); ok is
// false when the call is answered the ordinary way.
func (s *Snapshot) execWindowSummed(ctx context.Context, p *plan, c Call) (fact.Value, []string, bool, error) {
	wc, ok, err := s.summedWindow(ctx, p, c)
	if err != nil || !ok {
		return fact.Value{}, nil, false, err
	}
	counts, err := s.windowCounts(ctx, p)
	if err != nil {
		return fact.Value{}, nil, false, err
	}
	// The nearest hour boundary at either end: the stored hours [lo, hi),
	// the rows between the boundary and the edge added (inside the
	// window) or removed (outside it).
	type span struct {
		from, to time.Time
		sign     int
	}
	h0, h1 := wc.start.Truncate(time.Hour), wc.end.Truncate(time.Hour)
	lo, hi := h0, h1
	var spans []span
	if wc.start.After(h0) {
		if wc.start.Sub(h0) <= 30*time.Minute {
			spans = append(spans, span{h0, wc.start, -1})
		} else {
			lo = h0.Add(time.Hour)
			spans = append(spans, span{wc.start, lo, +1})
		}
	}
	if wc.end.After(h1) {
		if wc.end.Sub(h1) >= 30*time.Minute {
			hi = h1.Add(time.Hour)
			spans = append(spans, span{wc.end, hi, -1})
		} else {
			spans = append(spans, span{h1, wc.end, +1})
		}
	}
	q := &query{}
	parts := []string{"SELECT 0 AS _t, CAST(NULL AS VARCHAR) AS _k, w._lthash AS _h FROM " + p.win.rel + " w WHERE " + p.win.admitSQL(q, "w", wc) +
		" AND w._hour >= " + q.instant(lo) + " AND w._hour < " + q.instant(hi)}
	for i, sp := range spans {
		parts = append(parts, "SELECT "+strconv.Itoa(i+1)+", CAST("+col("x", p.ds.Key.Value)+" AS VARCHAR), CAST(NULL AS BYTEA) FROM "+p.windowRows(q, wc, sp.from, sp.to))
	}
	parts = append(parts, "SELECT * FROM (SELECT 9 AS _t, CAST("+col("x", p.ds.Key.Value)+" AS VARCHAR) AS _k, CAST(NULL AS BYTEA) AS _h FROM "+
		p.windowRows(q, wc, wc.start, wc.end)+" ORDER BY "+s.keyOrder("CAST("+col("x", p.ds.Key.Value)+" AS VARCHAR)")+" LIMIT "+strconv.Itoa(s.e.maxKeys)+") f")
	rows, err := s.query(ctx, strings.Join(parts, " UNION ALL "), q.args...)
	if err != nil {
		return fact.Value{}, nil, false, fmt.Errorf("query %s: %w", p.tool.Name.Value, err)
	}
	defer rows.Close()
	n := counts.sum(lo, hi, p.win.admitGo(wc))
	var h lthash.Hash
	var first []string
	var adds, subs []string
	var t int
	var k sql.NullString
	var b sql.RawBytes // combined before the next row: no copy
	for rows.Next() {
		if err := rows.Scan(&t, &k, &b); err != nil {
			return fact.Value{}, nil, false, fmt.Errorf("query %s: %w", p.tool.Name.Value, err)
		}
		switch {
		case t == 0:
			if err := h.CombineBinary(b); err != nil {
				return fact.Value{}, nil, false, fmt.Errorf("query %s: stored digest: %w", p.tool.Name.Value, err)
			}
		case t == 9:
			first = append(first, k.String)
		case spans[t-1].sign > 0:
			adds = append(adds, k.String)
		default:
			subs = append(subs, k.String)
		}
	}
	if err := rows.Err(); err != nil {
		return fact.Value{}, nil, false, fmt.Errorf("query %s: %w", p.tool.Name.Value, err)
	}
	h.AddStrings(adds)
	var out lthash.Hash
	out.AddStrings(subs)
	h.Subtract(&out)
	n += int64(len(adds) - len(subs))
	if !slices.IsSorted(first) || len(slices.Compact(slices.Clone(first))) != len(first) {
		return fact.Value{}, nil, false, fmt.Errorf("query %s: first keys are not in bytewise order", p.tool.Name.Value)
	}
	s.agg = &keySet{n: int(n), digest: h.Digest(), listed: first}
	return fact.RowCount(int(n)), first, true, nil
}

// resolveWindowSummed is the resolver's digest route (see above): the
// re-derived count, digest and first keys, the rows of the asserted keys
// among the first, and consistent false when the first keys read are not
// as many as the count calls for. ok is false when the call is re-derived
// the ordinary way.
func (s *Snapshot) resolveWindowSummed(ctx context.Context, p *plan, c Call, listed []string) (rederived, bool, error) {
	wc, ok, err := s.summedWindow(ctx, p, c)
	if err != nil || !ok || len(listed) == 0 {
		return rederived{}, false, err
	}
	asserted := keySetOf(listed)
	var top string
	for k := range asserted {
		top = max(top, k)
	}
	a, b := ceilHour(wc.start), wc.end.Truncate(time.Hour)
	proj := p.rowProjection("x")
	nulls := make([]string, len(proj))
	strs, nums := p.lookupColumns()
	nulls[0], nulls[1] = "CAST(NULL AS VARCHAR)", "CAST(NULL AS TIMESTAMP)"
	for i := range strs {
		nulls[2+i] = "CAST(NULL AS VARCHAR)"
	}
	for i := range nums {
		nulls[2+len(strs)+i] = "CAST(NULL AS DOUBLE PRECISION)"
	}
	keyOnly := slices.Clone(nulls)
	keyOnly[0] = proj[0]
	q := &query{}
	// The whole hours' stored counts and digests, each with its hour; the
	// partial hours' rows; the spot hour's rows; the window's rows at or
	// below the greatest asserted key.
	stored := slices.Clone(nulls)
	stored[1] = "w._hour"
	spot := spotHour(p.tool.Name.Value, wc, a, b)
	sqlText := "SELECT 0 AS _t, w._n AS _n, w._lthash AS _h, " + strings.Join(named(stored), ", ") + " FROM " + p.win.rel + " w WHERE " +
		p.win.admitSQL(q, "w", wc) + " AND w._hour >= " + q.instant(a) + " AND w._hour < " + q.instant(b)
	sqlText += " UNION ALL SELECT 3, CAST(NULL AS BIGINT), CAST(NULL AS BYTEA), " + strings.Join(keyOnly, ", ") + " FROM " + p.windowRows(q, wc, spot, spot.Add(time.Hour))
	if wc.start.Before(a) {
		sqlText += " UNION ALL SELECT 1, CAST(NULL AS BIGINT), CAST(NULL AS BYTEA), " + strings.Join(keyOnly, ", ") + " FROM " + p.windowRows(q, wc, wc.start, a)
	}
	if b.Before(wc.end) {
		sqlText += " UNION ALL SELECT 1, CAST(NULL AS BIGINT), CAST(NULL AS BYTEA), " + strings.Join(keyOnly, ", ") + " FROM " + p.windowRows(q, wc, b, wc.end)
	}
	sqlText += " UNION ALL SELECT 2, CAST(NULL AS BIGINT), CAST(NULL AS BYTEA), " + strings.Join(proj, ", ") + " FROM " + p.windowRows(q, wc, wc.start, wc.end) +
		" AND CAST(" + col("x", p.ds.Key.Value) + " AS VARCHAR) <= " + q.param(top)
	rows, err := s.query(ctx, sqlText, q.args...)
	if err != nil {
		return rederived{}, false, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	defer rows.Close()
	var (
		t     int
		n     int64
		count sql.NullInt64
		h     lthash.Hash
		blob  []byte
		edge  []string
		first []string
		// The spot hour: its stored count and digest, and its rows' keys.
		spotN    int64
		spotH    lthash.Hash
		spotKeys []string
		known    = map[string]row{}
	)
	sc := p.newRowScan()
	dest := append([]any{&t, &count, &blob}, sc.nullDest()...)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return rederived{}, false, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
		}
		switch t {
		case 0:
			var part lthash.Hash
			if err := part.UnmarshalBinary(blob); err != nil {
				return rederived{}, false, fmt.Errorf("resolve %s: stored digest: %w", p.tool.Name.Value, err)
			}
			h.Combine(&part)
			n += count.Int64
			if sc.nt.Valid && sc.nt.Time.Equal(spot) {
				spotH.Combine(&part)
				spotN += count.Int64
			}
		case 1:
			edge = append(edge, sc.nk.String)
		case 3:
			spotKeys = append(spotKeys, sc.nk.String)
		case 2:
			sc.fromNull()
			if sc.key > top { // the database's collation is not bytewise
				continue
			}
			first = append(first, sc.key)
			if _, ok := asserted[sc.key]; ok {
				addRow(known, sc.key, sc.row(p))
			}
		}
	}
	if err := rows.Err(); err != nil {
		return rederived{}, false, fmt.Errorf("resolve %s: %w", p.tool.Name.Value, err)
	}
	var fromRows lthash.Hash
	fromRows.AddStrings(spotKeys)
	if int64(len(spotKeys)) != spotN || fromRows.Digest() != spotH.Digest() {
		return rederived{}, false, fmt.Errorf("resolve %s: hour %s: %w", p.tool.Name.Value, spot.Format(time.RFC3339), ErrWindowDigestMismatch)
	}
	h.AddStrings(edge)
	n += int64(len(edge))
	slices.Sort(first)
	set := keySet{n: int(n), digest: h.Digest(), listed: first}
	return rederived{
		v: fact.RowCount(int(n)), keys: first, known: rowMap(known), set: &set,
		consistent: len(first) == min(int(n), s.e.maxKeys),
	}, true, nil
}
