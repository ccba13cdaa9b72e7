// Package duckdb is an eventlog.Store in DuckDB: the shared deployment's
// durable event log. Events live in two tables of a named schema (default
// "provenant"), created on open if missing: eventlog_head, one row with
// the last position, and eventlog_events, one row per event (position,
// id, run, producer, seq, logical time, and the event's JSON line exactly
// as a FileStore writes it).
//
// An append is one transaction: it locks the head row, checks that the
// event's seq is the next of its (run, producer) and its id is new,
// inserts it at the next position and moves the head. Append returns nil
// only after the commit: that is the acknowledgement. The primary key on
// the position and the unique constraints on the id and on (run,
// producer, seq) are the backstop, so the log never holds two events at
// one position or one seq twice.
package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/duckdialect"
)

var _ eventlog.Store = (*Store)(nil)

// The errors of this package, besides eventlog's (ErrSequence for an
// event that does not follow its producer's last, ErrOrder for a
// duplicate id, ErrCorrupt for a stored line that does not decode).
var (
	// ErrGap: a position of the events table is missing (a row deleted
	// from under the log).
	ErrGap = sqlstore.ErrGap
	// ErrSchema: Options.Schema is not a plain lower-case SQL identifier.
	ErrSchema = sqlstore.ErrSchema
	// ErrConflict: an append met concurrent appends on every retry.
	ErrConflict = sqlstore.ErrConflict
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("event store closed")
)

// Options configures a Store. nil means defaults.
type Options struct {
	// Schema names the schema the tables live in; empty means
	// "provenant". Lower-case letters, digits and underscores only.
	Schema string
}

// Store is an event log in DuckDB. It is safe for concurrent use.
type Store struct {
	s      atomic.Pointer[sqlstore.EventStore] // nil once closed
	db     *sql.DB
	closes bool
}

// Open connects to the DuckDB file at path (created if missing; "" is an in-memory database), creates the schema and tables if missing,
// and returns a Store that closes the connection on Close.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	db, err := duckdialect.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open event store: %w", err)
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
	s, err := sqlstore.NewEventStore(ctx, db, duckdialect.Dialect, o.Schema)
	if err != nil {
		return nil, fmt.Errorf("open event store: %w", err)
	}
	st := &Store{db: db}
	st.s.Store(s)
	return st, nil
}

// Append stores e; nil means committed. An event that does not follow
// the last stored one of its (run, producer) wraps eventlog.ErrSequence,
// a duplicate id eventlog.ErrOrder; nothing is stored then.
func (s *Store) Append(ctx context.Context, e eventlog.Event) error {
	st := s.s.Load()
	if st == nil {
		return fmt.Errorf("append event: %w", ErrClosed)
	}
	return st.Append(ctx, e)
}

// Scan calls fn for every event committed when it starts, in append
// order.
func (s *Store) Scan(ctx context.Context, fn func(eventlog.Event) error) error {
	st := s.s.Load()
	if st == nil {
		return fmt.Errorf("scan events: %w", ErrClosed)
	}
	return st.Scan(ctx, fn)
}

// Last returns the seq and logical time of the last stored event of
// (run, producer), or 0 and 0: what a writer sharing a producer with
// other processes reads before building its next event.
func (s *Store) Last(ctx context.Context, run, producer string) (seq, time int64, err error) {
	st := s.s.Load()
	if st == nil {
		return 0, 0, fmt.Errorf("read last event: %w", ErrClosed)
	}
	return st.Last(ctx, run, producer)
}

// Len returns how many events the store holds.
func (s *Store) Len(ctx context.Context) (int64, error) {
	st := s.s.Load()
	if st == nil {
		return 0, fmt.Errorf("count events: %w", ErrClosed)
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
			return fmt.Errorf("close event store: %w", err)
		}
	}
	return nil
}
