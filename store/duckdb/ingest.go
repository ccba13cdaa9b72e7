package duckdb

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/internal/dbtx"
	"github.com/provenant/provenant/internal/duckfile"
	"github.com/provenant/provenant/internal/phasetrace"
)

var _ ingest.Sink = (*Sink)(nil)

// OpenFile opens (creating it if missing) the DuckDB database file at
// path, in place (an existing file that is not one is refused,
// duckfile.ErrNotDatabase): DuckDB reads its blocks on demand, so opening costs the
// same at any size. Close the returned *sql.DB to release it.
func OpenFile(ctx context.Context, path string) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("open duckdb file: empty path")
	}
	connector, err := duckdb.NewConnector(path, nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	db := pooled(sql.OpenDB(connector)) // db.Close closes the connector
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	if err := duckfile.Opened(ctx, db, path); err != nil {
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
	o  ingest.SinkOptions
}

// NewSink returns a Sink on db, a DuckDB database (OpenFile); o may be
// nil.
func NewSink(db *sql.DB, o *ingest.SinkOptions) *Sink {
	s := &Sink{db: db}
	if o != nil {
		s.o = *o
	}
	return s
}

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
	phasetrace.Mark("start")
	b := &batch{conn: conn, l: l, after: s.o.AfterInsert, o: s.o}
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
	l        *ingest.Layout
	app      *duckdb.Appender
	base, n  int64
	row      []driver.Value
	runs     []run
	finished bool
	o        ingest.SinkOptions
	vt       *validity // nil: the rows are appended without a validity end
}

// validity fills each appended row's validity end (SinkOptions.ValidTo)
// while the rows arrive in strictly increasing (time, key) order: a row is
// held until the next row of its series arrives, whose time is its end,
// and a series' last row is appended at Commit with the open end. The
// first row out of order ends it: the rows held are appended with a NULL
// end, and so is every row after; Commit then sets every end NULL, for
// the derivation to compute.
type validity struct {
	open      time.Time
	ts, key   int   // column positions of the time and key
	series    []int // column positions of the series entities
	slot      map[string]int
	held      [][]driver.Value // per series: its held row (values, _ingest_seq, end), or nil
	prevTS    time.Time
	prevKey   string
	started   bool
	ordered   bool
	filled    int64 // rows appended with an end
	seriesKey []byte
}

// run is a run of rows numbered seq, seq+1, ... from one input's
// consecutive rows row, row+1, ...
type run struct {
	seq int64
	src int
	row int64
}

func (b *batch) begin(ctx context.Context) error {
	tx, err := dbtx.BeginConn(ctx, b.conn, nil)
	if err != nil {
		return err
	}
	b.tx = tx
	base, err := ingest.Prepare(ctx, tx, b.l, ingest.DuckDB)
	if err != nil {
		return err
	}
	b.base = base
	if b.o.ValidTo != "" && base == 0 {
		if b.vt, err = b.newValidity(ctx); err != nil {
			return err
		}
	}
	return b.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a driver connection")
		}
		// The layout's columns by name: the table may have more (derived
		// ones, filled later), which take their default.
		cols := append(b.l.ColumnNames(), ingest.SeqColumn)
		if b.vt != nil {
			cols = append(cols, b.o.ValidTo)
		}
		var err error
		if b.app, err = duckdb.NewAppenderWithColumns(c, "", "", b.l.Table, cols); err != nil {
			return fmt.Errorf("create appender: %w", err)
		}
		return nil
	})
}

// newValidity returns the validity filler of an import into an empty
// table, adding the column if the table lacks it; nil when the column is
// missing and an index on the table forbids adding it (DuckDB alters no
// table an index depends on): the derivation then adds it.
func (b *batch) newValidity(ctx context.Context) (*validity, error) {
	var has, indexes int
	if err := b.tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2",
		b.l.Table, b.o.ValidTo).Scan(&has); err != nil {
		return nil, fmt.Errorf("look up column: %w", err)
	}
	if has == 0 {
		if err := b.tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM duckdb_indexes() WHERE schema_name = current_schema() AND table_name = $1", b.l.Table).Scan(&indexes); err != nil {
			return nil, fmt.Errorf("look up indexes: %w", err)
		}
		if indexes > 0 {
			return nil, nil
		}
		if _, err := b.tx.ExecContext(ctx, "ALTER TABLE "+ingest.Quote(b.l.Table)+" ADD COLUMN "+ingest.Quote(b.o.ValidTo)+" TIMESTAMP"); err != nil {
			return nil, fmt.Errorf("add column: %w", err)
		}
	}
	ds := b.l.Dataset
	v := &validity{open: b.o.ValidToOpen, ts: b.l.ColumnIndex(ds.Time.Value), key: b.l.ColumnIndex(ds.Key.Value), slot: map[string]int{}, ordered: true}
	for _, e := range ds.SeriesEntities() {
		v.series = append(v.series, b.l.ColumnIndex(e.Column.Value))
	}
	return v, nil
}

