package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	duckdbdriver "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/task/sqlstore"
)

// runImport appends JSON Lines, CSV or Parquet files to the table of a
// catalog's dataset, in a DuckDB file or a PostgreSQL database, in one
// transaction after validating every row, and rebuilds the table's
// derived structures (shape.Derive) in that transaction. A data error prints every
// problem (at most ingest.MaxErrors) as INPUT:row N: field F: reason and
// exits 1 with nothing imported.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) (retErr error) {
	fs := newFlagSet("import", "import --catalog FILE --dataset NAME (--db FILE.duckdb | --postgres DSN) INPUT...",
		"provenant import --catalog catalog.yaml --dataset status_events --db warehouse.duckdb events.csv more.parquet", stderr)
	catalogPath := fs.String("catalog", "", "catalog `FILE` (required): the YAML catalog declaring the dataset")
	dataset := fs.String("dataset", "", "dataset `NAME` (required): a dataset of the catalog declared with `table:`")
	dbPath := new(string)
	fs.Var((*dbFile)(dbPath), "db", "DuckDB database `FILE` to import into (created if missing)")
	dsn := fs.String("postgres", "", "PostgreSQL `DSN` to import into (postgres://user@host:5432/db?sslmode=disable)")
	keyDigests := fs.Bool("key-digests", false, "also build and keep the per-hour and per-ten-minute key digests (TABLE__rollup_keys, TABLE__rollup_slices) that serve --metric-key-digests sums a long window's query_metric provenance from, and the per-hour window key digests grouped by the window tools' fixed entity and filter (TABLE__window_keys) that --window-key-digests sums a large window's count and digest from; once built, every import keeps them")
	valueRollups := fs.Bool("value-rollups", false, "also build and keep the per-hour value rollups (TABLE__rollup_values, and on PostgreSQL by ten-minute slice, TABLE__rollup_value_slices, once the rows average 5,000 an hour) that serve --metric-rollups computes a long window's query_metric values from; once built, every import keeps them")
	every := fs.Int("checkpoint-every", 0, "`ROWS` between checkpoints of the latest row per series, in time order (0: on PostgreSQL the number of series, at least 2,048; on DuckDB twice that, at least 4,096). Fewer rows since a checkpoint make store-wide counts and lists cheaper; each checkpoint stores a row per series, so the checkpoints grow and the import slows in proportion. Give it on every import of the table: an import without it spaces its new checkpoints by the default")
	asJSON := fs.Bool("json", false, "print the result as one JSON object, with the wall-clock time the import took (reported, never used)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *catalogPath == "":
		return usagef("--catalog FILE is required")
	case *dataset == "":
		return usagef("--dataset NAME is required")
	case (*dbPath == "") == (*dsn == ""):
		return usagef("want exactly one of --db FILE.duckdb and --postgres DSN")
	case *every < 0 || *every > shape.MaxEvery:
		return usagef("--checkpoint-every: want a number of rows from 1 to %d (or 0 for the default)", shape.MaxEvery)
	}
	inputs := fs.Args()
	for i, in := range inputs {
		if inputFormat(in) == "" {
			return usagef("input %d: unknown format (want a file ending .jsonl, .ndjson, .csv or .parquet)", i+1)
		}
	}
	l, err := loadLayout(ctx, *catalogPath, *dataset, stderr)
	if err != nil {
		return err
	}

	var (
		db     *sql.DB
		sink   ingest.Sink
		reader *sql.DB // reads Parquet inputs
	)
	// The engine reads a table through structures derived from it: each
	// import rebuilds them in its own transaction, so no answer ever sees
	// new rows with stale structures.
	opts := shape.ImportOptions(&shape.DeriveOptions{Every: *every, RollupKeys: *keyDigests, RollupValues: *valueRollups, WindowKeys: *keyDigests})
	if *dbPath != "" {
		// A file this import creates is removed if it fails: an import
		// that stores nothing leaves nothing behind, not an empty
		// database that a later --db would take for the user's.
		_, statErr := os.Stat(*dbPath)
		created := errors.Is(statErr, os.ErrNotExist)
		defer func() {
			if created && db != nil && retErr != nil {
				db.Close()
				removeDuckDBFile(*dbPath)
			}
		}()
		if db, err = duckdb.OpenFile(ctx, *dbPath); err != nil {
			var de *duckdbdriver.Error
			if errors.As(err, &de) && strings.Contains(de.Msg, "Conflicting lock is held") {
				// DuckDB's message names the holder's executable and
				// PID, and advises a flag of its own CLI.
				return errors.New("open duckdb file: another process has the file open (DuckDB lets one process at a time open a file for writing; stop it, or import into PostgreSQL)")
			}
			return err
		}
		if created {
			// Another process may have made the file since it was
			// looked at: one holding tables is not this import's.
			var tables int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables()").Scan(&tables); err != nil || tables > 0 {
				created = false
			}
		}
		sink, reader = duckdb.NewSink(db, opts), db
	} else {
		if db, err = postgres.Open(ctx, *dsn); err != nil {
			return err
		}
		sink = postgres.NewSink(db, opts)
	}
	defer db.Close()
	if t := l.Catalog.TasksTable(); t != "" {
		// The tasks table a write tool appends to, so that a catalog
		// that enables writes later finds it (the engine also creates it).
		if err := sqlstore.Create(ctx, db, t); err != nil {
			return err
		}
	}

	defer func() {
		if reader != nil && reader != db { // an in-memory DuckDB of openInput's
			reader.Close()
		}
	}()
	start := time.Now()
	res, err := importFiles(ctx, sink, l, inputs)
	if errors.Is(err, ingest.ErrNotNative) {
		// Row by row: the same checks, each problem named by row and field.
		var readers []*ingest.Reader
		for _, in := range inputs {
			r, closer, err := openInput(ctx, l, in, &reader)
			if err != nil {
				return err
			}
			defer closer.Close()
			readers = append(readers, r)
		}
		res, err = ingest.Import(ctx, sink, l, readers...)
	}
	elapsed := time.Since(start)
	if list := (ingest.Errors)(nil); errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(stderr, e.Error())
		}
		more := ""
		if len(list) == ingest.MaxErrors {
			more = fmt.Sprintf(", stopped after %d", ingest.MaxErrors)
		}
		return fmt.Errorf("import: %d error(s)%s, nothing imported: %w", len(list), more, ingest.ErrInvalid)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(importReport{
			Rows: res.Rows, Table: l.Table, Dataset: l.Dataset.Name.Value, DataVersion: res.MaxSeq,
			Seconds: elapsed.Seconds(), RowsPerSecond: float64(res.Rows) / elapsed.Seconds(),
		})
	}
	_, err = fmt.Fprintf(stdout, "imported %d row(s) into %s (dataset %s); data version %d (greatest %s)\n",
		res.Rows, l.Table, l.Dataset.Name.Value, res.MaxSeq, ingest.SeqColumn)
	return err
}

