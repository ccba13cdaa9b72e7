package main

import (
	"context"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/store/duckdb"
)

// openDuckDB is the command's engine.Opener: a fresh in-memory DuckDB
// database that a store file is imported into.
func openDuckDB(ctx context.Context) (*engine.Database, error) {
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		return nil, err
	}
	return &engine.Database{DB: db, Sink: func(o *ingest.SinkOptions) ingest.Sink { return duckdb.NewSink(db, o) }}, nil
}
