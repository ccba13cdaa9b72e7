package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/ingest"
)

var _ ingest.Sink = (*Sink)(nil)

// OpenFile opens (creating it if missing) the DuckDB database file at
// path, in place: DuckDB reads its blocks on demand, so opening costs the
// same at any size. Close the returned *sql.DB to release it.
func OpenFile(ctx context.Context, path string) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("open duckdb file: empty path")
	}
	connector, err := duckdb.NewConnector(path, nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	db := sql.OpenDB(connector) // db.Close closes the connector
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	return db, nil
}

// Sink imports rows into a DuckDB database (ingest.Import). Rows go
// through DuckDB's Appender into a temporary staging table; Commit checks
// keys and moves them into the table with INSERT ... SELECT, all inside
// one transaction on one connection.
type Sink struct {
	db *sql.DB
}

// NewSink returns a Sink on db, a DuckDB database (OpenFile).
func NewSink(db *sql.DB) *Sink { return &Sink{db: db} }

// stagingTable is the temporary table an import stages its rows in.
const stagingTable = "_ingest_staging"

// importMu serialises imports in this process: DuckDB lets concurrent
// transactions append to one table, and two imports reading the same
// greatest _ingest_seq would number rows alike.
var importMu sync.Mutex

// Begin starts an import: BEGIN, the table if missing, the staging table
// and an appender on it.
func (s *Sink) Begin(ctx context.Context, l *ingest.Layout) (ingest.Batch, error) {
	importMu.Lock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		importMu.Unlock()
		return nil, fmt.Errorf("begin import: %w", err)
	}
	b := &batch{conn: conn, l: l}
	if err := b.begin(ctx); err != nil {
		b.Rollback()
		return nil, fmt.Errorf("begin import: %w", err)
	}
	return b, nil
}

type batch struct {
	conn     *sql.Conn
	l        *ingest.Layout
	app      *duckdb.Appender
	base, n  int64
	row      []driver.Value
	inTx     bool
	finished bool
}

func (b *batch) begin(ctx context.Context) error {
	if _, err := b.conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	b.inTx = true
	base, err := ingest.Prepare(ctx, b.conn, b.l, ingest.DuckDB, stagingTable)
	if err != nil {
		return err
	}
	b.base = base
	return b.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a driver connection")
		}
		a, err := duckdb.NewAppender(c, "temp", "main", stagingTable)
		if err != nil {
			return fmt.Errorf("create appender: %w", err)
		}
		b.app = a
		return nil
	})
}

// Append stages one row with the next _ingest_seq.
func (b *batch) Append(_ context.Context, src int, row int64, vals []any) error {
	b.n++
	b.row = b.row[:0]
	for _, v := range vals {
		b.row = append(b.row, v)
	}
	b.row = append(b.row, b.base+b.n, int32(src), row)
	if err := b.app.AppendRow(b.row...); err != nil {
		return fmt.Errorf("stage row: %w", err)
	}
	return nil
}

// Commit flushes the appender, checks keys, moves the rows and commits.
func (b *batch) Commit(ctx context.Context, inputs []string) (ingest.Result, error) {
	if b.finished {
		return ingest.Result{}, errors.New("commit import: already finished")
	}
	err := b.app.Close()
	b.app = nil
	if err != nil {
		return ingest.Result{}, fmt.Errorf("stage rows: %w", err)
	}
	if err := ingest.Finish(ctx, b.conn, b.l, ingest.DuckDB, stagingTable, inputs); err != nil {
		return ingest.Result{}, err
	}
	if _, err := b.conn.ExecContext(ctx, "DROP TABLE temp.main."+ingest.Quote(stagingTable)); err != nil {
		return ingest.Result{}, fmt.Errorf("drop staging table: %w", err)
	}
	if _, err := b.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return ingest.Result{}, fmt.Errorf("commit import: %w", err)
	}
	b.inTx = false
	b.Rollback() // releases the connection and the lock
	return ingest.Result{Rows: b.n, MaxSeq: b.base + b.n}, nil
}

// Rollback abandons the import, if it is not finished.
func (b *batch) Rollback() error {
	if b.finished {
		return nil
	}
	b.finished = true
	defer importMu.Unlock()
	var errs []error
	if b.app != nil {
		b.app.Close() // its error is the reason for the rollback, reported already
		b.app = nil
	}
	if b.inTx {
		// A fresh context: the import's may be what was cancelled.
		_, err := b.conn.ExecContext(context.Background(), "ROLLBACK")
		errs = append(errs, err)
	}
	errs = append(errs, b.conn.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("roll back import: %w", err)
	}
	return nil
}
