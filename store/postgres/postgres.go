// Package postgres connects provenant to PostgreSQL through pgx: Open
// returns a *sql.DB, and Sink imports rows (ingest.Import) with COPY into
// a temporary staging table, checks their keys against each other and
// against the table (one anti-join the table's unique key index serves),
// and moves them into the table with INSERT ... SELECT, all in one
// transaction.
//
// The SQL is what PostgreSQL-wire distributed engines (CockroachDB,
// YugabyteDB) also run: CREATE TABLE/INDEX IF NOT EXISTS, a temporary
// table (ON COMMIT DROP), COPY FROM STDIN, window functions (row_number,
// first_value), EXISTS subqueries and INSERT ... SELECT; and, to answer
// (Pipeliner), BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY and COMMIT
// pipelined with the queries (the extended protocol's pipelining), and a
// key set's digest in SQL: string_agg(... ORDER BY ... COLLATE "C"),
// convert_to, sha256 and encode(..., 'hex').
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/ingest"
)

var _ ingest.Sink = (*Sink)(nil)

// MaxConns bounds the connections Open's pool holds, busy or idle: one
// PostgreSQL backend each.
const MaxConns = 32

// MetricResolveFrom and MetricResolveRows are serve's settings for a
// query_metric call's resolver on PostgreSQL (engine.Options'
// MetricResolveFrom and MetricResolveRows): a window of two whole hours
// or more is re-derived from the value rollups (plus one spot-checked
// hour and the edges from the rows), however few its rows. PostgreSQL
// spends microseconds a row on the re-derivation from the rows, against
// DuckDB's fraction of one, so the rows' one statement loses to the
// rollups' six much sooner than on DuckDB: at 10,000,000 events an
// eight-hour shift's p50 went from 482-852 ms to 257-419, and the demo's
// week from 93-108 ms to 30-56 (bench/results/resolve-from-pg.md).
const (
	MetricResolveFrom = 2 * time.Hour
	MetricResolveRows = -1
)

// Open connects to the PostgreSQL database dsn names (a URL or key=value
// string, as pgx parses it) and checks that it answers, with a pool of
// MaxConns connections.
func Open(ctx context.Context, dsn string) (*sql.DB, error) {
	return OpenPool(ctx, dsn, MaxConns)
}

// OpenPool is Open with a pool of at most conns connections, busy or
// idle: what every PostgreSQL store of this module opens. The error never
// quotes the DSN, which may hold a password.
func OpenPool(ctx context.Context, dsn string, conns int) (*sql.DB, error) {
	return openPool(ctx, dsn, conns, nil)
}

// OpenGrowingPool is OpenPool for tables that grow from empty while they
// are served: the audit state (event log, register, grants) and the
// memory journal. Its connections plan every execution of a prepared
// statement anew (plan_cache_mode force_custom_plan). PostgreSQL keeps a
// prepared statement's generic plan until something invalidates it (DDL,
// an ANALYZE); on a server that does not analyze (autovacuum off) a plan
// made when a table was empty, a sequential scan, would then be kept while
// the table grows, and every append would read the whole event log
// (TestOpenGrowingPool_PlansGrowth). Re-planning costs these short queries
// tens of microseconds.
func OpenGrowingPool(ctx context.Context, dsn string, conns int) (*sql.DB, error) {
	return openPool(ctx, dsn, conns, map[string]string{"plan_cache_mode": "force_custom_plan"})
}

func openPool(ctx context.Context, dsn string, conns int, params map[string]string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message can quote the DSN, password included.
		return nil, errors.New("open postgres: malformed DSN")
	}
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	db := stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(shouldPing))
	// database/sql keeps 2 idle connections by default: under concurrent
	// calls every other connection would be closed and a new backend
	// forked (tens of milliseconds of server CPU) per call. Keep a pool
	// as large as the calls in flight are likely to be.
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	return db, nil
}

// Sink imports rows into a PostgreSQL database.
type Sink struct {
	db *sql.DB
	o  ingest.SinkOptions
}

// NewSink returns a Sink on db (Open); o may be nil.
func NewSink(db *sql.DB, o *ingest.SinkOptions) *Sink {
	s := &Sink{db: db}
	if o != nil {
		s.o = *o
	}
	return s
}

// stagingTable is the temporary table an import stages its rows in.
const stagingTable = "_ingest_staging"

// copyRows is how many rows one COPY sends.
const copyRows = 8192

// Begin starts an import: BEGIN, the table if missing, and the staging
// table.
func (s *Sink) Begin(ctx context.Context, l *ingest.Layout) (ingest.Batch, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin import: %w", err)
	}
	b := &batch{conn: conn, l: l, cols: l.StagingColumns(), after: s.o.AfterInsert, move: s.o.Move}
	if err := b.begin(ctx); err != nil {
		b.Rollback()
		return nil, fmt.Errorf("begin import: %w", err)
	}
	return b, nil
}

type batch struct {
	conn     *sql.Conn
	tx       *sql.Tx
	after    func(context.Context, *sql.Tx, *ingest.Layout) error
	move     func(context.Context, *sql.Tx, *ingest.Layout, string) error
	l        *ingest.Layout
	cols     []string
	base, n  int64
	rows     [][]any
	finished bool
}

