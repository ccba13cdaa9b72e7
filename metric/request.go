package metric

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/provenant/provenant/catalog"
)

// Request asks for one metric's table: its value per group of Dimensions
// (and per Grain bucket of its time dimension), over the rows of the
// half-open window [Start, End) that meet Filters and Scope.
type Request struct {
	Metric     string
	Dimensions []string
	Filters    []Filter
	Start, End time.Time
	Grain      string // catalog.GrainNone when empty
	Order      Order
	Limit      int // at most MaxLimit; 0 for every row
	// Scope is what the caller may see; the zero Scope sees nothing (All
	// sees everything).
	Scope Scope
}

// Filter keeps the rows whose Dimension meets Op against Values (one value
// for eq and ne, one or more for in and not_in). A row whose dimension is
// empty (null: a reference row missing) meets no filter.
type Filter struct {
	Dimension string
	Op        string
	Values    []string
}

// Order sorts the table: By is "value", a requested dimension, or "" for
// the default (the dimensions, then the bucket, ascending). Empty values
// sort last either way.
type Order struct {
	By   string
	Desc bool
}

// OrderValue orders a table by its metric value.
const OrderValue = "value"

// Scope is which values of the catalog's scope entity a caller may see.
type Scope struct {
	all    bool
	values []string
}

// All is the scope of a caller who may see everything.
func All() Scope { return Scope{all: true} }

// Only is the scope of a caller who may see the listed values; none sees
// nothing.
func Only(values ...string) Scope { return Scope{values: slices.Clone(values)} }

// IsAll reports whether s sees everything.
func (s Scope) IsAll() bool { return s.all }

// Values returns the values s lists.
func (s Scope) Values() []string { return slices.Clone(s.values) }

func (s Scope) allows(v *string) bool {
	return s.all || v != nil && slices.Contains(s.values, *v)
}

// Ops returns the closed set of filter operators.
func Ops() []string { return []string{"eq", "ne", "in", "not_in"} }

// Limits of a request.
const (
	MaxLimit       = 10000
	MaxDimensions  = 8
	MaxFilters     = 16
	MaxValues      = 256 // per filter, and in a scope
	MaxValueLength = 256 // bytes
	// MaxBuckets bounds the buckets of a cumulative metric's window at
	// its grain: its table has a row for every bucket of every group.
	MaxBuckets = 1000
	// MaxRows bounds the rows of a metric's table (Query.Run): a
	// request whose groups are more is refused (ErrTooManyRows), not
	// answered with a table too large to check, phrase or send. The
	// number of groups is known only once the query runs; a request
	// with a limit (at most MaxLimit) stays within it.
	MaxRows = MaxLimit
)

// ErrTooManyRows is Query.Run's error when the metric's table has more
// than MaxRows rows: the request's caller asked for more groups than an
// answer carries (fewer dimensions, a filter, a shorter window, a
// coarser grain or a limit would answer).
var ErrTooManyRows = errors.New("metric table has too many rows")

// ErrInvalidRequest is matched by every *RequestError.
var ErrInvalidRequest = errors.New("invalid metric request")

// RequestError names the request field that is wrong and why. It never
// repeats a value from the request: Field is a declared name or a
// position ("filters[2].values[0]").
type RequestError struct {
	Field  string
	Reason string
}

func (e *RequestError) Error() string { return "metric request " + e.Field + ": " + e.Reason }

// Is reports whether target is ErrInvalidRequest.
func (e *RequestError) Is(target error) bool { return target == ErrInvalidRequest }

