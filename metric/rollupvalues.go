package metric

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
)

// ValueRollup names a dataset's per-hour value rollups (shape's
// TABLE__rollup_values): for every hour (_hour) and every combination of
// the group columns (Groups) that a row starts in or whose validity
// interval overlaps it by a positive time, the number of rows starting in
// the hour (_n) and, per stored measure (Measures; column ValueColumn),
// the measure over the hour as if the hour were the window: a count the
// rows starting in it that meet the measure's filter, entries those of
// them entering the condition (their series' previous row, wherever it
// is, not meeting it), a duration the seconds of the rows' validity
// intervals (to the series' next row; open for its latest row) inside the
// hour. Every stored value is additive over hours, so a window's measures
// are the sums of its whole hours' and of its partial edge hours'
// computed from the rows.
type ValueRollup struct {
	Relation string
	Groups   []string
	Measures []string
	// Slices, when set, names the same rollups by slice of an hour
	// (shape's TABLE__rollup_value_slices: the column _hour holds a
	// slice's start), each SliceWidth long, a divisor of an hour: the
	// compiled query and RederiveValues then sum a window's partial first
	// and last hours from their whole slices and sequence the rows of its
	// partial slices only.
	Slices     string
	SliceWidth time.Duration
}

// sliced reports whether ru's slices are usable.
func (ru ValueRollup) sliced() bool {
	return ru.Slices != "" && ru.SliceWidth > 0 && time.Hour%ru.SliceWidth == 0
}

// ValueColumn is the column of a value rollup holding measure's partials.
func ValueColumn(measure string) string { return "m_" + measure }

// ErrRollupMismatch is returned by RederiveValues when the stored value
// rollups of the hours it spot-checks disagree with a re-derivation from
// the rows: the answer must not ship.
var ErrRollupMismatch = errors.New("metric: stored value rollups disagree with the rows")

// SliceSumHours is how many whole hours a window holds at most for
// RederiveValues to sum them all from the value rollups' slices (when
// kept) rather than from the hours; a longer window sums its spot hours
// from the slices and the rest from the hours. Summing the slices costs
// about a sixth of an hour's re-derivation from the rows per hour of
// window on PostgreSQL at 10,000,000 events (a week's slices, 80,160
// stored rows, 20-29 ms against 3 ms for its hours; one hour from the
// rows 11 ms, 38 with entries: bench/results/slice-sums-pg.md,
// long-spot-pg.md).
const SliceSumHours = 48

// DefaultSpotHours is how many consecutive whole hours RederiveValues
// re-derives from the rows and compares with the stored rollups.
const DefaultSpotHours = 1

// ValueLayout is the layout of dataset ds's value rollups under cat: the
// group columns (the entities' columns that are not series columns, then
// the enumerated attributes' columns a semantic model of ds offers as a
// dimension, in declared order) and the measures stored (every measure of
// ds's semantic models that counts window rows or sequences a series:
// count, duration and entries, not sampling the latest row). Other
// measures (sum, avg, min, max, count_distinct, latest) are answered from
// the rows.
func ValueLayout(cat *catalog.Catalog, ds *catalog.Dataset) (groups []string, measures []*catalog.Measure) {
	series := map[string]bool{}
	for _, e := range ds.SeriesEntities() {
		series[e.Column.Value] = true
	}
	for _, e := range ds.Entities {
		if !series[e.Column.Value] && !slices.Contains(groups, e.Column.Value) {
			groups = append(groups, e.Column.Value)
		}
	}
	dimCols := map[string]bool{}
	for _, sm := range cat.SemanticModels {
		if sm.Dataset.Value != ds.Name.Value {
			continue
		}
		for _, d := range sm.Dimensions {
			if d.Entity.Value == "" && d.Type.Value != catalog.DimTime {
				dimCols[d.Column.Value] = true
			}
		}
		for _, m := range sm.Measures {
			if m.SampleOf() == catalog.SampleLatest {
				continue
			}
			switch m.Agg.Value {
			case catalog.AggCount, catalog.AggDuration, catalog.AggEntries:
				measures = append(measures, m)
			}
		}
	}
	for _, a := range ds.Attributes {
		if a.Enumerated() && dimCols[a.Column.Value] && !series[a.Column.Value] && !slices.Contains(groups, a.Column.Value) {
			groups = append(groups, a.Column.Value)
		}
	}
	return groups, measures
}

