package shape

// A dataset of at most Options.MemoryRows rows can be read once into
// memory when the engine is built and answered there: for a small,
// immutable dataset (the retail demo, a store file) the database's fixed
// cost per query (DuckDB takes most of a millisecond to bind, plan and run
// the smallest one) is most of a call. The two formulations stay
// independent, as in SQL:
//
//   - the executor reads indexes built at load: each series' rows sorted
//     by time then key, searched for the latest at or before an instant
//     (binary search), and each fixed entity value's rows sorted by time,
//     searched for a window's bounds;
//   - the resolver uses none of them: it scans rows in the order they
//     were read, keeping each series' greatest (time, key) at or before
//     the instant, or counting the rows inside the window, then judges
//     every asserted key's row, found by key, with the same judgement as
//     on SQL (judgeKeys). Which rows it scans comes from groupings of its
//     own (resolverIndex), built by a pass of their own and never sorted:
//     a named series' rows, a fixed entity value's rows, or that value's
//     rows in the hours a window covers; a store-wide question scans
//     every row. A point question so costs the rows of its series, not
//     every row of the dataset.
//
// The rows are those of the snapshot the engine read them in; the
// dataset's data version is that snapshot's. An import after New is not
// seen, so MemoryRows is for data that does not change while served.

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
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/dbtx"
)

// memData is one dataset held in memory, column by column.
type memData struct {
	keys  []string
	times []int64                      // Unix nanoseconds, UTC
	str   map[string]*strColumn        // entity and enumerated columns
	num   map[string][]sql.NullFloat64 // numeric columns
	ints  map[string][]sql.NullInt64   // integer attributes, exactly
	// series is each row's series ordinal; nSeries how many there are.
	series  []int32
	nSeries int
	// The executor's indexes: each series' rows, and each entity
	// column's rows by value, sorted by time then key.
	bySeries [][]int32
	byValue  map[string]map[string][]int32
	// byValueTimes: each byValue list's rows' times, in its order, so
	// that a window's bounds are searched in contiguous memory.
	byValueTimes map[string]map[string][]int64
	// byKey: the resolver's lookup of a key's rows.
	byKey map[string][]int32
	// res: the resolver's groupings of the rows.
	res resolverIndex
	// window: Options.MemoryWindow.
	window  string
	version string
}

// resolverIndex holds the resolver's groupings of a memData's rows, each
// group's rows in the order they were read (ascending row numbers), never
// sorted by time or key, so that a fault in the executor's sorted indexes
// and searches does not reach the resolver's re-derivation.
type resolverIndex struct {
	// series: each series' rows, by seriesKey of its values' codes.
	series map[string][]int32
	// values: for each entity column, each value's rows, by code.
	values map[string]map[int32][]int32
	// hours: for each entity column, each value's rows in each hour
	// (Unix nanoseconds floor-divided by an hour).
	hours map[string]map[hourCode][]int32
}

// hourLookupRows is about how many rows a window's resolver checks in the
// time one hour's lookup in resolverIndex.hours takes.
const hourLookupRows = 8

// hourCode names the rows of one entity value in one hour.
type hourCode struct {
	code int32
	hour int64
}

// hourOf returns the hour, counted from the Unix epoch, that holds the
// instant t (Unix nanoseconds); before the epoch too.
func hourOf(t int64) int64 {
	h := t / int64(time.Hour)
	if t%int64(time.Hour) < 0 {
		h--
	}
	return h
}

// strColumn is a text column, dictionary-encoded: a scan compares
// integers, and the rows hold no pointers for the collector to follow.
type strColumn struct {
	codes []int32  // each row's value's index in dict; -1 for empty (null)
	dict  []string // the distinct values
	index map[string]int32
}

func newStrColumn() *strColumn { return &strColumn{index: map[string]int32{}} }

func (c *strColumn) add(v sql.NullString) {
	if !v.Valid {
		c.codes = append(c.codes, -1)
		return
	}
	code, ok := c.index[v.String]
	if !ok {
		code = int32(len(c.dict))
		c.dict = append(c.dict, v.String)
		c.index[v.String] = code
	}
	c.codes = append(c.codes, code)
}

// at returns row i's value.
func (c *strColumn) at(i int32) sql.NullString {
	code := c.codes[i]
	if code < 0 {
		return sql.NullString{}
	}
	return sql.NullString{String: c.dict[code], Valid: true}
}

