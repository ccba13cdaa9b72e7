package enginetest

import (
	"context"
	"sync"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/retail/demo"
	sandboxdb "github.com/provenant/provenant/sandbox/duckdb"
)

var (
	demoSnapOnce sync.Once
	demoSnap     *sandboxdb.Snapshot
	demoSnapErr  error
)

// DemoSnapshot is a sandbox snapshot of the demo store's allowlisted
// tables (events, products, stores), imported as engine.Open imports
// them, built once per test binary; CloseDemoSnapshot removes it (from
// TestMain, after the tests).
func DemoSnapshot(tb testing.TB) *sandboxdb.Snapshot {
	tb.Helper()
	demoSnapOnce.Do(func() {
		ctx := context.Background()
		d, err := demo.Load()
		if err != nil {
			demoSnapErr = err
			return
		}
		var mem *engine.Database
		open := func(ctx context.Context) (*engine.Database, error) {
			var err error
			mem, err = OpenDuckDB(ctx)
			return mem, err
		}
		e, err := engine.Open(ctx, d, open, nil)
		if err != nil {
			demoSnapErr = err
			return
		}
		defer e.Close()
		demoSnap, demoSnapErr = sandboxdb.SnapshotDB(ctx, mem.DB, []string{"events", "products", "stores"})
	})
	if demoSnapErr != nil {
		tb.Fatalf("snapshot the demo: %v", demoSnapErr)
	}
	return demoSnap
}

// CloseDemoSnapshot removes the snapshot DemoSnapshot built, if any.
func CloseDemoSnapshot() {
	if demoSnap != nil {
		demoSnap.Close()
	}
}

// DemoFreeSQL starts a sandbox runner over DemoSnapshot whose workers are
// command run with env (a test binary that serves sandboxdb.ServeWorker
// when env is set, as cmd/provenant's sql-worker does), two kept warm,
// and returns the free SQL configuration of an engine over the demo; the
// runner closes when tb ends.
func DemoFreeSQL(tb testing.TB, command, env []string, opts *sandboxdb.Options) *pipeline.FreeSQL {
	tb.Helper()
	snap := DemoSnapshot(tb)
	var o sandboxdb.Options
	if opts != nil {
		o = *opts
	}
	o.Env, o.Warm = env, 2
	r, err := sandboxdb.NewRunner(tb.Context(), snap, command, &o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return &pipeline.FreeSQL{Runner: r, Tables: snap.Tables}
}
