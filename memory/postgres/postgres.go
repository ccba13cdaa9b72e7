// Package postgres is the memory journal in PostgreSQL, for an engine
// whose data is there: one append-only table memory_journal beside the
// data. It implements memory.Journal (and so memory.Store).
package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/internal/sqljournal"
	pgstore "github.com/provenant/provenant/store/postgres"
)

var _ memory.Journal = (*Store)(nil)

// MaxConns bounds the connections a pool opened by Open holds.
const MaxConns = 8

// Store is a memory journal in a PostgreSQL database.
type Store struct {
	*sqljournal.Store
	close func() error
}

// Open connects to the database dsn names and creates the journal table
// if missing. Close releases the connections.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, err := pgstore.OpenGrowingPool(ctx, dsn, MaxConns)
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

// New creates the journal table in db (a PostgreSQL database) if missing
// and returns a store over it; the caller keeps db and closes it.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	s, err := sqljournal.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	return &Store{Store: s, close: func() error { return nil }}, nil
}

// Close releases the connections Open opened; a store from New leaves
// its database to the caller.
func (s *Store) Close() error { return s.close() }
