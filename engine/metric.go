package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// metricScope is the metric package's scope of a caller's.
func metricScope(s tool.Scope) metric.Scope {
	if s.All() {
		return metric.All()
	}
	return metric.Only(s.Stores()...)
}

// metricCheck is the wall's check of a query_metric call: metric.Check's
// verdict on the request (the same checks the compiler and the
// re-derivation make), then each filter value of an entity's dimension
// against the entity's declared ids, when the wall knows them, and a
// filter on the scope entity against the caller's scope. A rejection
// names the field ("filters[0].values[1]"), never the value.
func metricCheck(cat *catalog.Catalog, declaredIDs map[string]map[string]bool) tool.CallCheck {
	return func(c tool.Call) *tool.Rejection {
		req, err := shape.MetricRequest(c.Args(), metricScope(c.Scope()))
		if err != nil {
			return &tool.Rejection{Kind: tool.Invalid, Reason: "is not a metric request"}
		}
		if err := metric.Check(cat, req); err != nil {
			var re *metric.RequestError
			if errors.As(err, &re) {
				return &tool.Rejection{Kind: tool.Invalid, Param: re.Field, Reason: re.Reason}
			}
			return &tool.Rejection{Kind: tool.Invalid, Reason: "is not a metric request"}
		}
		m := cat.Metric(req.Metric)
		model := cat.ModelOf(m)
		ds := cat.Dataset(model.Dataset.Value)
		for i, f := range req.Filters {
			d := model.Dimension(f.Dimension)
			if d == nil || d.Entity.Value != "" {
				continue // a reference column: metric.Check judged its declared values
			}
			var entity *catalog.Entity
			for _, e := range ds.Entities {
				if e.Column.Value == d.Column.Value {
					entity = e
				}
			}
			if entity == nil {
				continue // an attribute: metric.Check judged its declared values
			}
			declared := declaredIDs[entity.Name.Value]
			for j, v := range f.Values {
				field := fmt.Sprintf("filters[%d].values[%d]", i, j)
				if entity.Name.Value == cat.ScopeEntity.Value && !c.Scope().Allows(v) {
					return &tool.Rejection{Kind: tool.OutOfScope, Param: field, Reason: "is outside the caller's scope"}
				}
				if declared != nil && !declared[v] {
					return &tool.Rejection{Kind: tool.Invalid, Param: field, Reason: "is not a declared " + entity.Name.Value}
				}
			}
		}
		return nil
	}
}

// metricColumns are a metric table's columns: the requested dimensions
// (text), the bucket (an instant) when bucketed, then "value" in the
// metric's unit.
func metricColumns(m *catalog.Metric, t *metric.Table) []fact.Column {
	cols := make([]fact.Column, 0, len(t.Dimensions)+2)
	for _, d := range t.Dimensions {
		cols = append(cols, fact.Column{Name: d, Type: fact.CellText})
	}
	if t.Bucketed {
		cols = append(cols, fact.Column{Name: "bucket", Type: fact.CellInstant})
	}
	return append(cols, fact.Column{Name: "value", Type: fact.CellNumber, Unit: m.Unit.Value})
}

// factTable is a metric table as a fact value.
func factTable(m *catalog.Metric, t *metric.Table) (*fact.Table, error) {
	rows := make([][]fact.Cell, len(t.Rows))
	for i, r := range t.Rows {
		cells := make([]fact.Cell, 0, len(r.Dims)+2)
		for _, d := range r.Dims {
			if d == nil {
				cells = append(cells, fact.NullCell())
			} else {
				cells = append(cells, fact.TextCell(*d))
			}
		}
		if t.Bucketed {
			cells = append(cells, fact.InstantCell(r.Bucket))
		}
		if r.Value == nil {
			cells = append(cells, fact.NullCell())
		} else {
			cells = append(cells, fact.NumberCell(*r.Value))
		}
		rows[i] = cells
	}
	return fact.NewTable(metricColumns(m, t), rows)
}