// valuePlan is a request answerable from the value rollups.
type valuePlan struct {
	ru          ValueRollup
	a, f        time.Time // the window's first and last whole-hour boundaries
	sa, sf      time.Time // its first and last whole-slice boundaries (with slices)
	hasDuration bool
}

// planValues reports whether r can be answered from its dataset's value
// rollups: every measure is stored, the dimensions, the filters and the
// scope are on group columns, a bucketed request has no duration measure
// (a duration is stored by the hours a row overlaps, the compiled query
// buckets it by the row's time), and the window holds a whole hour.
func planValues(r *resolved, o *Options) (*valuePlan, bool) {
	ru, ok := o.ValueRollups[r.ds.Name.Value]
	if !ok || ru.Relation == "" {
		return nil, false
	}
	p := &valuePlan{ru: ru}
	for _, m := range r.measures {
		if !slices.Contains(ru.Measures, m.Name.Value) || kindOf(m) == kindLatest {
			return nil, false
		}
		switch m.Agg.Value {
		case catalog.AggDuration:
			p.hasDuration = true
		case catalog.AggCount, catalog.AggEntries:
		default:
			return nil, false
		}
	}
	if p.hasDuration && r.grain != catalog.GrainNone {
		return nil, false
	}
	for _, d := range r.dims {
		if d.Entity.Value != "" || !slices.Contains(ru.Groups, d.Column.Value) {
			return nil, false
		}
	}
	for _, f := range r.filters {
		if f.dim.Entity.Value != "" || !slices.Contains(ru.Groups, f.dim.Column.Value) {
			return nil, false
		}
	}
	if !r.req.Scope.all && !slices.Contains(ru.Groups, r.scope.Column.Value) {
		return nil, false
	}
	start, end := r.req.Start.UTC(), r.req.End.UTC()
	p.a, p.f = start.Truncate(time.Hour), end.Truncate(time.Hour)
	if p.a.Before(start) {
		p.a = p.a.Add(time.Hour)
	}
	if p.f.Sub(p.a) < time.Hour {
		return nil, false
	}
	if w := ru.SliceWidth; ru.sliced() {
		p.sa, p.sf = start.Truncate(w), end.Truncate(w)
		if p.sa.Before(start) {
			p.sa = p.sa.Add(w)
		}
	}
	return p, true
}