// code returns v's code, or -2, which no row has, when no row has v.
func (c *strColumn) code(v string) int32 {
	if code, ok := c.index[v]; ok {
		return code
	}
	return -2
}

// memRow is one row of a memData, read through the accessors the
// predicate and the judgement share with SQL rows.
type memRow struct {
	m *memData
	i int32
}

func (r memRow) strAt(column string) sql.NullString { return r.m.str[column].at(r.i) }

func (r memRow) numAt(column string) sql.NullFloat64 { return r.m.num[column][r.i] }

// rowInto converts a memory row into the row a judgement reads, reusing
// rw's slices.
func (r memRow) rowInto(p *plan, rw row) row {
	strs, nums := p.lookupColumns()
	rw = row{time: time.Unix(0, r.m.times[r.i]).UTC(), cols: p.cols, sv: slices.Grow(rw.sv[:0], len(strs))[:len(strs)], nv: slices.Grow(rw.nv[:0], len(nums))[:len(nums)]}
	for i, c := range strs {
		rw.sv[i] = r.strAt(c)
	}
	for i, c := range nums {
		rw.nv[i] = r.numAt(c)
	}
	return rw
}

// before reports whether row i sorts before row j: time, then key.
func (m *memData) before(i, j int32) bool {
	if m.times[i] != m.times[j] {
		return m.times[i] < m.times[j]
	}
	return m.keys[i] < m.keys[j]
}

func (m *memData) sortRows(rows []int32) {
	slices.SortFunc(rows, func(a, b int32) int {
		switch {
		case m.before(a, b):
			return -1
		case m.before(b, a):
			return 1
		}
		return 0
	})
}

// seriesKey joins a row's series values into one map key; an empty
// (null) value is told apart from every id.
func seriesKey(vals []int32) string {
	var b strings.Builder
	for _, v := range vals {
		b.WriteString(strconv.Itoa(int(v)))
		b.WriteByte(' ')
	}
	return b.String()
}

