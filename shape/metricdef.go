package shape

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/tool"
)

// QueryMetric is the name of the metric tool: one per catalog that
// declares metrics.
const QueryMetric = "query_metric"

// ClassMetric is the question class of the metric tool.
const ClassMetric = "metric"

// FilterValuePattern is the domain of a metric filter's values as the
// schema states it; the wall then checks each against its dimension
// (an entity's pattern and declared ids, an attribute's or a reference
// column's declared values).
const FilterValuePattern = `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`

// MetricDef derives the metric tool of a validated catalog: its
// parameters' domains are the catalog's metric names, the union of their
// dimensions, the filter operators and the grains. ok is false when the
// catalog declares no metric.
func MetricDef(cat *catalog.Catalog) (def tool.Def, ok bool) {
	if len(cat.Metrics) == 0 {
		return tool.Def{}, false
	}
	var (
		names, dims, lines, keywords []string
		metricSyn                    []tool.Synonyms
	)
	for _, m := range cat.Metrics {
		names = append(names, m.Name.Value)
		if len(m.Phrases) > 0 {
			syn := tool.Synonyms{Value: m.Name.Value}
			for _, p := range m.Phrases {
				syn.Phrases = append(syn.Phrases, p.Value)
				keywords = append(keywords, p.Value)
			}
			metricSyn = append(metricSyn, syn)
		}
		line := m.Name.Value + ": " + strings.TrimSuffix(m.Definition.Value, ".")
		if u := m.Unit.Value; u != "" {
			line += " (unit " + u + ")"
		}
		lines = append(lines, line+".")
		for _, d := range m.Dimensions {
			if !slices.Contains(dims, d.Value) {
				dims = append(dims, d.Value)
			}
		}
	}
	dimension := tool.Param{Kind: tool.Enum, Values: dims, Synonyms: dimensionSynonyms(dims), Description: "A dimension of the metric (each metric allows some of them)."}
	filter := tool.Param{Kind: tool.Object, Description: "Keep the rows whose dimension meets op against values (one value for eq and ne).", Fields: []tool.Param{
		{Name: "dimension", Kind: tool.Enum, Values: dims, Description: "The dimension filtered."},
		{Name: "op", Kind: tool.Enum, Values: metric.Ops(), Description: "eq, ne, in or not_in."},
		{Name: "values", Kind: tool.Array, MaxItems: metric.MaxValues, Description: "The values (ids or declared values of the dimension).",
			Items: &tool.Param{Kind: tool.Token, Pattern: FilterValuePattern, Hint: "a dimension value", Description: "A value of the dimension."}},
	}}
	order := tool.Param{Name: "order", Kind: tool.Object, Optional: true, Description: "Sort the rows by the value or by a requested dimension (default: the dimensions, then the bucket, ascending).", Fields: []tool.Param{
		{Name: "by", Kind: tool.Enum, Values: append([]string{metric.OrderValue}, dims...), Description: "value, or a requested dimension."},
		{Name: "desc", Kind: tool.Boolean, Optional: true, Description: "Descending."},
	}}
	def = tool.Def{
		Filters:     filterWords(cat, dims),
		Name:        QueryMetric,
		Description: "Compute a governed metric (one of the metric parameter's) over a half-open window [start, end), grouped by dimensions and, optionally, bucketed by a time grain: a table with one row per group. Every value is re-derived independently before it ships.",
		Class:       ClassMetric,
		Keywords:    keywords,
		Value:       fact.KindTable,
		Params: []tool.Param{
			{Name: "metric", Kind: tool.Enum, Values: names, Synonyms: metricSyn, Description: "The metric: " + strings.Join(lines, " ")},
			{Name: "dimensions", Kind: tool.Array, Optional: true, MaxItems: metric.MaxDimensions, Items: &dimension, Description: "Group by these dimensions (none: one row)."},
			{Name: "filters", Kind: tool.Array, Optional: true, MaxItems: metric.MaxFilters, Items: &filter, Description: "Keep only the rows meeting every filter."},
			{Name: "start", Kind: tool.Timestamp, Description: "Window start, inclusive (UTC, to the second, trailing Z)."},
			{Name: "end", Kind: tool.Timestamp, Description: "Window end, exclusive (UTC, to the second, trailing Z)."},
			{Name: "grain", Kind: tool.Enum, Optional: true, Values: catalog.Grains(), Synonyms: grainSynonyms, Description: "Bucket the window by day, week or month (none: one bucket; each metric allows grains down to its own)."},
			order,
			{Name: "limit", Kind: tool.Integer, Optional: true, Min: 0, Max: metric.MaxLimit, Description: "At most this many rows (0: every row)."},
		},
	}
	return def, true
}

// grainSynonyms are the phrases that name a grain in a question ("daily",
// "per week", "by month"); the wall then checks the metric allows it.
var grainSynonyms = []tool.Synonyms{
	{Value: catalog.GrainDay, Phrases: []string{"daily", "per day", "by day", "each day"}},
	{Value: catalog.GrainWeek, Phrases: []string{"weekly", "per week", "by week", "each week"}},
	{Value: catalog.GrainMonth, Phrases: []string{"monthly", "per month", "by month", "each month"}},
}

// dimensionSynonyms are the phrases that group by a dimension in a
// question: "by" or "per" and the dimension's name in words ("by zone",
// "per device type").
func dimensionSynonyms(dims []string) []tool.Synonyms {
	out := make([]tool.Synonyms, 0, len(dims))
	for _, d := range dims {
		w := strings.ReplaceAll(d, "_", " ")
		out = append(out, tool.Synonyms{Value: d, Phrases: []string{"by " + w, "per " + w, "for each " + w}})
	}
	return out
}

