package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// validateMetrics checks the semantic models and the metrics: names are
// unique snake_case; a model's dataset, dimensions and measures fit it;
// every metric's measures resolve (a ratio's two parts to declared
// measures of one model), its dimensions and time dimension exist, its
// domain is a range (min < max), its grain fits its measures, and a
// derived metric's expression parses and names declared metrics without
// a cycle.
func validateMetrics(v *errs, c *Catalog, datasets map[string]*Dataset) {
	models := map[string]bool{}
	measures := map[string]*Measure{}
	var measureNames []string
	for _, sm := range c.SemanticModels {
		name(v, sm.Name, "semantic model name", snakeCase)
		if models[sm.Name.Value] {
			v.add(sm.Name.Pos, "duplicate semantic model name%s", quote(sm.Name.Value))
		}
		models[sm.Name.Value] = true
		ds := datasets[sm.Dataset.Value]
		if ds == nil {
			v.add(sm.Dataset.Pos, "%s", unknown("dataset", sm.Dataset.Value, sortedKeys(datasets)))
		} else if ds.entity(c.ScopeEntity.Value) == nil {
			v.add(sm.Dataset.Pos, "scope entity%s is not an entity of dataset %s, which semantic model %s uses%s",
				quote(c.ScopeEntity.Value), show(ds.Name.Value), show(sm.Name.Value), ds.didYouMean(c.ScopeEntity.Value))
		}
		validateDimensions(v, sm, ds)
		for _, m := range sm.Measures {
			name(v, m.Name, "measure name", snakeCase)
			if _, dup := measures[m.Name.Value]; dup {
				v.add(m.Name.Pos, "duplicate measure name%s (measures share one namespace across models)", quote(m.Name.Value))
			} else {
				measures[m.Name.Value] = m
				measureNames = append(measureNames, m.Name.Value)
			}
			validateMeasure(v, m, ds)
		}
		if len(sm.Measures) == 0 {
			v.add(sm.Pos, "semantic model %s declares no measures", show(sm.Name.Value))
		}
	}
	metrics := map[string]*Metric{}
	var metricNames []string
	for _, m := range c.Metrics {
		name(v, m.Name, "metric name", snakeCase)
		if _, dup := metrics[m.Name.Value]; dup {
			v.add(m.Name.Pos, "duplicate metric name%s", quote(m.Name.Value))
			continue
		}
		metrics[m.Name.Value] = m
		metricNames = append(metricNames, m.Name.Value)
	}
	// Phrases: well formed, and each names one metric.
	phraseOf := map[string]string{}
	for _, m := range c.Metrics {
		phrases(v, m.Phrases, "phrase", m.Pos)
		for _, r := range m.Phrases {
			if other, dup := phraseOf[r.Value]; dup && other != m.Name.Value {
				v.add(r.Pos, "metric %s: phrase%s already names metric %s", show(m.Name.Value), quote(r.Value), show(other))
				continue
			}
			phraseOf[r.Value] = m.Name.Value
		}
	}
	// The expressions first: the metrics' models follow them.
	for _, m := range c.Metrics {
		m.Expression = nil
		if m.Type.Value != MetricDerived || m.Expr.Value == "" {
			continue
		}
		e, err := ParseExpr(m.Expr.Value)
		if err != nil {
			var ee *ExprError
			if errors.As(err, &ee) {
				v.add(m.Expr.Pos, "`expr`: %s at character %d", ee.Reason, ee.Offset+1)
			} else {
				v.add(m.Expr.Pos, "`expr` does not parse")
			}
			continue
		}
		ok := true
		for _, n := range e.Metrics() {
			if metrics[n] == nil {
				v.add(m.Expr.Pos, "`expr`: %s", unknown("metric", n, metricNames))
				ok = false
			}
		}
		if ok {
			m.Expression = e
		}
	}
	cyclic := metricCycles(v, c, metrics)
	for _, m := range c.Metrics {
		if metrics[m.Name.Value] != m {
			continue // a duplicate, reported
		}
		validateMetric(v, c, m, measures, measureNames, metrics, cyclic)
	}
}

