package metric

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
)

// Rederive computes the table Compile's query computes by a second,
// independent formulation: it reads the rows that may contribute with a
// plain SELECT of the dataset's declared columns (the window's end and the
// scope in SQL; no aggregate, no window function, no join), the reference
// tables the dimensions name with another, and does everything else in
// Go: each series' latest row or neighbours, the window, scope and
// filters, the measures, the metric's formula and the running total. The
// table has every group (no limit), sorted by dimensions then bucket, and
// the contributing rows' keys.
//
// It shares with Compile only the request's checks (resolve) and the
// catalog. Its cost grows with the rows before the window's end of the
// series in scope: it is the re-derivation for small inputs.
func Rederive(ctx context.Context, db Querier, cat *catalog.Catalog, req Request, o *Options) (*Table, error) {
	r, err := resolve(cat, req)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = &Options{}
	}
	rows, err := readRows(ctx, db, r, o)
	if err != nil {
		return nil, err
	}
	refs, err := readReferences(ctx, db, r, o)
	if err != nil {
		return nil, err
	}
	return r.compute(rows, refs), nil
}

// row is one row of the dataset as read: its values by position in the
// columns read (idx, shared by every row), nil for empty.
type row struct {
	key  string
	at   time.Time
	idx  map[string]int
	vals []any // *string (entity and enumerated columns) or *float64 (numeric)
}

// text returns a text column's value, nil for empty or not read.
func (rw *row) text(column string) *string {
	if i, ok := rw.idx[column]; ok {
		v, _ := rw.vals[i].(*string)
		return v
	}
	return nil
}

// number returns a numeric column's value, nil for empty or not read.
func (rw *row) number(column string) *float64 {
	if i, ok := rw.idx[column]; ok {
		v, _ := rw.vals[i].(*float64)
		return v
	}
	return nil
}

func readRows(ctx context.Context, db Querier, r *resolved, o *Options) ([]*row, error) {
	ds := r.ds
	rel, err := datasetRelation(r, o)
	if err != nil {
		return nil, err
	}
	type col struct {
		name    string
		numeric bool
	}
	// The columns the computation reads: the series, the scope, the
	// dimensions (or the entity a reference dimension joins on), the
	// measures' columns and their filters' attributes.
	need := r.columns()
	var cols []col
	for _, e := range ds.Entities {
		if need[e.Column.Value] {
			cols = append(cols, col{e.Column.Value, false})
		}
	}
	for _, a := range ds.Attributes {
		if need[a.Column.Value] {
			cols = append(cols, col{a.Column.Value, !a.Enumerated()})
		}
	}
	idx := make(map[string]int, len(cols))
	for i, c := range cols {
		idx[c.name] = i
	}
	var b strings.Builder
	var args []any
	ph := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	b.WriteString("SELECT x." + ident(ds.Key.Value) + ", x." + ident(ds.Time.Value))
	for _, c := range cols {
		b.WriteString(", x." + ident(c.name))
	}
	b.WriteString(" FROM " + quoteName(rel) + " x WHERE x." + ident(ds.Time.Value) + " < CAST(" + ph(r.req.End.UTC().Format(sqlTime)) + " AS TIMESTAMP)")
	onlyRows := true
	for _, m := range r.measures {
		if kindOf(m) != kindRows {
			onlyRows = false
		}
	}
	if onlyRows {
		b.WriteString(" AND x." + ident(ds.Time.Value) + " >= CAST(" + ph(r.req.Start.UTC().Format(sqlTime)) + " AS TIMESTAMP)")
	}
	if !r.req.Scope.all {
		alias := "y."
		if onlyRows {
			alias = "x."
		}
		in := "1 = 0"
		if vs := r.req.Scope.values; len(vs) > 0 {
			var p []string
			for _, v := range vs {
				p = append(p, ph(v))
			}
			in = alias + ident(r.scope.Column.Value) + " IN (" + strings.Join(p, ", ") + ")"
		}
		if onlyRows {
			b.WriteString(" AND " + in)
		} else {
			// Whole series that touch the scope: a row's neighbours count
			// whatever their own scope; the scope judges each row after.
			var same []string
			for _, e := range ds.SeriesEntities() {
				same = append(same, "y."+ident(e.Column.Value)+" = x."+ident(e.Column.Value))
			}
			b.WriteString(" AND EXISTS (SELECT 1 FROM " + quoteName(rel) + " y WHERE " + strings.Join(same, " AND ") + " AND " + in + ")")
		}
	}
	res, err := db.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("rederive metric: read rows: %w", err)
	}
	defer res.Close()
	var out []*row
	for res.Next() {
		var key string
		var at time.Time
		strs := make([]sql.NullString, len(cols))
		nums := make([]sql.NullFloat64, len(cols))
		dest := []any{&key, &at}
		for i, c := range cols {
			if c.numeric {
				dest = append(dest, &nums[i])
			} else {
				dest = append(dest, &strs[i])
			}
		}
		if err := res.Scan(dest...); err != nil {
			return nil, fmt.Errorf("rederive metric: read rows: %w", err)
		}
		rw := &row{key: key, at: at.UTC(), idx: idx, vals: make([]any, len(cols))}
		for i, c := range cols {
			switch {
			case c.numeric && nums[i].Valid:
				f := nums[i].Float64
				rw.vals[i] = &f
			case !c.numeric && strs[i].Valid:
				s := strs[i].String
				rw.vals[i] = &s
			}
		}
		out = append(out, rw)
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("rederive metric: read rows: %w", err)
	}
	return out, nil
}

