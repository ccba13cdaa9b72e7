package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/ingest"
)

var _ ingest.Records = (*ParquetRecords)(nil)

// ParquetRecords reads a Parquet file through DuckDB as records
// (ingest.NewRecords), so its rows pass the same validation as JSON Lines
// and CSV: a TIMESTAMP column (with a time zone: in UTC; a TIMESTAMP_NS
// value with nanoseconds past the microsecond as it is, which the reader
// refuses as it refuses a seventh fractional digit) is read as a time,
// an integer column that fits BIGINT as an int64, a FLOAT or DOUBLE as a
// float64, a BLOB (a string some writers leave unannotated) as text of
// its bytes, a nested column (STRUCT, MAP, LIST, ARRAY) as the driver's
// value, which the reader refuses, and every other column as text (a
// string column as it is, a DATE, DECIMAL or UBIGINT in DuckDB's text
// form), which the reader then validates as it does a CSV field. A NULL
// stays a NULL. A goroutine of its own reads the file, ahead of the
// validation.
type ParquetRecords struct {
	cols   []string
	full   chan []any // batches of records, len(cols) values each
	free   chan []any
	cur    []any // the batch being read
	off    int   // the next record's first field in cur
	cancel context.CancelFunc
	done   chan struct{}
	err    error // the reading goroutine's error, once done is closed
	// exact pairs a TIMESTAMP_NS column (its index in cols) with the
	// query's extra column holding its value when the cast to
	// microseconds cuts it, else NULL.
	exact [][2]int
}

// parquetBatch is how many records the reading goroutine hands over at
// once.
const parquetBatch = 1024