// metricTable reads a fact table back as a metric table of the request's
// shape, for Verify; a table of another shape is an error.
func metricTable(req metric.Request, bucketed bool, ft *fact.Table) (*metric.Table, error) {
	bad := errors.New("read metric table: the table's columns are not the request's")
	if ft == nil {
		return nil, bad
	}
	n := len(req.Dimensions)
	width := n + 1
	if bucketed {
		width++
	}
	if len(ft.Columns) != width {
		return nil, bad
	}
	for i, d := range req.Dimensions {
		if ft.Columns[i].Name != d || ft.Columns[i].Type != fact.CellText {
			return nil, bad
		}
	}
	t := &metric.Table{Dimensions: append([]string(nil), req.Dimensions...), Bucketed: bucketed}
	for _, r := range ft.Rows {
		row := metric.Row{Dims: make([]*string, n)}
		for i := range n {
			if r[i].Valid {
				s := r[i].Text
				row.Dims[i] = &s
			}
		}
		if bucketed {
			row.Bucket = r[n].Instant.UTC()
		}
		if v := r[width-1]; v.Valid {
			x := v.Num
			row.Value = &x
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// executeMetric answers a query_metric call: the compiled query on the
// request's snapshot, and the re-derivation on the same snapshot for the
// contributing rows' keys (the provenance; metric.Resolve: in Go for small
// inputs, in SQL for large), with the snapshot's data version of the
// metric's dataset.
func (r *shapeRunner) executeMetric(ctx context.Context, c tool.Call) (fact.Result, error) {
	cat := r.cat
	req, err := shape.MetricRequest(c.Args(), metricScope(c.Scope()))
	if err != nil {
		return fact.Result{}, err
	}
	m := cat.Metric(req.Metric)
	if m == nil {
		return fact.Result{}, fmt.Errorf("execute metric: %w", metric.ErrInvalidRequest)
	}
	var (
		got, re *metric.Table
		sum     *metric.KeySummary
		q       *metric.Query
		version string
	)
	release, err := r.metricSlots.acquire(ctx)
	if err != nil {
		return fact.Result{}, fmt.Errorf("execute metric: %w", err)
	}
	defer release()
	err = r.with(ctx, func(s *shape.Snapshot) error {
		db, o, err := s.MetricQuerier(ctx)
		if err != nil {
			return err
		}
		if q, err = metric.Compile(cat, req, o); err != nil {
			return err
		}
		if got, err = q.Run(ctx, db); err != nil {
			return err
		}
		// A long window's keys summed from the digests; a result of at
		// most the limit's keys (or one the digests cannot answer) lists
		// them all, as before.
		if len(o.Rollups) > 0 {
			sum, err = metric.RollupKeys(ctx, db, cat, req, o, r.limit, metric.EdgesNearest)
			if errors.Is(err, metric.ErrNoRollup) || (err == nil && sum.Count <= r.limit) {
				sum, err = nil, nil
			}
			if err != nil {
				return err
			}
		}
		if sum == nil {
			if re, err = metric.Resolve(ctx, db, cat, req, o); err != nil {
				return err
			}
		}
		version, err = s.DataVersion(ctx, cat.ModelOf(m).Dataset.Value)
		return err
	})
	if err != nil {
		return fact.Result{}, fmt.Errorf("execute metric: %w", err)
	}
	ft, err := factTable(m, got)
	if err != nil {
		return fact.Result{}, fmt.Errorf("execute metric: %w", err)
	}
	var prov fact.Provenance
	if sum != nil {
		prov, err = fact.EventsInPart(sum.First, sum.Count, sum.Hash.Digest())
	} else {
		prov, err = metric.ProvenanceOf(q, re, r.limit).Fact()
	}
	if errors.Is(err, fact.ErrNoEvents) {
		prov, err = fact.Absent(fact.Attest(c.Tool(), c.Args(), version)), nil
	}
	if err != nil {
		return fact.Result{}, fmt.Errorf("execute metric: %w", err)
	}
	fr, err := fact.NewResult(c.Tool(), c.Args(), fact.TableValue(ft), prov)
	if !r.hideVersion {
		fr.DataVersion = version
	}
	return fr, err
}

// resolveMetric re-derives a query_metric call on the request's snapshot
// and judges the result: the table agrees with the re-derivation
// (metric.Verify at the metric's tolerance: every group, its value, the
// order and the limit), and the provenance names exactly the contributing
// rows (their number and digest).
func (r *shapeRunner) resolveMetric(ctx context.Context, c tool.Call, fr fact.Result) (fact.Verdict, error) {
	cat := r.cat
	req, err := shape.MetricRequest(c.Args(), metricScope(c.Scope()))
	if err != nil {
		return fact.Verdict{}, err
	}
	m := cat.Metric(req.Metric)
	if m == nil {
		return fact.Verdict{}, fmt.Errorf("resolve metric: %w", metric.ErrInvalidRequest)
	}
	var (
		re      *metric.Table
		sum     *metric.KeySummary
		firstOK bool
	)
	release, err := r.metricSlots.acquire(ctx)
	if err != nil {
		return fact.Verdict{}, fmt.Errorf("resolve metric: %w", err)
	}
	defer release()
	err = r.with(ctx, func(s *shape.Snapshot) error {
		db, o, err := s.MetricQuerier(ctx)
		if err != nil {
			return err
		}
		// A provenance summed as an lthash digest is checked by a second
		// summation (whole hours only from the digests, the edge hours'
		// rows hashed: EdgesAdd, where the executor took the nearest
		// hour boundary), or, when the digests cannot answer, by the
		// lthash of every key; the values by the re-derivation alone.
		if strings.HasPrefix(fr.Provenance.EventDigest(), fact.LtHashScheme) {
			if len(o.Rollups) > 0 {
				// The stored digests read from the database, not from
				// the running sums the executor kept.
				own := *o
				own.Rollups = map[string]metric.Rollup{}
				for ds, ru := range o.Rollups {
					ru.Sums, ru.Floors = nil, nil
					own.Rollups[ds] = ru
				}
				o = &own
				sum, err = metric.RollupKeys(ctx, db, cat, req, o, 0, metric.EdgesAdd)
				if errors.Is(err, metric.ErrNoRollup) {
					sum, err = nil, nil
				}
				if err != nil {
					return err
				}
				// The listed first keys, by a threshold rather than the
				// executor's top-N.
				if sum != nil {
					if firstOK, err = metric.FirstKeysHold(ctx, db, cat, req, o, fr.Provenance.EventIDs(), sum); err != nil {
						return err
					}
				}
			}
			if sum != nil {
				// The values alone; their contributing rows counted by
				// the resolver's own summation, so that a window of few
				// rows is re-derived from them rather than the rollups.
				values := *o
				values.SkipKeys = true
				values.KnownRows = sum.Count
				o = &values
			}
		}
		re, err = metric.Resolve(ctx, db, cat, req, o)
		return err
	})
	if errors.Is(err, metric.ErrRollupMismatch) {
		// The stored value rollups the compiled query summed disagree
		// with the rows (RederiveValues's spot check): a disagreement,
		// not a fault of the resolver, so the answer fails verification.
		return fact.Verdict{}, nil
	}
	if err != nil {
		return fact.Verdict{}, fmt.Errorf("resolve metric: %w", err)
	}
	v := fact.Verdict{Enumerated: len(re.Keys)}
	bucketed := req.Grain != "" && req.Grain != catalog.GrainNone
	if fr.Value.Kind == fact.KindTable {
		if got, err := metricTable(req, bucketed, fr.Value.Table); err == nil {
			v.ValueMatches = metric.Verify(req, got, re, m.ToleranceOf()) == nil
		}
	}
	keys := append([]string(nil), re.Keys...)
	switch {
	case fr.Provenance.NumEvents() == 0:
		_, absent := fr.Provenance.Absence()
		v.ProvenanceValid = absent && len(keys) == 0
	case sum != nil:
		// The count, the digest and the listed first keys, from the
		// resolver's own summation.
		v.Enumerated = sum.Count
		v.ProvenanceValid = fr.Provenance.NumEvents() == sum.Count && fr.Provenance.EventDigest() == sum.Hash.Digest() &&
			firstOK && len(fr.Provenance.EventIDs()) == min(r.limit, sum.Count)
	case strings.HasPrefix(fr.Provenance.EventDigest(), fact.LtHashScheme):
		u := uniq(keys)
		slices.Sort(u)
		h := lthash.Of(u...)
		v.ProvenanceValid = fr.Provenance.NumEvents() == len(u) && fr.Provenance.EventDigest() == h.Digest() &&
			slices.Equal(fr.Provenance.EventIDs(), u[:min(len(u), len(fr.Provenance.EventIDs()))])
	default:
		v.ProvenanceValid = fr.Provenance.NumEvents() == len(uniq(keys)) && fr.Provenance.EventDigest() == fact.Digest(uniq(keys))
	}
	v.Complete = v.ProvenanceValid
	return v, nil
}

// uniq returns the distinct keys, sorted.
func uniq(keys []string) []string {
	seen := make(map[string]bool, len(keys))
	out := keys[:0:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// metricRows re-derives a kept query_metric call on a new snapshot and
// returns every contributing row's key (sorted), their number and digest,
// and the data version, for the rows pager.
func (r *shapeRunner) metricRows(ctx context.Context, c tool.Call) (shape.Result, error) {
	req, err := shape.MetricRequest(c.Args(), metricScope(c.Scope()))
	if err != nil {
		return shape.Result{}, err
	}
	m := r.cat.Metric(req.Metric)
	if m == nil {
		return shape.Result{}, fmt.Errorf("page metric rows: %w", metric.ErrInvalidRequest)
	}
	var (
		re      *metric.Table
		version string
	)
	release, err := r.metricSlots.acquire(ctx)
	if err != nil {
		return shape.Result{}, fmt.Errorf("page metric rows: %w", err)
	}
	defer release()
	err = r.with(ctx, func(s *shape.Snapshot) error {
		db, o, err := s.MetricQuerier(ctx)
		if err != nil {
			return err
		}
		if re, err = metric.Resolve(ctx, db, r.cat, req, o); err != nil {
			return err
		}
		version, err = s.DataVersion(ctx, r.cat.ModelOf(m).Dataset.Value)
		return err
	})
	if err != nil {
		return shape.Result{}, fmt.Errorf("page metric rows: %w", err)
	}
	if r.hideVersion {
		version = ""
	}
	keys := uniq(slices.Sorted(slices.Values(re.Keys)))
	return shape.Result{Tool: c.Tool(), Keys: keys, Rows: len(keys), Digest: fact.Digest(keys), DataVersion: version}, nil
}
