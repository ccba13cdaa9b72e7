package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/internal/duckfile"
)

// Snapshot is a DuckDB file in a temporary directory holding a copy of
// the allowlisted tables and nothing else: what a worker opens read-only.
// Copying (rather than opening the source in place) means a worker cannot
// see a table outside the allowlist even if the validator let a name
// through, and that the source may change while the sandbox serves.
type Snapshot struct {
	// Path is the snapshot's database file.
	Path string
	// Tables are the tables it holds.
	Tables []string
	dir    string
}

// Close removes the snapshot's directory.
func (s *Snapshot) Close() error {
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// SnapshotDB copies tables from the main schema of the default database
// of src (a DuckDB database, such as the in-memory one the retail demo is
// imported into) into a new snapshot. A table src does not hold is an
// error.
func SnapshotDB(ctx context.Context, src *sql.DB, tables []string) (*Snapshot, error) {
	conn, err := src.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", err)
	}
	defer conn.Close()
	var catalog string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&catalog); err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", err)
	}
	return snapshot(ctx, conn, catalog, tables)
}

// SnapshotFile copies tables from the main schema of the DuckDB database
// file at path (attached read-only) into a new snapshot. A file that is
// not a DuckDB database is refused (duckfile.ErrNotDatabase).
func SnapshotFile(ctx context.Context, path string, tables []string) (*Snapshot, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", err)
	}
	c, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", err)
	}
	defer conn.Close()
	// TYPE duckdb: another kind of file would be attached by another
	// reader (DuckDB tried to install one for a SQLite file, from the
	// network) or as an in-memory database over it (a CSV file).
	if _, err := conn.ExecContext(ctx, "ATTACH "+quoteLiteral(path)+" AS provenant_source (TYPE duckdb, READ_ONLY)"); err != nil {
		if strings.Contains(err.Error(), "not a valid DuckDB database file") {
			return nil, fmt.Errorf("snapshot tables: %s: %w", path, duckfile.ErrNotDatabase)
		}
		return nil, fmt.Errorf("snapshot tables: attach source: %w", err)
	}
	return snapshot(ctx, conn, "provenant_source", tables)
}

func snapshot(ctx context.Context, conn *sql.Conn, catalog string, tables []string) (_ *Snapshot, err error) {
	dir, err := os.MkdirTemp("", "provenant-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", err)
	}
	s := &Snapshot{Path: filepath.Join(dir, "snapshot.duckdb"), Tables: tables, dir: dir}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if _, err := conn.ExecContext(ctx, "ATTACH "+quoteLiteral(s.Path)+" AS provenant_snapshot"); err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", err)
	}
	for _, t := range tables {
		q := "CREATE TABLE provenant_snapshot.main." + quoteIdent(t) + " AS SELECT * FROM " +
			quoteIdent(catalog) + ".main." + quoteIdent(t)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.ExecContext(ctx, "DETACH provenant_snapshot")
			return nil, fmt.Errorf("snapshot table %s: %w", t, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "DETACH provenant_snapshot"); err != nil {
		return nil, fmt.Errorf("snapshot tables: %w", errors.Join(err))
	}
	return s, nil
}
