package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// HistoryWindows is how many earlier windows of a query_metric call the
// repair loop's history reads: the same request shifted back by its own
// length, 1 to HistoryWindows times.
const HistoryWindows = 12

// metricFacts tells the repair loop about a catalog's metrics: the
// declaration and definition for the repair message, the declared domain,
// and the metric's own history over earlier windows.
type metricFacts struct {
	cat *catalog.Catalog
	run *shapeRunner
}

var (
	_ pipeline.MetricFacts = (*metricFacts)(nil)
	_ pipeline.History     = (*metricFacts)(nil)
)

// Describe returns the facts of a query_metric proposal's metric; a
// metric name the catalog does not declare gives facts without a
// definition, so that the loop still repairs the call.
func (f *metricFacts) Describe(p tool.Proposal) (pipeline.MetricFact, bool) {
	if p.Tool != shape.QueryMetric {
		return pipeline.MetricFact{}, false
	}
	name, _ := p.Params["metric"].(string)
	m := f.cat.Metric(name)
	if m == nil {
		return pipeline.MetricFact{Snippet: metricMenu(f.cat)}, true
	}
	out := pipeline.MetricFact{Name: m.Name.Value, Definition: m.Definition.Value, Snippet: metricSnippet(m)}
	if d := m.Domain; d != nil {
		if d.Min != nil && d.Min.IsNum {
			x := d.Min.Num
			out.Domain.Min = &x
		}
		if d.Max != nil && d.Max.IsNum {
			x := d.Max.Num
			out.Domain.Max = &x
		}
	}
	return out, true
}

// metricSnippet is a metric's declaration as the repair message shows it.
func metricSnippet(m *catalog.Metric) string {
	var b strings.Builder
	fmt.Fprintf(&b, "metric %s: type %s", m.Name.Value, m.Type.Value)
	if m.Unit.Value != "" {
		fmt.Fprintf(&b, ", unit %s", m.Unit.Value)
	}
	if d := m.Domain; d != nil {
		lo, hi := "-inf", "+inf"
		if d.Min != nil && d.Min.IsNum {
			lo = fmt.Sprint(d.Min.Num)
		}
		if d.Max != nil && d.Max.IsNum {
			hi = fmt.Sprint(d.Max.Num)
		}
		fmt.Fprintf(&b, ", domain %s..%s", lo, hi)
	}
	if m.Grain.Value != "" {
		fmt.Fprintf(&b, ", finest grain %s", m.Grain.Value)
	}
	dims := make([]string, len(m.Dimensions))
	for i, d := range m.Dimensions {
		dims[i] = d.Value
	}
	fmt.Fprintf(&b, ", dimensions [%s]", strings.Join(dims, ", "))
	return b.String()
}

// metricMenu lists the declared metrics, for a call naming none of them.
func metricMenu(cat *catalog.Catalog) string {
	var names []string
	for _, m := range cat.Metrics {
		names = append(names, m.Name.Value)
	}
	return "declared metrics: " + strings.Join(names, ", ")
}

// History runs the call's request over the HistoryWindows windows before
// its own, each as long as its own, on the request's snapshot, and
// returns every value of those that hold data (a contributing row): a
// window before the data begins is no history of the metric.
func (f *metricFacts) History(ctx context.Context, c tool.Call) ([]float64, error) {
	req, err := shape.MetricRequest(c.Args(), metricScope(c.Scope()))
	if err != nil {
		return nil, fmt.Errorf("read metric history: %w", err)
	}
	span := req.End.Sub(req.Start)
	if span <= 0 {
		return nil, nil
	}
	var out []float64
	err = f.run.with(ctx, func(s *shape.Snapshot) error {
		db, o, err := s.MetricQuerier(ctx)
		if err != nil {
			return err
		}
		for k := 1; k <= HistoryWindows; k++ {
			r := req
			r.Start = req.Start.Add(-time.Duration(k) * span)
			r.End = req.End.Add(-time.Duration(k) * span)
			// The re-derivation lists the contributing rows: a window
			// before the data begins (or after it ends) is no history.
			t, err := metric.Resolve(ctx, db, f.cat, r, o)
			if err != nil {
				return err
			}
			if len(t.Keys) == 0 {
				continue
			}
			for _, row := range t.Rows {
				if row.Value != nil {
					out = append(out, *row.Value)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read metric history: %w", err)
	}
	return out, nil
}

// repairOptions fills the catalog's metric facts into the caller's repair
// configuration; nil stays nil (the loop off).
func repairOptions(r *pipeline.Repair, cat *catalog.Catalog, run *shapeRunner) *pipeline.Repair {
	if r == nil {
		return nil
	}
	out := *r
	if out.Metrics == nil {
		out.Metrics = &metricFacts{cat: cat, run: run}
	}
	if out.Policy == (repair.Policy{}) {
		out.Policy = repair.DefaultPolicy()
	}
	return &out
}
