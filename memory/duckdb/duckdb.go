// Package duckdb is the memory journal in DuckDB: the embedded database
// file the engine's state lives in, one append-only table memory_journal
// beside the data (and memory_ancestry, the chains' index). It implements
// memory.Journal (and so memory.Store, and memory.ChainsReader).
//
// Reads are served from an in-memory copy of the journal (package
// memstore), read once when the store opens and kept in step by every
// Append, which writes the database first: a DuckDB file is open for
// writing in one process at a time, so no other writer can move the
// journal under the copy. It is the choice the engine makes for a store
// file, for the same reason: a DuckDB query costs milliseconds of fixed
// cost, and a read is three of them (BenchmarkRead, with and without the
// copy, in bench/results/memory-read.txt). Options.ReadThrough reads the
// database instead.
package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/internal/sqljournal"
	"github.com/provenant/provenant/memory/memstore"
	"github.com/provenant/provenant/store/duckdb"
)

var (
	_ memory.Journal      = (*Store)(nil)
	_ memory.ChainsReader = (*Store)(nil)
)

// Options configures a store; nil means defaults.
type Options struct {
	// ReadThrough reads every retrieval, visibility and chain from the
	// database, keeping no copy in memory.
	ReadThrough bool
}

// Store is a memory journal in a DuckDB database.
type Store struct {
	db          *sqljournal.Store
	mu          sync.Mutex                     // orders appends and loads, so the copy matches the table
	readThrough bool                           // no copy
	copy        atomic.Pointer[memstore.Store] // the copy, unless readThrough
	close       func() error
}

// Open opens (creating it if missing) the DuckDB database file at path
// and its journal. Close releases the file.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	db, err := duckdb.OpenFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open memory journal: %w", err)
	}
	return own(ctx, db, opts)
}

// OpenMemory opens a journal in a fresh in-memory DuckDB database. Close
// releases it.
func OpenMemory(ctx context.Context, opts *Options) (*Store, error) {
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		return nil, fmt.Errorf("open memory journal: %w", err)
	}
	return own(ctx, db, opts)
}

func own(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	s, err := New(ctx, db, opts)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.close = db.Close
	return s, nil
}

// New creates the journal's tables in db (a DuckDB database) if missing
// and returns a store over it; the caller keeps db and closes it.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	j, err := sqljournal.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	s := &Store{db: j, readThrough: opts != nil && opts.ReadThrough, close: func() error { return nil }}
	if !s.readThrough {
		if err := s.reload(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// reload reads the journal into a fresh copy.
func (s *Store) reload(ctx context.Context) error {
	entries, err := s.db.Entries(ctx)
	if err != nil {
		return fmt.Errorf("open memory journal: %w", err)
	}
	c, err := memstore.Load(entries)
	if err != nil {
		return fmt.Errorf("open memory journal: %w", err)
	}
	s.copy.Store(c)
	return nil
}

// Close releases the database Open or OpenMemory opened; a store from
// New leaves its database to the caller.
func (s *Store) Close() error { return s.close() }

// DB is the database the journal is in.
func (s *Store) DB() *sql.DB { return s.db.DB() }

// Append adds a record with its visibility to the table, then to the
// copy (memory.Journal).
func (s *Store) Append(ctx context.Context, r memory.Record, v memory.Visibility) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.Append(ctx, r, v); err != nil {
		return err
	}
	if !s.readThrough {
		if err := s.copy.Load().Append(context.WithoutCancel(ctx), r, v); err != nil {
			// The table holds the record; the copy must too.
			return fmt.Errorf("append record: copy out of step: %w", err)
		}
	}
	return nil
}

// Load appends a snapshot's entries as they are, corrupt records
// included, in one transaction, and reads the copy again.
func (s *Store) Load(ctx context.Context, entries []memory.Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.db.Load(ctx, entries); err != nil {
		return err
	}
	if !s.readThrough {
		return s.reload(ctx)
	}
	return nil
}

// Retrieve implements memory.Store.
func (s *Store) Retrieve(ctx context.Context, q memory.Retrieval) ([]memory.Record, error) {
	if !s.readThrough {
		return s.copy.Load().Retrieve(ctx, q)
	}
	return s.db.Retrieve(ctx, q)
}

// RetrieveEntries implements memory.EntryRetriever.
func (s *Store) RetrieveEntries(ctx context.Context, q memory.Retrieval) ([]memory.Entry, error) {
	if !s.readThrough {
		return s.copy.Load().RetrieveEntries(ctx, q)
	}
	return s.db.RetrieveEntries(ctx, q)
}

// Visibility implements memory.Store.
func (s *Store) Visibility(ctx context.Context, keys []string) (map[string]memory.Visibility, error) {
	if !s.readThrough {
		return s.copy.Load().Visibility(ctx, keys)
	}
	return s.db.Visibility(ctx, keys)
}

// Chain implements memory.Store.
func (s *Store) Chain(ctx context.Context, key string) ([]memory.Entry, error) {
	if !s.readThrough {
		return s.copy.Load().Chain(ctx, key)
	}
	return s.db.Chain(ctx, key)
}

// Chains implements memory.ChainsReader.
func (s *Store) Chains(ctx context.Context, keys []string) (map[string][]memory.Entry, error) {
	if s.readThrough {
		return s.db.Chains(ctx, keys)
	}
	c := s.copy.Load()
	out := make(map[string][]memory.Entry, len(keys))
	for _, k := range keys {
		es, err := c.Chain(ctx, k)
		if err != nil {
			return nil, err
		}
		if len(es) > 0 {
			out[k] = es
		}
	}
	return out, nil
}
