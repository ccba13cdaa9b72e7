package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/sandbox/allowlist"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/warehouse/demo"
)

// loadCatalog reads the catalog --catalog names: an embedded one by name
// (retail, warehouse) or a file, validated strictly.
func loadCatalog(ctx context.Context, nameOrPath string) (*catalog.Catalog, error) {
	if slices.Contains(catalogs.Names, nameOrPath) {
		return catalogs.Load(nameOrPath)
	}
	f, err := openStream(ctx, nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("open catalog file: %w", err)
	}
	defer f.Close()
	c, err := catalog.Load(f, nameOrPath)
	if err != nil {
		return nil, err
	}
	// A metric's fixture is a file beside the catalog.
	if err := c.CheckFixtures(catalogDirFS(ctx, nameOrPath), "."); err != nil {
		return nil, err
	}
	return c, nil
}

// openCatalogEngine opens the engine of a catalog over the database the
// flags name: a DuckDB file (--db, read only), PostgreSQL (--postgres),
// or, for the embedded warehouse catalog alone, its demo database, built
// on first use in the user's cache directory.
func (f *engineFlags) openCatalogEngine(ctx context.Context, opts engine.Options) (*engine.Engine, error) {
	cat, err := f.loadedCatalog(ctx)
	if err != nil {
		return nil, err
	}
	e, _, _, err := f.openCatalogOn(ctx, cat, opts)
	return e, err
}

// openCatalogOn is openCatalogEngine for a loaded catalog. It also returns
// the source the engine reads (for eval's provenance checks) and, for the
// warehouse demo database, the demo's dataset version ("" otherwise: a
// database the flags name has no version this command can know).
func (f *engineFlags) openCatalogOn(ctx context.Context, cat *catalog.Catalog, opts engine.Options) (*engine.Engine, shape.Source, string, error) {
	var (
		db      *sql.DB
		pools   *postgres.SnapshotPools  // PostgreSQL's snapshot pools, if any
		sharer  *postgres.SnapshotSharer // PostgreSQL's snapshot sharer, if any
		inPlace *duckdb.Files            // files read in place, if any
		src     shape.Source
		version string
		err     error
	)
	// A catalog file's metrics compile to SQL that DuckDB's parser reads
	// as one query over the read allowlist, as validate checks; an
	// embedded catalog's are pinned by sandbox/duckdb's tests.
	if !slices.Contains(catalogs.Names, f.catalog) {
		if _, err := sandboxdb.CheckMetrics(ctx, cat); err != nil {
			return nil, src, "", err
		}
	}
	if err := f.checkSources(cat); err != nil {
		return nil, src, "", err
	}
	files := 0
	for _, ds := range cat.Datasets {
		if ds.Files.Value != "" {
			files++
		}
	}
	switch {
	case files > 0:
		dir := "."
		if !slices.Contains(catalogs.Names, f.catalog) {
			dir = filepath.Dir(f.catalog)
		}
		if inPlace, err = duckdb.OpenFiles(ctx, cat, dir); err != nil {
			return nil, src, "", err
		}
		db, src = inPlace.DB, inPlace.Source()
	case f.db != "":
		db, err = duckdb.OpenFileReadOnly(ctx, f.db)
	case f.postgres != "":
		if db, err = postgres.Open(ctx, f.postgres); err == nil {
			if err = postgres.CheckCollation(ctx, db, cat); err != nil {
				db.Close()
			}
		}
		src.Snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
		if err == nil {
			// Batches on connections of their own, without BEGIN and
			// COMMIT (see postgres.OpenSnapshotPools).
			if pools, err = postgres.OpenSnapshotPools(ctx, f.postgres, f.postgresInFlight); err != nil {
				db.Close()
			}
		}
		if err == nil && len(cat.Metrics) > 0 {
			// A query_metric call's resolver reads beside its executor
			// on the executor's snapshot, exported (engine speculate):
			// as many at once as metric reads.
			conns := opts.MetricConcurrency
			if conns <= 0 {
				conns = runtime.GOMAXPROCS(0)
			}
			if sharer, err = postgres.OpenSnapshotSharer(ctx, f.postgres, conns); err != nil {
				if pools != nil {
					pools.Close()
				}
				db.Close()
			} else if sharer != nil {
				src.Sharer = sharer
			}
		}
		src.Pipeline = postgres.NewPipeliner(db, &postgres.PipelinerOptions{MaxInFlight: f.postgresInFlight, Pools: pools}).WithoutSQLDigest()
	case f.catalog == "warehouse":
		var path string
		if path, err = warehouseDemoDB(ctx, cat, opts.Logger.Info); err == nil {
			db, err = duckdb.OpenFileReadOnly(ctx, path)
			version = demo.DemoVersion
		}
	default:
		return nil, src, "", usagef("--catalog %s: want --db FILE.duckdb or --postgres DSN (only the embedded warehouse catalog has a demo database)", f.catalogShown())
	}
	opts.MetricResolveFrom, opts.MetricResolveRows = metricResolver(f.postgres != "", opts.MetricResolveFrom, opts.MetricResolveRows)
	if n := f.duckdbThreads.threads(); err == nil && n > 0 && f.postgres == "" {
		// One thread a query and calls in turns by default: sixteen
		// callers on two cores get more answers a second and half the
		// tail (bench/results/duckdb-turns.md).
		opts.SQLTurns = f.duckdbThreads.turns()
		if err = duckdb.SetThreads(ctx, db, n); err != nil {
			if inPlace != nil {
				inPlace.Close()
			} else {
				db.Close()
			}
		}
	}
	if err != nil {
		return nil, src, "", err
	}
	src.DB = db
	closeDB := func() error {
		if pools != nil {
			pools.Close()
		}
		if sharer != nil {
			sharer.Close()
		}
		if inPlace != nil {
			return inPlace.Close() // and its spill directory
		}
		return db.Close()
	}
	if err := shape.CheckTables(ctx, cat, src); err != nil {
		closeDB()
		return nil, src, "", err
	}
	if f.postgres == "" && inPlace == nil {
		// A DuckDB file opened read-only: DuckDB's lock keeps every
		// writer out while it is open (an import fails until serve
		// stops), so its data version is read once here and no call
		// reads it again.
		if src.Versions, err = shape.ReadVersions(ctx, cat, src); err != nil {
			closeDB()
			return nil, src, "", err
		}
	}
	var closeFree func() error
	if cat.FreeSQL() {
		snap, err := f.freeSQLSnapshot(ctx, cat, opts.Logger)
		if err != nil {
			closeDB()
			return nil, src, "", err
		}
		if opts.FreeSQL, closeFree, err = startFreeSQL(ctx, cat, snap, opts.Logger); err != nil {
			closeDB()
			return nil, src, "", err
		}
	}
	e, err := engine.OpenCatalog(ctx, cat, src, &opts)
	if err != nil {
		if closeFree != nil {
			closeFree()
		}
		closeDB()
		return nil, src, "", err
	}
	e.OnClose(closeDB)
	if closeFree != nil {
		e.OnClose(closeFree)
	}
	return e, src, version, nil
}

