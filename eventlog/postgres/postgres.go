// Package postgres is an eventlog.Store in PostgreSQL: the shared deployment's
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
package postgres

import (
	"context"
	"database/sql"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/pgdialect"
)

var _ eventlog.BatchStore = (*Store)(nil)

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
	ErrClosed = sqlstore.ErrClosed
)

// Options configures a Store (the schema its tables live in, "provenant"
// unless set). nil means defaults.
type Options = sqlstore.Options

// Store is an event log in PostgreSQL. Its methods are
// sqlstore.EventStore's (Append, Scan, Last, Len, Close). It is safe for
// concurrent use.
type Store = sqlstore.EventStore

// Open connects to the database dsn names (a URL or key=value string, as
// pgx parses it), creates the schema and tables if missing, and returns a
// Store that closes the connection on Close.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	return sqlstore.OpenEvents(ctx, pgdialect.Open, dsn, nil, pgdialect.Dialect, opts)
}

// New returns a Store on db, creating the schema and tables if missing.
// Close leaves db open.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	return sqlstore.OpenEvents(ctx, nil, "", db, pgdialect.Dialect, opts)
}