// renderValues renders a request planned from the value rollups: the
// stored measures of the window's whole hours [A, B), summed per group,
// and the kinds' subqueries over the window's head [start, A) and tail
// [B, end) computed from the rows (LEAD and LAG as everywhere), all added
// per group. A is the first whole hour; B the last whole hour's end, or
// the end of the last stored hour when the rollups stop earlier (later
// hours are the rows' too). The stored hours' last is read by the query
// itself, so that it is the snapshot's.
//
// With slices (ValueRollup.Slices), the head's whole slices [sa, A) and
// the tail's [B, tb) are summed from them too, and only [start, sa) and
// [tb, end) are computed from the rows: tb is the tail's last whole
// slice's end, or the end of the last stored hour when the rollups stop
// earlier, and never before sa (a window starting after the last hour
// holding a row: B is then A, and the head's slices past the stored
// hours are the rows' too). Every bound is one scalar subquery's
// GREATEST and LEAST, as B is: DuckDB and PostgreSQL still bound the
// rows' scan by it.
func (c *compiler) renderValues(p *valuePlan) (string, error) {
	r := c.r
	rel := quoteName(p.ru.Relation)
	c.read(p.ru.Relation)
	stop := func() string {
		return "GREATEST(" + c.instant(p.a) + ", LEAST(" + c.instant(p.f) + ", COALESCE((SELECT MAX(x._hour) FROM " + rel +
			" x) + INTERVAL '1 hour', " + c.instant(p.a) + ")))"
	}
	sliced := p.ru.sliced()
	tailStart := stop
	headEnd := p.a
	if sliced {
		c.read(p.ru.Slices)
		headEnd = p.sa
		// The slices cover what the hours do: both are folded from the
		// same rows up to the end of the last stored hour (H), so the
		// tail's rows start at the last whole slice's end, or at H when
		// the hours stop earlier, and, when H is before A (a window
		// starting after the last hour holding a row), at H or sa: the
		// head's slices past H are the rows' too.
		tailStart = func() string {
			return "GREATEST(" + c.instant(p.sa) + ", LEAST(" + c.instant(p.sf) + ", COALESCE((SELECT MAX(x._hour) FROM " + rel +
				" x) + INTERVAL '1 hour', " + c.instant(p.sa) + ")))"
		}
	}
	var sel, group, where []string
	for i, d := range r.dims {
		x := "v." + ident(d.Column.Value)
		sel = append(sel, x+" AS "+dcol(i))
		group = append(group, x)
	}
	if r.grain != catalog.GrainNone {
		x := "date_trunc('" + r.grain + "', v._hour)"
		sel = append(sel, x+" AS b")
		group = append(group, x)
	}
	for i, m := range r.measures {
		sel = append(sel, "CAST(SUM(v."+ident(ValueColumn(m.Name.Value))+") AS "+dbl+") AS "+mcol(i))
	}
	if !p.hasDuration {
		// Only the hours a row starts in: a row overlapping an hour
		// makes its group present only through a duration.
		where = append(where, "v._n > 0")
	}
	if !r.req.Scope.all {
		if len(r.req.Scope.values) == 0 {
			where = append(where, "1 = 0")
		} else {
			where = append(where, "v."+ident(r.scope.Column.Value)+" IN "+c.list(r.req.Scope.values))
		}
	}
	for _, f := range r.filters {
		x := "v." + ident(f.dim.Column.Value)
		switch f.Op {
		case "eq":
			where = append(where, x+" = "+c.param(f.Values[0]))
		case "ne":
			where = append(where, x+" <> "+c.param(f.Values[0]))
		case "in":
			where = append(where, x+" IN "+c.list(f.Values))
		case "not_in":
			where = append(where, x+" NOT IN "+c.list(f.Values))
		}
	}
	storedFrom := func(relation string, span ...string) string {
		q := "SELECT " + strings.Join(sel, ", ") + " FROM " + relation + " v WHERE " + strings.Join(append(span, where...), " AND ")
		if len(group) > 0 {
			q += " GROUP BY " + strings.Join(group, ", ")
		}
		return q
	}
	parts := []string{storedFrom(rel, "v._hour >= "+c.instant(p.a), "v._hour < "+stop())}
	if sliced {
		parts = append(parts, storedFrom(quoteName(p.ru.Slices), "((v._hour >= "+c.instant(p.sa)+" AND v._hour < "+c.instant(p.a)+") OR (v._hour >= "+
			stop()+" AND v._hour < "+tailStart()+"))"))
	}
	at := func(t time.Time) func() string { return func() string { return c.instant(t) } }
	if r.req.Start.Before(headEnd) {
		c.win = &sqlWindow{start: at(r.req.Start), end: at(headEnd)}
		head, err := c.kinds()
		if err != nil {
			return "", err
		}
		parts = append(parts, head...)
	}
	c.win = &sqlWindow{start: tailStart, end: at(r.req.End)}
	tail, err := c.kinds()
	c.win = nil
	if err != nil {
		return "", err
	}
	parts = append(parts, tail...)
	return c.outer(parts, "SUM")
}

