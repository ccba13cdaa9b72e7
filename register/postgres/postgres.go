// Package postgres is a register.Store in PostgreSQL: the shared deployment's
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
package postgres

import (
	"context"
	"database/sql"

	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/pgdialect"
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
	ErrClosed = sqlstore.ErrClosed
)

// Options configures a Store (the schema its tables live in, "provenant"
// unless set). nil means defaults.
type Options = sqlstore.Options

// Store is a decision register in PostgreSQL. Its methods are
// sqlstore.RegisterStore's (Append, AppendLocked, Scan, Len, Close). It is
// safe for concurrent use, and several processes may append to one
// register: register.Register catches up and tries again on ErrStale.
type Store = sqlstore.RegisterStore

// Open connects to the database dsn names (a URL or key=value string, as
// pgx parses it), creates the schema and tables if missing, and returns a
// Store that closes the connection on Close.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	return sqlstore.OpenRegister(ctx, pgdialect.Open, dsn, nil, pgdialect.Dialect, opts)
}

// New returns a Store on db, creating the schema and tables if missing.
// Close leaves db open.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	return sqlstore.OpenRegister(ctx, nil, "", db, pgdialect.Dialect, opts)
}