// removeDuckDBFile removes a DuckDB database file and its write-ahead
// log, closed, that an import created and failed to fill.
func removeDuckDBFile(path string) {
	for _, p := range []string{path, path + ".wal"} {
		os.Remove(p) // best effort: the import's own error is the one reported
	}
}

// importFiles imports CSV and Parquet inputs through a sink that reads
// them itself (ingest.FileSink); any other input or sink, and any input
// the sink's checks refuse, is ingest.ErrNotNative, for the row-by-row
// import.
func importFiles(ctx context.Context, sink ingest.Sink, l *ingest.Layout, inputs []string) (ingest.Result, error) {
	fsink, ok := sink.(ingest.FileSink)
	if !ok || os.Getenv("PROVENANT_IMPORT_ROWS") != "" {
		return ingest.Result{}, ingest.ErrNotNative
	}
	for _, in := range inputs {
		if f := inputFormat(in); f != "csv" && f != "parquet" {
			return ingest.Result{}, ingest.ErrNotNative
		}
	}
	return fsink.ImportFiles(ctx, l, inputs)
}

// importReport is import --json's output. Seconds is the wall-clock time
// of the import proper (reading, validating, storing, deriving,
// committing), for a person or a measurement record to read.
type importReport struct {
	Rows          int64   `json:"rows"`
	Table         string  `json:"table"`
	Dataset       string  `json:"dataset"`
	DataVersion   int64   `json:"data_version"`
	Seconds       float64 `json:"seconds"`
	RowsPerSecond float64 `json:"rows_per_second"`
}

// inputFormat is an input's format by its extension: jsonl, csv, parquet
// or "" for none of them.
func inputFormat(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".csv":
		return "csv"
	case ".parquet":
		return "parquet"
	}
	return ""
}

// openInput opens one input as a Reader. A Parquet input is read through
// *parquetDB, an in-memory DuckDB opened on first use when nil.
func openInput(ctx context.Context, l *ingest.Layout, path string, parquetDB **sql.DB) (*ingest.Reader, io.Closer, error) {
	if inputFormat(path) == "parquet" {
		if *parquetDB == nil {
			db, err := duckdb.OpenMemory(ctx)
			if err != nil {
				return nil, nil, err
			}
			*parquetDB = db
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, nil, fmt.Errorf("open input: %w", err)
		}
		if fi.IsDir() {
			return nil, nil, fmt.Errorf("open input %s: %w", path, syscall.EISDIR)
		}
		if !fi.Mode().IsRegular() {
			// DuckDB's reader would wait on a named pipe, deaf to
			// interrupts.
			return nil, nil, fmt.Errorf("open input %s: not a regular file (Parquet is read by seeking)", path)
		}
		recs, err := duckdb.ReadParquet(ctx, *parquetDB, path)
		if err != nil {
			return nil, nil, fmt.Errorf("open input %s: %w", path, err)
		}
		return ingest.NewRecords(path, l, recs), recs, nil
	}
	f, err := openContext(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("open input: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		// Said once here; the first read would name the path twice.
		f.Close()
		return nil, nil, fmt.Errorf("open input %s: %w", path, syscall.EISDIR)
	}
	// An interrupt stops a row that never ends (a named /dev/zero).
	r := ingest.WithContext(ctx, f)
	if inputFormat(path) == "csv" {
		return ingest.NewCSV(path, l, r), f, nil
	}
	return ingest.NewJSONL(path, l, r), f, nil
}

// openContext opens path for reading, or returns ctx's error once it is
// done: opening a named pipe waits for a writer, which an interrupt
// stops. The abandoned open closes its file if it ever returns.
func openContext(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// loadLayout loads the catalog (printing its errors, as validate does)
// and lays out the named dataset.
func loadLayout(ctx context.Context, path, dataset string, stderr io.Writer) (*ingest.Layout, error) {
	f, err := openStream(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open catalog file: %w", err)
	}
	defer f.Close()
	c, err := catalog.Load(f, path)
	if list := (catalog.ErrorList)(nil); errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(stderr, e.Error())
		}
		return nil, fmt.Errorf("load catalog: %d error(s): %w", len(list), catalog.ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	l, err := ingest.NewLayout(c, dataset)
	if errors.Is(err, ingest.ErrNoDataset) {
		names := make([]string, len(c.Datasets))
		for i, d := range c.Datasets {
			names[i] = d.Name.Value
		}
		return nil, usagef("--dataset: the catalog declares no such dataset (it declares %s)", strings.Join(names, ", "))
	}
	return l, err
}