// Append appends one row with the next _ingest_seq.
func (b *batch) Append(_ context.Context, src int, row int64, vals []any) error {
	b.n++
	seq := b.base + b.n
	if k := len(b.runs); k == 0 || b.runs[k-1].src != src || b.runs[k-1].row+(seq-b.runs[k-1].seq) != row {
		b.runs = append(b.runs, run{seq: seq, src: src, row: row})
	}
	if b.vt != nil {
		return b.appendValidity(seq, vals)
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

// appendValidity appends a row through the validity filler.
func (b *batch) appendValidity(seq int64, vals []any) error {
	v := b.vt
	if v.ordered {
		ts, ok1 := vals[v.ts].(time.Time)
		key, ok2 := vals[v.key].(string)
		if !ok1 || !ok2 || v.started && (ts.Before(v.prevTS) || ts.Equal(v.prevTS) && key <= v.prevKey) {
			// Out of order: the rows held go in without an end.
			v.ordered = false
			for _, h := range v.held {
				if h != nil {
					h[len(h)-1] = nil
					if err := b.app.AppendRow(h...); err != nil {
						return fmt.Errorf("append row: %w", err)
					}
				}
			}
			v.held, v.slot = nil, nil
		} else {
			v.started, v.prevTS, v.prevKey = true, ts, key
			v.seriesKey = v.seriesKey[:0]
			for _, i := range v.series {
				s, _ := vals[i].(string)
				v.seriesKey = append(append(v.seriesKey, s...), 0)
			}
			i, ok := v.slot[string(v.seriesKey)]
			if !ok {
				i = len(v.held)
				v.slot[string(v.seriesKey)] = i
				v.held = append(v.held, make([]driver.Value, len(vals)+2))
			} else {
				h := v.held[i]
				h[len(h)-1] = ts
				if err := b.app.AppendRow(h...); err != nil {
					return fmt.Errorf("append row: %w", err)
				}
				v.filled++
			}
			h := v.held[i]
			for j, x := range vals {
				h[j] = x
			}
			h[len(vals)] = seq
			h[len(vals)+1] = nil
			return nil
		}
	}
	b.row = b.row[:0]
	for _, x := range vals {
		b.row = append(b.row, x)
	}
	b.row = append(b.row, seq, nil)
	if err := b.app.AppendRow(b.row...); err != nil {
		return fmt.Errorf("append row: %w", err)
	}
	return nil
}

// flushValidity appends the rows still held (each its series' latest)
// with the open end.
func (b *batch) flushValidity() error {
	v := b.vt
	if v == nil {
		return nil
	}
	if v.ordered {
		for _, h := range v.held {
			h[len(h)-1] = v.open
			if err := b.app.AppendRow(h...); err != nil {
				return fmt.Errorf("append row: %w", err)
			}
		}
		v.held = nil
	}
	return nil
}

// clearValidity sets every row's end NULL after rows out of order, when
// some rows were appended with one: the derivation then computes all.
func (b *batch) clearValidity(ctx context.Context) error {
	if b.vt == nil || b.vt.ordered || b.vt.filled == 0 {
		return nil
	}
	if _, err := b.tx.ExecContext(ctx, "UPDATE "+ingest.Quote(b.l.Table)+" SET "+ingest.Quote(b.o.ValidTo)+" = NULL"); err != nil {
		return fmt.Errorf("clear validity: %w", err)
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
	err := b.flushValidity()
	phasetrace.Mark("read+validate+append")
	if b.app != nil { // nil: the rows came by INSERT (ImportFiles)
		if cerr := b.app.Close(); err == nil {
			err = cerr
		}
		b.app = nil
		phasetrace.Mark("appender close")
	}
	if err != nil {
		return ingest.Result{}, fmt.Errorf("append rows: %w", err)
	}
	if err := b.clearValidity(ctx); err != nil {
		return ingest.Result{}, err
	}
	if err := ingest.CheckAppended(ctx, b.tx, b.l, b.base, b.locate, inputs); err != nil {
		return ingest.Result{}, err
	}
	phasetrace.Mark("check keys")
	if b.after != nil {
		if err := b.after(ctx, b.tx, b.l); err != nil {
			return ingest.Result{}, fmt.Errorf("after insert: %w", err)
		}
	}
	if err := ingest.CreateIndexes(ctx, b.tx, b.l, ingest.DuckDB); err != nil {
		return ingest.Result{}, err
	}
	phasetrace.Mark("create indexes")
	if err := dbtx.Commit(ctx, b.tx); err != nil {
		return ingest.Result{}, fmt.Errorf("commit import: %w", err)
	}
	phasetrace.Mark("commit")
	b.tx = nil
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

// OpenMemory opens a new in-memory DuckDB database: a reader of Parquet
// files (ReadParquet) for an import into another database.
func OpenMemory(ctx context.Context) (*sql.DB, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	db := pooled(sql.OpenDB(connector))
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	return db, nil
}

// ServeMemoryLimit is DuckDB's memory limit on a database opened to be
// served (OpenFileReadOnly). DuckDB's default, 80% of the machine's
// memory, lets its buffer cache grow with the file: 517 MB resident while
// serving 10M events. A call reads one checkpoint and the rows since it,
// a few megabytes, so a small cache costs no speed (bench/scale at 10M
// events: 437 MB resident, the same latencies within noise). The limit
// bounds the cache, not the process: once a served database's calls have
// touched enough pages the cache is full, and the process's own ~240 MB
// come on top. Under 256 MB that sat at 493-500 MB resident at 10M events
// once the metric calls read key digests by slice
// (shape.RollupSlicesSuffix) and filled it; under 224 MB, 464-465, for
// more CPU a call where pages are read again (a week-long metric call
// 6-10% at sixteen clients, 6% and 28% at one; store-wide counts 10-13%:
// bench/results/memlimit.md). A faster machine, which makes more calls a
// minute, peaked at 505-518 MB under 224 MB over a four-minute metric
// soak and at 467-483 MB under 192 MB, for about 5% more CPU a metric
// call and none a tool call (bench/results/memlimit-192.md).
const ServeMemoryLimit = "192MB"

// MetricResolveFrom is serve's setting for a query_metric call's resolver
// on a DuckDB file (engine.Options.MetricResolveFrom): a window of two
// whole hours or more whose contributing rows are many (more than
// metric.DefaultResolveRows) is re-derived from the value rollups
// (metric.RederiveValues, one seeded stored hour spot-checked against the
// rows) rather than from its rows, as on PostgreSQL
// (postgres.MetricResolveFrom). metric.ResolveFromRollups, 24 hours, was
// measured when the resolver followed the executor; beside it, the
// resolver's reads of an eight-hour shift's 100,000-odd rows were the
// longer half for the metrics that count entries into a state: at
// 10,000,000 events a shift's p95 at one client went from 60-66 ms to
// 49-50 (bench/results/resolve-from-duckdb.md). The trade is
// TestQueryMetric_ResolveFrom's: a stored hour altered after its import
// is found by the spot check, one hour a call, not by every call.
const MetricResolveFrom = 2 * time.Hour

// OpenFileReadOnly opens a DuckDB database file in place for reading: it
// must exist, and other processes may read it too.
func OpenFileReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	connector, err := duckdb.NewConnector(path+"?access_mode=read_only&memory_limit="+ServeMemoryLimit, nil)
	if err != nil {
		if strings.Contains(err.Error(), "Cannot launch in-memory database in read-only mode") {
			// A data file, which DuckDB opens as an in-memory database
			// over it (duckfile.Opened).
			return nil, fmt.Errorf("open duckdb file: %s: %w", path, duckfile.ErrNotDatabase)
		}
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	db := pooled(sql.OpenDB(connector))
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	if err := duckfile.Opened(ctx, db, path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb file: %w", err)
	}
	return db, nil
}

// MaxThreads is the most worker threads SetThreads gives DuckDB: far more
// than a machine has cores already only costs memory, and DuckDB fails
// (or the process cannot create the threads and aborts) long before the
// limit of its setting.
const MaxThreads = 256

// SetThreads sets the worker threads of the DuckDB database db reads
// (every connection of it: the setting is the database's). DuckDB runs
// one query on as many threads as it has; with many queries at once on
// few cores, one thread each spends less CPU on coordinating them
// (README, "DuckDB's worker threads"), and a long query alone takes
// longer.
func SetThreads(ctx context.Context, db *sql.DB, threads int) error {
	if threads < 1 || threads > MaxThreads {
		return fmt.Errorf("set duckdb threads: want 1 to %d", MaxThreads)
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL threads = "+strconv.Itoa(threads)); err != nil {
		return fmt.Errorf("set duckdb threads: %w", err)
	}
	return nil
}

// CreateFile builds a database file at path from readers (one import,
// with opts): into a temporary file beside it, which replaces path only
// once complete, so that a reader never sees half a database.
func CreateFile(ctx context.Context, path string, l *ingest.Layout, opts *ingest.SinkOptions, readers ...*ingest.Reader) (ingest.Result, error) {
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	os.Remove(tmp)
	defer os.Remove(tmp)
	db, err := OpenFile(ctx, tmp)
	if err != nil {
		return ingest.Result{}, err
	}
	res, err := ingest.Import(ctx, NewSink(db, opts), l, readers...)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close duckdb file: %w", cerr)
	}
	if err != nil {
		return ingest.Result{}, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return ingest.Result{}, fmt.Errorf("create duckdb file: %w", err)
	}
	return res, nil
}

// pooled keeps as many idle connections as calls are likely to be in
// flight: database/sql keeps 2 by default, and a new DuckDB connection
// per call costs more than the point query it serves.
func pooled(db *sql.DB) *sql.DB {
	db.SetMaxIdleConns(32)
	return db
}
