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
	"github.com/provenant/provenant/pipeline"
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
	// The resolver's re-derivation needs nothing of the result but its
	// first keys: where it can, it starts now, on a core of its own.
	r.speculate(ctx, c, req)
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
		if version, err = s.DataVersion(ctx, cat.ModelOf(m).Dataset.Value); err != nil {
			return err
		}
		// The call now waits for its resolver's turn: without a
		// connection, where the data cannot change.
		return s.Idle()
	})
	if errors.Is(err, metric.ErrTooManyRows) {
		return fact.Result{}, &pipeline.ResultTooLarge{Detail: fmt.Sprintf(
			"the metric's table has more than %d rows; ask for fewer groups: a filter, a shorter window, a coarser grain, fewer dimensions, or order by value with a limit", metric.MaxRows)}
	}
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
	if err == nil {
		// The compiled query the table came from: its hash and tables.
		prov, err = prov.WithQuery(fact.Query{SQLHash: q.Hash(), Tables: q.Tables})
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

// How a resolver's re-derivation reads a call's provenance (rederiveMetric).
type rederiveMode int

const (
	// listedKeys: every contributing key re-derived with the values.
	listedKeys rederiveMode = iota
	// summedKeys: the executor's provenance is summed (an lthash
	// digest): the keys summed by the resolver's own summation where
	// the digests can answer, the values re-derived alone.
	summedKeys
	// predictKeys: as the executor will have it, from the resolver's own
	// count (summed past the limit where the digests can answer, else
	// listed), for a re-derivation that starts before the executor's
	// result (speculate).
	predictKeys
)

// rederived is the resolver's reads of a query_metric call but the first
// keys' check.
type rederived struct {
	// summed: the keys were summed (sum), the values re-derived alone.
	summed bool
	sum    *metric.KeySummary
	re     *metric.Table
}

// resolverOptions are the resolver's own options for a summed provenance:
// the stored digests summed by the resolver's own keeper (per-hour totals
// over every group, read from the database once per data version), or
// read from the database where it keeps none for the request, never from
// the running sums the executor kept.
func resolverOptions(o *metric.Options) *metric.Options {
	own := *o
	own.Rollups = map[string]metric.Rollup{}
	for ds, ru := range o.Rollups {
		ru.Sums, ru.Floors = ru.CheckSums, nil
		own.Rollups[ds] = ru
	}
	return &own
}

// rederiveMetric runs the resolver's reads of a query_metric call on one
// snapshot, but the check of the listed first keys (which needs the
// executor's result). A provenance summed as an lthash digest is checked
// by a second summation (whole hours only from the digests, the edge
// hours' rows hashed: EdgesAdd, where the executor took the nearest hour
// boundary), or, when the digests cannot answer, by the lthash of every
// key; the values by the re-derivation alone.
func rederiveMetric(ctx context.Context, db metric.Querier, cat *catalog.Catalog, req metric.Request, o *metric.Options, mode rederiveMode, limit int) (rederived, error) {
	var rd rederived
	if mode != listedKeys && len(o.Rollups) > 0 {
		own := resolverOptions(o)
		sum, err := metric.RollupKeys(ctx, db, cat, req, own, 0, metric.EdgesAdd)
		if errors.Is(err, metric.ErrNoRollup) {
			sum, err = nil, nil
		}
		if err != nil {
			return rederived{}, err
		}
		// The executor sums past the limit, where the digests answer.
		if mode == summedKeys || (sum != nil && sum.Count > limit) {
			o = own
		}
		if o == own && sum != nil {
			// The values alone; their contributing rows counted by the
			// resolver's own summation, so that a window of few rows is
			// re-derived from them rather than the rollups.
			values := *own
			values.SkipKeys = true
			values.KnownRows = sum.Count
			o = &values
			rd.summed, rd.sum = true, sum
		}
	}
	re, err := metric.Resolve(ctx, db, cat, req, o)
	if err != nil {
		return rederived{}, err
	}
	rd.re = re
	return rd, nil
}

// metricSpec is a resolver's re-derivation started beside the executor
// (speculate), on a snapshot of its own.
type metricSpec struct {
	key    string
	cancel context.CancelFunc
	done   chan struct{}
	rd     rederived
	err    error
}

// metricCallKey names a query_metric call: its arguments and its caller's
// scope.
func metricCallKey(c tool.Call, req metric.Request) string {
	return fmt.Sprintf("%s\x00%v\x00%t\x00%q", c.Tool(), c.Args(), req.Scope.IsAll(), req.Scope.Values())
}

// speculate starts the resolver's re-derivation of a query_metric call
// beside the executor, on a snapshot of its own that reads what the
// request's reads (shape.Snapshot.Share: any snapshot where the engine's
// data cannot change while it serves, as on a DuckDB file opened
// read-only; on PostgreSQL the request's snapshot exported and imported
// into a second transaction), when the request pins a snapshot. The
// executor and the resolver then take a core each; the resolver
// (resolveMetric) takes the result when the provenance is of the kind
// predicted, and re-derives on the request's snapshot as before
// otherwise. A request's release cancels and waits for what it started.
// An engine that cannot share a snapshot starts nothing; one that fails
// to (an error exporting it) neither: the executor's own reads then say
// what is wrong.
func (r *shapeRunner) speculate(ctx context.Context, c tool.Call, req metric.Request) {
	pn, _ := ctx.Value(pinKey{}).(*pinned)
	if pn == nil {
		return
	}
	pn.mu.Lock()
	if pn.snap == nil {
		snap, err := r.eng.Begin(ctx)
		if err != nil {
			pn.mu.Unlock()
			return
		}
		pn.snap = snap
	}
	open, err := pn.snap.Share(ctx)
	if err != nil || open == nil {
		pn.mu.Unlock()
		return
	}
	sctx, cancel := context.WithCancel(ctx)
	sp := &metricSpec{key: metricCallKey(c, req), cancel: cancel, done: make(chan struct{})}
	pn.specs = append(pn.specs, sp)
	pn.mu.Unlock()
	r.specs.Add(1)
	go func() {
		defer close(sp.done)
		sp.err = func() error {
			release, err := r.metricSlots.acquire(sctx)
			if err != nil {
				return err
			}
			defer release()
			snap, err := open(sctx)
			if err != nil {
				return err
			}
			defer snap.Close()
			if r.beforeSpec != nil {
				r.beforeSpec()
			}
			db, o, err := snap.MetricQuerier(sctx)
			if err != nil {
				return err
			}
			sp.rd, err = rederiveMetric(sctx, db, r.cat, req, o, predictKeys, r.limit)
			return err
		}()
	}()
}

// speculated takes the re-derivation speculate started for a call, waiting
// for it to end; nil when none was started or it failed (the resolver then
// re-derives on the request's snapshot).
func (r *shapeRunner) speculated(ctx context.Context, c tool.Call, req metric.Request) (*metricSpec, error) {
	pn, _ := ctx.Value(pinKey{}).(*pinned)
	if pn == nil {
		return nil, nil
	}
	key := metricCallKey(c, req)
	pn.mu.Lock()
	var sp *metricSpec
	for i, s := range pn.specs {
		if s.key == key {
			sp = s
			pn.specs = slices.Delete(pn.specs, i, i+1)
			break
		}
	}
	pn.mu.Unlock()
	if sp == nil {
		return nil, nil
	}
	defer sp.cancel()
	select {
	case <-sp.done:
	case <-ctx.Done():
		sp.cancel()
		<-sp.done
		return nil, ctx.Err()
	}
	if sp.err != nil {
		return nil, nil
	}
	return sp, nil
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
	spec, err := r.speculated(ctx, c, req)
	if err != nil {
		return fact.Verdict{}, fmt.Errorf("resolve metric: %w", err)
	}
	var (
		rd      rederived
		firstOK bool
	)
	release, err := r.metricSlots.acquire(ctx)
	if err != nil {
		return fact.Verdict{}, fmt.Errorf("resolve metric: %w", err)
	}
	defer release()
	var compiled *metric.Query
	err = r.with(ctx, func(s *shape.Snapshot) error {
		db, o, err := s.MetricQuerier(ctx)
		if err != nil {
			return err
		}
		// The query the request compiles to on this snapshot, which the
		// provenance must name.
		if compiled, err = metric.Compile(cat, req, o); err != nil {
			return err
		}
		summed := strings.HasPrefix(fr.Provenance.EventDigest(), fact.LtHashScheme)
		mode := listedKeys
		if summed {
			mode = summedKeys
		}
		// The speculated re-derivation stands for this one when it read
		// the provenance as this one would: summed from the digests
		// exactly when the executor summed where the digests exist.
		if spec != nil && spec.rd.summed == (summed && len(o.Rollups) > 0) {
			rd = spec.rd
			r.specsUsed.Add(1)
		} else if rd, err = rederiveMetric(ctx, db, cat, req, o, mode, r.limit); err != nil {
			return err
		}
		// The listed first keys, by a threshold rather than the
		// executor's top-N.
		if rd.summed {
			if firstOK, err = metric.FirstKeysHold(ctx, db, cat, req, resolverOptions(o), fr.Provenance.EventIDs(), rd.sum); err != nil {
				return err
			}
		}
		return s.Idle()
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
	re, sum := rd.re, rd.sum
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
		// The first keys as many as the executor lists past the limit
		// (metric.ProvenanceOf): a provenance that could list every key
		// lists them all.
		first := fr.Provenance.EventIDs()
		v.ProvenanceValid = fr.Provenance.NumEvents() == len(u) && fr.Provenance.EventDigest() == h.Digest() &&
			len(first) == min(r.limit, len(u)) && slices.Equal(first, u[:len(first)])
	default:
		v.ProvenanceValid = fr.Provenance.NumEvents() == len(uniq(keys)) && fr.Provenance.EventDigest() == fact.Digest(uniq(keys))
	}
	// The provenance names the query the request compiles to.
	if q, ok := fr.Provenance.Query(); !ok || q.SQLHash != compiled.Hash() || !slices.Equal(q.Tables, compiled.Tables) {
		v.ProvenanceValid = false
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