// metricCycles reports each derived metric whose expression reaches itself
// and returns them.
func metricCycles(v *errs, c *Catalog, metrics map[string]*Metric) map[string]bool {
	cyclic := map[string]bool{}
	for _, m := range c.Metrics {
		if m.Expression == nil {
			continue
		}
		// Depth-first from m: does some path come back to it?
		seen := map[string]bool{}
		var reaches func(n string) bool
		reaches = func(n string) bool {
			if n == m.Name.Value {
				return true
			}
			if seen[n] {
				return false
			}
			seen[n] = true
			x := metrics[n]
			if x == nil || x.Expression == nil {
				return false
			}
			for _, k := range x.Expression.Metrics() {
				if reaches(k) {
					return true
				}
			}
			return false
		}
		for _, k := range m.Expression.Metrics() {
			if reaches(k) {
				cyclic[m.Name.Value] = true
				v.add(m.Expr.Pos, "`expr`: metric %s depends on itself (through %s)", show(m.Name.Value), show(k))
				break
			}
		}
	}
	return cyclic
}

func validateDimensions(v *errs, sm *SemanticModel, ds *Dataset) {
	seen := map[string]bool{}
	times := 0
	for _, d := range sm.Dimensions {
		name(v, d.Name, "dimension name", snakeCase)
		if seen[d.Name.Value] {
			v.add(d.Name.Pos, "duplicate dimension name%s", quote(d.Name.Value))
		}
		seen[d.Name.Value] = true
		if d.Description.Pos != (Pos{}) && strings.TrimSpace(d.Description.Value) == "" {
			v.add(d.Description.Pos, "dimension `description`: want a non-empty string")
		}
		switch d.TypeOf() {
		case DimTime:
			times++
			if d.Entity.Value != "" || d.Values != nil {
				v.add(d.Pos, "time dimension %s: takes no `entity` or `values`", show(d.Name.Value))
			}
			if ds != nil && d.Column.Value != ds.Time.Value {
				v.add(d.Column.Pos, "time dimension %s: want the dataset's time column `%s`", show(d.Name.Value), ds.Time.Value)
			}
			continue
		case DimCategorical:
		default:
			v.add(d.Type.Pos, "%s", unknown("dimension type", d.Type.Value, []string{DimCategorical, DimTime}))
			continue
		}
		if ds == nil {
			continue
		}
		if d.Entity.Value == "" {
			if d.Values != nil {
				v.add(d.Pos, "dimension %s: `values` are for a reference table's column; a dataset column's come from its entity or attribute", show(d.Name.Value))
			}
			var cols []string
			for _, e := range ds.Entities {
				cols = append(cols, e.Column.Value)
			}
			for _, a := range ds.Attributes {
				if a.Enumerated() {
					cols = append(cols, a.Column.Value)
				}
			}
			if !slices.Contains(cols, d.Column.Value) {
				v.add(d.Column.Pos, "dimension %s: %s", show(d.Name.Value), unknown("entity or enumerated attribute column", d.Column.Value, cols))
			}
			continue
		}
		e := ds.entity(d.Entity.Value)
		switch {
		case e == nil:
			v.add(d.Entity.Pos, "%s", unknown("entity", d.Entity.Value, ds.entityNames()))
			continue
		case e.Reference == nil:
			v.add(d.Entity.Pos, "dimension %s: entity %s declares no reference table to join", show(d.Name.Value), show(e.Name.Value))
			continue
		}
		cols := append([]string{e.Reference.DisplayName.Value}, refValues(e.Reference.Columns)...)
		if !slices.Contains(cols, d.Column.Value) {
			v.add(d.Column.Pos, "dimension %s: %s", show(d.Name.Value), unknown("column of the reference of "+show(e.Name.Value), d.Column.Value, cols))
		}
		if d.Values != nil && len(d.Values) == 0 {
			v.add(d.Pos, "dimension %s: `values` is empty", show(d.Name.Value))
		}
		vals := map[string]bool{}
		for _, x := range d.Values {
			if !enumValue.MatchString(x.Value) && !word.MatchString(x.Value) {
				v.add(x.Pos, "value%s: want letters, digits, spaces, _ . : -", quote(x.Value))
			}
			if vals[x.Value] {
				v.add(x.Pos, "duplicate value%s", quote(x.Value))
			}
			vals[x.Value] = true
		}
	}
	if ds != nil && times == 0 {
		v.add(sm.Pos, "semantic model %s declares no time dimension (type: time, column: %s)", show(sm.Name.Value), ds.Time.Value)
	}
}

