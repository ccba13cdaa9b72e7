package duckdb

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/internal/dbtx"
	"github.com/provenant/provenant/internal/phasetrace"
)

var _ ingest.FileSink = (*Sink)(nil)

// ImportFiles imports CSV and Parquet files by letting DuckDB read them
// (read_csv with every column as text, read_parquet), in parallel, straight
// into the table by INSERT ... SELECT: each value is checked and converted
// in SQL as a Reader would (ingest.Layout.NativeSQL), and a row the checks
// refuse makes the statement fail (error()), which rolls the whole import
// back and returns ingest.ErrNotNative, for the caller to import through
// Readers, whose errors name each row and field. The keys are then
// checked as the appending batch checks them, numbered as a Reader
// numbers its rows, and the commit is the batch's (derived structures,
// indexes). One file into an empty table gets each row's validity end in
// the same statement.
func (s *Sink) ImportFiles(ctx context.Context, l *ingest.Layout, paths []string) (ingest.Result, error) {
	type file struct {
		fileSource
		vals []string
		ok   string
	}
	var files []file
	for _, p := range paths {
		fs, err := describeFile(ctx, s.db, p)
		if err != nil {
			return ingest.Result{}, fmt.Errorf("import files: %w: %w", ingest.ErrNotNative, err)
		}
		vals, ok, fits := l.NativeSQL(fs.cols, fs.csv)
		if !fits {
			return ingest.Result{}, fmt.Errorf("import files: %s: %w", p, ingest.ErrNotNative)
		}
		files = append(files, file{fileSource: fs, vals: vals, ok: ok})
	}
	importMu.Lock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		importMu.Unlock()
		return ingest.Result{}, fmt.Errorf("import files: %w", err)
	}
	phasetrace.Mark("start")
	b := &batch{conn: conn, l: l, after: s.o.AfterInsert, o: s.o}
	defer b.Rollback()
	tx, err := dbtx.BeginConn(ctx, conn, nil)
	if err != nil {
		return ingest.Result{}, fmt.Errorf("import files: %w", err)
	}
	b.tx = tx
	if b.base, err = ingest.Prepare(ctx, tx, l, ingest.DuckDB); err != nil {
		return ingest.Result{}, fmt.Errorf("import files: %w", err)
	}
	withEnd := false
	if s.o.ValidTo != "" && b.base == 0 && len(files) == 1 {
		vt, err := b.newValidity(ctx)
		if err != nil {
			return ingest.Result{}, fmt.Errorf("import files: %w", err)
		}
		withEnd = vt != nil
	}
	cols := make([]string, 0, len(l.Columns)+2)
	for _, c := range l.Columns {
		cols = append(cols, ingest.Quote(c.Name))
	}
	seq := ingest.Quote(ingest.SeqColumn)
	for i, f := range files {
		sel := make([]string, len(f.vals))
		for j, v := range f.vals {
			sel[j] = v + " AS " + cols[j]
		}
		// A refused row stops the statement: its values are never
		// stored, and the error names no value.
		sel[0] = "CASE WHEN " + f.ok + " THEN " + f.vals[0] + " ELSE error('row refused by the checks') END AS " + cols[0]
		inner := "SELECT " + strings.Join(sel, ", ") + fmt.Sprintf(", CAST(%d + _provenant_row AS BIGINT) AS %s", b.base+b.n, seq) +
			" FROM " + f.numbered(withEnd)
		target := strings.Join(append(cols[:len(cols):len(cols)], seq), ", ")
		var q string
		if withEnd {
			ds := l.Dataset
			var series []string
			for _, e := range ds.SeriesEntities() {
				series = append(series, ingest.Quote(e.Column.Value))
			}
			end := "COALESCE(LEAD(" + ingest.Quote(ds.Time.Value) + ") OVER (PARTITION BY " + strings.Join(series, ", ") +
				" ORDER BY " + ingest.Quote(ds.Time.Value) + ", " + ingest.Quote(ds.Key.Value) + "), CAST('" +
				s.o.ValidToOpen.UTC().Format("2006-01-02 15:04:05.999999") + "' AS TIMESTAMP))"
			q = "INSERT INTO " + ingest.Quote(l.Table) + " (" + target + ", " + ingest.Quote(s.o.ValidTo) + ") SELECT " + target + ", " + end +
				" FROM (" + inner + ") ORDER BY " + seq
		} else {
			q = "INSERT INTO " + ingest.Quote(l.Table) + " (" + target + ") " + inner
		}
		res, err := tx.ExecContext(ctx, q)
		if err != nil {
			return ingest.Result{}, fmt.Errorf("import files: %s: %w: %w", paths[i], ingest.ErrNotNative, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return ingest.Result{}, fmt.Errorf("import files: %w", err)
		}
		if n > 0 { // an empty file has no run: locate must not find it
			b.runs = append(b.runs, run{seq: b.base + b.n + 1, src: i, row: 1})
			b.n += n
		}
	}
	phasetrace.Mark("native read+validate+insert")
	return b.Commit(ctx, paths)
}

