// Package postgres is an autonomy.Ledger in PostgreSQL: the shared
// deployment's live grants and logical clock in a named schema (default
// "provenant"), created on open if missing: the sequence
// autonomy_clock_seq (the clock: a tick is nextval, which waits on no
// other request's commit; autonomy_clock is a read-only view of it),
// autonomy_sessions (a row per session, locked by every change of its
// grants) and autonomy_grants (a row per live grant; primary key session
// and grant id). Several processes on one schema share every session's
// grants; a restart keeps them; a grant that lapses is deleted by exactly
// one process's Update (or TickUpdate: a question's tick and count in one
// transaction), the one that reports its elevation.expired.
//
// Logical time is strictly increasing and never given twice, across
// processes, but not dense: a transaction that ticked and failed leaves
// its time unused (sqlstore.GrantStore says why that is harmless).
//
// A schema an earlier version made, whose clock is the one-row table
// autonomy_clock, is migrated at open, in one transaction under an
// advisory lock (two processes opening it at once migrate it once): the
// sequence starts after the row's time and the table becomes the view,
// on which an earlier version fails (at open, or at its next tick if it
// is already running) instead of keeping a clock of its own.
package postgres

import (
	"context"
	"database/sql"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/pgdialect"
)

var _ autonomy.Ledger = (*Store)(nil)

// The errors of this package.
var (
	// ErrSchema: Options.Schema is not a plain lower-case SQL identifier.
	ErrSchema = sqlstore.ErrSchema
	// ErrConflict: an update met concurrent updates on every retry.
	ErrConflict = sqlstore.ErrConflict
	// ErrClosed: the store was used after Close.
	ErrClosed = sqlstore.ErrClosed
)

// Options configures a Store (the schema its tables live in, "provenant"
// unless set). nil means defaults.
type Options = sqlstore.Options

// Store is the ledger in PostgreSQL (sqlstore.GrantStore's methods: Load,
// Update, Tick, Now, Close). Safe for concurrent use by several
// processes.
type Store = sqlstore.GrantStore

// Open connects to the database dsn names, creates the schema and tables
// if missing, and returns a Store that closes the connection on Close.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	return sqlstore.OpenGrants(ctx, pgdialect.Open, dsn, nil, pgdialect.Dialect, opts)
}

// New returns a Store on db, creating the schema and tables if missing.
// Close leaves db open.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	return sqlstore.OpenGrants(ctx, nil, "", db, pgdialect.Dialect, opts)
}
