// Package engine assembles a grounded-answer engine from a dataset and a
// provider: the event store (through an Opener: DuckDB in the command,
// wired in cmd/provenant; OpenMemory, pure Go, in tests), the executor's
// index, the wall, the resolver and the pipeline. Every surface (CLI,
// HTTP, eval) builds one Engine and asks through its Pipeline.
//
// The package does not import store/duckdb, so that only the command and
// the tests that name DuckDB link it (cgo); internal/archtest keeps it so.
package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/executor"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/resolver"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/memstore"
	"github.com/provenant/provenant/tool"
)

// Engine is a loaded engine. Close releases its store.
type Engine struct {
	Pipeline *pipeline.Pipeline
	Store    Store
	Info     retail.Info
	// Registry is the tool registry the wall checks against and every
	// surface describes (Options.Registry, or the retail tools; for a
	// catalog engine, derived from the catalog).
	Registry *tool.Registry
	// Catalog is a catalog engine's catalog (OpenCatalog); nil for the
	// retail store-file engine, whose Store and Info are set instead.
	Catalog *catalog.Catalog

	runner  *shapeRunner // a catalog engine's executor and resolver
	closers []func() error
}

// OnClose adds f to what Close releases, after the store (the database a
// caller opened for OpenCatalog, say).
func (e *Engine) OnClose(f func() error) { e.closers = append(e.closers, f) }

// Store is the database an engine verifies through: the resolver asks it
// (VerifySQL), or a snapshot of the validity intervals it derives
// (VerifySnapshot). store/duckdb's Store is one; so is store/memstore's.
type Store interface {
	retail.EventStore
	// Intervals returns every event with its pair's next scan time.
	Intervals(ctx context.Context) ([]retail.Interval, error)
	Close() error
}

// Opener loads a dataset into a fresh Store.
type Opener func(ctx context.Context, d *retail.Dataset) (Store, error)

// OpenerOf adapts a backend's open function (store/duckdb's Open, say) to
// an Opener.
func OpenerOf[S Store](open func(context.Context, *retail.Dataset) (S, error)) Opener {
	return func(ctx context.Context, d *retail.Dataset) (Store, error) {
		s, err := open(ctx, d)
		if err != nil {
			return nil, err // not a Store holding a nil S
		}
		return s, nil
	}
}

// OpenMemory is the pure-Go Opener: a store/memstore store whose intervals
// are derived in Go. For tests and tools that must not link DuckDB; the
// command opens DuckDB, whose intervals are derived by SQL, an engine
// independent of the executor's.
func OpenMemory(_ context.Context, d *retail.Dataset) (Store, error) {
	s, err := memstore.FromDataset(d)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Verification modes: where the resolver re-derives each answer.
const (
	// VerifySnapshot re-derives from an in-memory relation that DuckDB
	// computed with SQL at load (each event's validity interval): a
	// different engine and algorithm than the executor's, with no database
	// round trip per question. The default.
	VerifySnapshot = "snapshot"
	// VerifySQL asks DuckDB with SQL for every question: the most
	// independent path, at DuckDB's fixed cost of about a millisecond per
	// query.
	VerifySQL = "sql"
)

// Options configures Open; nil means defaults.
type Options struct {
	Provider provider.Provider // nil: the rules provider
	Registry *tool.Registry    // nil: RetailRegistry(), derived from catalogs/retail.yaml
	Verify   string            // VerifySnapshot (default) or VerifySQL
	Observer pipeline.Observer // nil: none
	Logger   *slog.Logger      // nil: discard
	// DefaultScope is the scope of requests that carry none; nil means
	// every store (local single-user mode). See pipeline.Options.
	DefaultScope *tool.Scope
	// SelfConsistency votes over sampled proposals for the hard question
	// classes; nil means off. See pipeline.SelfConsistency.
	SelfConsistency *pipeline.SelfConsistency
	// RefuseUngrounded abstains on a composed sentence the grounding check
	// refuses, instead of shipping the fact with a code-rendered sentence.
	RefuseUngrounded bool
	// Abstention is a calibrated abstention policy; nil means none.
	Abstention *calibration.Policy
	// ResultIDs hands out result ids; nil means a ledger.Allocator
	// (unique across processes). See pipeline.Options.
	ResultIDs ledger.IDSource
	// ProvenanceLimit is how many event ids a catalog engine's answer
	// lists (0: shape.DefaultMaxKeys, 1,000); beyond it the answer carries
	// the first ones, the count and the digest of them all.
	ProvenanceLimit int
}

// LoadDataset reads a store file, or the embedded demo store when path is
// "".
func LoadDataset(path string) (*retail.Dataset, error) {
	if path == "" {
		return demo.Load()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open store file: %w", err)
	}
	defer f.Close()
	return retail.Load(f)
}

// Open loads d into a new store from open and builds the pipeline over it.
func Open(ctx context.Context, d *retail.Dataset, open Opener, opts *Options) (*Engine, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	opts = &o
	if opts.Provider == nil {
		opts.Provider = rules.Provider{}
	}
	if opts.Registry == nil {
		reg, err := RetailRegistry()
		if err != nil {
			return nil, fmt.Errorf("open engine: %w", err)
		}
		opts.Registry = reg
	}
	if sc := opts.SelfConsistency; sc != nil {
		if err := sc.Validate(); err != nil {
			return nil, fmt.Errorf("open engine: %w", err)
		}
	}
	store, err := open(ctx, d)
	if err != nil {
		return nil, err
	}
	info, err := store.Info(ctx)
	if err != nil {
		store.Close()
		return nil, err
	}
	var verifyStore retail.EventStore
	switch opts.Verify {
	case VerifySnapshot, "":
		verifyStore, err = memstore.Load(ctx, store)
		if err != nil {
			store.Close()
			return nil, err
		}
	case VerifySQL:
		verifyStore = store
	default:
		store.Close()
		return nil, fmt.Errorf("open engine: unknown verify mode (want %s or %s)", VerifySnapshot, VerifySQL)
	}
	p := pipeline.New(opts.Provider, tool.NewWall(opts.Registry, retail.DeclaredIDs(d)), executor.New(d, nil), resolver.New(verifyStore),
		&pipeline.Options{
			Observer:         opts.Observer,
			Logger:           opts.Logger,
			DefaultScope:     opts.DefaultScope,
			SelfConsistency:  opts.SelfConsistency,
			Abstention:       opts.Abstention,
			RefuseUngrounded: opts.RefuseUngrounded,
			ResultIDs:        opts.ResultIDs,
		})
	return &Engine{Pipeline: p, Store: store, Info: info, Registry: opts.Registry}, nil
}

// Close releases the store, if the engine owns one, and what OnClose
// added; it returns the first error.
func (e *Engine) Close() error {
	var first error
	if e.Store != nil {
		first = e.Store.Close()
	}
	for _, f := range e.closers {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	e.closers = nil
	return first
}

// RetailRegistry derives the tool registry of the embedded retail catalog
// (catalogs/retail.yaml): the six tools of the demo.
func RetailRegistry() (*tool.Registry, error) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		return nil, err
	}
	return shape.NewRegistry(cat)
}
