package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// OpenCatalog builds an engine that answers a catalog's tools over the
// database src holds: the registry, the wall's domains, the schemas and
// the sentences are derived from cat; the executor and the resolver are
// the shapes' two formulations (package shape), reading one snapshot per
// request. opts.Registry is ignored: the catalog defines the menu. The
// engine does not close src.DB.
func OpenCatalog(ctx context.Context, cat *catalog.Catalog, src shape.Source, opts *Options) (*Engine, error) {
	return openCatalog(ctx, cat, src, opts, false)
}

// ErrNoSandbox is returned by OpenCatalog for a catalog that opts in to
// free SQL when Options.FreeSQL gives no runner: its statements run in
// the sandbox or nowhere.
var ErrNoSandbox = errors.New("free SQL needs a sandbox runner")

// StoreFileMemoryRows is how many events of a store file Open holds in
// memory: every store the format allows (999,999 events at most). From
// memory the demo's calls take tens of microseconds instead of
// milliseconds, and a store of 999,999 events serves twice the questions
// it does by SQL, for a slower start: reading the rows out of DuckDB costs
// about 6 µs a row (bench/results/load-big.txt against
// load-big-sql.txt). A caller may set Options.MemoryRows lower.
const StoreFileMemoryRows = 1_000_000

// openCatalog is OpenCatalog; storeFile marks Open's engine over an
// imported store file, whose answers carry no data_version (the store
// file's dataset_version names the data, as the retail answers always
// have: /healthz and an absence's attestation show it).
func openCatalog(ctx context.Context, cat *catalog.Catalog, src shape.Source, opts *Options, storeFile bool) (*Engine, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Provider == nil {
		o.Provider = rules.Provider{}
	}
	if sc := o.SelfConsistency; sc != nil {
		if err := sc.Validate(); err != nil {
			return nil, fmt.Errorf("open engine: %w", err)
		}
	}
	reg, err := shape.NewMenuRegistry(cat)
	if err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	memoryRows := o.MemoryRows
	if storeFile && memoryRows == 0 {
		// A store file is imported into a database of its own that
		// nothing writes to after: a small one is served from memory,
		// where a call costs microseconds rather than the database's
		// fixed cost per query.
		memoryRows = StoreFileMemoryRows
	}
	eng, err := shape.New(ctx, cat, src, &shape.Options{MaxKeys: o.ProvenanceLimit, MemoryRows: memoryRows, MetricGoRows: o.MetricGoRows, MetricResolveRows: o.MetricResolveRows, MetricResolveFrom: o.MetricResolveFrom, MetricRollups: o.MetricRollups, MetricValueRollups: o.MetricValueRollups, WindowDigests: o.WindowDigests, SQLTurns: o.SQLTurns})
	if err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	limit := o.ProvenanceLimit
	if limit <= 0 {
		limit = shape.DefaultMaxKeys
	}
	metricSlots := o.MetricConcurrency
	if metricSlots <= 0 {
		metricSlots = runtime.GOMAXPROCS(0)
	}
	sr := &shapeRunner{eng: eng, cat: cat, limit: limit, kept: &keeper{}, hideVersion: storeFile, metricSlots: newSlots(metricSlots)}
	// The wall admits the ids an entity's reference table declares, read
	// once here; for an entity without one it knows the ids' pattern, and
	// an id that matches but names nothing is a grounded zero (no
	// observation, nothing counted).
	// The same tables' display names are what a question may name an id
	// by (the rules provider reads them from the menu).
	var names map[string]map[string]string
	err = sr.with(ctx, func(s *shape.Snapshot) error {
		var err error
		names, err = s.DeclaredNames(ctx)
		return err
	})
	if err != nil {
		eng.Close()
		return nil, fmt.Errorf("open engine: %w", err)
	}
	var declared map[string]map[string]bool
	for entity, ids := range names {
		if declared == nil {
			declared = map[string]map[string]bool{}
		}
		declared[entity] = make(map[string]bool, len(ids))
		for id := range ids {
			declared[entity][id] = true
		}
	}
	if len(names) > 0 {
		reg = reg.WithNames(names)
	}
	wall := tool.NewWall(reg, declared)
	if _, ok := shape.MetricDef(cat); ok {
		wall = wall.WithCheck(shape.QueryMetric, metricCheck(cat, declared))
	}
	var free *pipeline.FreeSQL
	if cat.FreeSQL() {
		if o.FreeSQL == nil || o.FreeSQL.Runner == nil {
			eng.Close()
			return nil, fmt.Errorf("open engine: catalog %s opts in to free SQL: %w", cat.Name.Value, ErrNoSandbox)
		}
		f := *o.FreeSQL
		if f.Tool == "" {
			f.Tool = shape.QuerySQL
		}
		if f.Tables == nil {
			f.Tables = cat.Allowlist()
		}
		free = &f
	}
	auto, err := autonomyOptions(ctx, cat, src, reg, o.Autonomy, o.Register)
	if err != nil {
		eng.Close()
		return nil, fmt.Errorf("open engine: %w", err)
	}
	p := pipeline.New(o.Provider, wall, sr, sr, &pipeline.Options{
		Observer:         o.Observer,
		Logger:           o.Logger,
		DefaultScope:     o.DefaultScope,
		SelfConsistency:  o.SelfConsistency,
		Abstention:       o.Abstention,
		RefuseUngrounded: o.RefuseUngrounded,
		ResultIDs:        o.ResultIDs,
		Keeper:           sr.kept,
		Now:              o.Now,
		FreeSQL:          free,
		Events:           o.Events,
		Budget:           o.Budget,
		SessionBudget:    o.SessionBudget,
		Repair:           repairOptions(o.Repair, cat, sr),
		Autonomy:         auto,
	})
	// The shape engine's prepared statements go before the database does
	// (OnClose adds a caller's closers after this one).
	return &Engine{Pipeline: p, Registry: reg, Catalog: cat, Register: o.Register, runner: sr, wall: wall, closers: []func() error{eng.Close}}, nil
}