// loadMemory reads a dataset into memory in one snapshot, unless it holds
// more than limit rows (nil, nil then).
func loadMemory(ctx context.Context, e *Engine, ds *catalog.Dataset, limit int) (*memData, error) {
	tx, err := dbtx.Begin(ctx, e.src.DB, e.src.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("load %s into memory: %w", ds.Name.Value, err)
	}
	defer tx.Rollback()
	rel := relation(ds, e.src)
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+rel).Scan(&n); err != nil {
		return nil, fmt.Errorf("load %s into memory: %w", ds.Name.Value, err)
	}
	if n > int64(limit) {
		return nil, nil
	}
	version, ok := e.src.Versions[ds.Name.Value]
	if !ok {
		var seq sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT MAX("+ident(SeqColumn)+") FROM "+rel).Scan(&seq); err != nil {
			return nil, fmt.Errorf("load %s into memory: %w", ds.Name.Value, err)
		}
		version = fmt.Sprintf("seq:%d", seq.Int64)
	}
	m := &memData{str: map[string]*strColumn{}, num: map[string][]sql.NullFloat64{}, ints: map[string][]sql.NullInt64{},
		byValue: map[string]map[string][]int32{}, byValueTimes: map[string]map[string][]int64{}, byKey: map[string][]int32{}, version: version}
	var strCols, numCols, intCols []string
	for _, en := range ds.Entities {
		strCols = appendNew(strCols, en.Column.Value)
	}
	for _, a := range ds.Attributes {
		switch {
		case a.Enumerated():
			strCols = appendNew(strCols, a.Column.Value)
		default:
			numCols = appendNew(numCols, a.Column.Value)
			if attrKind(a) == fact.KindInteger {
				intCols = appendNew(intCols, a.Column.Value)
			}
		}
	}
	for _, c := range strCols {
		m.str[c] = newStrColumn()
	}
	proj := []string{"CAST(" + ident(ds.Key.Value) + " AS VARCHAR)", ident(ds.Time.Value)}
	for _, c := range strCols {
		proj = append(proj, ident(c))
	}
	for _, c := range numCols {
		proj = append(proj, "CAST("+ident(c)+" AS DOUBLE PRECISION)")
	}
	for _, c := range intCols {
		proj = append(proj, ident(c))
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+strings.Join(proj, ", ")+" FROM "+rel)
	if err != nil {
		return nil, fmt.Errorf("load %s into memory: %w", ds.Name.Value, err)
	}
	defer rows.Close()
	var (
		key sql.NullString
		ts  sql.NullTime
		sv  = make([]sql.NullString, len(strCols))
		nv  = make([]sql.NullFloat64, len(numCols))
		iv  = make([]sql.NullInt64, len(intCols))
	)
	dest := []any{&key, &ts}
	for i := range sv {
		dest = append(dest, &sv[i])
	}
	for i := range nv {
		dest = append(dest, &nv[i])
	}
	for i := range iv {
		dest = append(dest, &iv[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("load %s into memory: %w", ds.Name.Value, err)
		}
		if !key.Valid || !ts.Valid {
			return nil, fmt.Errorf("load %s into memory: a row has no key or no time", ds.Name.Value)
		}
		m.keys = append(m.keys, key.String)
		m.times = append(m.times, ts.Time.UnixNano())
		for i, c := range strCols {
			m.str[c].add(sv[i])
		}
		for i, c := range numCols {
			m.num[c] = append(m.num[c], nv[i])
		}
		for i, c := range intCols {
			m.ints[c] = append(m.ints[c], iv[i])
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load %s into memory: %w", ds.Name.Value, err)
	}
	if len(m.keys) > limit {
		return nil, nil // grew between the count and the read
	}
	m.index(ds)
	var fixed []*catalog.Entity // the entities a tool fixes (At)
	for _, t := range e.cat.Tools {
		if t.Dataset.Value == ds.Name.Value && t.At.Value != "" {
			if en := ds.Entity(t.At.Value); en != nil && !slices.Contains(fixed, en) {
				fixed = append(fixed, en)
			}
		}
	}
	m.res = newResolverIndex(m, ds, fixed)
	return m, nil
}

// index builds the series ordinals and the executor's and resolver's
// indexes.
func (m *memData) index(ds *catalog.Dataset) {
	ordinal := map[string]int32{}
	vals := make([]int32, len(ds.Series))
	series := ds.SeriesEntities()
	m.series = make([]int32, len(m.keys))
	for i := range m.keys {
		for j, en := range series {
			vals[j] = m.str[en.Column.Value].codes[i]
		}
		k := seriesKey(vals)
		o, ok := ordinal[k]
		if !ok {
			o = int32(len(ordinal))
			ordinal[k] = o
			m.bySeries = append(m.bySeries, nil)
		}
		m.series[i] = o
		m.bySeries[o] = append(m.bySeries[o], int32(i))
		m.byKey[m.keys[i]] = append(m.byKey[m.keys[i]], int32(i))
	}
	m.nSeries = len(ordinal)
	for _, rows := range m.bySeries {
		m.sortRows(rows)
	}
	for _, en := range ds.Entities {
		byVal := map[string][]int32{}
		col := m.str[en.Column.Value]
		for i, code := range col.codes {
			if code >= 0 {
				v := col.dict[code]
				byVal[v] = append(byVal[v], int32(i))
			}
		}
		byTime := make(map[string][]int64, len(byVal))
		for v, rows := range byVal {
			m.sortRows(rows)
			times := make([]int64, len(rows))
			for x, i := range rows {
				times[x] = m.times[i]
			}
			byTime[v] = times
		}
		m.byValue[en.Column.Value] = byVal
		m.byValueTimes[en.Column.Value] = byTime
	}
}

// newResolverIndex groups m's rows for the resolver, in one pass of its
// own over the row numbers: by series, and by value and hour for each
// entity a tool fixes.
func newResolverIndex(m *memData, ds *catalog.Dataset, fixed []*catalog.Entity) resolverIndex {
	res := resolverIndex{series: map[string][]int32{}, values: map[string]map[int32][]int32{}, hours: map[string]map[hourCode][]int32{}}
	series := ds.SeriesEntities()
	cols := make([]*strColumn, len(series))
	for j, en := range series {
		cols[j] = m.str[en.Column.Value]
	}
	codes := make([]int32, len(series))
	for i := range int32(len(m.keys)) {
		for j, col := range cols {
			codes[j] = col.codes[i]
		}
		k := seriesKey(codes)
		res.series[k] = append(res.series[k], i)
	}
	for _, en := range fixed {
		c := en.Column.Value
		if _, done := res.values[c]; done {
			continue
		}
		col := m.str[c]
		byCode := map[int32][]int32{}
		byHour := map[hourCode][]int32{}
		for i, code := range col.codes {
			byCode[code] = append(byCode[code], int32(i))
			hc := hourCode{code, hourOf(m.times[i])}
			byHour[hc] = append(byHour[hc], int32(i))
		}
		res.values[c], res.hours[c] = byCode, byHour
	}
	return res
}

// ordinalOf returns the series ordinal of the call's series values, or
// -1 when no row has them.
func (m *memData) ordinalOf(p *plan, vals []string) int32 {
	// The series' rows all share the values: find them through the first
	// series entity's rows by value, then compare the rest.
	first := p.series[0].Column.Value
	for _, i := range m.byValue[first][vals[0]] {
		same := true
		for j, en := range p.series[1:] {
			if v := m.str[en.Column.Value].at(i); !v.Valid || v.String != vals[j+1] {
				same = false
				break
			}
		}
		if same {
			return m.series[i]
		}
	}
	return -1
}

// latestIn returns the last of rows (sorted by time then key) at or
// before t, or -1.
func (m *memData) latestIn(rows []int32, t int64) int32 {
	n, _ := slices.BinarySearchFunc(rows, t, func(i int32, t int64) int {
		if m.times[i] <= t {
			return -1
		}
		return 1
	})
	if n == 0 {
		return -1
	}
	return rows[n-1]
}

// memScopeAllows reports whether the call's scope sees a row, as
// scopeSQL decides in SQL.
func (p *plan) memScopeAllows(r memRow, s Scope) bool {
	switch {
	case s.IsAll():
		return true
	case p.scope == nil || len(s.values) == 0:
		return false
	}
	v := r.strAt(p.scope.Column.Value)
	return v.Valid && slices.Contains(s.values, v.String)
}

// memValue is row i's value of the latest_value attribute.
func (p *plan) memValue(r memRow) (fact.Value, bool, error) {
	a := p.attr
	switch attrKind(a) {
	case fact.KindText:
		v := r.strAt(a.Column.Value)
		return fact.Text(v.String), v.Valid, nil
	case fact.KindInteger:
		v := r.m.ints[a.Column.Value][r.i]
		return fact.Integer(v.Int64, a.Unit.Value), v.Valid, nil
	}
	v := r.numAt(a.Column.Value)
	if !v.Valid {
		return fact.Value{}, false, nil
	}
	f, err := fact.Number(v.Float64, a.Unit.Value)
	return f, true, err
}

// memExecute is the executor's formulation over the in-memory indexes.
func (s *Snapshot) memExecute(p *plan, c Call) (Result, error) {
	m := p.mem
	var (
		v    fact.Value
		keys []string
		err  error
	)
	switch p.tool.Shape.Value {
	case catalog.ShapeLatestValue:
		v, keys, err = p.memExecLatest(c)
	case catalog.ShapeCountEntitiesWhere, catalog.ShapeListEntitiesInState:
		v, keys, err = p.memExecEntities(c)
	case catalog.ShapeCountRowsInWindow:
		v, keys, err = p.memExecWindow(c)
	default:
		err = ErrUnknownTool
	}
	if err != nil {
		var ae *ArgError
		if errors.As(err, &ae) || errors.Is(err, ErrUnknownTool) {
			return Result{}, err
		}
		return Result{}, fmt.Errorf("execute %s: %w", p.tool.Name.Value, err)
	}
	s.versions[p.ds.Name.Value] = m.version
	keys = distinctSorted(keys)
	r := Result{Tool: p.tool.Name.Value, Value: v, Rows: len(keys), Digest: Digest(keys), DataVersion: m.version}
	if !s.listAll && len(keys) > s.e.maxKeys {
		keys = keys[:s.e.maxKeys:s.e.maxKeys]
	}
	r.Keys = keys
	return r, nil
}

func (p *plan) memExecLatest(c Call) (fact.Value, []string, error) {
	m := p.mem
	asOf, err := instant(c, "as_of")
	if err != nil {
		return fact.Value{}, nil, err
	}
	vals, err := p.seriesArgs(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	none := fact.NoObservation(attrKind(p.attr))
	o := m.ordinalOf(p, vals)
	if o < 0 {
		return none, nil, nil
	}
	i := m.latestIn(m.bySeries[o], asOf.UnixNano())
	if i < 0 {
		return none, nil, nil
	}
	r := memRow{m, i}
	if !p.memScopeAllows(r, c.Scope) {
		return none, nil, nil
	}
	v, ok, err := p.memValue(r)
	if err != nil {
		return fact.Value{}, nil, err
	}
	if !ok {
		return fact.Value{}, nil, fmt.Errorf("latest row has no value for attribute %s", p.attr.Name.Value)
	}
	return v, []string{m.keys[i]}, nil
}

func (p *plan) memExecEntities(c Call) (fact.Value, []string, error) {
	m := p.mem
	asOf, err := instant(c, "as_of")
	if err != nil {
		return fact.Value{}, nil, err
	}
	pr, err := p.condition(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	var atValue string
	if p.at != nil {
		if atValue, err = arg(c, p.at.Column.Value); err != nil {
			return fact.Value{}, nil, err
		}
	}
	t := asOf.UnixNano()
	match, compiled := p.memMatch(pr)
	var keys, ids []string
	for _, rows := range m.bySeries {
		i := m.latestIn(rows, t)
		if i < 0 {
			continue
		}
		r := memRow{m, i}
		if p.at != nil {
			if v := r.strAt(p.at.Column.Value); !v.Valid || v.String != atValue {
				continue
			}
		}
		if !p.memScopeAllows(r, c.Scope) || compiled && !match(i) || !compiled && !meetsRow(p, pr, r) {
			continue
		}
		id := r.strAt(p.entity.Column.Value)
		if !id.Valid {
			return fact.Value{}, nil, fmt.Errorf("a row has no %s", p.entity.Name.Value)
		}
		keys = append(keys, m.keys[i])
		ids = append(ids, id.String)
	}
	return p.entityValue(ids), keys, nil
}

func (p *plan) memExecWindow(c Call) (fact.Value, []string, error) {
	m := p.mem
	start, end, atValue, pr, err := p.windowArgs(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	rows := m.byValue[p.at.Column.Value][atValue]
	times := m.byValueTimes[p.at.Column.Value][atValue]
	lo, hi := start.UnixNano(), end.UnixNano()
	// The first row at or after each bound (the first of equal times).
	from, _ := slices.BinarySearch(times, lo)
	to, _ := slices.BinarySearch(times, hi)
	match, compiled := p.memMatch(pr)
	var keys []string
	for _, i := range rows[from:max(from, to)] {
		r := memRow{m, i}
		if !p.memScopeAllows(r, c.Scope) {
			continue
		}
		if compiled && match(i) || !compiled && meetsRow(p, pr, r) {
			keys = append(keys, m.keys[i])
		}
	}
	return fact.RowCount(len(keys)), keys, nil
}

// memMatch compiles pr for the executor into a test of a row's
// dictionary codes, when every leaf of it names an enumerated attribute:
// a table of the codes each leaf accepts, made once per call, where
// meetsRow (which the resolver keeps) finds the column and compares the
// text of every row. compiled is false when a leaf is numeric.
func (p *plan) memMatch(pr *catalog.Predicate) (match func(i int32) bool, compiled bool) {
	if pr == nil {
		return func(int32) bool { return true }, true
	}
	// As meetsRow: Any before All.
	if subs := pr.Any; len(subs) > 0 || len(pr.All) > 0 {
		anyOf := len(subs) > 0
		if !anyOf {
			subs = pr.All
		}
		fs := make([]func(int32) bool, len(subs))
		for j, sub := range subs {
			f, ok := p.memMatch(sub)
			if !ok {
				return nil, false
			}
			fs[j] = f
		}
		return func(i int32) bool {
			for _, f := range fs {
				if f(i) == anyOf {
					return anyOf
				}
			}
			return !anyOf
		}, true
	}
	a := p.ds.Attribute(pr.Attribute.Value)
	none := func(int32) bool { return false }
	if a == nil || pr.Value == nil {
		return none, true
	}
	if !a.Enumerated() {
		return nil, false
	}
	col := p.mem.str[a.Column.Value]
	if col == nil {
		return nil, false
	}
	var negate bool
	switch pr.Op.Value {
	case "eq", "in":
	case "ne", "not_in":
		negate = true
	default:
		return none, true
	}
	accept := make([]bool, len(col.dict))
	for code, v := range col.dict {
		in := slices.ContainsFunc(pr.Value.Items, func(x catalog.Scalar) bool { return x.Str == v })
		accept[code] = in != negate
	}
	codes := col.codes
	// A null (code -1) meets no condition, as in meetsRow.
	return func(i int32) bool { c := codes[i]; return c >= 0 && accept[c] }, true
}

// memResolve re-derives a call by scanning the rows its own groupings
// pick (resolverIndex), without the executor's indexes, and judges r as
// Resolve does.
func (s *Snapshot) memResolve(ctx context.Context, p *plan, c Call, r Result) (Verdict, error) {
	var (
		v    fact.Value
		keys []string
		err  error
	)
	switch p.tool.Shape.Value {
	case catalog.ShapeCountRowsInWindow:
		v, keys, err = p.memResolveWindow(c)
	default:
		v, keys, err = p.memResolveLatest(c)
	}
	if err != nil {
		return Verdict{}, err
	}
	// Every asserted key's rows are found by key and judged.
	return s.verdict(ctx, p, c, r, v, keys, true, &memKnown{p: p})
}

// memKnown finds an asserted key's rows by key as it is judged (byKey),
// as a rowMap of them would hold them, without building one per call: a
// key of two rows or more backs nothing. The row it judges is rebuilt in
// one place, which judgeKeys's judgement does not keep.
type memKnown struct {
	p  *plan
	rw row
}

func (k *memKnown) has(_ int, key string) bool { return len(k.p.mem.byKey[key]) > 0 }

func (k *memKnown) backs(_ int, key string, judge func(row) bool) bool {
	rows := k.p.mem.byKey[key]
	if len(rows) != 1 {
		return false
	}
	k.rw = memRow{k.p.mem, rows[0]}.rowInto(k.p, k.rw)
	return judge(k.rw)
}

// memResolveLatest: one pass over the rows it scans (a named series'
// rows, a fixed series value's rows, or every row) at or before as_of
// keeps each series' greatest (time, key) and how many rows share it;
// those rows are the latest, then the call's filter, fixed entity and
// scope pick among them.
func (p *plan) memResolveLatest(c Call) (fact.Value, []string, error) {
	m := p.mem
	asOf, err := instant(c, "as_of")
	if err != nil {
		return fact.Value{}, nil, err
	}
	t := asOf.UnixNano()
	var (
		vals []string
		pr   *catalog.Predicate
		at   string
	)
	if p.tool.Shape.Value == catalog.ShapeLatestValue {
		if vals, err = p.seriesArgs(c); err != nil {
			return fact.Value{}, nil, err
		}
	} else {
		if pr, err = p.condition(c); err != nil {
			return fact.Value{}, nil, err
		}
		if p.at != nil {
			if at, err = arg(c, p.at.Column.Value); err != nil {
				return fact.Value{}, nil, err
			}
		}
	}
	// A slot per series, or one when the call names a series: every row
	// it admits is of that series (a point call then allocates three
	// words, not three of every series' words).
	slots := m.nSeries
	if vals != nil {
		slots = 1
	}
	best := make([]int32, slots)
	bestT := make([]int64, slots) // best's time, read without a jump
	ties := make([]int32, slots)  // rows equal to best in time and key
	for i := range best {
		best[i] = -1
	}
	// The series' columns and the codes of the call's values, when the
	// call names one series.
	var (
		seriesCols [][]int32
		want       []int32
	)
	if vals != nil {
		for j, en := range p.series {
			col := m.str[en.Column.Value]
			seriesCols = append(seriesCols, col.codes)
			want = append(want, col.code(vals[j]))
		}
	}
	// The rows to scan: a named series' own; a fixed entity value's, when
	// that entity is one of the series' (so that every row of a series
	// holding the value holds it; a series whose rows change value must
	// be read whole for its latest); or every row.
	var (
		scan []int32
		all  = true
	)
	switch {
	case vals != nil:
		scan, all = m.res.series[seriesKey(want)], false
	case p.at != nil && slices.ContainsFunc(p.series, func(en *catalog.Entity) bool { return en.Column.Value == p.at.Column.Value }):
		scan, all = m.res.values[p.at.Column.Value][m.str[p.at.Column.Value].code(at)], false
	}
	n := len(m.keys)
	if !all {
		n = len(scan)
	}
rows:
	for x := range int32(n) {
		i := x
		if !all {
			i = scan[x]
		}
		if m.times[i] > t {
			continue
		}
		for j, col := range seriesCols {
			if col[i] != want[j] {
				continue rows
			}
		}
		o, ti := m.series[i], m.times[i]
		if slots == 1 {
			o = 0
		}
		switch b := best[o]; {
		case b < 0 || ti > bestT[o] || ti == bestT[o] && m.keys[i] > m.keys[b]:
			best[o], bestT[o], ties[o] = i, ti, 1
		case ti == bestT[o] && m.keys[i] == m.keys[b]:
			ties[o]++
		}
	}
	var keys, ids []string
	var value fact.Value
	if p.tool.Shape.Value == catalog.ShapeLatestValue {
		value = fact.NoObservation(attrKind(p.attr))
	}
	for o, b := range best {
		if b < 0 {
			continue
		}
		// Every row equal to the best is a latest row: a key that is not
		// unique stays visible.
		latest := []int32{b}
		if ties[o] > 1 {
			latest = latest[:0]
			for _, i := range p.mem.byKey[m.keys[b]] {
				if m.series[i] == m.series[b] && m.times[i] == m.times[b] {
					latest = append(latest, i)
				}
			}
		}
		for _, i := range latest {
			r := memRow{m, i}
			if !p.memScopeAllows(r, c.Scope) {
				continue
			}
			if p.tool.Shape.Value == catalog.ShapeLatestValue {
				v, ok, err := p.memValue(r)
				if err != nil {
					return fact.Value{}, nil, err
				}
				if ok {
					value = v
				}
				keys = append(keys, m.keys[i])
				continue
			}
			if p.at != nil {
				if v := r.strAt(p.at.Column.Value); !v.Valid || v.String != at {
					continue
				}
			}
			if !meetsRow(p, pr, r) {
				continue
			}
			id := r.strAt(p.entity.Column.Value)
			if !id.Valid {
				continue
			}
			keys = append(keys, m.keys[i])
			ids = append(ids, id.String)
		}
	}
	if p.tool.Shape.Value == catalog.ShapeLatestValue {
		if len(keys) > 1 {
			value = fact.Value{Kind: value.Kind, Unit: value.Unit, Text: "(ambiguous)", Observed: true}
		}
		return value, keys, nil
	}
	return p.entityValue(ids), keys, nil
}

// memResolveWindow: one pass over the fixed value's rows, hour by hour
// or all of them, counts those meeting the condition with start <= time
// < end.
func (p *plan) memResolveWindow(c Call) (fact.Value, []string, error) {
	m := p.mem
	start, end, at, pr, err := p.windowArgs(c)
	if err != nil {
		return fact.Value{}, nil, err
	}
	lo, hi := start.UnixNano(), end.UnixNano()
	atCol := m.str[p.at.Column.Value]
	atCode := atCol.code(at)
	var keys []string
	if lo >= hi {
		return fact.RowCount(0), nil, nil
	}
	// The rows of the fixed value in each hour the window touches, or all
	// of the value's rows when they are few beside the hours (an hour's
	// lookup costs about as much as checking several rows).
	valueRows := m.res.values[p.at.Column.Value][atCode]
	first, last := hourOf(lo), hourOf(hi-1)
	byValue := (last-first+1)*hourLookupRows >= int64(len(valueRows))
	switch m.window {
	case MemoryWindowHours:
		byValue = false
	case MemoryWindowValue:
		byValue = true
	}
	if byValue {
		keys = p.memWindowKeys(c, pr, valueRows, lo, hi, atCol, atCode, keys)
	} else {
		hours := m.res.hours[p.at.Column.Value]
		for h := first; h <= last; h++ {
			keys = p.memWindowKeys(c, pr, hours[hourCode{atCode, h}], lo, hi, atCol, atCode, keys)
		}
	}
	return fact.RowCount(len(keys)), keys, nil
}

// memWindowKeys appends to keys those of rows with lo <= time < hi, the
// fixed value, the condition and the scope.
func (p *plan) memWindowKeys(c Call, pr *catalog.Predicate, rows []int32, lo, hi int64, atCol *strColumn, atCode int32, keys []string) []string {
	m := p.mem
	for _, i := range rows {
		if t := m.times[i]; t < lo || t >= hi {
			continue
		}
		if atCol.codes[i] != atCode {
			continue
		}
		r := memRow{m, i}
		if !p.memScopeAllows(r, c.Scope) || !meetsRow(p, pr, r) {
			continue
		}
		keys = append(keys, m.keys[i])
	}
	return keys
}
