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
}

// ValueColumn is the column of a value rollup holding measure's partials.
func ValueColumn(measure string) string { return "m_" + measure }

// ErrRollupMismatch is returned by RederiveValues when the stored value
// rollups of the hours it spot-checks disagree with a re-derivation from
// the rows: the answer must not ship.
var ErrRollupMismatch = errors.New("metric: stored value rollups disagree with the rows")

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
func (c *compiler) renderValues(p *valuePlan) (string, error) {
	r := c.r
	rel := quoteName(p.ru.Relation)
	c.read(p.ru.Relation)
	stop := func() string {
		return "GREATEST(" + c.instant(p.a) + ", LEAST(" + c.instant(p.f) + ", COALESCE((SELECT MAX(x._hour) FROM " + rel +
			" x) + INTERVAL '1 hour', " + c.instant(p.a) + ")))"
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
	where = append(where, "v._hour >= "+c.instant(p.a), "v._hour < "+stop())
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
	stored := "SELECT " + strings.Join(sel, ", ") + " FROM " + rel + " v WHERE " + strings.Join(where, " AND ")
	if len(group) > 0 {
		stored += " GROUP BY " + strings.Join(group, ", ")
	}
	parts := []string{stored}
	at := func(t time.Time) func() string { return func() string { return c.instant(t) } }
	if r.req.Start.Before(p.a) {
		c.win = &sqlWindow{start: at(r.req.Start), end: at(p.a)}
		head, err := c.kinds()
		if err != nil {
			return "", err
		}
		parts = append(parts, head...)
	}
	c.win = &sqlWindow{start: stop, end: at(r.req.End)}
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
// read by its own SELECT; the window's whole hours summed per group by a
// plain aggregate over the stored rows (filters and scope bound as IN
// lists); the head and tail computed by RederiveSQL's formulation
// (validity intervals clipped to each edge, a self-join by row number for
// entries) over each edge as its own window; all added in Go, where the
// metric's formula, the order and the running total are computed (the
// code Rederive and RederiveSQL use). Because the compiled query trusts
// the same stored rows, it first re-derives Options.SpotHours consecutive
// whole hours (DefaultSpotHours when 0, none when negative), chosen by a
// stream seeded from the request alone, from the rows and compares them
// with the stored ones: a difference is ErrRollupMismatch. A request the
// rollups cannot answer is ErrNoRollup.
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
	var last sql.NullTime
	if err := queryRow(ctx, db, "SELECT MAX(_hour) FROM "+quoteName(p.ru.Relation)).Scan(&last); err != nil {
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
	hours := int(stop.Sub(p.a) / time.Hour)
	spot := o.SpotHours
	if spot == 0 {
		spot = DefaultSpotHours
	}
	if spot > 0 && hours > 0 {
		spot = min(spot, hours)
		rng := spotStream(req)
		from := p.a.Add(time.Duration(rng.IntN(hours-spot+1)) * time.Hour)
		if err := spotCheck(ctx, db, cat, req, o, p, from, from.Add(time.Duration(spot)*time.Hour)); err != nil {
			return nil, err
		}
	}
	acc := partials{}
	if err := acc.stored(ctx, db, r, p, p.a, stop); err != nil {
		return nil, err
	}
	for _, w := range [][2]time.Time{{r.req.Start, p.a}, {stop, r.req.End}} {
		if !w[0].Before(w[1]) {
			continue
		}
		if err := acc.rows(ctx, db, cat, req, o, w[0], w[1]); err != nil {
			return nil, err
		}
	}
	return r.finish(acc.list(), r.grain != catalog.GrainNone), nil
}

// spotStream is the named stream ("metric/rollup-spot") seeded from the
// request alone: the same request checks the same hours, whatever the
// clock.
func spotStream(req Request) *rand.Rand {
	h := sha256.New()
	for _, s := range []string{"metric/rollup-spot", req.Metric, req.Start.UTC().Format(time.RFC3339Nano), req.End.UTC().Format(time.RFC3339Nano), req.Grain, strings.Join(req.Dimensions, "\x00")} {
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
func spotCheck(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options, p *valuePlan, from, to time.Time) error {
	r, err := resolve(cat, req)
	if err != nil {
		return err
	}
	stored, rows := partials{}, partials{}
	if err := stored.stored(ctx, db, r, p, from, to); err != nil {
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

// stored adds the stored hours [from, to) of the request's groups: one
// plain aggregate over the rollup rows.
func (ps partials) stored(ctx context.Context, db Querier, r *resolved, p *valuePlan, from, to time.Time) error {
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
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteName(p.ru.Relation) + " WHERE " + strings.Join(where, " AND ")
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
