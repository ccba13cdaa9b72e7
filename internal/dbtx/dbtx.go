// Package dbtx begins database/sql transactions that a cancellation
// cannot leave half begun.
//
// database/sql runs a driver's BEGIN under the context it is given and
// rolls the transaction back when that context ends. DuckDB's driver
// reports a BEGIN (or the rollback's ROLLBACK) interrupted after DuckDB
// had acted as an error without marking the connection bad, and
// database/sql then returns the connection to the pool inside a
// transaction, or an aborted one: every later transaction on it fails
// ("cannot start a transaction within a transaction", "Current
// transaction is aborted"). Begin and BeginConn begin under a context
// that is never cancelled and honour ctx before and after; the
// statements keep ctx, and the caller ends the transaction: Commit
// commits only while ctx lasts, and Rollback is always the caller's.
package dbtx

import (
	"context"
	"database/sql"
)

// Begin begins a transaction on db unless ctx has ended.
func Begin(ctx context.Context, db *sql.DB, opts *sql.TxOptions) (*sql.Tx, error) {
	return begin(ctx, opts, db.BeginTx)
}

// BeginConn begins a transaction on conn unless ctx has ended.
func BeginConn(ctx context.Context, conn *sql.Conn, opts *sql.TxOptions) (*sql.Tx, error) {
	return begin(ctx, opts, conn.BeginTx)
}

func begin(ctx context.Context, opts *sql.TxOptions, beginTx func(context.Context, *sql.TxOptions) (*sql.Tx, error)) (*sql.Tx, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx, err := beginTx(context.WithoutCancel(ctx), opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// Commit commits tx, which Begin or BeginConn began, unless ctx has ended:
// then it rolls tx back and returns ctx's error, as database/sql does for
// a transaction begun under ctx.
func Commit(ctx context.Context, tx *sql.Tx) error {
	if err := ctx.Err(); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