func (b *batch) begin(ctx context.Context) error {
	tx, err := b.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	b.tx = tx
	if err := lockImport(ctx, tx, b.l.Table); err != nil {
		return err
	}
	base, err := ingest.Prepare(ctx, tx, b.l, ingest.Postgres)
	if err != nil {
		return err
	}
	b.base = base
	st, err := b.l.StagingDDL(ingest.Postgres, stagingTable)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, st); err != nil {
		return fmt.Errorf("create staging table: %w", err)
	}
	return nil
}

// lockImport takes the transaction's advisory lock on the table in the
// current schema, so that imports into one table run one at a time:
// each reads the data version, and the keys stored, after the import
// before it committed. Two at once both numbered their rows from the
// same data version, and the second to commit failed on the unique
// index of _ingest_seq, on a deadlock between their CREATE INDEX, or,
// into a new table, between their CREATE TABLE. Readers take no such
// lock and never wait for it.
func lockImport(ctx context.Context, tx *sql.Tx, table string) error {
	var schema string
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(current_schema(), '')").Scan(&schema); err != nil {
		return fmt.Errorf("lock table for import: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte("provenant import\x00" + schema + "\x00" + table))
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(h.Sum64())); err != nil {
		return fmt.Errorf("lock table for import: %w", err)
	}
	return nil
}

// Append buffers one row with the next _ingest_seq, sending a COPY every
// copyRows rows.
func (b *batch) Append(ctx context.Context, src int, row int64, vals []any) error {
	b.n++
	r := make([]any, 0, len(vals)+3)
	r = append(append(r, vals...), b.base+b.n, int32(src), row)
	b.rows = append(b.rows, r)
	if len(b.rows) >= copyRows {
		return b.flush(ctx)
	}
	return nil
}

func (b *batch) flush(ctx context.Context) error {
	if len(b.rows) == 0 {
		return nil
	}
	err := b.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return errors.New("not a pgx connection")
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{stagingTable}, b.cols, pgx.CopyFromRows(b.rows))
		return err
	})
	clear(b.rows)
	b.rows = b.rows[:0]
	if err != nil {
		return fmt.Errorf("copy rows: %w", err)
	}
	return nil
}

// Commit sends the last rows, checks the keys, moves the rows into the
// table, creates its indexes if missing and commits.
func (b *batch) Commit(ctx context.Context, inputs []string) (ingest.Result, error) {
	if b.finished {
		return ingest.Result{}, errors.New("commit import: already finished")
	}
	if err := b.flush(ctx); err != nil {
		return ingest.Result{}, err
	}
	if b.move == nil {
		if err := ingest.Finish(ctx, b.tx, b.l, stagingTable, b.base, inputs); err != nil {
			return ingest.Result{}, err
		}
	} else {
		if err := ingest.CheckKeys(ctx, b.tx, b.l, stagingTable, b.base, inputs); err != nil {
			return ingest.Result{}, err
		}
		if err := b.move(ctx, b.tx, b.l, stagingTable); err != nil {
			return ingest.Result{}, fmt.Errorf("move rows: %w", err)
		}
	}
	// The indexes before AfterInsert: deriving reads the rows by time.
	if err := ingest.CreateIndexes(ctx, b.tx, b.l, ingest.Postgres); err != nil {
		return ingest.Result{}, err
	}
	if b.after != nil {
		if err := b.after(ctx, b.tx, b.l); err != nil {
			return ingest.Result{}, fmt.Errorf("after insert: %w", err)
		}
	}
	// The planner's statistics of the rows just written, in the same
	// transaction: a server without autovacuum would otherwise plan every
	// query of the table on none (a sample of at most 30,000 rows).
	if err := b.analyze(ctx); err != nil {
		return ingest.Result{}, fmt.Errorf("analyze table: %w", err)
	}
	if err := b.tx.Commit(); err != nil {
		return ingest.Result{}, fmt.Errorf("commit import: %w", err)
	}
	b.tx = nil
	b.Rollback() // releases the connection
	return ingest.Result{Rows: b.n, MaxSeq: b.base + b.n}, nil
}

// analyzeGrowth is the growth of a table's rows that an import must
// cross for the table to be analyzed again: autovacuum's own default
// (autovacuum_analyze_scale_factor 0.1).
const analyzeGrowth = 1.1

// analyze analyzes the table when the import is its first or takes its
// rows (counted as the greatest ingestion number) past a power of 1.1:
// statistics are then never more than a tenth behind the rows, and most
// small imports into a large table skip it (at ten million events
// ANALYZE took 0.3 to 0.5 s of an import of 1,000 rows that took about
// 1 s, bench/results/late-rows.md). Only the import's own numbers decide:
// no catalog is read, which other PostgreSQL-wire engines lay out
// otherwise.
func (b *batch) analyze(ctx context.Context) error {
	if b.base > 0 && growthStep(b.base) == growthStep(b.base+b.n) {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, "ANALYZE "+ingest.Quote(b.l.Table))
	return err
}

// growthStep is the greatest k with analyzeGrowth^k at most rows.
func growthStep(rows int64) int {
	return int(math.Floor(math.Log(float64(rows)) / math.Log(analyzeGrowth)))
}

// Rollback abandons the import, if it is not finished.
func (b *batch) Rollback() error {
	if b.finished {
		return nil
	}
	b.finished = true
	var errs []error
	if b.tx != nil {
		if err := b.tx.Rollback(); !errors.Is(err, sql.ErrTxDone) {
			errs = append(errs, err) // ErrTxDone: database/sql rolled back on cancellation
		}
	}
	errs = append(errs, b.conn.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("roll back import: %w", err)
	}
	return nil
}