func validateMeasure(v *errs, m *Measure, ds *Dataset) {
	agg := m.Agg.Value
	if !slices.Contains(Aggs(), agg) {
		v.add(m.Agg.Pos, "%s", unknown("aggregation", agg, Aggs()))
		return
	}
	switch s := m.Sample.Value; {
	case s != "" && s != SampleRows && s != SampleLatest:
		v.add(m.Sample.Pos, "%s", unknown("sample", s, []string{SampleRows, SampleLatest}))
	case s == SampleLatest && (agg == AggDuration || agg == AggEntries):
		v.add(m.Sample.Pos, "measure %s: `%s` reads a series' consecutive rows; it takes no sample `latest`", show(m.Name.Value), agg)
	}
	if m.Condition.Value != "" && m.Filter != nil {
		v.add(m.Filter.Pos, "measure %s: want at most one of `condition` and `filter`", show(m.Name.Value))
	}
	if ds == nil {
		return
	}
	if m.Condition.Value != "" && ds.condition(m.Condition.Value) == nil {
		v.add(m.Condition.Pos, "%s", unknown("condition", m.Condition.Value, ds.conditionNames()))
	}
	if m.Filter != nil {
		validatePredicate(v, ds, m.Filter)
	}
	needColumn := agg == AggSum || agg == AggAvg || agg == AggMin || agg == AggMax || agg == AggCountDistinct
	switch {
	case needColumn && m.Column.Value == "":
		v.add(m.Pos, "measure %s: `%s` wants a `column`", show(m.Name.Value), agg)
		return
	case !needColumn && m.Column.Value != "":
		v.add(m.Column.Pos, "measure %s: `%s` takes no `column`", show(m.Name.Value), agg)
		return
	case !needColumn:
		return
	}
	var numeric, any []string
	for _, a := range ds.Attributes {
		any = append(any, a.Column.Value)
		if !a.Enumerated() {
			numeric = append(numeric, a.Column.Value)
		}
	}
	for _, e := range ds.Entities {
		any = append(any, e.Column.Value)
	}
	if agg == AggCountDistinct {
		if !slices.Contains(any, m.Column.Value) {
			v.add(m.Column.Pos, "measure %s: %s", show(m.Name.Value), unknown("entity or attribute column", m.Column.Value, any))
		}
		return
	}
	if !slices.Contains(numeric, m.Column.Value) {
		v.add(m.Column.Pos, "measure %s: %s", show(m.Name.Value), unknown("numeric attribute column", m.Column.Value, numeric))
	}
}

