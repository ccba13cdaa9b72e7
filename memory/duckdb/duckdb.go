// Package duckdb is the memory journal in DuckDB: the embedded database
// file the engine's state lives in, one append-only table memory_journal
// beside the data. It implements memory.Journal (and so memory.Store).
package duckdb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/internal/sqljournal"
	"github.com/provenant/provenant/store/duckdb"
)

var _ memory.Journal = (*Store)(nil)

// Store is a memory journal in a DuckDB database.
type Store struct {
	*sqljournal.Store
	close func() error
}

// Open opens (creating it if missing) the DuckDB database file at path
// and its journal table. Close releases the file.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := duckdb.OpenFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open memory journal: %w", err)
	}
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.close = db.Close
	return s, nil
}

// OpenMemory opens a journal in a fresh in-memory DuckDB database, for
// tests and benchmarks. Close releases it.
func OpenMemory(ctx context.Context) (*Store, error) {
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		return nil, fmt.Errorf("open memory journal: %w", err)
	}
	s, err := New(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.close = db.Close
	return s, nil
}

// New creates the journal table in db (a DuckDB database) if missing and
// returns a store over it; the caller keeps db and closes it.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	s, err := sqljournal.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	return &Store{Store: s, close: func() error { return nil }}, nil
}

// Close releases the database Open or OpenMemory opened; a store from
// New leaves its database to the caller.
func (s *Store) Close() error { return s.close() }
