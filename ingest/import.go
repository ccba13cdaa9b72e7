package ingest

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Sink is a database an import writes to (store/duckdb, store/postgres).
type Sink interface {
	// Begin starts one import into l's table: one transaction, in which
	// the table is created if missing, and a staging table for the rows.
	Begin(ctx context.Context, l *Layout) (Batch, error)
}

// Batch is one import's transaction.
type Batch interface {
	// Append stages one validated row: vals in the layout's column
	// order, from the input at index src, at its 1-based row. The batch
	// numbers the rows it stages (_ingest_seq) in the order appended.
	Append(ctx context.Context, src int, row int64, vals []any) error
	// Commit checks the staged keys (repeated within the import, or
	// already stored: an Errors naming inputs by inputs[src]), moves the
	// staged rows into the table, creates its indexes if missing and
	// commits. On any error nothing is stored.
	Commit(ctx context.Context, inputs []string) (Result, error)
	// Rollback abandons the import; it does nothing after Commit.
	Rollback() error
}

// SinkOptions tune a Sink; nil means none.
type SinkOptions struct {
	// AfterInsert, if set, runs inside the import's transaction after its
	// rows are in the table, before the table's indexes are created (if
	// missing: on a first import, so that rewriting every row, as a
	// derivation may, maintains no index) and before COMMIT: the place to
	// rebuild structures derived from the table, so that no reader sees
	// the rows without them. Its error rolls the import back.
	AfterInsert func(ctx context.Context, tx *sql.Tx, l *Layout) error
	// Move, if set, moves the staged rows into the table in place of the
	// sink's own INSERT ... SELECT (InsertSQL), inside the import's
	// transaction, after their keys are checked and before the table's
	// indexes and AfterInsert: a derivation that computes a column of
	// each row from other rows can fill it as the rows land instead of
	// rewriting every row afterwards. staging is the staging table
	// (StagingDDL). Only a sink that stages its rows calls it
	// (store/postgres); store/duckdb appends straight into the table.
	Move func(ctx context.Context, tx *sql.Tx, l *Layout, staging string) error
	// ValidTo, if set, names a column of each row's validity end: the
	// time of the next row of its series (the dataset's series entities)
	// in (time, key) order, or ValidToOpen for a series' latest row. A
	// sink that appends straight into the table (store/duckdb) fills it
	// as the rows arrive, when they arrive in strictly increasing (time,
	// key) order into an empty table, adding the column if missing, so
	// that AfterInsert need not rewrite every row; otherwise it leaves
	// the column NULL in every row, for AfterInsert to fill.
	ValidTo     string
	ValidToOpen time.Time
}

// Result is what one import stored.
type Result struct {
	Rows   int64 // rows imported
	MaxSeq int64 // the table's greatest _ingest_seq after the import (its data_version)
}

