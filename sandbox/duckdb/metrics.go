package duckdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/shape"
)

// CheckMetrics checks that every governed metric of cat (a valid catalog)
// compiles to SQL that DuckDB's own parser reads as one query touching
// only the read allowlist (cat.Allowlist: the declared tables minus
// `sql.deny`). Each metric's representative requests
// (metric.Representative: every grain, each allowed dimension, all of
// them together, filtered and scoped) are compiled and judged by the
// sandbox's validator under the allowlist's policy, with positional
// parameters admitted (sandbox.Policy.WithParameters): the compiled text
// must also keep to the free-SQL function and construct allowlist.
//
// It returns the number of compiled queries judged, and nil or a
// catalog.ErrorList with one error per failing
// metric, at its name in the catalog; a message names the metric, the
// request (grain and dimensions) and what was refused, never SQL text.
// An error that is not the catalog's (DuckDB could not be opened) is
// returned as is.
func CheckMetrics(ctx context.Context, cat *catalog.Catalog) (int, error) {
	if len(cat.Metrics) == 0 {
		return 0, nil
	}
	allow := cat.Allowlist()
	v, err := NewValidator(ctx, sandbox.NewPolicy(allow).WithParameters(), nil)
	if err != nil {
		return 0, err
	}
	defer v.Close()
	// Compiled queries (never free SQL) may also read the value rollups
	// an import built, by hour and by slice (shape.RollupValuesSuffix,
	// shape.RollupValueSlicesSuffix).
	withRollups := slices.Clone(allow)
	for _, ds := range cat.Datasets {
		if ds.Table.Value != "" {
			withRollups = append(withRollups, strings.ToLower(ds.Table.Value+shape.RollupValuesSuffix),
				strings.ToLower(ds.Table.Value+shape.RollupValueSlicesSuffix))
		}
	}
	vr, err := NewValidator(ctx, sandbox.NewPolicy(withRollups).WithParameters(), nil)
	if err != nil {
		return 0, err
	}
	defer vr.Close()
	var list catalog.ErrorList
	total := 0
	for _, m := range cat.Metrics {
		n, msg, err := checkMetric(ctx, v, vr, cat, m)
		total += n
		if err != nil {
			return total, err
		}
		if msg != "" {
			list = append(list, &catalog.Error{File: cat.File, Line: m.Name.Pos.Line, Column: m.Name.Pos.Column,
				Message: fmt.Sprintf("metric `%s`: %s", m.Name.Value, msg)})
		}
	}
	if len(list) > 0 {
		return total, list
	}
	return total, nil
}

// checkMetric returns the number of m's compiled queries judged and the
// first problem with them, or "".
func checkMetric(ctx context.Context, v, vr *Validator, cat *catalog.Catalog, m *catalog.Metric) (n int, problem string, err error) {
	// A dataset with derived structures is read through its validity
	// intervals (shape.Derive's column), a second form of each query; with
	// value rollups (shape.DeriveOptions.RollupValues), a third, judged by
	// vr, whose allowlist adds the rollup tables: the form with slices,
	// which holds every construct of the form without them and reads both
	// tables.
	intervals := &metric.Options{ValidTo: map[string]string{}}
	rollups := &metric.Options{ValidTo: map[string]string{}, ValueRollups: map[string]metric.ValueRollup{}}
	for _, ds := range cat.Datasets {
		intervals.ValidTo[ds.Name.Value] = shape.ValidToColumn
		rollups.ValidTo[ds.Name.Value] = shape.ValidToColumn
		if ds.Table.Value != "" {
			ru := shape.MetricValueRollup(cat, ds, ds.Table.Value)
			ru.Slices, ru.SliceWidth = ds.Table.Value+shape.RollupValueSlicesSuffix, shape.SliceWidth
			rollups.ValueRollups[ds.Name.Value] = ru
		}
	}
	variants := []struct {
		opts *metric.Options
		name string
		v    *Validator
	}{{nil, "", v}, {intervals, ", through validity intervals", v}, {rollups, ", from value rollups", vr}}
	for _, req := range metric.Representative(cat, m) {
		for _, run := range variants {
			v := run.v
			n++
			what := "compiled query (grain " + req.Grain
			if len(req.Dimensions) > 0 {
				what += ", dimensions " + strings.Join(req.Dimensions, ", ")
			}
			what += run.name + ")"
			q, err := metric.Compile(cat, req, run.opts)
			if err != nil {
				return n, fmt.Sprintf("%s does not compile: %v", what, err), nil
			}
			err = v.Validate(ctx, q.SQL)
			var rej *sandbox.Rejection
			switch {
			case err == nil:
				continue
			case !errors.As(err, &rej):
				return n, "", fmt.Errorf("check metric %s: %w", m.Name.Value, err)
			case rej.Kind == "table":
				// The tree check is the verdict; the compiler's own list of
				// the tables it read names the table (the operator's config).
				for _, t := range q.Tables {
					if !slices.Contains(cat.Allowlist(), strings.ToLower(t)) {
						where := "not declared"
						if slices.ContainsFunc(cat.Deny(), func(d string) bool { return strings.EqualFold(d, t) }) {
							where = "in `sql.deny`"
						}
						return n, fmt.Sprintf("%s reads table `%s`, which is outside the read allowlist (%s)", what, t, where), nil
					}
				}
				return n, what + " reads a table outside the read allowlist", nil
			case rej.Layer == sandbox.LayerParse:
				return n, fmt.Sprintf("%s does not parse with DuckDB's parser (%s)", what, rej.Kind), nil
			}
			return n, fmt.Sprintf("%s is refused by the SQL sandbox policy: %v", what, rej), nil
		}
	}
	return n, "", nil
}