// Plannable reports whether req would be compiled and re-derived from the
// value rollups under o.
func Plannable(cat *catalog.Catalog, req Request, o *Options) bool {
	r, err := resolve(cat, req)
	if err != nil || o == nil {
		return false
	}
	_, ok := planValues(r, o)
	return ok
}

// RederiveValues re-derives req's table (values only, no keys) from the
// value rollups, apart from the compiled query: the stored hours' last
// (and slices' last) read by its own SELECT; the window's whole hours
// (and, with slices, its edges' whole slices) summed per group by a plain
// aggregate over the stored rows (filters and scope bound as IN lists),
// the whole hours from the slices where they are kept and the window
// holds at most SliceSumHours of them, else its spot hours (the compiled
// query sums them from the hours, so an hour or a slice altered alone is
// a difference in any answer it changes); the rest of the head and tail
// computed by RederiveSQL's formulation (validity intervals clipped to
// each edge, a self-join by row number for entries) over each piece as
// its own window; all added in Go, where the metric's formula, the order
// and the running total are computed (the code Rederive and RederiveSQL
// use). The spot hours are Options.SpotHours consecutive whole hours
// (DefaultSpotHours when 0, none when negative) chosen by a stream seeded
// from the request alone. Where it trusts the stored rows the compiled
// query trusts, it first re-derives from the rows and compares with the
// stored ones: without slices, the spot hours; with slices, one of the
// edges' whole slices, and one of the slices it sums for whole hours (an
// hour altered with its slices alike), each chosen by a stream of its
// own. A difference is ErrRollupMismatch. A request the rollups cannot
// answer is ErrNoRollup.
func RederiveValues(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options) (*Table, error) {
	r, err := resolve(cat, req)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	p, ok := planValues(r, o)
	if !ok {
		return nil, ErrNoRollup
	}
	lastOf := func(rel string) (sql.NullTime, error) {
		var last sql.NullTime
		err := queryRow(ctx, db, "SELECT MAX(_hour) FROM "+quoteName(rel)).Scan(&last)
		return last, err
	}
	last, err := lastOf(p.ru.Relation)
	if err != nil {
		return nil, fmt.Errorf("rederive metric from rollups: read last hour: %w", err)
	}
	stop := p.a
	if last.Valid {
		stop = last.Time.UTC().Add(time.Hour)
		if stop.After(p.f) {
			stop = p.f
		}
		if stop.Before(p.a) {
			stop = p.a
		}
	}
	// pieces of the window outside the stored hours [a, stop): from the
	// slices or from the rows.
	type piece struct {
		from, to time.Time
		stored   bool
	}
	pieces := []piece{{r.req.Start, p.a, false}, {stop, r.req.End, false}}
	spot := o.SpotHours
	if spot == 0 {
		spot = DefaultSpotHours
	}
	// The whole hours [sFrom, sTo) are summed from the slices, the rest
	// from the hours. The rows' spot check draws its hours from
	// [checkFrom, stop): every whole hour without slices, those the
	// slices do not hold in a short window, none in a long one (its drawn
	// hours are summed from the slices instead).
	sFrom, sTo, checkFrom := p.a, p.a, p.a
	if p.ru.sliced() {
		lastSlice, err := lastOf(p.ru.Slices)
		if err != nil {
			return nil, fmt.Errorf("rederive metric from rollups: read last slice: %w", err)
		}
		covered := p.sa // the end of the slices stored
		if lastSlice.Valid {
			covered = lastSlice.Time.UTC().Add(p.ru.SliceWidth)
		}
		h := minTime(p.a, maxTime(covered, p.sa))
		t := maxTime(stop, minTime(p.sf, covered))
		pieces = []piece{{r.req.Start, p.sa, false}, {p.sa, h, true}, {h, p.a, false}, {stop, t, true}, {t, r.req.End, false}}
		// The slices are folded with the hours from the same rows, from
		// the first hour on (shape.DeriveRollupValues), so where their
		// last lies in the last stored hour they hold every stored hour;
		// otherwise they are read up to their last slice's hour.
		full := stop
		if !lastSlice.Valid {
			full = p.a
		} else if ls := lastSlice.Time.UTC().Truncate(time.Hour); last.Valid && ls.Before(last.Time.UTC()) {
			full = minTime(stop, maxTime(p.a, ls))
		}
		if n := int(full.Sub(p.a) / time.Hour); stop.Sub(p.a) <= SliceSumHours*time.Hour {
			// Every whole hour from the slices.
			sTo, checkFrom = full, full
		} else if spot > 0 && n > 0 {
			// A long window: spot whole hours from the slices, drawn
			// as the rows' spot hours are, the rest from the hours.
			k := min(spot, n)
			sFrom = p.a.Add(time.Duration(spotStream(req).IntN(n-k+1)) * time.Hour)
			sTo, checkFrom = sFrom.Add(time.Duration(k)*time.Hour), stop
		}
	}
	// The stored hours the compiled query sums are checked against the
	// rows where the resolver sums the same stored rows: spot whole hours
	// from the rows. Where it sums the slices instead, an altered hour or
	// slice shows as a difference between the two sums, and one of those
	// slices, chosen by a stream of its own, is checked against the rows
	// (a sixth of an hour's rows) for an hour altered with its slices.
	if hours := int(stop.Sub(checkFrom) / time.Hour); spot > 0 && hours > 0 {
		n := min(spot, hours)
		from := checkFrom.Add(time.Duration(spotStream(req).IntN(hours-n+1)) * time.Hour)
		if err := spotCheck(ctx, db, cat, req, o, p, p.ru.Relation, from, from.Add(time.Duration(n)*time.Hour)); err != nil {
			return nil, err
		}
	}
	if spot > 0 && sTo.After(sFrom) {
		n := int(sTo.Sub(sFrom) / p.ru.SliceWidth)
		from := sFrom.Add(time.Duration(hourSliceStream(req).IntN(n)) * p.ru.SliceWidth)
		if err := spotCheck(ctx, db, cat, req, o, p, p.ru.Slices, from, from.Add(p.ru.SliceWidth)); err != nil {
			return nil, err
		}
	}
	if spot > 0 {
		// One of the whole slices summed, chosen by a stream of its own.
		var starts []time.Time
		for _, pc := range pieces {
			for s := pc.from; pc.stored && s.Before(pc.to); s = s.Add(p.ru.SliceWidth) {
				starts = append(starts, s)
			}
		}
		if len(starts) > 0 {
			from := starts[sliceStream(req).IntN(len(starts))]
			if err := spotCheck(ctx, db, cat, req, o, p, p.ru.Slices, from, from.Add(p.ru.SliceWidth)); err != nil {
				return nil, err
			}
		}
	}
	acc := partials{}
	if err := acc.stored(ctx, db, r, p, p.ru.Relation, p.a, sFrom); err != nil {
		return nil, err
	}
	if err := acc.stored(ctx, db, r, p, p.ru.Slices, sFrom, sTo); err != nil {
		return nil, err
	}
	if err := acc.stored(ctx, db, r, p, p.ru.Relation, sTo, stop); err != nil {
		return nil, err
	}
	for _, pc := range pieces {
		if !pc.from.Before(pc.to) {
			continue
		}
		if pc.stored {
			err = acc.stored(ctx, db, r, p, p.ru.Slices, pc.from, pc.to)
		} else {
			err = acc.rows(ctx, db, cat, req, o, pc.from, pc.to)
		}
		if err != nil {
			return nil, err
		}
	}
	return r.finish(acc.list(), r.grain != catalog.GrainNone), nil
}

