// Package duckdialect is the DuckDB side of package sqlstore: the
// dialect (no row locks: a concurrent append shows as a write conflict on
// the head row, retried; appends of one store run one at a time, since
// only one process opens a DuckDB file) and opening a database file.
// eventlog/duckdb and register/duckdb share it.
package duckdialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/internal/duckfile"
	"github.com/provenant/provenant/internal/sqlstore"
)

// Dialect is DuckDB's.
var Dialect = sqlstore.Dialect{Classify: classify, Serialize: true}

func classify(err error) sqlstore.Kind {
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return sqlstore.KindOther
	}
	switch de.Type {
	case duckdb.ErrorTypeConstraint:
		return sqlstore.KindUnique
	case duckdb.ErrorTypeTransaction:
		return sqlstore.KindRetry
	}
	return sqlstore.KindOther
}

// Open opens (creating it if missing) the DuckDB database file at path;
// "" is an in-memory database. DuckDB lets one process at a time open a
// file for writing. An existing file that is not a DuckDB database is
// refused (duckfile.ErrNotDatabase).
func Open(ctx context.Context, path string) (*sql.DB, error) {
	c, err := duckdb.NewConnector(path, nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	db := sql.OpenDB(c)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	if err := duckfile.Opened(ctx, db, path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	return db, nil
}