// ReadParquet starts reading the Parquet file at path through db (any
// DuckDB database; OpenMemory serves). Close the result.
func ReadParquet(ctx context.Context, db *sql.DB, path string) (*ParquetRecords, error) {
	src := "read_parquet(" + quoteLiteral(path) + ")"
	rows, err := db.QueryContext(ctx, "DESCRIBE SELECT * FROM "+src)
	if err != nil {
		return nil, fmt.Errorf("read parquet: %w", describeError(ctx, err))
	}
	var cols, exprs, text, exactExprs []string
	var exact [][2]int
	for rows.Next() {
		var name, typ string
		var null, key, def, extra sql.NullString
		if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read parquet: %w", err)
		}
		cols = append(cols, name)
		q := ingest.Quote(name)
		switch t := strings.ToUpper(typ); t {
		case "TIMESTAMP WITH TIME ZONE":
			exprs = append(exprs, "timezone('UTC', "+q+")")
		case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS":
			exprs = append(exprs, "CAST("+q+" AS TIMESTAMP)")
		case "TIMESTAMP_NS":
			// The microseconds (an infinity stays one), and the value
			// itself when they cut it.
			exprs = append(exprs, "CAST("+q+" AS TIMESTAMP)")
			exact = append(exact, [2]int{len(cols) - 1, len(exactExprs)})
			exactExprs = append(exactExprs, "CASE WHEN CAST("+q+" AS TIMESTAMP) = "+q+" THEN NULL ELSE "+q+" END")
		case "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UINTEGER", "USMALLINT", "UTINYINT":
			exprs = append(exprs, "CAST("+q+" AS BIGINT)")
		case "DOUBLE", "FLOAT":
			exprs = append(exprs, "CAST("+q+" AS DOUBLE)")
		case "VARCHAR":
			exprs = append(exprs, q)
			text = append(text, q)
		case "BLOB":
			// Its bytes, made text in read: DuckDB's text form of a BLOB
			// escapes each byte past ASCII (é as \xC3\xA9), which would
			// store other text than the file holds.
			exprs = append(exprs, q)
		default:
			if nested(t) {
				// Its text form ({'a': x}, [x]) is no value of the file:
				// the driver's map or slice, which a Reader refuses.
				exprs = append(exprs, q)
			} else {
				exprs = append(exprs, "CAST("+q+" AS VARCHAR)")
			}
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("read parquet: %w", err)
	}
	if len(cols) == 0 {
		return nil, errors.New("read parquet: no columns")
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("read parquet: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	for i := range exact {
		exact[i][1] += len(cols)
	}
	p := &ParquetRecords{cols: cols, exact: exact, full: make(chan []any, 2), free: make(chan []any, 4), cancel: cancel, done: make(chan struct{})}
	for range cap(p.free) {
		p.free <- make([]any, 0, parquetBatch*len(cols))
	}
	query := "SELECT " + strings.Join(append(exprs, exactExprs...), ", ") + " FROM " + src
	go func() {
		defer close(p.done)
		defer close(p.full)
		defer conn.Close()
		p.err = conn.Raw(func(dc any) error {
			err := p.read(ctx, dc, query)
			if err != nil && strings.Contains(err.Error(), badTextError) {
				return badText(ctx, dc, src, cols, text)
			}
			if errors.Is(describeError(ctx, err), ErrNotParquet) {
				// The footer read, the data did not: DuckDB's
				// message may hold a byte of it.
				return fmt.Errorf("read parquet: damaged data: %w", ingest.ErrInvalid)
			}
			return err
		})
	}()
	return p, nil
}

// read runs query on the driver connection dc, sending its rows in
// batches: the driver's own rows, without database/sql's conversions.
func (p *ParquetRecords) read(ctx context.Context, dc any, query string) error {
	q, ok := dc.(driver.QueryerContext)
	if !ok {
		return errors.New("read parquet: not a DuckDB connection")
	}
	rows, err := q.QueryContext(ctx, query, nil)
	if err != nil {
		return fmt.Errorf("read parquet: %w", err)
	}
	defer rows.Close()
	dest := make([]driver.Value, len(p.cols)+len(p.exact))
	var batch []any
	for {
		if batch == nil {
			select {
			case batch = <-p.free:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := rows.Next(dest)
		if err == nil {
			for _, e := range p.exact {
				if dest[e[1]] != nil { // nanoseconds: the reader refuses them
					dest[e[0]] = dest[e[1]]
				}
			}
			for _, v := range dest[:len(p.cols)] {
				if b, ok := v.([]byte); ok { // a BLOB: text, validated as UTF-8
					v = string(b)
				}
				batch = append(batch, v)
			}
			if len(batch) < cap(batch) {
				continue
			}
		} else if err != io.EOF {
			return fmt.Errorf("read parquet: %w", err)
		}
		if len(batch) > 0 {
			select {
			case p.full <- batch:
				batch = nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// ErrNotParquet is the error for a file under a Parquet name that is no
// Parquet file, or whose footer (its schema) is damaged. It matches
// ingest.ErrInvalid.
var ErrNotParquet = fmt.Errorf("not a Parquet file: %w", ingest.ErrInvalid)

// describeError is the error for DuckDB's err describing (or reading) a
// Parquet file: ErrNotParquet when its reader refused the file's bytes,
// or read past their end (DuckDB's message, of several lines, quotes the statement and may
// quote the file's bytes), ctx's error once ctx is done, else err.
func describeError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var de *duckdb.Error
	if errors.As(err, &de) && (de.Type == duckdb.ErrorTypeInvalidInput || de.Type == duckdb.ErrorTypeInvalid ||
		de.Type == duckdb.ErrorTypeIO && strings.Contains(de.Msg, shortReadError)) {
		return ErrNotParquet
	}
	return err
}

// shortReadError is in DuckDB's IO error for a footer whose schema reads
// past the end of the file: a damaged footer, not a failing disk.
const shortReadError = "Could not read enough bytes"

// badTextError begins DuckDB's error for a string column's value that is
// not UTF-8, which quotes the value.
const badTextError = "Invalid string encoding found in Parquet file"

// badText is the error for a string column of src that holds text that
// is not UTF-8 (DuckDB's reader refuses the page, naming no row): the
// file's column, found by reading each string column (text, quoted) alone
// on the driver connection dc, never the value.
func badText(ctx context.Context, dc any, src string, cols, text []string) error {
	q, ok := dc.(driver.QueryerContext)
	if !ok {
		return errors.New("read parquet: not a DuckDB connection")
	}
	for _, c := range text {
		rows, err := q.QueryContext(ctx, "SELECT max(strlen("+c+")) FROM "+src, nil)
		if err == nil {
			dest := make([]driver.Value, 1)
			err = rows.Next(dest)
			rows.Close()
		}
		if err != nil && strings.Contains(err.Error(), badTextError) {
			i := slices.IndexFunc(cols, func(n string) bool { return ingest.Quote(n) == c })
			return fmt.Errorf("read parquet: column %d of the file holds text that is not valid UTF-8: %w", i+1, ingest.ErrInvalid)
		}
	}
	return fmt.Errorf("read parquet: a string column holds text that is not valid UTF-8: %w", ingest.ErrInvalid)
}

// nested reports whether the DuckDB type t (upper case) is a STRUCT, MAP,
// UNION, LIST or ARRAY.
func nested(t string) bool {
	return strings.HasSuffix(t, "]") || strings.HasPrefix(t, "STRUCT(") || strings.HasPrefix(t, "MAP(") || strings.HasPrefix(t, "UNION(")
}

// quoteLiteral returns s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Columns names the file's columns, in order.
func (p *ParquetRecords) Columns() []string { return p.cols }

// Next reads the next record into rec.
func (p *ParquetRecords) Next(rec []any) error {
	if p.off == len(p.cur) {
		if p.cur != nil {
			clear(p.cur)
			p.free <- p.cur[:0]
			p.cur, p.off = nil, 0
		}
		b, ok := <-p.full
		if !ok {
			<-p.done
			if p.err != nil {
				return p.err
			}
			return io.EOF
		}
		p.cur = b
	}
	p.off += copy(rec, p.cur[p.off:p.off+len(p.cols)])
	return nil
}

// Close stops reading.
func (p *ParquetRecords) Close() error {
	p.cancel()
	for range p.full { // let the reading goroutine finish
	}
	<-p.done
	if errors.Is(p.err, context.Canceled) {
		return nil
	}
	return p.err
}
