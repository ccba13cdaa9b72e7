package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/retail/storefile"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/sandbox/allowlist"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
	"github.com/provenant/provenant/shape"
)

// workerSubcommand is the hidden subcommand the sandbox re-executes this
// binary as: one statement in on standard input, one answer out.
const workerSubcommand = "sql-worker"

// workerEnv is the sandbox worker's whole environment: empty, but for
// the variable this package's tests need to run their binary as main.
var workerEnv []string

// sqlOutput is what `provenant sql` prints: one JSON object.
type sqlOutput struct {
	Outcome sandbox.Outcome `json:"outcome"`
	Layer   *sandbox.Layer  `json:"layer"`
	Class   *sandbox.Class  `json:"class"`
	// Kind and Position say what was refused and where (a byte offset),
	// never by its text; null when the statement ran.
	Kind          *string  `json:"kind"`
	Position      *int     `json:"position"`
	Columns       []string `json:"columns"`
	Rows          [][]any  `json:"rows"`
	RowsProcessed int64    `json:"rows_processed"`
	// Repair is, for a statement the sandbox stopped, the repair advice
	// a client of the MCP or REST surface gets for the same failure
	// (repair.Advise): the class, what failed, the allowlisted tables;
	// never the statement. Absent when the statement ran.
	Repair *answer.Advice `json:"repair,omitempty"`
}

// runSQL runs one statement through the validator and the sandbox worker
// exactly as a model's free SQL would, and prints one JSON object; the
// exit status is 0 whatever the outcome.
func runSQL(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sql", "sql [--catalog NAME|FILE] [--db FILE] [flags] STATEMENT",
		`provenant sql "SELECT store_id, count(*) AS n FROM events WHERE state = 'OUT_OF_STOCK' GROUP BY 1 ORDER BY 2 DESC LIMIT 3"`, stderr)
	catalogName := fs.String("catalog", storefile.Catalog,
		"`NAME` of an embedded catalog (retail, warehouse) or a catalog FILE: its declared tables minus its sql.deny are the allowlist")
	db := new(string)
	fs.Var((*dbFile)(db), "db", "the DuckDB database `FILE` holding the catalog's tables (default: the catalog's demo data; retail's is the embedded demo store)")
	deny := fs.String("deny", "", "comma-separated `TABLES` taken out of the allowlist, beyond the catalog's sql.deny")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error (the log keeps a statement's SHA-256, never its text)")
	def := sandbox.DefaultLimits()
	limits := def
	fs.Int64Var(&limits.RowBudget, "row-budget", def.RowBudget, "the most `ROWS` the query may process (the sum of the rows its plan's operators produce)")
	fs.IntVar(&limits.MaxRows, "max-rows", def.MaxRows, "the most result `ROWS`")
	fs.IntVar(&limits.MaxBytes, "max-bytes", def.MaxBytes, "the most result `BYTES` (rows encoded as JSON)")
	memoryMB := fs.Int64("memory-mb", def.MemoryBytes>>20, "the worker's DuckDB memory limit in `MiB`")
	fs.DurationVar(&limits.WallClock, "timeout", def.WallClock, "the wall-clock safety net: the worker is killed after `D`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// Shifted into bytes, a larger value wrapped around (2^44+16 MiB
	// was 16 MiB).
	if *memoryMB < 16 || *memoryMB > 1<<30 {
		return usagef("--memory-mb: want 16 to %d MiB", 1<<30)
	}
	limits.MemoryBytes = *memoryMB << 20
	if err := limits.Validate(); err != nil {
		// Named by the flag that sets it, not the sandbox's field.
		msg := strings.TrimPrefix(err.Error(), "validate limits: ")
		for field, flag := range map[string]string{"row_budget": "--row-budget", "max_rows": "--max-rows", "max_bytes": "--max-bytes", "wall_clock": "--timeout"} {
			if rest, ok := strings.CutPrefix(msg, field+" "); ok {
				return usagef("%s: %s", flag, rest)
			}
		}
		return usagef("%s", msg)
	}
	stmt := strings.Join(fs.Args(), " ")
	logger, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	cat, err := loadCatalog(ctx, *catalogName)
	if err != nil {
		return err
	}
	var denied []string
	if *deny != "" {
		denied = strings.Split(*deny, ",")
	}
	tables := allowlist.FromCatalog(cat, denied)
	if len(tables) == 0 {
		return usagef("--catalog: the catalog declares no table outside --deny")
	}
	snap, err := sqlSnapshot(ctx, *catalogName, *db, tables, logger.Info)
	if err != nil {
		return err
	}
	defer snap.Close()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find sandbox worker: %w", err)
	}
	r, err := sandboxdb.NewRunner(ctx, snap, []string{exe, workerSubcommand},
		&sandboxdb.Options{Env: workerEnv, Limits: limits, Logger: logger})
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := r.Run(ctx, stmt)
	if err != nil {
		return err
	}
	out := sqlOutput{Outcome: res.Outcome, Columns: res.Columns, Rows: res.Rows, RowsProcessed: res.RowsProcessed}
	if out.Columns == nil {
		out.Columns = []string{}
	}
	if out.Rows == nil {
		out.Rows = [][]any{}
	}
	if rej := res.Rejection; rej != nil {
		out.Layer, out.Class, out.Kind = &rej.Layer, &rej.Class, &rej.Kind
		if rej.Position != sandbox.NoPosition {
			out.Position = &rej.Position
		}
		if class, err := repair.ParseClass(string(rej.Class)); err == nil {
			f := repair.Failure{Class: class, Detail: repair.StatementDetail(rej.Kind, string(rej.Layer), rej.Position), Snippet: repair.TablesSnippet(tables)}
			if adv, err := repair.Advise(f, answer.Selection{Tool: shape.QuerySQL}); err == nil {
				out.Repair = &adv
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// sqlSnapshot copies the allowlisted tables into the sandbox's snapshot:
// from --db, else from the catalog's demo data (the retail demo store
// imported into memory as `ask` does; the warehouse demo database).
func sqlSnapshot(ctx context.Context, catalogName, db string, tables []string, logf func(string, ...any)) (*sandboxdb.Snapshot, error) {
	switch {
	case db != "":
		return sandboxdb.SnapshotFile(ctx, db, tables)
	case catalogName == storefile.Catalog:
		d, err := engine.LoadDataset("")
		if err != nil {
			return nil, err
		}
		var mem *engine.Database
		open := func(ctx context.Context) (*engine.Database, error) {
			var err error
			mem, err = openDuckDB(ctx)
			return mem, err
		}
		e, err := engine.Open(ctx, d, open, nil)
		if err != nil {
			return nil, err
		}
		defer e.Close()
		return sandboxdb.SnapshotDB(ctx, mem.DB, tables)
	case catalogName == "warehouse":
		cat, err := loadCatalog(ctx, catalogName)
		if err != nil {
			return nil, err
		}
		path, err := warehouseDemoDB(ctx, cat, logf)
		if err != nil {
			return nil, err
		}
		return sandboxdb.SnapshotFile(ctx, path, tables)
	}
	return nil, usagef("--catalog FILE: want --db FILE.duckdb (only the embedded catalogs have demo data)")
}

// runSQLWorker is the hidden worker subcommand: one request on standard
// input, one response on standard output.
func runSQLWorker(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments", workerSubcommand)
	}
	return sandboxdb.ServeWorker(ctx, os.Stdin, os.Stdout)
}
