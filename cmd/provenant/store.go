package main

import (
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/store/duckdb"
)

// openDuckDB is the command's engine.Opener: the embedded DuckDB database,
// whose SQL derives the intervals the resolver verifies through. The
// command is the one place that links DuckDB (cgo) besides the store's and
// the engine's own tests.
var openDuckDB = engine.OpenerOf(duckdb.Open)