// columns returns the dataset columns the re-derivation reads.
func (r *resolved) columns() map[string]bool {
	ds := r.ds
	need := map[string]bool{}
	for _, e := range ds.SeriesEntities() {
		need[e.Column.Value] = true
	}
	if r.scope != nil {
		need[r.scope.Column.Value] = true
	}
	dim := func(d *catalog.Dimension) {
		if d.Entity.Value == "" {
			need[d.Column.Value] = true
		} else if e := ds.Entity(d.Entity.Value); e != nil {
			need[e.Column.Value] = true
		}
	}
	for _, d := range r.dims {
		dim(d)
	}
	for _, f := range r.filters {
		dim(f.dim)
	}
	var pred func(p *catalog.Predicate)
	pred = func(p *catalog.Predicate) {
		if p == nil {
			return
		}
		if a := ds.Attribute(p.Attribute.Value); a != nil {
			need[a.Column.Value] = true
		}
		for _, q := range p.Any {
			pred(q)
		}
		for _, q := range p.All {
			pred(q)
		}
	}
	for _, m := range r.measures {
		if m.Column.Value != "" {
			need[m.Column.Value] = true
		}
		pred(predicateOf(ds, m))
	}
	return need
}

// readReferences reads, for each entity a requested or filtered dimension
// joins, its reference's id and the joined columns: entity → id → column
// → value.
func readReferences(ctx context.Context, db Querier, r *resolved, o *Options) (map[string]map[string]map[string]*string, error) {
	need := map[string][]string{}
	for _, d := range r.dims {
		if d.Entity.Value != "" && !slices.Contains(need[d.Entity.Value], d.Column.Value) {
			need[d.Entity.Value] = append(need[d.Entity.Value], d.Column.Value)
		}
	}
	for _, f := range r.filters {
		if d := f.dim; d.Entity.Value != "" && !slices.Contains(need[d.Entity.Value], d.Column.Value) {
			need[d.Entity.Value] = append(need[d.Entity.Value], d.Column.Value)
		}
	}
	out := map[string]map[string]map[string]*string{}
	for ent, cols := range need {
		e := r.ds.Entity(ent)
		rel, err := referenceRelation(e, o)
		if err != nil {
			return nil, err
		}
		q := "SELECT " + ident(e.Reference.ID.Value)
		for _, c := range cols {
			q += ", " + ident(c)
		}
		q += " FROM " + quoteName(rel)
		res, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("rederive metric: read reference: %w", err)
		}
		ids := map[string]map[string]*string{}
		for res.Next() {
			var id string
			vals := make([]sql.NullString, len(cols))
			dest := []any{&id}
			for i := range vals {
				dest = append(dest, &vals[i])
			}
			if err := res.Scan(dest...); err != nil {
				res.Close()
				return nil, fmt.Errorf("rederive metric: read reference: %w", err)
			}
			m := map[string]*string{}
			for i, c := range cols {
				if vals[i].Valid {
					s := vals[i].String
					m[c] = &s
				}
			}
			ids[id] = m
		}
		err = res.Err()
		res.Close()
		if err != nil {
			return nil, fmt.Errorf("rederive metric: read reference: %w", err)
		}
		out[ent] = ids
	}
	return out, nil
}

// acc accumulates one measure over one group.
type acc struct {
	n        int
	sum      float64
	min, max float64
	distinct map[string]bool
}

type group struct {
	row  Row
	accs []acc
}

