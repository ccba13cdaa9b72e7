package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/provenant/provenant/ingest"
)

var _ ingest.Records = (*ParquetRecords)(nil)

// ParquetRecords reads a Parquet file through DuckDB as text records
// (ingest.NewRecords), so its rows pass the same validation as JSON Lines
// and CSV: every column is cast to text, a TIMESTAMP column (with or
// without a time zone) as RFC 3339 UTC to the microsecond
// (2026-01-06T08:00:00.000000Z); a NULL stays a NULL.
type ParquetRecords struct {
	cols []string
	rows *sql.Rows
	scan []sql.NullString
	ptrs []any
}

// ReadParquet starts reading the Parquet file at path through db (any
// DuckDB database; an in-memory one from sql.Open("duckdb", "") serves).
// Close the result.
func ReadParquet(ctx context.Context, db *sql.DB, path string) (*ParquetRecords, error) {
	src := "read_parquet(" + quoteLiteral(path) + ")"
	rows, err := db.QueryContext(ctx, "DESCRIBE SELECT * FROM "+src)
	if err != nil {
		return nil, fmt.Errorf("read parquet: %w", err)
	}
	var cols, exprs []string
	for rows.Next() {
		var name, typ string
		var null, key, def, extra sql.NullString
		if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read parquet: %w", err)
		}
		cols = append(cols, name)
		q := ingest.Quote(name)
		switch t := strings.ToUpper(typ); {
		case t == "TIMESTAMP WITH TIME ZONE":
			exprs = append(exprs, "strftime(timezone('UTC', "+q+"), '%Y-%m-%dT%H:%M:%S.%fZ')")
		case strings.HasPrefix(t, "TIMESTAMP"):
			exprs = append(exprs, "strftime(CAST("+q+" AS TIMESTAMP), '%Y-%m-%dT%H:%M:%S.%fZ')")
		default:
			exprs = append(exprs, "CAST("+q+" AS VARCHAR)")
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("read parquet: %w", err)
	}
	if len(cols) == 0 {
		return nil, errors.New("read parquet: no columns")
	}
	data, err := db.QueryContext(ctx, "SELECT "+strings.Join(exprs, ", ")+" FROM "+src)
	if err != nil {
		return nil, fmt.Errorf("read parquet: %w", err)
	}
	p := &ParquetRecords{cols: cols, rows: data, scan: make([]sql.NullString, len(cols)), ptrs: make([]any, len(cols))}
	for i := range p.scan {
		p.ptrs[i] = &p.scan[i]
	}
	return p, nil
}

// quoteLiteral returns s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Columns names the file's columns, in order.
func (p *ParquetRecords) Columns() []string { return p.cols }

// Next reads the next record into rec.
func (p *ParquetRecords) Next(rec []ingest.Text) error {
	if !p.rows.Next() {
		if err := p.rows.Err(); err != nil {
			return fmt.Errorf("read parquet: %w", err)
		}
		return io.EOF
	}
	if err := p.rows.Scan(p.ptrs...); err != nil {
		return fmt.Errorf("read parquet: %w", err)
	}
	for i, s := range p.scan {
		rec[i] = ingest.Text{S: s.String, Null: !s.Valid}
	}
	return nil
}

// Close stops reading.
func (p *ParquetRecords) Close() error { return p.rows.Close() }