// spotStream is the named stream ("metric/rollup-spot") seeded from the
// request alone: the same request checks the same hours, whatever the
// clock.
func spotStream(req Request) *rand.Rand { return requestStream("metric/rollup-spot", req) }

// sliceStream is the named stream ("metric/rollup-spot-slice") that
// chooses the slice RederiveValues spot-checks, seeded as spotStream.
func sliceStream(req Request) *rand.Rand { return requestStream("metric/rollup-spot-slice", req) }

// hourSliceStream is the named stream ("metric/rollup-spot-hour-slice")
// that chooses the slice RederiveValues checks among those it sums for
// the window's whole hours, seeded as spotStream.
func hourSliceStream(req Request) *rand.Rand {
	return requestStream("metric/rollup-spot-hour-slice", req)
}

// requestStream is the stream named name seeded from the request alone.
func requestStream(name string, req Request) *rand.Rand {
	h := sha256.New()
	for _, s := range []string{name, req.Metric, req.Start.UTC().Format(time.RFC3339Nano), req.End.UTC().Format(time.RFC3339Nano), req.Grain, strings.Join(req.Dimensions, "\x00")} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, f := range req.Filters {
		h.Write([]byte(f.Dimension + "\x00" + f.Op + "\x00" + strings.Join(f.Values, "\x00") + "\x01"))
	}
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])))
}

