// Package enginetest opens engines over the embedded demo store, for
// tests of the surfaces built on an engine: the store file imported into
// an in-memory DuckDB database, as the command does.
package enginetest

import (
	"context"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/tool"
)

// OpenDuckDB is an engine.Opener: a fresh in-memory DuckDB database.
func OpenDuckDB(ctx context.Context) (*engine.Database, error) {
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		return nil, err
	}
	return &engine.Database{DB: db, Sink: func(o *ingest.SinkOptions) ingest.Sink { return duckdb.NewSink(db, o) }}, nil
}

// OpenDemo opens an engine over the demo store with opts (the rules
// provider when opts names none) and closes it when tb ends.
func OpenDemo(tb testing.TB, opts engine.Options) *engine.Engine {
	tb.Helper()
	d, err := demo.Load()
	if err != nil {
		tb.Fatal(err)
	}
	if opts.Provider == nil {
		opts.Provider = rules.Provider{}
	}
	e, err := engine.Open(tb.Context(), d, OpenDuckDB, &opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// Parts opens an engine over d and returns its wall, executor and
// resolver, for tests that assemble a pipeline around them; the engine
// closes when tb ends.
func Parts(tb testing.TB, d *retail.Dataset) (*tool.Wall, pipeline.Executor, pipeline.Resolver) {
	tb.Helper()
	e, err := engine.Open(tb.Context(), d, OpenDuckDB, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e.Parts()
}