func (r *resolved) compute(rows []*row, refs map[string]map[string]map[string]*string) *Table {
	ds := r.ds
	t := &Table{Bucketed: r.grain != catalog.GrainNone}
	for _, d := range r.dims {
		t.Dimensions = append(t.Dimensions, d.Name.Value)
	}
	dimValue := func(d *catalog.Dimension, rw *row) *string {
		if d.Entity.Value == "" {
			return rw.text(d.Column.Value)
		}
		e := ds.Entity(d.Entity.Value)
		id := rw.text(e.Column.Value)
		if id == nil {
			return nil
		}
		if ref, ok := refs[d.Entity.Value][*id]; ok {
			return ref[d.Column.Value]
		}
		return nil
	}
	// admit reports whether a row passes the scope and the filters.
	admit := func(rw *row) bool {
		if !r.req.Scope.all && !r.req.Scope.allows(rw.text(r.scope.Column.Value)) {
			return false
		}
		for _, f := range r.filters {
			v := dimValue(f.dim, rw)
			if v == nil {
				return false
			}
			in := slices.Contains(f.Values, *v)
			if (f.Op == "eq" || f.Op == "in") != in {
				return false
			}
		}
		return true
	}
	groups := map[string]*group{}
	var order []string
	var keys []string
	// The group's key: each dimension's value (or its absence) and the
	// bucket, built in a reused buffer; a Row is made for a new group only.
	var kb []byte
	dims := make([]*string, len(r.dims))
	groupOf := func(rw *row) *group {
		kb = kb[:0]
		for i, d := range r.dims {
			v := dimValue(d, rw)
			dims[i] = v
			if v == nil {
				kb = append(kb, 0, 'n')
			} else {
				kb = append(kb, 0, '=')
				kb = append(kb, *v...)
			}
		}
		var bucket time.Time
		if t.Bucketed {
			bucket = truncate(rw.at, r.grain)
			kb = append(kb, 0, '@')
			kb = bucket.AppendFormat(kb, time.RFC3339)
		}
		g := groups[string(kb)]
		if g == nil {
			g = &group{row: Row{Dims: slices.Clone(dims), Bucket: bucket}, accs: make([]acc, len(r.measures))}
			k := string(kb)
			groups[k] = g
			order = append(order, k)
		}
		if rw.key != "" {
			keys = append(keys, rw.key)
		}
		return g
	}
	if len(r.dims) == 0 && !t.Bucketed {
		groupOf(&row{})
	}
	preds := make([]*catalog.Predicate, len(r.measures))
	for i, m := range r.measures {
		preds[i] = predicateOf(ds, m)
	}
	add := func(g *group, i int, rw *row) {
		m := r.measures[i]
		if !meets(ds, preds[i], rw) {
			return
		}
		a := &g.accs[i]
		switch m.Agg.Value {
		case catalog.AggCount:
			a.n++
		case catalog.AggCountDistinct:
			v := columnText(ds, m.Column.Value, rw)
			if v == nil {
				return
			}
			if a.distinct == nil {
				a.distinct = map[string]bool{}
			}
			a.distinct[*v] = true
		case catalog.AggSum, catalog.AggAvg, catalog.AggMin, catalog.AggMax:
			v := rw.number(m.Column.Value)
			if v == nil {
				return
			}
			if a.n == 0 || *v < a.min {
				a.min = *v
			}
			if a.n == 0 || *v > a.max {
				a.max = *v
			}
			a.n++
			a.sum += *v
		}
	}
	measuresOf := func(kind int) []int {
		var out []int
		for i, m := range r.measures {
			if kindOf(m) == kind {
				out = append(out, i)
			}
		}
		return out
	}
	// Every row in the window.
	if idx := measuresOf(kindRows); len(idx) > 0 {
		for _, rw := range rows {
			if rw.at.Before(r.req.Start) || !rw.at.Before(r.req.End) || !admit(rw) {
				continue
			}
			g := groupOf(rw)
			for _, i := range idx {
				add(g, i, rw)
			}
		}
	}
	series := seriesOf(ds, rows)
	// Each series' latest row before the end.
	if idx := measuresOf(kindLatest); len(idx) > 0 {
		for _, s := range series {
			last := s[len(s)-1]
			if !admit(last) {
				continue
			}
			g := groupOf(last)
			for _, i := range idx {
				add(g, i, last)
			}
		}
	}
	// Rows with their neighbours: durations and entries.
	if idx := measuresOf(kindSeq); len(idx) > 0 {
		hasDuration := false
		for _, i := range idx {
			hasDuration = hasDuration || r.measures[i].Agg.Value == catalog.AggDuration
		}
		for _, s := range series {
			for j, rw := range s {
				to := r.req.End
				if j+1 < len(s) && s[j+1].at.Before(to) {
					to = s[j+1].at
				}
				from := rw.at
				if from.Before(r.req.Start) {
					from = r.req.Start
				}
				secs := seconds(from, to)
				inWindow := !rw.at.Before(r.req.Start)
				if !inWindow && !(hasDuration && secs > 0) || !admit(rw) {
					continue
				}
				g := groupOf(rw)
				for _, i := range idx {
					m := r.measures[i]
					if !meets(ds, preds[i], rw) {
						continue
					}
					switch m.Agg.Value {
					case catalog.AggDuration:
						if secs > 0 {
							g.accs[i].sum += secs
							g.accs[i].n++
						}
					case catalog.AggEntries:
						if inWindow && (j == 0 || !meets(ds, preds[i], s[j-1])) {
							g.accs[i].n++
						}
					}
				}
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		vals := map[string]*float64{}
		for i, m := range r.measures {
			vals[m.Name.Value] = measureValue(m, g.accs[i])
		}
		g.row.Value = r.metricValue(r.metric, vals, 0)
		t.Rows = append(t.Rows, g.row)
	}
	r.order(t)
	slices.Sort(keys)
	t.Keys = slices.Compact(keys)
	return t
}

// compareGroups orders rows by dimensions (bytewise, empty last), then
// bucket.
func compareGroups(a, b Row) int {
	for i := range a.Dims {
		x, y := a.Dims[i], b.Dims[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := strings.Compare(*x, *y); c != 0 {
			return c
		}
	}
	return a.Bucket.Compare(b.Bucket)
}

// seriesOf groups rows by series, each sorted by time then key.
func seriesOf(ds *catalog.Dataset, rows []*row) [][]*row {
	by := map[string][]*row{}
	var order []string
	for _, rw := range rows {
		var k strings.Builder
		for _, e := range ds.SeriesEntities() {
			v := rw.text(e.Column.Value)
			if v == nil {
				k.WriteString("\x00null")
			} else {
				k.WriteString("\x00=" + *v)
			}
		}
		if _, ok := by[k.String()]; !ok {
			order = append(order, k.String())
		}
		by[k.String()] = append(by[k.String()], rw)
	}
	slices.Sort(order)
	out := make([][]*row, 0, len(order))
	for _, k := range order {
		s := by[k]
		slices.SortFunc(s, func(a, b *row) int {
			if c := a.at.Compare(b.at); c != 0 {
				return c
			}
			return cmp.Compare(a.key, b.key)
		})
		out = append(out, s)
	}
	return out
}

func columnText(ds *catalog.Dataset, column string, rw *row) *string {
	if v := rw.text(column); v != nil {
		return v
	}
	if v := rw.number(column); v != nil {
		s := fmt.Sprint(*v)
		return &s
	}
	return nil
}

func measureValue(m *catalog.Measure, a acc) *float64 {
	var v float64
	switch m.Agg.Value {
	case catalog.AggCount, catalog.AggEntries:
		v = float64(a.n)
	case catalog.AggCountDistinct:
		v = float64(len(a.distinct))
	case catalog.AggSum, catalog.AggDuration:
		v = a.sum
	case catalog.AggAvg, catalog.AggMin, catalog.AggMax:
		if a.n == 0 {
			return nil
		}
		switch m.Agg.Value {
		case catalog.AggAvg:
			v = a.sum / float64(a.n)
		case catalog.AggMin:
			v = a.min
		default:
			v = a.max
		}
	}
	return &v
}

// order sorts t's groups and, for a cumulative metric by bucket, turns
// each group's values into running totals over its buckets, in bucket
// order: the last step both re-derivations share.
func (r *resolved) order(t *Table) {
	cumulative := r.metric.Type.Value == catalog.MetricCumulative && t.Bucketed
	if cumulative {
		// Every bucket of the window for each group that has a row: a
		// bucket without one carries the total forward.
		have := map[string]bool{}
		var groups []Row
		for _, row := range t.Rows {
			k := Row{Dims: row.Dims}.groupKey()
			if !have[k] {
				groups = append(groups, Row{Dims: row.Dims})
			}
			have[k] = true
			have[k+"@"+row.Bucket.Format(time.RFC3339)] = true
		}
		for _, g := range groups {
			k := g.groupKey()
			for _, b := range Buckets(r.req.Start, r.req.End, r.grain) {
				if !have[k+"@"+b.Format(time.RFC3339)] {
					t.Rows = append(t.Rows, Row{Dims: g.Dims, Bucket: b})
				}
			}
		}
	}
	slices.SortFunc(t.Rows, compareGroups)
	if cumulative {
		run := map[string]float64{}
		for i, row := range t.Rows {
			k := Row{Dims: row.Dims}.groupKey()
			if row.Value != nil {
				run[k] += *row.Value
			}
			v := run[k]
			t.Rows[i].Value = &v
		}
	}
}

func (r *resolved) metricValue(m *catalog.Metric, vals map[string]*float64, depth int) *float64 {
	if m == nil || depth > len(r.cat.Metrics) {
		return nil
	}
	switch m.Type.Value {
	case catalog.MetricSimple, catalog.MetricCumulative:
		return vals[m.Measure.Value]
	case catalog.MetricRatio:
		n, d := vals[m.Numerator.Value], vals[m.Denominator.Value]
		if n == nil || d == nil || *d == 0 {
			return nil
		}
		v := *n / *d
		return &v
	case catalog.MetricDerived:
		if m.Expression == nil {
			return nil
		}
		v, err := m.Expression.Eval(func(name string) (float64, bool) {
			x := r.metricValue(r.cat.Metric(name), vals, depth+1)
			if x == nil {
				return 0, false
			}
			return *x, true
		})
		if errors.Is(err, catalog.ErrNoValue) || err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return nil
}

// meets judges a catalog predicate on a row in Go: an empty value meets
// no comparison.
func meets(ds *catalog.Dataset, p *catalog.Predicate, rw *row) bool {
	if p == nil {
		return true
	}
	if len(p.Any) > 0 {
		for _, s := range p.Any {
			if meets(ds, s, rw) {
				return true
			}
		}
		return false
	}
	if len(p.All) > 0 {
		for _, s := range p.All {
			if !meets(ds, s, rw) {
				return false
			}
		}
		return true
	}
	a := ds.Attribute(p.Attribute.Value)
	if a == nil || p.Value == nil {
		return false
	}
	if a.Enumerated() {
		v := rw.text(a.Column.Value)
		if v == nil {
			return false
		}
		in := false
		for _, it := range p.Value.Items {
			in = in || it.Str == *v
		}
		switch p.Op.Value {
		case "eq", "in":
			return in
		case "ne", "not_in":
			return !in
		}
		return false
	}
	v := rw.number(a.Column.Value)
	if v == nil {
		return false
	}
	x := *v
	switch p.Op.Value {
	case "in", "not_in":
		in := false
		for _, it := range p.Value.Items {
			in = in || it.Num == x
		}
		return in == (p.Op.Value == "in")
	case "eq":
		return x == p.Value.Items[0].Num
	case "ne":
		return x != p.Value.Items[0].Num
	case "lt":
		return x < p.Value.Items[0].Num
	case "le":
		return x <= p.Value.Items[0].Num
	case "gt":
		return x > p.Value.Items[0].Num
	case "ge":
		return x >= p.Value.Items[0].Num
	}
	return false
}

// Buckets returns the first instants of the buckets of grain that the
// window [start, end) overlaps, in order: the time spine a cumulative
// metric's running total is given at.
func Buckets(start, end time.Time, grain string) []time.Time {
	var out []time.Time
	for b := truncate(start, grain); b.Before(end); b = nextBucket(b, grain) {
		out = append(out, b)
	}
	return out
}

// nextBucket returns the first instant of the bucket of grain after the
// one starting at b.
func nextBucket(b time.Time, grain string) time.Time {
	switch grain {
	case catalog.GrainWeek:
		return b.AddDate(0, 0, 7)
	case catalog.GrainMonth:
		return b.AddDate(0, 1, 0)
	}
	return b.AddDate(0, 0, 1)
}

// truncate returns the first instant of t's bucket: the UTC day, the ISO
// week (from Monday) or the month.
func truncate(t time.Time, grain string) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	switch grain {
	case catalog.GrainWeek:
		back := (int(day.Weekday()) + 6) % 7 // days since Monday
		return day.AddDate(0, 0, -back)
	case catalog.GrainMonth:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return day
}

// seconds is the time from from to to in seconds, for any two instants
// the wall admits: to.Sub(from) is a time.Duration, which stops at about
// 292 years, so a row's time in a window of centuries was cut there and
// the value disagreed with the compiled query's (a failed verification).
// Within a Duration's range it is exactly to.Sub(from).Seconds().
func seconds(from, to time.Time) float64 {
	sec, nsec := to.Unix()-from.Unix(), int64(to.Nanosecond()-from.Nanosecond())
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	return float64(sec) + float64(nsec)/1e9
}