// filterWords are the words a question names each dimension's values
// with: a dataset column that is an entity's, that entity; an enumerated
// attribute's column, its values and synonyms; a reference column, its
// declared values. A dimension of none of these gets none.
func filterWords(cat *catalog.Catalog, dims []string) []tool.FilterWords {
	var out []tool.FilterWords
	for _, name := range dims {
		var d *catalog.Dimension
		var ds *catalog.Dataset
		for _, m := range cat.Metrics {
			if model := cat.ModelOf(m); model != nil && slices.ContainsFunc(m.Dimensions, func(r catalog.Ref) bool { return r.Value == name }) {
				if d = model.Dimension(name); d != nil {
					ds = cat.Dataset(model.Dataset.Value)
					break
				}
			}
		}
		if d == nil || ds == nil {
			continue
		}
		fw := tool.FilterWords{Dimension: name}
		if d.Entity.Value != "" {
			for _, v := range d.Values {
				fw.Values = append(fw.Values, tool.Synonyms{Value: v.Value})
			}
		} else {
			for _, e := range ds.Entities {
				if e.Column.Value == d.Column.Value {
					fw.Entity = e.Name.Value
				}
			}
			for _, a := range ds.Attributes {
				if a.Column.Value != d.Column.Value || !a.Enumerated() {
					continue
				}
				for _, v := range a.Values {
					syn := tool.Synonyms{Value: v.Value}
					for _, s := range a.Synonyms {
						if s.Value.Value == v.Value {
							for _, p := range s.Phrases {
								syn.Phrases = append(syn.Phrases, p.Value)
							}
						}
					}
					fw.Values = append(fw.Values, syn)
				}
			}
		}
		if fw.Entity != "" || len(fw.Values) > 0 {
			out = append(out, fw)
		}
	}
	return out
}

// MetricQuerier returns the snapshot's transaction, for a metric's
// compiled query and its re-derivation, and where the catalog's datasets
// and references live (the source's relations) and which of them hold
// validity intervals (ValidToColumn, on a derived dataset): both read the
// one snapshot the call's other reads see. On DuckDB each statement runs
// prepared and kept, as the tool shapes' do (Engine.stmt): a metric's
// texts depend on its request's shape (metric, dimensions, filters,
// edges), never on its values, which are parameters.
func (s *Snapshot) MetricQuerier(ctx context.Context) (metric.Querier, *metric.Options, error) {
	if err := s.begin(ctx); err != nil {
		return nil, nil, err
	}
	var rollups map[string]metric.Rollup
	if len(s.e.rollups) > 0 {
		rollups = make(map[string]metric.Rollup, len(s.e.rollups))
		for ds, r := range s.e.rollups {
			sums := &snapshotSums{s: s, ds: ds, rel: r.Relation, groups: r.Groups}
			r.Sums, r.Floors, r.CheckFloors = sums, sums, &checkFloors{s: s, ds: ds}
			r.CheckSums = &checkSums{s: s, ds: ds, rel: r.Relation, groups: r.Groups}
			rollups[ds] = r
		}
	}
	return metricQuerier{s}, &metric.Options{Relations: s.e.src.Relations, References: s.e.src.References, ValidTo: s.e.validTo, MaxGoRows: s.e.metricGoRows, ResolveRows: s.e.metricResolveRows, ResolveFrom: s.e.metricResolveFrom, Rollups: rollups, ValueRollups: s.e.valueRollups, Edges: s.e.edges, KeyOrder: s.e.keyOrder()}, nil
}

// MetricRequest reads a metric tool call's validated arguments (Call.Args:
// strings, arrays and objects as canonical JSON) into a request for the
// given scope. The arguments are the wall's, so an error here is a
// programming error, reported, never a panic.
func MetricRequest(args map[string]string, scope metric.Scope) (metric.Request, error) {
	req := metric.Request{Metric: args["metric"], Grain: args["grain"], Scope: scope}
	var err error
	if req.Start, err = time.Parse(tool.TimestampLayout, args["start"]); err != nil {
		return metric.Request{}, fmt.Errorf("read metric call: start: %w", err)
	}
	if req.End, err = time.Parse(tool.TimestampLayout, args["end"]); err != nil {
		return metric.Request{}, fmt.Errorf("read metric call: end: %w", err)
	}
	type filter struct {
		Dimension string   `json:"dimension"`
		Op        string   `json:"op"`
		Values    []string `json:"values"`
	}
	var (
		filters []filter
		order   struct {
			By   string `json:"by"`
			Desc bool   `json:"desc"`
		}
	)
	for name, dst := range map[string]any{"dimensions": &req.Dimensions, "filters": &filters, "order": &order, "limit": &req.Limit} {
		if a, ok := args[name]; ok {
			if err := json.Unmarshal([]byte(a), dst); err != nil {
				return metric.Request{}, fmt.Errorf("read metric call: %s: %w", name, err)
			}
		}
	}
	for _, f := range filters {
		req.Filters = append(req.Filters, metric.Filter{Dimension: f.Dimension, Op: f.Op, Values: f.Values})
	}
	req.Order = metric.Order{By: order.By, Desc: order.Desc}
	return req, nil
}

// metricQuerier runs a metric's statements in the snapshot's transaction,
// prepared when the engine prepares (DuckDB).
type metricQuerier struct{ s *Snapshot }

func (q metricQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := q.s.e.stmt(query); st != nil {
		return q.s.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return q.s.tx.QueryContext(ctx, query, args...)
}
