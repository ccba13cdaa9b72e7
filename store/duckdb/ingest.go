package duckdb

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
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

// Sink imports rows into a DuckDB database (ingest.Import). Inside one
// transaction on one connection, DuckDB's Appender (which takes part in
// the connection's transaction) appends the rows straight into the table,
// numbered from the table's greatest _ingest_seq up; Commit then checks
// their keys against each other and against the rows numbered below them
// (one anti-join), and commits only if none repeats. A failure at any
// point rolls the transaction back, appended rows included. The batch
// keeps, in memory, one entry per run of consecutive rows of an input, to
// name the row of a repeated key.
type Sink struct {
	db *sql.DB
}

// NewSink returns a Sink on db, a DuckDB database (OpenFile).
func NewSink(db *sql.DB) *Sink { return &Sink{db: db} }

// importMu serialises imports in this process: DuckDB lets concurrent
// transactions append to one table, and two imports reading the same
// greatest _ingest_seq would number rows alike.
var importMu sync.Mutex

// Begin starts an import: BEGIN, the table if missing, and an appender on
// it.
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
	runs     []run
	inTx     bool
	finished bool
}

// run is a run of rows numbered seq, seq+1, ... from one input's
// consecutive rows row, row+1, ...
type run struct {
	seq int64
	src int
	row int64
}

func (b *batch) begin(ctx context.Context) error {
	if _, err := b.conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	b.inTx = true
	base, err := ingest.Prepare(ctx, b.conn, b.l, ingest.DuckDB)
	if err != nil {
		return err
	}
	b.base = base
	return b.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a driver connection")
		}
		var err error
		if b.app, err = duckdb.NewAppender(c, "", "", b.l.Table); err != nil {
			return fmt.Errorf("create appender: %w", err)
		}
		return nil
	})
}

// Append appends one row with the next _ingest_seq.
func (b *batch) Append(_ context.Context, src int, row int64, vals []any) error {
	b.n++
	seq := b.base + b.n
	if k := len(b.runs); k == 0 || b.runs[k-1].src != src || b.runs[k-1].row+(seq-b.runs[k-1].seq) != row {
		b.runs = append(b.runs, run{seq: seq, src: src, row: row})
	}
	b.row = b.row[:0]
	for _, v := range vals {
		b.row = append(b.row, v)
	}
	b.row = append(b.row, seq)
	if err := b.app.AppendRow(b.row...); err != nil {
		return fmt.Errorf("append row: %w", err)
	}
	return nil
}

// locate maps an appended row's _ingest_seq to its input and row.
func (b *batch) locate(seq int64) (int, int64) {
	i, found := slices.BinarySearchFunc(b.runs, seq, func(r run, s int64) int { return cmp.Compare(r.seq, s) })
	if !found {
		i--
	}
	if i < 0 {
		return -1, 0
	}
	r := b.runs[i]
	return r.src, r.row + (seq - r.seq)
}

// Commit flushes the appender, checks the keys and commits.
func (b *batch) Commit(ctx context.Context, inputs []string) (ingest.Result, error) {
	if b.finished {
		return ingest.Result{}, errors.New("commit import: already finished")
	}
	err := b.app.Close()
	b.app = nil
	if err != nil {
		return ingest.Result{}, fmt.Errorf("append rows: %w", err)
	}
	if err := ingest.CheckAppended(ctx, b.conn, b.l, b.base, b.locate, inputs); err != nil {
		return ingest.Result{}, err
	}
	if err := ingest.CreateIndexes(ctx, b.conn, b.l, ingest.DuckDB); err != nil {
		return ingest.Result{}, err
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
		b.app.Close() // an error here is the rollback's reason, reported already
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

// OpenMemory opens a new in-memory DuckDB database: a reader of Parquet
// files (ReadParquet) for an import into another database.
func OpenMemory(ctx context.Context) (*sql.DB, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	db := sql.OpenDB(connector)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	return db, nil
}
