package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider/scripted"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/storefile"
	"github.com/provenant/provenant/sandbox/allowlist"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
	"github.com/provenant/provenant/shape"
)

// freeSQLWarm is how many sandbox workers an engine with free SQL keeps
// started ahead of need: a statement and its re-execution each take one.
const freeSQLWarm = 2

// startFreeSQL starts the sandbox runner of cat's free SQL over snap
// (which it then owns): workers are this binary re-executed as
// sql-worker, under the catalog's sql.limits. The closer stops the
// workers and removes the snapshot.
func startFreeSQL(ctx context.Context, cat *catalog.Catalog, snap *sandboxdb.Snapshot, logger *slog.Logger) (*pipeline.FreeSQL, func() error, error) {
	exe, err := os.Executable()
	if err != nil {
		snap.Close()
		return nil, nil, fmt.Errorf("find sandbox worker: %w", err)
	}
	r, err := sandboxdb.NewRunner(ctx, snap, []string{exe, workerSubcommand},
		&sandboxdb.Options{Env: workerEnv, Limits: allowlist.Limits(cat), Logger: logger, Warm: freeSQLWarm})
	if err != nil {
		snap.Close()
		return nil, nil, err
	}
	closer := func() error {
		err := r.Close()
		if cerr := snap.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return &pipeline.FreeSQL{Runner: r, Tables: snap.Tables}, closer, nil
}

// storeFileSnapshot imports the store file d into a database of its own,
// as engine.Open does, and copies the allowlisted tables of the retail
// catalog into a sandbox snapshot: the sandbox never reads the engine's
// database.
func storeFileSnapshot(ctx context.Context, d *retail.Dataset, cat *catalog.Catalog) (*sandboxdb.Snapshot, error) {
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
	return sandboxdb.SnapshotDB(ctx, mem.DB, allowlist.FromCatalog(cat, nil))
}

// openStoreFileFreeSQL opens the engine of store file d with free SQL on
// (--free-sql without --catalog): the sandbox reads a snapshot of its own
// import.
func openStoreFileFreeSQL(ctx context.Context, d *retail.Dataset, opts engine.Options) (*engine.Engine, error) {
	cat, err := loadCatalog(ctx, "retail")
	if err != nil {
		return nil, err
	}
	cat = cat.WithFreeSQL()
	snap, err := storeFileSnapshot(ctx, d, cat)
	if err != nil {
		return nil, err
	}
	free, closeFree, err := startFreeSQL(ctx, cat, snap, opts.Logger)
	if err != nil {
		return nil, err
	}
	opts.FreeSQL = free
	e, err := engine.Open(ctx, d, openDuckDB, &opts)
	if err != nil {
		closeFree()
		return nil, err
	}
	e.OnClose(closeFree)
	return e, nil
}

// evalFreeSQL runs eval --free-sql: the catalog's free SQL suite (the
// embedded one of retail or warehouse) with free SQL off (the governed
// menu alone, the configured provider) and on (the scripted instrument
// proposing the suite's statements, the configured provider for every
// other question), and the governed gold set on the engine with free SQL
// on; the report gives the governed and ungoverned accuracies apart.
func (f *engineFlags) evalFreeSQL(ctx context.Context, goldPath string, opts engine.Options) (eval.FreeSQLReport, error) {
	name := f.catalog
	if name == "" {
		name = storefile.Catalog
	}
	suite, err := eval.LoadFreeSQLSuite(name)
	if err != nil {
		return eval.FreeSQLReport{}, usagef("--free-sql: the free SQL suites are for the embedded catalogs (retail, warehouse)")
	}
	offFlags, onFlags := *f, *f
	offFlags.freeSQL, offFlags.cat = false, nil
	onFlags.freeSQL, onFlags.cat = true, nil
	onOpts := opts
	onOpts.Provider = scripted.New(scripted.Script{SQL: suite.Script()}, opts.Provider)

	off, err := offFlags.openEngine(ctx, opts)
	if err != nil {
		return eval.FreeSQLReport{}, err
	}
	defer off.Close()
	var (
		on       *engine.Engine
		governed eval.Report
	)
	if f.storeFile() {
		gold, err := loadGold(ctx, goldPath)
		if err != nil {
			return eval.FreeSQLReport{}, err
		}
		if on, err = onFlags.openEngine(ctx, onOpts); err != nil {
			return eval.FreeSQLReport{}, err
		}
		defer on.Close()
		for _, v := range []string{gold.DatasetVersion, suite.DatasetVersion} {
			if v != on.DatasetVersion {
				return eval.FreeSQLReport{}, fmt.Errorf("run eval: a suite is for dataset %s, the store is %s", v, on.DatasetVersion)
			}
		}
		if governed, err = eval.Run(ctx, on.Pipeline, gold, on); err != nil {
			return eval.FreeSQLReport{}, err
		}
	} else {
		cat, err := onFlags.loadedCatalog(ctx)
		if err != nil {
			return eval.FreeSQLReport{}, err
		}
		var gold *eval.GoldSet
		if goldPath == "" {
			gold, err = eval.CatalogGold(name)
		} else {
			gold, err = readGold(ctx, goldPath, func(g *eval.GoldSet) error { return g.ValidateCatalog(cat) })
		}
		if err != nil {
			return eval.FreeSQLReport{}, err
		}
		var (
			src     shape.Source
			version string
		)
		if on, src, version, err = onFlags.openCatalogOn(ctx, cat, onOpts); err != nil {
			return eval.FreeSQLReport{}, err
		}
		defer on.Close()
		if version != "" && (gold.DatasetVersion != version || suite.DatasetVersion != version) {
			return eval.FreeSQLReport{}, fmt.Errorf("run eval: a suite is not for the demo database's dataset %s", version)
		}
		t, err := eval.CatalogTarget(ctx, cat, src)
		if err != nil {
			return eval.FreeSQLReport{}, err
		}
		if governed, err = eval.RunTarget(ctx, on.Pipeline, gold, t); err != nil {
			return eval.FreeSQLReport{}, err
		}
	}
	return eval.RunFreeSQL(ctx, off.Pipeline, on.Pipeline, suite, governed)
}