// Import reads every reader, in order, into one batch of s and commits
// it. Nothing is stored unless every row of every input is valid and no
// key repeats or is already stored: the first MaxErrors problems are an
// Errors (matching ErrInvalid). Reading and validating run on one
// goroutine, appending to the batch on another.
func Import(ctx context.Context, s Sink, l *Layout, readers ...*Reader) (Result, error) {
	b, err := s.Begin(ctx, l)
	if err != nil {
		return Result{}, fmt.Errorf("import: %w", err)
	}
	defer b.Rollback()
	names := make([]string, len(readers))
	for i, r := range readers {
		names[i] = r.input
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ncol := len(l.Columns)
	full := make(chan *chunk, 2)
	free := make(chan *chunk, 4)
	for range cap(free) {
		free <- &chunk{vals: make([]any, 0, chunkRows*ncol)}
	}
	var (
		errs    Errors
		readErr error
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		defer close(full)
		errs, readErr = produce(ctx, readers, ncol, full, free)
	}()
	var appendErr error
	for c := range full {
		if appendErr == nil {
			for i := range c.rows {
				if err := b.Append(ctx, c.srcs[i], c.rows[i], c.vals[i*ncol:(i+1)*ncol]); err != nil {
					appendErr = err
					cancel() // stop the reader
					break
				}
			}
		}
		c.reset()
		free <- c
	}
	<-done
	switch {
	case len(errs) > 0:
		return Result{}, errs
	case appendErr != nil: // readErr is then the cancellation it caused
		return Result{}, fmt.Errorf("import: %w", appendErr)
	case readErr != nil:
		return Result{}, fmt.Errorf("import: %w", readErr)
	}
	res, err := b.Commit(ctx, names)
	if list := (Errors)(nil); errors.As(err, &list) {
		return Result{}, list
	}
	if err != nil {
		return Result{}, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// chunkRows is how many rows the reading goroutine hands over at once.
const chunkRows = 1024

// chunk is a run of valid rows: the values of row i are
// vals[i*ncol:(i+1)*ncol].
type chunk struct {
	srcs []int
	rows []int64
	vals []any
}

func (c *chunk) reset() {
	c.srcs, c.rows = c.srcs[:0], c.rows[:0]
	clear(c.vals)
	c.vals = c.vals[:0]
}

// produce reads every reader, sending valid rows to full in chunks taken
// from free until the first invalid row, and returns the first MaxErrors
// problems or the error that stopped it.
func produce(ctx context.Context, readers []*Reader, ncol int, full, free chan *chunk) (Errors, error) {
	var errs Errors
	var c *chunk
	send := func() error {
		if c == nil || len(c.rows) == 0 {
			return nil
		}
		select {
		case full <- c:
			c = nil
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	n := 0
	for src, r := range readers {
		for {
			vals, row, err := r.Next()
			if err == io.EOF {
				break
			}
			if list := (Errors)(nil); errors.As(err, &list) {
				errs = append(errs, list...)
				if len(errs) >= MaxErrors {
					return errs[:MaxErrors], nil
				}
				continue
			}
			if err != nil {
				return errs, err
			}
			if n++; n&0x3ff == 0 {
				if err := ctx.Err(); err != nil {
					return errs, err
				}
			}
			if len(errs) > 0 {
				continue // only reading on, for the errors
			}
			if c == nil {
				select {
				case c = <-free:
				case <-ctx.Done():
					return errs, ctx.Err()
				}
			}
			c.srcs = append(c.srcs, src)
			c.rows = append(c.rows, row)
			c.vals = append(c.vals, vals...)
			if len(c.rows) == chunkRows {
				if err := send(); err != nil {
					return errs, err
				}
			}
		}
	}
	if len(errs) > 0 {
		return errs, nil
	}
	return nil, send()
}

// Tx is what Prepare and Finish need of a transaction: a *sql.Tx, or a
// *sql.Conn after BEGIN.
type Tx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Prepare creates, inside tx, the table if missing and returns its
// greatest _ingest_seq (0 when empty): a Sink's Begin after BEGIN.
func Prepare(ctx context.Context, tx Tx, l *Layout, dialect string) (int64, error) {
	ddl, err := l.DDL(dialect)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, ddl[0].SQL); err != nil {
		return 0, fmt.Errorf("create table: %w", err)
	}
	if err := checkColumns(ctx, tx, l); err != nil {
		return 0, err
	}
	var base int64
	if err := tx.QueryRowContext(ctx, l.MaxSeqSQL()).Scan(&base); err != nil {
		return 0, fmt.Errorf("read data version: %w", err)
	}
	return base, nil
}

// ErrLayout is returned when the table exists with other columns than the
// dataset's layout.
var ErrLayout = errors.New("table does not have the dataset's layout")

// checkColumns checks that the table (in the current schema) has the
// layout's columns and _ingest_seq, and no other column but ones whose
// names start with "_" (derived from the data, left to their default by
// an import).
func checkColumns(ctx context.Context, tx Tx, l *Layout) error {
	rows, err := tx.QueryContext(ctx, "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1", l.Table)
	if err != nil {
		return fmt.Errorf("read table columns: %w", err)
	}
	have := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return fmt.Errorf("read table columns: %w", err)
		}
		have[c] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("read table columns: %w", err)
	}
	want := append(l.ColumnNames(), SeqColumn)
	for _, c := range want {
		if !have[c] {
			return fmt.Errorf("check table %s: column %s is missing: %w", l.Table, c, ErrLayout)
		}
		delete(have, c)
	}
	for c := range have {
		if !strings.HasPrefix(c, "_") {
			return fmt.Errorf("check table %s: it has a column the dataset does not declare: %w", l.Table, ErrLayout)
		}
	}
	return nil
}

// CheckKeys checks the keys of a staging table (StagingDDL or KeysDDL)
// inside tx: keys repeated within the import, or held by the table before
// it (rows numbered at most base), are an Errors naming inputs[src] and
// the row.
func CheckKeys(ctx context.Context, tx Tx, l *Layout, staging string, base int64, inputs []string) error {
	name := func(src int) string {
		if src >= 0 && src < len(inputs) {
			return inputs[src]
		}
		return ""
	}
	key := l.Dataset.Key.Value
	var errs Errors
	var repeats int64
	if err := tx.QueryRowContext(ctx, l.RepeatsSQL(staging)).Scan(&repeats); err != nil {
		return fmt.Errorf("check duplicate keys: %w", err)
	}
	if repeats > 0 {
		rows, err := tx.QueryContext(ctx, l.DuplicatesSQL(staging, MaxErrors))
		if err != nil {
			return fmt.Errorf("check duplicate keys: %w", err)
		}
		for rows.Next() {
			var src, firstSrc int
			var row, firstRow int64
			if err := rows.Scan(&src, &row, &firstSrc, &firstRow); err != nil {
				rows.Close()
				return fmt.Errorf("check duplicate keys: %w", err)
			}
			reason := fmt.Sprintf("duplicate key: row %d has it too", firstRow)
			if firstSrc != src {
				reason = fmt.Sprintf("duplicate key: %s row %d has it too", name(firstSrc), firstRow)
			}
			errs = append(errs, &RowError{Input: name(src), Row: row, Field: key, Reason: reason})
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("check duplicate keys: %w", err)
		}
	}
	if base > 0 && len(errs) < MaxErrors { // base 0: the table was empty
		rows, err := tx.QueryContext(ctx, l.StoredSQL(staging, base, MaxErrors-len(errs)))
		if err != nil {
			return fmt.Errorf("check stored keys: %w", err)
		}
		for rows.Next() {
			var src int
			var row int64
			if err := rows.Scan(&src, &row); err != nil {
				rows.Close()
				return fmt.Errorf("check stored keys: %w", err)
			}
			errs = append(errs, &RowError{Input: name(src), Row: row, Field: key, Reason: "key already stored"})
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("check stored keys: %w", err)
		}
	}
	if len(errs) > 0 {
		sortErrors(errs, inputs)
		return errs
	}
	return nil
}

// CheckAppended checks, inside tx, the keys of rows appended straight into
// the table, numbered base+1 and up: keys repeated among them, or held by
// a row numbered at most base, are an Errors naming each row by locate,
// which maps a row's _ingest_seq to its input's index and row number.
func CheckAppended(ctx context.Context, tx Tx, l *Layout, base int64, locate func(seq int64) (src int, row int64), inputs []string) error {
	name := func(src int) string {
		if src >= 0 && src < len(inputs) {
			return inputs[src]
		}
		return ""
	}
	key := l.Dataset.Key.Value
	var errs Errors
	var repeats int64
	if err := tx.QueryRowContext(ctx, l.AppendedRepeatsSQL(base)).Scan(&repeats); err != nil {
		return fmt.Errorf("check duplicate keys: %w", err)
	}
	if repeats > 0 {
		rows, err := tx.QueryContext(ctx, l.AppendedDuplicatesSQL(base, MaxErrors))
		if err != nil {
			return fmt.Errorf("check duplicate keys: %w", err)
		}
		for rows.Next() {
			var seq, first int64
			if err := rows.Scan(&seq, &first); err != nil {
				rows.Close()
				return fmt.Errorf("check duplicate keys: %w", err)
			}
			src, row := locate(seq)
			firstSrc, firstRow := locate(first)
			reason := fmt.Sprintf("duplicate key: row %d has it too", firstRow)
			if firstSrc != src {
				reason = fmt.Sprintf("duplicate key: %s row %d has it too", name(firstSrc), firstRow)
			}
			errs = append(errs, &RowError{Input: name(src), Row: row, Field: key, Reason: reason})
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("check duplicate keys: %w", err)
		}
	}
	if base > 0 && len(errs) < MaxErrors { // base 0: the table was empty
		rows, err := tx.QueryContext(ctx, l.AppendedStoredSQL(base, MaxErrors-len(errs)))
		if err != nil {
			return fmt.Errorf("check stored keys: %w", err)
		}
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				rows.Close()
				return fmt.Errorf("check stored keys: %w", err)
			}
			src, row := locate(seq)
			errs = append(errs, &RowError{Input: name(src), Row: row, Field: key, Reason: "key already stored"})
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("check stored keys: %w", err)
		}
	}
	if len(errs) > 0 {
		sortErrors(errs, inputs)
		return errs
	}
	return nil
}