// spotCheck compares the stored rollups of the hours [from, to) with
// RederiveSQL's re-derivation of the same hours as a window, per group of
// the request (its dimensions, bucket, filters and scope): the groups and
// every measure must agree (durations to a relative 1e-9, for the order
// of summation).
func spotCheck(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options, p *valuePlan, relation string, from, to time.Time) error {
	r, err := resolve(cat, req)
	if err != nil {
		return err
	}
	stored, rows := partials{}, partials{}
	if err := stored.stored(ctx, db, r, p, relation, from, to); err != nil {
		return err
	}
	if err := rows.rows(ctx, db, cat, req, o, from, to); err != nil {
		return err
	}
	if len(stored) != len(rows) {
		return fmt.Errorf("spot-check hours %s to %s: %d groups stored, %d from the rows: %w", from.Format(time.RFC3339), to.Format(time.RFC3339), len(stored), len(rows), ErrRollupMismatch)
	}
	for k, s := range stored {
		w, ok := rows[k]
		if !ok {
			return fmt.Errorf("spot-check hours %s to %s: a stored group is not in the rows: %w", from.Format(time.RFC3339), to.Format(time.RFC3339), ErrRollupMismatch)
		}
		for i, m := range r.measures {
			j := 5*i + slotOf(m)
			a, b := s.vals[j].Float64, w.vals[j].Float64
			if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
				return fmt.Errorf("spot-check hours %s to %s: measure %s differs: %w", from.Format(time.RFC3339), to.Format(time.RFC3339), m.Name.Value, ErrRollupMismatch)
			}
		}
	}
	return nil
}

// slotOf is the partial column (of n, s, lo, hi, dn) that holds a stored
// measure's value, as readGroups reads it.
func slotOf(m *catalog.Measure) int {
	if m.Agg.Value == catalog.AggDuration {
		return 1
	}
	return 0
}

// partials are groups' measure partials (RederiveSQL's five columns per
// measure) by group key, added as pieces arrive.
type partials map[string]*partial

func (ps partials) add(p partial) {
	var b strings.Builder
	for _, d := range p.dims {
		if d.Valid {
			b.WriteString("v" + d.String)
		} else {
			b.WriteString("n")
		}
		b.WriteByte(0)
	}
	if p.bucket.Valid {
		b.WriteString(p.bucket.Time.UTC().Format(time.RFC3339Nano))
	}
	k := b.String()
	q, ok := ps[k]
	if !ok {
		c := p
		c.vals = slices.Clone(p.vals)
		ps[k] = &c
		return
	}
	for j, v := range p.vals {
		if !v.Valid {
			continue
		}
		if !q.vals[j].Valid {
			q.vals[j] = v
			continue
		}
		switch j % 5 {
		case 2:
			q.vals[j].Float64 = math.Min(q.vals[j].Float64, v.Float64)
		case 3:
			q.vals[j].Float64 = math.Max(q.vals[j].Float64, v.Float64)
		default:
			q.vals[j].Float64 += v.Float64
		}
	}
}

