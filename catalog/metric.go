package catalog

// The governed metric layer, shaped like dbt MetricFlow: a semantic model
// over one dataset declares dimensions (categorical and time, each from a
// column of the dataset or of an entity's reference table) and measures
// (aggregations of the dataset's rows); metrics are built from measures.
// Nothing here is SQL: package metric compiles a request over these
// declarations into SQL, and re-derives the same table in Go.

// SemanticModel is the dimensions and measures over one dataset.
type SemanticModel struct {
	Pos        Pos
	Name       Ref
	Dataset    Ref
	Dimensions []*Dimension
	Measures   []*Measure
}

// Dimension is what a metric may be grouped or filtered by: a categorical
// column (an entity's or an enumerated attribute's column of the dataset,
// or, with Entity, a column of that entity's reference table, joined on
// its id) or the dataset's time column (Type time), bucketed by a grain.
type Dimension struct {
	Pos    Pos
	Name   Ref
	Type   Ref // DimCategorical (the default) or DimTime
	Column Ref
	// Entity names the entity whose reference table holds Column; empty
	// for a column of the dataset itself.
	Entity Ref
	// Values are a reference column's declared values (the wall checks a
	// filter's values against them); optional. A dataset column's values
	// are its attribute's or its entity's pattern.
	Values      []Ref
	Description Ref
}

// Measure is one aggregation over the dataset's rows: Agg of Column over
// the rows that meet the measure's filter (Condition, a declared condition
// of the dataset, or Filter, a predicate written in place; at most one)
// and the request's scope, filters and window.
type Measure struct {
	Pos       Pos
	Name      Ref
	Agg       Ref
	Column    Ref // sum, avg, min, max: a numeric attribute's column; count_distinct: an entity's or attribute's
	Condition Ref
	Filter    *Predicate
	// Sample is which rows the measure reads: SampleRows (every row in the
	// window, the default) or SampleLatest (each series' latest row before
	// the window's end: the state as of that instant).
	Sample Ref
}

// Metric is one governed metric.
type Metric struct {
	Pos  Pos
	Name Ref
	Type Ref // MetricSimple, MetricRatio, MetricDerived, MetricCumulative
	// Definition is one sentence, shown to people and to the model.
	Definition Ref
	Owner      Ref
	Unit       Ref
	Domain     *Domain
	// Grain is the finest time grain a request may bucket by (GrainNone
	// for a metric that is not bucketed: an as-of or duration metric).
	Grain         Ref
	TimeDimension Ref
	Dimensions    []Ref // the dimensions a request may group and filter by
	Measure       Ref   // simple, cumulative
	Numerator     Ref   // ratio
	Denominator   Ref   // ratio
	Expr          Ref   // derived: an expression over other metrics
	// Tolerance is the largest relative difference between the compiled
	// query's value and its re-derivation that still agrees; DefaultTolerance
	// when unset.
	Tolerance *Scalar
	// Fixture is a file, relative to the catalog's, holding a small
	// dataset and the metric's hand-computed value over it.
	Fixture Ref
	// Phrases are the words people name the metric with ("availability",
	// "uptime"): the model-free parser reads a question holding one as
	// asking for the metric. Unique across the catalog's metrics.
	Phrases []Ref

	// Expression is Expr parsed (derived metrics of a valid catalog).
	Expression *Expr
}

// Domain is the closed range a metric's values lie in; either bound may be
// absent.
type Domain struct {
	Pos      Pos
	Min, Max *Scalar
}

// DefaultTolerance is a metric's tolerance when it declares none: the
// relative difference two float computations of one aggregate may show.
const DefaultTolerance = 1e-9

// Dimension types.
const (
	DimCategorical = "categorical"
	DimTime        = "time"
)

// Aggregations of a measure.
const (
	AggSum           = "sum"
	AggCount         = "count"
	AggCountDistinct = "count_distinct"
	AggAvg           = "avg"
	AggMin           = "min"
	AggMax           = "max"
	// AggDuration is the time, in seconds, each series spends in rows
	// meeting the filter: a row holds from its time to the next row of its
	// series (or the window's end), clipped to the window.
	AggDuration = "duration"
	// AggEntries counts the rows in the window that meet the filter when
	// the series' previous row does not (or there is none): entries into
	// a state, such as faults, counted once however often they repeat.
	AggEntries = "entries"
)