// Finish checks the keys of a full staging table (StagingDDL) and moves
// its rows into the table, inside tx: a Sink's Commit, before its
// AfterInsert hook and CreateIndexes.
func Finish(ctx context.Context, tx Tx, l *Layout, staging string, base int64, inputs []string) error {
	if err := CheckKeys(ctx, tx, l, staging, base, inputs); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, l.InsertSQL(staging)); err != nil {
		return fmt.Errorf("insert rows: %w", err)
	}
	return nil
}

// CreateIndexes creates the table's indexes (DDL after the table) if
// missing. After a first import's rows, building an index once is cheaper
// than maintaining it row by row.
func CreateIndexes(ctx context.Context, tx Tx, l *Layout, dialect string) error {
	ddl, err := l.DDL(dialect)
	if err != nil {
		return err
	}
	for _, s := range ddl[1:] {
		if _, err := tx.ExecContext(ctx, s.SQL); err != nil {
			return fmt.Errorf("create index: %w", err)
		}
	}
	return nil
}

// sortErrors orders errors by input (in the order of inputs), then row.
func sortErrors(errs Errors, inputs []string) {
	order := map[string]int{}
	for i, n := range inputs {
		if _, ok := order[n]; !ok {
			order[n] = i
		}
	}
	slices.SortStableFunc(errs, func(a, b *RowError) int {
		if c := cmp.Compare(order[a.Input], order[b.Input]); c != 0 {
			return c
		}
		return cmp.Compare(a.Row, b.Row)
	})
}