func (ps partials) list() []partial {
	out := make([]partial, 0, len(ps))
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

// stored adds the parts of relation (p's hours or slices) starting in
// [from, to) of the request's groups: one plain aggregate over the rollup
// rows.
func (ps partials) stored(ctx context.Context, db Querier, r *resolved, p *valuePlan, relation string, from, to time.Time) error {
	if !from.Before(to) {
		return nil
	}
	var pr params
	var sel, group, where []string
	for i, d := range r.dims {
		sel = append(sel, "CAST("+ident(d.Column.Value)+" AS VARCHAR) AS g"+strconv.Itoa(i))
		group = append(group, ident(d.Column.Value))
	}
	bucketed := r.grain != catalog.GrainNone
	if bucketed {
		x := "date_trunc('" + r.grain + "', _hour)"
		sel = append(sel, x+" AS gb")
		group = append(group, x)
	}
	for _, m := range r.measures {
		sel = append(sel, "SUM("+ident(ValueColumn(m.Name.Value))+")")
	}
	where = append(where, "_hour >= "+pr.instant(from), "_hour < "+pr.instant(to))
	if !p.hasDuration {
		where = append(where, "_n > 0")
	}
	in := func(vs []string) string {
		ph := make([]string, len(vs))
		for i, v := range vs {
			ph[i] = pr.param(v)
		}
		return "(" + strings.Join(ph, ", ") + ")"
	}
	if !r.req.Scope.all {
		if len(r.req.Scope.values) == 0 {
			where = append(where, "1 = 0")
		} else {
			where = append(where, ident(r.scope.Column.Value)+" IN "+in(r.req.Scope.values))
		}
	}
	for _, f := range r.filters {
		x := ident(f.dim.Column.Value)
		switch f.Op {
		case "eq", "in":
			where = append(where, x+" IN "+in(f.Values))
		case "ne", "not_in":
			where = append(where, x+" NOT IN "+in(f.Values))
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteName(relation) + " WHERE " + strings.Join(where, " AND ")
	if len(group) > 0 {
		q += " GROUP BY " + strings.Join(group, ", ")
	}
	rows, err := db.QueryContext(ctx, q, pr.args...)
	if err != nil {
		return fmt.Errorf("rederive metric from rollups: read stored hours: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		pt := partial{dims: make([]sql.NullString, len(r.dims)), vals: make([]sql.NullFloat64, 5*len(r.measures))}
		sums := make([]sql.NullFloat64, len(r.measures))
		var dest []any
		for i := range pt.dims {
			dest = append(dest, &pt.dims[i])
		}
		if bucketed {
			dest = append(dest, &pt.bucket)
		}
		for i := range sums {
			dest = append(dest, &sums[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("rederive metric from rollups: read stored hours: %w", err)
		}
		for i, m := range r.measures {
			pt.vals[5*i+slotOf(m)] = sql.NullFloat64{Float64: sums[i].Float64, Valid: true}
		}
		ps.add(pt)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rederive metric from rollups: read stored hours: %w", err)
	}
	return nil
}

// rows adds RederiveSQL's partials of the request over the window
// [from, to) of rows.
func (ps partials) rows(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options, from, to time.Time) error {
	sub := req
	sub.Start, sub.End = from, to
	r, err := resolve(cat, sub)
	if err != nil {
		return err
	}
	g := &sqlRederiver{r: r, o: o, validTo: o.ValidTo[r.ds.Name.Value]}
	parts, err := g.aggregate(ctx, db)
	if err != nil {
		return err
	}
	for _, p := range parts {
		ps.add(p)
	}
	return nil
}
