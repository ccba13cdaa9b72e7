package noisy

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// MetricUniform returns Rates with the three metric-selection faults at
// rate and every other fault at 0 (the CLI's --metric-noise).
func MetricUniform(rate float64) Rates {
	return Rates{WrongMetric: rate, WrongDimension: rate, WrongWindow: rate}
}

// The metric-selection streams.
const (
	streamWrongMetric    = "noisy/select/wrong_metric"
	streamWrongDimension = "noisy/select/wrong_dimension"
	streamWrongWindow    = "noisy/select/wrong_window"
)

// metricDef reports whether d is a metric tool: an enumerated metric
// parameter, a window of start and end timestamps, and dimensions.
func metricDef(d tool.Def) (metrics, dims []string, ok bool) {
	var start, end bool
	for _, q := range d.Params {
		switch {
		case q.Name == "metric" && q.Kind == tool.Enum:
			metrics = q.Values
		case q.Name == "dimensions" && q.Kind == tool.Array && q.Items != nil && q.Items.Kind == tool.Enum:
			dims = q.Items.Values
		case q.Name == "start" && q.Kind == tool.Timestamp:
			start = true
		case q.Name == "end" && q.Kind == tool.Timestamp:
			end = true
		}
	}
	return metrics, dims, len(metrics) > 0 && start && end
}

// metricFaults applies the metric-selection faults to a metric tool's
// proposal, each when decide says so; any other proposal is returned as
// it is.
//
//   - wrong_metric: another declared metric.
//   - wrong_dimension: one grouping dimension replaced by another declared
//     one, or, with none, one added (whether the metric allows it is the
//     wall's business).
//   - wrong_window: the window moved back by its own length, or by 364
//     days (the same weekday a year earlier), with even odds.
func (p *Provider) metricFaults(d decide, prop tool.Proposal, menu []tool.Def) tool.Proposal {
	def, ok := lookup(prop.Tool, menu)
	if !ok {
		return prop
	}
	metrics, dims, ok := metricDef(def)
	if !ok {
		return prop
	}
	if r, ok := d(streamWrongMetric, p.rates.WrongMetric); ok {
		cur, _ := prop.Params["metric"].(string)
		if pool := without(metrics, cur); len(pool) > 0 {
			prop.Params["metric"] = pool[r.IntN(len(pool))]
		}
	}
	if r, ok := d(streamWrongDimension, p.rates.WrongDimension); ok {
		prop = wrongDimension(r, prop, dims)
	}
	if r, ok := d(streamWrongWindow, p.rates.WrongWindow); ok {
		prop = wrongWindow(r, prop)
	}
	return prop
}

func without(values []string, cur string) []string {
	var out []string
	for _, v := range values {
		if v != cur {
			out = append(out, v)
		}
	}
	return out
}

func wrongDimension(r *rand.Rand, prop tool.Proposal, dims []string) tool.Proposal {
	var cur []any
	switch v := prop.Params["dimensions"].(type) {
	case []any:
		cur = slices.Clone(v)
	case []string:
		for _, s := range v {
			cur = append(cur, s)
		}
	}
	var pool []string
	for _, d := range dims {
		if !slices.ContainsFunc(cur, func(x any) bool { return x == d }) {
			pool = append(pool, d)
		}
	}
	if len(pool) == 0 {
		return prop
	}
	pick := pool[r.IntN(len(pool))]
	if len(cur) == 0 {
		cur = []any{pick}
	} else {
		cur[r.IntN(len(cur))] = pick
	}
	prop.Params["dimensions"] = cur
	return prop
}

func wrongWindow(r *rand.Rand, prop tool.Proposal) tool.Proposal {
	s, _ := prop.Params["start"].(string)
	e, _ := prop.Params["end"].(string)
	start, err1 := time.Parse(tsLayout, s)
	end, err2 := time.Parse(tsLayout, e)
	if err1 != nil || err2 != nil || !end.After(start) {
		return prop
	}
	shift := end.Sub(start)
	if r.IntN(2) == 1 {
		shift = 364 * 24 * time.Hour
	}
	prop.Params["start"] = start.Add(-shift).Format(tsLayout)
	prop.Params["end"] = end.Add(-shift).Format(tsLayout)
	return prop
}

var _ provider.Repairer = (*Provider)(nil)

// Repair re-proposes from the clean work of the inner provider (its
// Repair when it has one, else its Select on the question), then repeats
// each fault the question's proposal suffered (Select's decisions, drawn
// again) with the fault's own rate, from the stream
// "noisy/repair/<fault>" keyed by Select's key and "repair=<attempt>".
// A fault Select did not make is not made on repair: a clean proposal the
// checks flagged comes back unchanged. A run still replays exactly.
func (p *Provider) Repair(ctx context.Context, in provider.RepairInput) (*tool.Proposal, error) {
	var (
		clean *tool.Proposal
		err   error
	)
	if rp, ok := p.inner.(provider.Repairer); ok {
		clean, err = rp.Repair(ctx, in)
	} else {
		clean, err = p.inner.Select(ctx, in.Question, in.Menu)
	}
	if err != nil || clean == nil {
		return clean, err
	}
	key := selectKey(ctx, in.Question)
	again := key + "\x00repair=" + strconv.Itoa(in.Attempt)
	first := p.decideSelect(key)
	d := func(name string, rate float64) (*rand.Rand, bool) {
		if _, made := first(name, rate); !made {
			return nil, false
		}
		r := p.stream(strings.Replace(name, "noisy/select/", "noisy/repair/", 1), again)
		return r, fires(r, rate)
	}
	return p.perturb(d, tool.Proposal{Tool: clean.Tool, Params: maps.Clone(clean.Params), Asked: clean.Asked}, in.Question, in.Menu), nil
}