// freeSQLSnapshot copies the allowlisted tables of cat into the sandbox's
// snapshot, from the DuckDB file the engine reads (--db, or the warehouse
// demo database): the sandbox reads a DuckDB snapshot, which PostgreSQL
// and files read in place do not give.
func (f *engineFlags) freeSQLSnapshot(ctx context.Context, cat *catalog.Catalog, logger *slog.Logger) (*sandboxdb.Snapshot, error) {
	tables := allowlist.FromCatalog(cat, nil)
	switch {
	case f.db != "":
		return sandboxdb.SnapshotFile(ctx, f.db, tables)
	case f.catalog == "warehouse" && f.postgres == "":
		path, err := warehouseDemoDB(ctx, cat, logger.Info)
		if err != nil {
			return nil, err
		}
		return sandboxdb.SnapshotFile(ctx, path, tables)
	}
	return nil, usagef("--catalog %s: free SQL runs over a DuckDB database: want --db FILE.duckdb", f.catalogShown())
}

// checkSources refuses the flag combinations no engine opens, before
// anything is opened or listened on: cat is --catalog loaded, nil when
// the flags name a store file. A flag that cannot apply is an error, never
// ignored: --db or --postgres without --catalog would otherwise answer
// from the demo store.
func (f *engineFlags) checkSources(cat *catalog.Catalog) error {
	switch {
	case f.catalog != "" && f.store != "":
		return usagef("want at most one of --store PATH and --catalog NAME")
	case f.catalog == "" && (f.db != "" || f.postgres != ""):
		return usagef("--db and --postgres go with --catalog")
	case f.db != "" && f.postgres != "":
		return usagef("want at most one of --db FILE.duckdb and --postgres DSN")
	case f.postgresInFlight != 0 && f.postgres == "":
		return usagef("--postgres-in-flight: want --postgres DSN")
	case f.duckdbThreads.threads() < 0 || f.duckdbThreads.threads() > duckdb.MaxThreads:
		return usagef("--duckdb-threads: want 0 (DuckDB's default) or a number of threads up to %d", duckdb.MaxThreads)
	case f.duckdbThreads.given && (f.storeFile() || f.postgres != ""):
		return usagef("--duckdb-threads: want --catalog over a DuckDB database (--db FILE.duckdb, the warehouse demo or files read in place)")
	}
	if cat == nil {
		return nil
	}
	files, tables := 0, 0
	for _, ds := range cat.Datasets {
		if ds.Files.Value != "" {
			files++
		} else {
			tables++
		}
	}
	if files > 0 && (tables > 0 || f.db != "" || f.postgres != "") {
		return usagef("--catalog %s: a catalog whose datasets read files in place takes neither --db nor --postgres, nor tables beside the files", f.catalogShown())
	}
	return nil
}

