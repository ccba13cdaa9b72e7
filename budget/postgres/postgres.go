// Package postgres is a budget.Store in PostgreSQL: the session budgets
// of a shared deployment, one row per scope in the table
// budget_accounts of a named schema (default "provenant"), created on
// open if missing. Several processes on one schema draw from one
// session budget: a reservation is one conditional UPDATE under the
// row's lock, so together they never grant beyond the total; a restart
// finds the remainder where it was. What a process that crashed had
// reserved stays reserved (lost, never overspent).
package postgres

import (
	"context"
	"database/sql"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/pgdialect"
)

var _ budget.Store = (*Store)(nil)

// The errors of this package.
var (
	// ErrSchema: Options.Schema is not a plain lower-case SQL identifier.
	ErrSchema = sqlstore.ErrSchema
	// ErrConflict: an operation met concurrent ones on every retry.
	ErrConflict = sqlstore.ErrConflict
	// ErrClosed: the store was used after Close.
	ErrClosed = sqlstore.ErrClosed
)

// Options configures a Store (the schema its table lives in,
// "provenant" unless set). nil means defaults.
type Options = sqlstore.Options

// Store is the budget store in PostgreSQL (sqlstore.BudgetStore's
// methods: Open, Account, Reserve, Settle, Close). Safe for concurrent
// use by several processes.
type Store = sqlstore.BudgetStore

// Open connects to the database dsn names, creates the schema and table
// if missing, and returns a Store that closes the connection on Close.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	return sqlstore.OpenBudgets(ctx, pgdialect.Open, dsn, nil, pgdialect.Dialect, opts)
}

// New returns a Store on db, creating the schema and table if missing.
// Close leaves db open.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	return sqlstore.OpenBudgets(ctx, nil, "", db, pgdialect.Dialect, opts)
}