// Samples of a measure.
const (
	SampleRows   = "rows"
	SampleLatest = "latest"
)

// Metric types.
const (
	MetricSimple     = "simple"
	MetricRatio      = "ratio"
	MetricDerived    = "derived"
	MetricCumulative = "cumulative"
)

// Grains a request may bucket time by.
const (
	GrainNone  = "none"
	GrainDay   = "day"
	GrainWeek  = "week"
	GrainMonth = "month"
)

// Aggs returns the closed set of measure aggregations.
func Aggs() []string {
	return []string{AggSum, AggCount, AggCountDistinct, AggAvg, AggMin, AggMax, AggDuration, AggEntries}
}

// MetricTypes returns the closed set of metric types.
func MetricTypes() []string {
	return []string{MetricSimple, MetricRatio, MetricDerived, MetricCumulative}
}

// Grains returns the closed set of grains, finest first after none.
func Grains() []string { return []string{GrainNone, GrainDay, GrainWeek, GrainMonth} }

// GrainRank orders grains from none (0) to month (3); -1 for an unknown one.
func GrainRank(g string) int {
	for i, x := range Grains() {
		if x == g {
			return i
		}
	}
	return -1
}

// MetricUnits returns the closed set of metric units: the attribute units,
// and share (a fraction of one, 0 to 1) and per_hour (a rate).
func MetricUnits() []string { return append(Units(), "share", "per_hour") }

// Additive reports whether a measure's values add up across groups and
// buckets (a cumulative metric sums them).
func (m *Measure) Additive() bool {
	switch m.Agg.Value {
	case AggSum, AggCount, AggDuration, AggEntries:
		return true
	}
	return false
}

// SampleOf returns the measure's sample, SampleRows when unset.
func (m *Measure) SampleOf() string {
	if m.Sample.Value == "" {
		return SampleRows
	}
	return m.Sample.Value
}

// TypeOf returns the dimension's type, DimCategorical when unset.
func (d *Dimension) TypeOf() string {
	if d.Type.Value == "" {
		return DimCategorical
	}
	return d.Type.Value
}

// ToleranceOf returns the metric's tolerance.
func (m *Metric) ToleranceOf() float64 {
	if m.Tolerance == nil {
		return DefaultTolerance
	}
	return m.Tolerance.Num
}

// Metric returns the named metric, or nil.
func (c *Catalog) Metric(name string) *Metric {
	for _, m := range c.Metrics {
		if m.Name.Value == name {
			return m
		}
	}
	return nil
}

// Measure returns the named measure and its model, or nils.
func (c *Catalog) Measure(name string) (*Measure, *SemanticModel) {
	for _, sm := range c.SemanticModels {
		for _, m := range sm.Measures {
			if m.Name.Value == name {
				return m, sm
			}
		}
	}
	return nil, nil
}

// Dimension returns the model's named dimension, or nil.
func (sm *SemanticModel) Dimension(name string) *Dimension {
	for _, d := range sm.Dimensions {
		if d.Name.Value == name {
			return d
		}
	}
	return nil
}

// Measures returns the names of the measures a metric reads, directly or
// through the metrics its expression names, sorted and distinct. It is nil
// for a metric of an invalid catalog.
func (c *Catalog) MeasuresOf(m *Metric) []string {
	seen := map[string]bool{}
	var walk func(m *Metric, depth int)
	walk = func(m *Metric, depth int) {
		if m == nil || depth > len(c.Metrics) {
			return
		}
		switch m.Type.Value {
		case MetricSimple, MetricCumulative:
			seen[m.Measure.Value] = true
		case MetricRatio:
			seen[m.Numerator.Value] = true
			seen[m.Denominator.Value] = true
		case MetricDerived:
			if m.Expression != nil {
				for _, n := range m.Expression.Metrics() {
					walk(c.Metric(n), depth+1)
				}
			}
		}
	}
	walk(m, 0)
	return sortedKeys(seen)
}

// ModelOf returns the semantic model a metric reads (all its measures are
// in one), or nil.
func (c *Catalog) ModelOf(m *Metric) *SemanticModel {
	for _, n := range c.MeasuresOf(m) {
		if _, sm := c.Measure(n); sm != nil {
			return sm
		}
	}
	return nil
}