func validateMetric(v *errs, c *Catalog, m *Metric, measures map[string]*Measure, measureNames []string, metrics map[string]*Metric, cyclic map[string]bool) {
	if strings.TrimSpace(m.Definition.Value) == "" || strings.ContainsAny(m.Definition.Value, "\n\r") {
		v.add(m.Definition.Pos, "metric %s: `definition` wants one sentence on one line", show(m.Name.Value))
	}
	if strings.TrimSpace(m.Owner.Value) == "" {
		v.add(m.Owner.Pos, "metric %s: `owner` wants a non-empty string", show(m.Name.Value))
	}
	if !slices.Contains(MetricUnits(), m.Unit.Value) {
		v.add(m.Unit.Pos, "%s", unknown("unit", m.Unit.Value, MetricUnits()))
	}
	if d := m.Domain; d != nil {
		if d.Min == nil && d.Max == nil {
			v.add(d.Pos, "metric %s: `domain` wants `min`, `max` or both", show(m.Name.Value))
		}
		if d.Min != nil && d.Max != nil && !(d.Min.Num < d.Max.Num) {
			v.add(d.Max.Pos, "metric %s: domain `min` must be less than `max`", show(m.Name.Value))
		}
	}
	if t := m.Tolerance; t != nil && !(t.Num >= 0 && t.Num < 1) {
		v.add(t.Pos, "metric %s: `tolerance` wants a relative difference in [0, 1)", show(m.Name.Value))
	}
	if f := m.Fixture.Value; !fs.ValidPath(f) || !strings.HasSuffix(f, ".yaml") || f == "." {
		v.add(m.Fixture.Pos, "metric %s: `fixture` wants a relative path ending .yaml inside the catalog's directory (no .., no leading /)", show(m.Name.Value))
	}
	grainOK := slices.Contains(Grains(), m.Grain.Value)
	if !grainOK {
		v.add(m.Grain.Pos, "%s", unknown("grain", m.Grain.Value, Grains()))
	}
	// Which fields the type takes.
	has := map[string]Ref{"measure": m.Measure, "numerator": m.Numerator, "denominator": m.Denominator, "expr": m.Expr}
	var want []string
	switch m.Type.Value {
	case MetricSimple, MetricCumulative:
		want = []string{"measure"}
	case MetricRatio:
		want = []string{"numerator", "denominator"}
	case MetricDerived:
		want = []string{"expr"}
	default:
		v.add(m.Type.Pos, "%s", unknown("metric type", m.Type.Value, MetricTypes()))
		return
	}
	fieldsOK := true
	for _, k := range []string{"measure", "numerator", "denominator", "expr"} {
		r := has[k]
		switch in := slices.Contains(want, k); {
		case in && r.Value == "":
			v.add(m.Pos, "metric %s: type `%s` wants `%s`", show(m.Name.Value), m.Type.Value, k)
			fieldsOK = false
		case !in && r.Value != "":
			v.add(r.Pos, "metric %s: type `%s` takes no `%s`", show(m.Name.Value), m.Type.Value, k)
			fieldsOK = false
		}
	}
	if !fieldsOK {
		return
	}
	for _, k := range []string{"measure", "numerator", "denominator"} {
		if r := has[k]; r.Value != "" && measures[r.Value] == nil {
			v.add(r.Pos, "%s", unknown("measure", r.Value, measureNames))
			fieldsOK = false
		}
	}
	if !fieldsOK || m.Type.Value == MetricDerived && (m.Expression == nil || cyclic[m.Name.Value]) {
		return
	}
	// Every measure the metric reads is in one model.
	names := c.MeasuresOf(m)
	var sm *SemanticModel
	for _, n := range names {
		_, x := c.Measure(n)
		if sm == nil {
			sm = x
		} else if x != sm {
			v.add(m.Pos, "metric %s: reads measures of semantic models %s and %s; want one", show(m.Name.Value), show(sm.Name.Value), show(x.Name.Value))
			return
		}
	}
	if sm == nil {
		return
	}
	if m.Type.Value == MetricDerived {
		for _, n := range m.Expression.Metrics() {
			x := metrics[n]
			if x == nil {
				continue
			}
			if x.Type.Value == MetricCumulative {
				v.add(m.Expr.Pos, "`expr`: metric %s is cumulative; a derived metric reads simple, ratio and derived metrics", show(n))
			}
			// A derived metric is grouped only as the metrics it reads allow.
			for _, d := range m.Dimensions {
				if !slices.Contains(refValues(x.Dimensions), d.Value) {
					v.add(d.Pos, "metric %s: dimension %s is not a dimension of metric %s, which its expression reads", show(m.Name.Value), show(d.Value), show(n))
				}
			}
		}
	}
	if m.Type.Value == MetricCumulative {
		if x := measures[m.Measure.Value]; x != nil && !x.Additive() {
			v.add(m.Measure.Pos, "metric %s: a cumulative metric sums its measure; `%s` is not additive (want sum, count, duration or entries)", show(m.Name.Value), x.Agg.Value)
		}
	}
	var dimNames, catNames []string
	for _, d := range sm.Dimensions {
		dimNames = append(dimNames, d.Name.Value)
		if d.TypeOf() == DimCategorical {
			catNames = append(catNames, d.Name.Value)
		}
	}
	switch td := sm.Dimension(m.TimeDimension.Value); {
	case td == nil:
		v.add(m.TimeDimension.Pos, "metric %s: `time_dimension`: %s", show(m.Name.Value), unknown("dimension", m.TimeDimension.Value, dimNames))
	case td.TypeOf() != DimTime:
		v.add(m.TimeDimension.Pos, "metric %s: `time_dimension` %s is not of type time", show(m.Name.Value), show(td.Name.Value))
	}
	seen := map[string]bool{}
	for _, r := range m.Dimensions {
		d := sm.Dimension(r.Value)
		switch {
		case d == nil:
			v.add(r.Pos, "metric %s: %s", show(m.Name.Value), unknown("dimension", r.Value, catNames))
		case d.TypeOf() != DimCategorical:
			v.add(r.Pos, "metric %s: dimension %s is a time dimension; a request buckets time by `grain`", show(m.Name.Value), show(d.Name.Value))
		case seen[r.Value]:
			v.add(r.Pos, "duplicate dimension%s", quote(r.Value))
		}
		seen[r.Value] = true
	}
	// A state as of an instant, or a time spent in a state, is not
	// bucketed: its rows are not the window's.
	if grainOK && m.Grain.Value != GrainNone {
		for _, n := range names {
			x := measures[n]
			if x.SampleOf() == SampleLatest || x.Agg.Value == AggDuration {
				v.add(m.Grain.Pos, "metric %s: measure %s (%s) is not bucketed by time; want grain `none`", show(m.Name.Value), show(n), describeMeasure(x))
				break
			}
		}
	}
}