func reqErr(field, format string, args ...any) error {
	return &RequestError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// resolved is a request checked against its catalog.
type resolved struct {
	cat      *catalog.Catalog
	req      Request
	metric   *catalog.Metric
	model    *catalog.SemanticModel
	ds       *catalog.Dataset
	dims     []*catalog.Dimension
	filters  []resolvedFilter
	measures []*catalog.Measure
	grain    string
	scope    *catalog.Entity
	time     *catalog.Dimension
}

type resolvedFilter struct {
	dim *catalog.Dimension
	Filter
}

// resolve checks req against cat: every name is declared and allowed,
// every operator and value fits, the window is a non-empty half-open
// interval. Errors are *RequestError.
func resolve(cat *catalog.Catalog, req Request) (*resolved, error) {
	m := cat.Metric(req.Metric)
	if m == nil {
		return nil, reqErr("metric", "is not a declared metric")
	}
	r := &resolved{cat: cat, req: req, metric: m, grain: req.Grain}
	if r.model = cat.ModelOf(m); r.model == nil {
		return nil, reqErr("metric", "reads no declared measure (is the catalog valid?)")
	}
	if r.ds = cat.Dataset(r.model.Dataset.Value); r.ds == nil {
		return nil, reqErr("metric", "reads no declared dataset (is the catalog valid?)")
	}
	r.time = r.model.Dimension(m.TimeDimension.Value)
	if r.time == nil {
		return nil, reqErr("metric", "has no time dimension (is the catalog valid?)")
	}
	for _, n := range cat.MeasuresOf(m) {
		x, _ := cat.Measure(n)
		r.measures = append(r.measures, x)
	}
	r.scope = r.ds.Entity(cat.ScopeEntity.Value)
	allowed := make([]string, len(m.Dimensions))
	for i, d := range m.Dimensions {
		allowed[i] = d.Value
	}
	if len(req.Dimensions) > MaxDimensions {
		return nil, reqErr("dimensions", "lists more than %d", MaxDimensions)
	}
	for i, n := range req.Dimensions {
		f := fmt.Sprintf("dimensions[%d]", i)
		if !slices.Contains(allowed, n) {
			return nil, reqErr(f, "is not a dimension of metric %s (want one of %s)", m.Name.Value, strings.Join(allowed, ", "))
		}
		if slices.Contains(req.Dimensions[:i], n) {
			return nil, reqErr(f, "repeats an earlier dimension")
		}
		r.dims = append(r.dims, r.model.Dimension(n))
	}
	if r.grain == "" {
		r.grain = catalog.GrainNone
	}
	rank := catalog.GrainRank(r.grain)
	switch {
	case rank < 0:
		return nil, reqErr("grain", "is not one of %s", strings.Join(catalog.Grains(), ", "))
	case rank > 0 && m.Grain.Value == catalog.GrainNone:
		return nil, reqErr("grain", "metric %s is not bucketed by time (want none)", m.Name.Value)
	case rank > 0 && rank < catalog.GrainRank(m.Grain.Value):
		return nil, reqErr("grain", "is finer than metric %s's grain %s", m.Name.Value, m.Grain.Value)
	}
	switch {
	case req.End.IsZero():
		// A zero Start is an instant, 0001-01-01T00:00:00Z, the first the
		// wall admits (tool.FirstInstant); a zero End has no window before it.
		return nil, reqErr("window", "wants an end")
	case !req.Start.Before(req.End):
		return nil, reqErr("window", "wants start before end (the window is [start, end))")
	case m.Type.Value == catalog.MetricCumulative && rank > 0 && bucketsOver(req.Start, req.End, r.grain, MaxBuckets):
		return nil, reqErr("window", "spans more than %d %s buckets (a cumulative metric has a row for each; want a shorter window or a coarser grain)", MaxBuckets, r.grain)
	}
	if len(req.Filters) > MaxFilters {
		return nil, reqErr("filters", "lists more than %d", MaxFilters)
	}
	for i, f := range req.Filters {
		field := fmt.Sprintf("filters[%d]", i)
		if !slices.Contains(allowed, f.Dimension) {
			return nil, reqErr(field+".dimension", "is not a dimension of metric %s (want one of %s)", m.Name.Value, strings.Join(allowed, ", "))
		}
		d := r.model.Dimension(f.Dimension)
		switch f.Op {
		case "eq", "ne":
			if len(f.Values) != 1 {
				return nil, reqErr(field+".values", "operator %s wants exactly one value", f.Op)
			}
		case "in", "not_in":
			if len(f.Values) == 0 || len(f.Values) > MaxValues {
				return nil, reqErr(field+".values", "operator %s wants 1 to %d values", f.Op, MaxValues)
			}
		default:
			return nil, reqErr(field+".op", "is not one of %s", strings.Join(Ops(), ", "))
		}
		check, err := valueCheck(r.ds, d)
		if err != nil {
			return nil, err
		}
		for j, v := range f.Values {
			if !utf8.ValidString(v) || len(v) > MaxValueLength || v == "" {
				return nil, reqErr(fmt.Sprintf("%s.values[%d]", field, j), "wants non-empty UTF-8 of at most %d bytes", MaxValueLength)
			}
			if reason := check(v); reason != "" {
				return nil, reqErr(fmt.Sprintf("%s.values[%d]", field, j), "%s", reason)
			}
		}
		r.filters = append(r.filters, resolvedFilter{d, f})
	}
	switch by := req.Order.By; {
	case by == "" || by == OrderValue:
	case slices.Contains(req.Dimensions, by):
	default:
		return nil, reqErr("order", "wants value or a requested dimension")
	}
	switch {
	case req.Limit < 0 || req.Limit > MaxLimit:
		return nil, reqErr("limit", "wants 0 (every row) to %d", MaxLimit)
	case req.Limit > 0 && req.Order.By != OrderValue:
		// A cut by dimension order would depend on the database's
		// collation; a cut by value does not.
		return nil, reqErr("limit", "wants order by value (the top or bottom rows)")
	}
	if !req.Scope.all {
		if len(req.Scope.values) > MaxValues {
			return nil, reqErr("scope", "lists more than %d values", MaxValues)
		}
		if r.scope == nil {
			return nil, reqErr("scope", "the metric's dataset has no scope entity")
		}
	}
	return r, nil
}

// bucketsOver reports whether the window [start, end) overlaps more than
// max buckets of grain, counting no further than max+1.
func bucketsOver(start, end time.Time, grain string, max int) bool {
	n := 0
	for b := truncate(start, grain); b.Before(end); b = nextBucket(b, grain) {
		if n++; n > max {
			return true
		}
	}
	return false
}

// valueCheck returns the check of a filter value of d: one of the declared
// values of its attribute (or the dimension's own values), or a match of
// its entity's id pattern; "" when it fits, else the reason.
func valueCheck(ds *catalog.Dataset, d *catalog.Dimension) (func(string) string, error) {
	oneOf := func(vs []catalog.Ref) func(string) string {
		return func(v string) string {
			for _, x := range vs {
				if x.Value == v {
					return ""
				}
			}
			return "is not a declared value of dimension " + d.Name.Value
		}
	}
	if d.Entity.Value != "" {
		if d.Values != nil {
			return oneOf(d.Values), nil
		}
		return func(string) string { return "" }, nil
	}
	for _, a := range ds.Attributes {
		if a.Column.Value == d.Column.Value && a.Enumerated() {
			return oneOf(a.Values), nil
		}
	}
	for _, e := range ds.Entities {
		if e.Column.Value == d.Column.Value {
			re, err := regexp.Compile(e.Pattern.Value)
			if err != nil {
				return nil, fmt.Errorf("compile pattern of entity %s: %w", e.Name.Value, err)
			}
			return func(v string) string {
				if !re.MatchString(v) {
					return "does not match the id pattern of " + e.Name.Value
				}
				return ""
			}, nil
		}
	}
	return nil, reqErr("filters", "dimension %s has no declared values (is the catalog valid?)", d.Name.Value)
}

// kinds of row sets a measure reads.
const (
	kindRows   = iota // every row in the window
	kindLatest        // each series' latest row before the window's end
	kindSeq           // rows with their series' neighbours: duration, entries
)

func kindOf(m *catalog.Measure) int {
	switch {
	case m.SampleOf() == catalog.SampleLatest:
		return kindLatest
	case m.Agg.Value == catalog.AggDuration || m.Agg.Value == catalog.AggEntries:
		return kindSeq
	}
	return kindRows
}

// zeroWhenEmpty reports whether a measure over no rows is 0 (counts, sums,
// durations) rather than no value (avg, min, max).
func zeroWhenEmpty(m *catalog.Measure) bool {
	switch m.Agg.Value {
	case catalog.AggAvg, catalog.AggMin, catalog.AggMax:
		return false
	}
	return true
}

// predicateOf returns the measure's filter predicate, or nil for none.
func predicateOf(ds *catalog.Dataset, m *catalog.Measure) *catalog.Predicate {
	if m.Filter != nil {
		return m.Filter
	}
	if m.Condition.Value != "" {
		if c := ds.Condition(m.Condition.Value); c != nil {
			return &c.Predicate
		}
	}
	return nil
}

// Check checks req against cat as Compile and Rederive do, without
// rendering SQL: the verdict a wall gives a proposed call. It returns nil
// or a *RequestError.
func Check(cat *catalog.Catalog, req Request) error {
	_, err := resolve(cat, req)
	return err
}
