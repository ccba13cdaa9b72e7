// Package duckdb is a register.Store in DuckDB: the shared deployment's
// durable decision register. Records live in two tables of a named schema
// (default "provenant"), created on open if missing: register_head, one
// row with the record count and the last record's hash, and
// register_records, one row per record (index, id, prev, hash, and the
// record's canonical JSON line, as a register file holds it).
//
// An append is one transaction: it locks the head row, compares the
// record's prev with the head's hash (register.ErrStale when another
// writer moved it), inserts the record at the next index and moves the
// head. Append returns nil only after the commit. The primary key on the
// index and the unique constraints on the id and on prev are the
// backstop: two records can never follow one head, so the chain stays
// one line.
package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/duckdialect"
	"github.com/provenant/provenant/register"
)

var _ register.LockingStore = (*Store)(nil)

// The errors of this package, besides register's (ErrStale when the head
// moved, *DecodeError for a stored line that is not a record's canonical
// JSON).
var (
	// ErrGap: an index of the records table is missing (a row deleted
	// from under the register).
	ErrGap = sqlstore.ErrGap
	// ErrSchema: Options.Schema is not a plain lower-case SQL identifier.
	ErrSchema = sqlstore.ErrSchema
	// ErrConflict: an append met concurrent appends on every retry.
	ErrConflict = sqlstore.ErrConflict
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("register store closed")
)

// Options configures a Store. nil means defaults.
type Options struct {
	// Schema names the schema the tables live in; empty means
	// "provenant". Lower-case letters, digits and underscores only.
	Schema string
}

// Store is a decision register in DuckDB. It is safe for concurrent use,
// and several processes may append to one register: register.Register
// catches up and tries again on ErrStale.
type Store struct {
	s      atomic.Pointer[sqlstore.RegisterStore] // nil once closed
	db     *sql.DB
	closes bool
}

// Open connects to the DuckDB file at path (created if missing; "" is an in-memory database), creates the schema and tables if missing,
// and returns a Store that closes the connection on Close.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	db, err := duckdialect.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open register store: %w", err)
	}
	s, err := New(ctx, db, opts)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.closes = true
	return s, nil
}

// New returns a Store on db, creating the schema and tables if missing.
// Close leaves db open.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	s, err := sqlstore.NewRegisterStore(ctx, db, duckdialect.Dialect, o.Schema)
	if err != nil {
		return nil, fmt.Errorf("open register store: %w", err)
	}
	st := &Store{db: db}
	st.s.Store(s)
	return st, nil
}

// Append implements register.Store; nil means committed.
func (s *Store) Append(ctx context.Context, r register.Record) error {
	st := s.s.Load()
	if st == nil {
		return fmt.Errorf("append record: %w", ErrClosed)
	}
	return st.Append(ctx, r)
}

// AppendLocked implements register.LockingStore: the head row stays
// locked while link runs and the record it returns is stored, so
// register.Register never races other writers for the head.
func (s *Store) AppendLocked(ctx context.Context, link func(context.Context, register.Head) (register.Record, error)) error {
	st := s.s.Load()
	if st == nil {
		return fmt.Errorf("append record: %w", ErrClosed)
	}
	return st.AppendLocked(ctx, link)
}

// Scan implements register.Store, up to the head as it was when Scan
// started.
func (s *Store) Scan(ctx context.Context, from int, fn func(int, register.Record) error) error {
	st := s.s.Load()
	if st == nil {
		return fmt.Errorf("scan register: %w", ErrClosed)
	}
	return st.Scan(ctx, from, fn)
}

// Len returns how many records the store holds.
func (s *Store) Len(ctx context.Context) (int, error) {
	st := s.s.Load()
	if st == nil {
		return 0, fmt.Errorf("count records: %w", ErrClosed)
	}
	return st.Len(ctx)
}

// Close closes the connection if Open made it.
func (s *Store) Close() error {
	if s.s.Swap(nil) == nil {
		return nil
	}
	if s.closes {
		if err := s.db.Close(); err != nil {
			return fmt.Errorf("close register store: %w", err)
		}
	}
	return nil
}