func describeMeasure(x *Measure) string {
	if x.SampleOf() == SampleLatest {
		return "sample latest"
	}
	return x.Agg.Value
}

// ErrFixtureOutside is a file system's error for a fixture file reached
// through a symbolic link that leads outside the catalog's directory.
var ErrFixtureOutside = errors.New("a symbolic link leads outside the catalog's directory")

// CheckFixtures reports every metric whose fixture file is missing from
// fsys, where dir is the catalog's directory within it ("." for its root).
// Load does not call it (it reads from an io.Reader); LoadFS does.
func (c *Catalog) CheckFixtures(fsys fs.FS, dir string) error {
	v := &errs{file: c.File}
	for _, m := range c.Metrics {
		if !fs.ValidPath(m.Fixture.Value) {
			continue // Validate reports it
		}
		p := path.Join(dir, m.Fixture.Value)
		st, err := fs.Stat(fsys, p)
		var pe *fs.PathError
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist) && errors.As(err, &pe) && errors.Is(pe.Err, ErrFixtureOutside):
			v.add(m.Fixture.Pos, "metric %s: fixture file%s: %v", show(m.Name.Value), quote(m.Fixture.Value), pe.Err)
		case err != nil:
			v.add(m.Fixture.Pos, "metric %s: fixture file%s does not exist", show(m.Name.Value), quote(m.Fixture.Value))
		case !st.Mode().IsRegular():
			v.add(m.Fixture.Pos, "metric %s: fixture%s is not a regular file", show(m.Name.Value), quote(m.Fixture.Value))
		}
	}
	return v.err()
}

// LoadFS parses and validates the catalog file name in fsys, then checks
// that its metrics' fixture files exist beside it.
func LoadFS(fsys fs.FS, name string) (*Catalog, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", name, err)
	}
	defer f.Close()
	c, err := Load(f, name)
	if err != nil {
		return nil, err
	}
	if err := c.CheckFixtures(fsys, path.Dir(name)); err != nil {
		return nil, err
	}
	return c, nil
}
