// Package engine assembles a grounded-answer engine from a dataset and a
// provider: the DuckDB event store, the executor's index, the wall, the
// resolver and the pipeline. Every surface (CLI, HTTP, eval) builds one
// Engine and asks through its Pipeline.
package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/executor"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/resolver"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/memstore"
	"github.com/provenant/provenant/tool"
)

// Engine is a loaded engine. Close releases its store.
type Engine struct {
	Pipeline *pipeline.Pipeline
	Store    *duckdb.Store
	Info     retail.Info
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

// Options configures Open. Provider is required.
type Options struct {
	Provider provider.Provider
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

// Open loads d into a new store and builds the pipeline over it.
func Open(ctx context.Context, d *retail.Dataset, opts Options) (*Engine, error) {
	if sc := opts.SelfConsistency; sc != nil {
		if err := sc.Validate(); err != nil {
			return nil, fmt.Errorf("open engine: %w", err)
		}
	}
	store, err := duckdb.Open(ctx, d)
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
	p := pipeline.New(pipeline.Options{
		Provider:         opts.Provider,
		Wall:             tool.NewWall(tool.CatalogOf(d)),
		Executor:         executor.New(d),
		Resolver:         resolver.New(verifyStore),
		Observer:         opts.Observer,
		Logger:           opts.Logger,
		DefaultScope:     opts.DefaultScope,
		SelfConsistency:  opts.SelfConsistency,
		Abstention:       opts.Abstention,
		RefuseUngrounded: opts.RefuseUngrounded,
		ResultIDs:        opts.ResultIDs,
	})
	return &Engine{Pipeline: p, Store: store, Info: info}, nil
}

// Close releases the store.
func (e *Engine) Close() error { return e.Store.Close() }
