// Package duckfile tells whether DuckDB opened a database file as one.
package duckfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrNotDatabase: the file exists and is not a DuckDB database. DuckDB
// (1.5) opens a CSV, Parquet or JSON file given as a database as an
// in-memory database with a view over the file, so what is written to
// it is lost when it closes.
var ErrNotDatabase = errors.New("the file exists and is not a DuckDB database file")

// Opened returns an error wrapping ErrNotDatabase when db, DuckDB opened
// on the file at path, is not a database in that file: DuckDB names no
// file for the database a data file became. It reads no file itself:
// opening and closing the file in this process would release DuckDB's
// lock on it (POSIX record locks are the process's, and any close of the
// file drops them), letting another process write a file this one reads.
// "" and ":memory:" are in-memory databases by request.
func Opened(ctx context.Context, db *sql.DB, path string) error {
	if path == "" || path == ":memory:" {
		return nil
	}
	var file sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()").Scan(&file); err != nil {
		return fmt.Errorf("read the database's file: %w", err)
	}
	if !file.Valid || file.String == "" {
		return fmt.Errorf("%s: %w", path, ErrNotDatabase)
	}
	return nil
}
