package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/sandbox/allowlist"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
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
	cat, err := loadCatalog("retail")
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