// loadedCatalog loads --catalog once: serve reads it before it listens
// (for the registry its routes describe and the principals' scopes) and
// again when it opens the engine.
func (f *engineFlags) loadedCatalog(ctx context.Context) (*catalog.Catalog, error) {
	if f.cat == nil {
		cat, err := loadCatalog(ctx, f.catalog)
		if err != nil {
			return nil, err
		}
		if f.freeSQL {
			cat = cat.WithFreeSQL()
		}
		f.cat = cat
	}
	return f.cat, nil
}

// scopePattern returns the id pattern of a catalog's scope entity.
func scopePattern(cat *catalog.Catalog) (*regexp.Regexp, error) {
	for _, ds := range cat.Datasets {
		if e := ds.Entity(cat.ScopeEntity.Value); e != nil {
			return regexp.Compile(e.Pattern.Value)
		}
	}
	return nil, fmt.Errorf("catalog %s: no dataset declares the scope entity", cat.Name.Value)
}

// catalogShown is --catalog as an error may show it: an embedded name, or
// "FILE".
func (f *engineFlags) catalogShown() string {
	if slices.Contains(catalogs.Names, f.catalog) {
		return f.catalog
	}
	return "FILE"
}

// warehouseDemoDB returns the path of the warehouse demo database, building
// it on first use: the demo generator's default dataset, imported and
// derived like any other.
func warehouseDemoDB(ctx context.Context, cat *catalog.Catalog, logf func(string, ...any)) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "provenant")
	path := filepath.Join(dir, demo.DemoVersion+".duckdb")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build warehouse demo database: %w", err)
	}
	l, err := ingest.NewLayout(cat, cat.Datasets[0].Name.Value)
	if err != nil {
		return "", fmt.Errorf("build warehouse demo database: %w", err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(demo.WriteJSONL(ctx, pw, demo.DefaultOptions())) }()
	defer pr.Close()
	opts := shape.ImportOptions(nil)
	res, err := duckdb.CreateFile(ctx, path, l, opts, ingest.NewJSONL(demo.DemoVersion+".jsonl", l, pr))
	if err != nil {
		var list ingest.Errors
		if errors.As(err, &list) {
			return "", fmt.Errorf("build warehouse demo database: the generator's rows do not fit the catalog: %w", err)
		}
		return "", fmt.Errorf("build warehouse demo database: %w", err)
	}
	logf("built the warehouse demo database", "path", path, "rows", res.Rows)
	return path, nil
}

// metricResolver is where a query_metric call's resolver re-derives from
// the value rollups rather than the rows, as the commands serve each
// database (engine.Options.MetricResolveFrom and MetricResolveRows): on
// PostgreSQL from two whole hours however few the rows
// (postgres.MetricResolveFrom, MetricResolveRows), on DuckDB from two
// whole hours of many rows (duckdb.MetricResolveFrom). Settings already
// made are kept.
func metricResolver(onPostgres bool, from time.Duration, rows int) (time.Duration, int) {
	if onPostgres {
		if from == 0 {
			from = postgres.MetricResolveFrom
		}
		if rows == 0 {
			rows = postgres.MetricResolveRows
		}
		return from, rows
	}
	if from == 0 {
		from = duckdb.MetricResolveFrom
	}
	return from, rows
}
