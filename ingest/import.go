package ingest

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
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

// Result is what one import stored.
type Result struct {
	Rows   int64 // rows imported
	MaxSeq int64 // the table's greatest _ingest_seq after the import (its data_version)
}

// Import reads every reader, in order, into one batch of s and commits
// it. Nothing is stored unless every row of every input is valid and no
// key repeats or is already stored: the first MaxErrors problems are an
// Errors (matching ErrInvalid).
func Import(ctx context.Context, s Sink, l *Layout, readers ...*Reader) (Result, error) {
	b, err := s.Begin(ctx, l)
	if err != nil {
		return Result{}, fmt.Errorf("import: %w", err)
	}
	defer b.Rollback()
	var errs Errors
	names := make([]string, len(readers))
	var n int
read:
	for src, r := range readers {
		names[src] = r.input
		for {
			vals, row, err := r.Next()
			if err == io.EOF {
				break
			}
			if list := (Errors)(nil); errors.As(err, &list) {
				errs = append(errs, list...)
				if len(errs) >= MaxErrors {
					errs = errs[:MaxErrors]
					break read
				}
				continue
			}
			if err != nil {
				return Result{}, fmt.Errorf("import: %w", err)
			}
			if n++; n&0xfff == 0 {
				if err := ctx.Err(); err != nil {
					return Result{}, fmt.Errorf("import: %w", err)
				}
			}
			if len(errs) == 0 {
				if err := b.Append(ctx, src, row, vals); err != nil {
					return Result{}, fmt.Errorf("import: %w", err)
				}
			}
		}
	}
	if len(errs) > 0 {
		return Result{}, errs
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

// Tx is what Prepare and Finish need of a transaction: a *sql.Tx, or a
// *sql.Conn after BEGIN.
type Tx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Prepare creates, inside tx, the table if missing and the staging table,
// and returns the table's greatest _ingest_seq (0 when empty): a Sink's
// Begin after BEGIN.
func Prepare(ctx context.Context, tx Tx, l *Layout, dialect, staging string) (int64, error) {
	ddl, err := l.DDL(dialect)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, ddl[0].SQL); err != nil {
		return 0, fmt.Errorf("create table: %w", err)
	}
	st, err := l.StagingDDL(dialect, staging)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, st); err != nil {
		return 0, fmt.Errorf("create staging table: %w", err)
	}
	var base int64
	if err := tx.QueryRowContext(ctx, l.MaxSeqSQL()).Scan(&base); err != nil {
		return 0, fmt.Errorf("read data version: %w", err)
	}
	return base, nil
}

// Finish checks the staged keys, moves the staged rows into the table and
// creates the table's indexes if missing, inside tx: a Sink's Commit
// before COMMIT. Keys repeated within the import or already stored are an
// Errors naming inputs[src] and the row.
func Finish(ctx context.Context, tx Tx, l *Layout, dialect, staging string, inputs []string) error {
	name := func(src int) string {
		if src >= 0 && src < len(inputs) {
			return inputs[src]
		}
		return ""
	}
	key := l.Dataset.Key.Value
	var errs Errors
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
	if len(errs) < MaxErrors {
		rows, err := tx.QueryContext(ctx, l.StoredSQL(staging, MaxErrors-len(errs)))
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
	if _, err := tx.ExecContext(ctx, l.InsertSQL(staging)); err != nil {
		return fmt.Errorf("insert rows: %w", err)
	}
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
