// Package duckdb is a budget.Store in a DuckDB file: the session budgets
// of one process (DuckDB lets one process at a time open a file for
// writing), kept across its restarts, in the table budget/postgres
// describes.
package duckdb

import (
	"context"
	"database/sql"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/duckdialect"
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

// Options configures a Store. nil means defaults.
type Options = sqlstore.Options

// Store is the budget store in DuckDB (sqlstore.BudgetStore's methods).
type Store = sqlstore.BudgetStore

// Open opens (creating it if missing) the DuckDB file at path ("" is an
// in-memory database) and the table, and returns a Store that closes
// the database on Close.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	return sqlstore.OpenBudgets(ctx, duckdialect.Open, path, nil, duckdialect.Dialect, opts)
}

// New returns a Store on db, creating the schema and table if missing.
// Close leaves db open.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	return sqlstore.OpenBudgets(ctx, nil, "", db, duckdialect.Dialect, opts)
}