// fileSource is how DuckDB reads one input file.
type fileSource struct {
	cols []ingest.FileColumn
	src  string // the table function reading it
	csv  bool
	// withRowNumbers, when not empty, is a table function reading it that
	// gives each row's number in the file (read_parquet's
	// file_row_number, from 0).
	withRowNumbers string
}

// numbered is the FROM clause that reads the file's rows, each with its
// number in the file (from 1) as _provenant_row.
//
// row_number() OVER () numbers them in file order, and DuckDB runs it
// on one thread, with everything the statement does to a row after it
// in the same pipeline (the checks, the casts): the rows come in file
// order. When the statement sorts them anyway (sorted: the first
// import's, which stores them in file order after its validity ends'
// window), the numbering is kept apart so that the rest runs on every
// thread: a Parquet file's rows are numbered by the reader
// (file_row_number), a CSV file's (whose reader gives no number) by the
// window, into a materialized table of their text, from which the
// checks and casts run in parallel. On two cores that took a fifth to a
// third off the statement's wall time (bench/results/import-rownumber.md).
// Unsorted, the rows would then be stored in any order.
func (f fileSource) numbered(sorted bool) string {
	inOrder := "(SELECT row_number() OVER () AS _provenant_row, * FROM " + f.src + ")"
	switch {
	case !sorted:
		return inOrder
	case f.withRowNumbers != "":
		return "(SELECT file_row_number + 1 AS _provenant_row, * FROM " + f.withRowNumbers + ")"
	default:
		return "(WITH _provenant_numbered AS MATERIALIZED " + inOrder + " SELECT * FROM _provenant_numbered)"
	}
}

// describeFile returns how DuckDB reads the CSV or Parquet file at path.
func describeFile(ctx context.Context, db *sql.DB, path string) (fileSource, error) {
	// DuckDB's readers expand glob patterns: a path holding one would read
	// other files than the one named, so it is read row by row instead.
	if strings.ContainsAny(path, "*?[]{}") {
		return fileSource{}, errors.New("path holds glob characters")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fileSource{}, err
	}
	if !fi.Mode().IsRegular() {
		// A named pipe can be read once, and DuckDB's reader spun on
		// one, deaf to interrupts; a Reader streams it.
		return fileSource{}, errors.New("not a regular file")
	}
	if strings.HasSuffix(strings.ToLower(path), ".csv") {
		f, err := os.Open(path)
		if err != nil {
			return fileSource{}, err
		}
		// A header may never end: past 1 MiB, it is cut, and the columns
		// so read fit no layout (the row-by-row import reports it).
		names, err := csv.NewReader(io.LimitReader(ingest.WithContext(ctx, f), 1<<20)).Read()
		f.Close()
		if err != nil {
			return fileSource{}, fmt.Errorf("read header: %w", err)
		}
		cols := make([]ingest.FileColumn, len(names))
		spec := make([]string, len(names))
		for i, n := range names {
			cols[i] = ingest.FileColumn{Name: n, Type: "VARCHAR"}
			spec[i] = quoteLiteral(n) + ": 'VARCHAR'"
		}
		src := "read_csv(" + quoteLiteral(path) + `, header = true, auto_detect = false, all_varchar = true, delim = ',', quote = '"', escape = '"', strict_mode = true, columns = {` +
			strings.Join(spec, ", ") + "})"
		return fileSource{cols: cols, src: src, csv: true}, nil
	}
	src := "read_parquet(" + quoteLiteral(path) + ")"
	rows, err := db.QueryContext(ctx, "DESCRIBE SELECT * FROM "+src)
	if err != nil {
		return fileSource{}, err
	}
	var cols []ingest.FileColumn
	for rows.Next() {
		var name, typ string
		var null, key, def, extra sql.NullString
		if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
			rows.Close()
			return fileSource{}, err
		}
		cols = append(cols, ingest.FileColumn{Name: name, Type: typ})
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fileSource{}, err
	}
	// A column of the file's own under the reader's name for the row
	// number would be ambiguous: such a file is numbered by the window.
	fs := fileSource{cols: cols, src: src}
	if !slices.ContainsFunc(cols, func(c ingest.FileColumn) bool { return strings.EqualFold(c.Name, "file_row_number") }) {
		fs.withRowNumbers = "read_parquet(" + quoteLiteral(path) + ", file_row_number = true)"
	}
	return fs, nil
}