// Parts returns the wall, the executor and the resolver of the engine's
// pipeline, for tests that assemble a pipeline of their own around them.
func (e *Engine) Parts() (*tool.Wall, pipeline.Executor, pipeline.Resolver) {
	return e.wall, e.runner, e.runner
}

// shapeRunner is the executor, resolver and pinner of a catalog engine.
type shapeRunner struct {
	eng   *shape.Engine
	cat   *catalog.Catalog
	limit int     // event ids an answer lists
	kept  *keeper // results listed in part, for Rows
	// hideVersion: the answers carry no data_version (Open's store file).
	hideVersion bool
	// metricSlots bounds the metric reads in flight
	// (Options.MetricConcurrency).
	metricSlots *slots
	// specs counts the resolver's re-derivations started beside the
	// executor (speculate), specsUsed those the resolver took.
	specs, specsUsed atomic.Int64
	// beforeSpec, when set (by tests), runs on a re-derivation beside the
	// executor once its snapshot is open, before it reads.
	beforeSpec func()
}

var (
	_ pipeline.Executor = (*shapeRunner)(nil)
	_ pipeline.Resolver = (*shapeRunner)(nil)
	_ pipeline.Pinner   = (*shapeRunner)(nil)
)

type pinKey struct{}

// pinned is one request's snapshot, opened at its first read.
type pinned struct {
	mu   sync.Mutex
	snap *shape.Snapshot
	// specs: re-derivations started beside the executor (speculate) and
	// not yet taken by the resolver.
	specs []*metricSpec
}

// Pin returns a context whose reads share one snapshot, and its release.
func (r *shapeRunner) Pin(ctx context.Context) (context.Context, func()) {
	pn := &pinned{}
	return context.WithValue(ctx, pinKey{}, pn), func() {
		pn.mu.Lock()
		defer pn.mu.Unlock()
		// A re-derivation no resolver took (the call failed before it)
		// ends with the request, its snapshot closed.
		for _, sp := range pn.specs {
			sp.cancel()
			<-sp.done
		}
		pn.specs = nil
		if pn.snap != nil {
			pn.snap.Close()
			pn.snap = nil
		}
	}
}

// with runs f on the request's snapshot, or on one of its own when the
// context pins none.
func (r *shapeRunner) with(ctx context.Context, f func(*shape.Snapshot) error) error {
	pn, _ := ctx.Value(pinKey{}).(*pinned)
	if pn == nil {
		snap, err := r.eng.Begin(ctx)
		if err != nil {
			return err
		}
		defer snap.Close()
		return f(snap)
	}
	pn.mu.Lock()
	defer pn.mu.Unlock()
	if pn.snap == nil {
		snap, err := r.eng.Begin(ctx)
		if err != nil {
			return err
		}
		pn.snap = snap
	}
	return f(pn.snap)
}

func shapeCall(c tool.Call) shape.Call {
	return shape.Call{Tool: c.Tool(), Args: c.Args(), Scope: shapeScope(c.Scope())}
}

// Execute answers a call with the executor's formulation.
func (r *shapeRunner) Execute(ctx context.Context, c tool.Call) (fact.Result, error) {
	if c.Tool() == shape.QueryMetric {
		return r.executeMetric(ctx, c)
	}
	var res shape.Result
	err := r.with(ctx, func(s *shape.Snapshot) error {
		var err error
		res, err = s.Execute(ctx, shapeCall(c))
		return err
	})
	if err != nil {
		return fact.Result{}, err
	}
	var prov fact.Provenance
	switch {
	case res.Rows == 0:
		prov = fact.Absent(fact.Attest(c.Tool(), c.Args(), res.DataVersion))
	case res.Rows > len(res.Keys):
		prov, err = fact.EventsInPart(res.Keys, res.Rows, res.Digest)
	default:
		prov, err = fact.Events(res.Keys)
	}
	if err != nil {
		return fact.Result{}, err
	}
	fr, err := fact.NewResult(c.Tool(), c.Args(), res.Value, prov)
	if !r.hideVersion {
		fr.DataVersion = res.DataVersion
	}
	return fr, err
}

// Resolve re-derives the call and judges r.
func (r *shapeRunner) Resolve(ctx context.Context, c tool.Call, fr fact.Result) (fact.Verdict, error) {
	if c.Tool() == shape.QueryMetric {
		return r.resolveMetric(ctx, c, fr)
	}
	keys := fr.Provenance.EventIDs()
	digest := fr.Provenance.EventDigest()
	if fr.Provenance.NumEvents() == 0 {
		digest = fact.Digest(nil) // an absence asserts the empty set
	}
	res := shape.Result{Tool: fr.Tool, Value: fr.Value, Keys: keys, Rows: fr.Provenance.NumEvents(), Digest: digest}
	var v shape.Verdict
	err := r.with(ctx, func(s *shape.Snapshot) error {
		var err error
		v, err = s.Resolve(ctx, shapeCall(c), res)
		return err
	})
	if err != nil {
		return fact.Verdict{}, err
	}
	return fact.Verdict{ProvenanceValid: v.ProvenanceValid, ValueMatches: v.ValueMatches, Complete: v.Complete, Enumerated: v.Enumerated}, nil
}
