package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/sandbox"
)

// workerEnv makes this test binary, re-executed, the sandbox worker: the
// same path cmd/provenant takes with its hidden sql-worker subcommand.
const workerEnv = "PROVENANT_SANDBOX_TEST_WORKER=1"

func TestMain(m *testing.M) {
	if os.Getenv("PROVENANT_SANDBOX_TEST_WORKER") == "1" {
		if err := ServeWorker(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// allowed is the fixture's allowlist: the retail tables. The fixture also
// holds tables outside it (secret, other.events).
var allowed = []string{"events", "stores", "products"}

var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixturePath string
	fixtureErr  error
	snapOnce    sync.Once
	snap        *Snapshot
	snapErr     error
)

// fixtureSQL builds a retail-shaped database: 20,000 events over 10
// stores and 50 products, and tables no allowlist names.
var fixtureSQL = []string{
	`CREATE TABLE events AS SELECT 'ev-' || lpad(i::VARCHAR, 6, '0') AS event_id,
	   TIMESTAMP '2026-01-01 00:00:00' + to_minutes(i) AS "timestamp",
	   'st-' || lpad((i % 10)::VARCHAR, 3, '0') AS store_id,
	   'pr-' || lpad((i % 50)::VARCHAR, 3, '0') AS product_id,
	   ['IN_STOCK', 'LOW_STOCK', 'OUT_OF_STOCK', 'OVERSTOCK'][i % 4 + 1] AS state,
	   100 + (i * 7) % 900 AS price_cents,
	   ['COMPLIANT', 'PRICE_MISMATCH', 'EXPIRED_PRODUCT', 'PLANOGRAM_VIOLATION'][i % 3 + 1] AS compliance_flag
	 FROM range(20000) t(i)`,
	`CREATE TABLE stores AS SELECT 'st-' || lpad(i::VARCHAR, 3, '0') AS store_id, 'Store ' || i AS name FROM range(10) t(i)`,
	`CREATE TABLE products AS SELECT 'pr-' || lpad(i::VARCHAR, 3, '0') AS product_id, 'Product ' || i AS name FROM range(50) t(i)`,
	`CREATE TABLE secret AS SELECT 'hunter2' AS password`,
	`CREATE TABLE _provenant_checkpoints AS SELECT 1 AS x`,
	`CREATE SCHEMA other`,
	`CREATE TABLE other.events AS SELECT 'hidden' AS x`,
	`CREATE SEQUENCE q`,
}

// fixture returns the path of the fixture database, built once per test
// binary.
func fixture(t testing.TB) string {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "provenant-sandbox-test-")
		if fixtureErr != nil {
			return
		}
		fixturePath = filepath.Join(fixtureDir, "fixture.duckdb")
		var c *duckdb.Connector
		if c, fixtureErr = duckdb.NewConnector(fixturePath, nil); fixtureErr != nil {
			return
		}
		db := sql.OpenDB(c)
		defer db.Close()
		for _, q := range fixtureSQL {
			if _, fixtureErr = db.Exec(q); fixtureErr != nil {
				return
			}
		}
	})
	if fixtureErr != nil {
		t.Fatalf("build fixture: %v", fixtureErr)
	}
	return fixturePath
}

// snapshotOf returns the snapshot of the fixture's allowlisted tables,
// built once per test binary.
func snapshotOf(t testing.TB) *Snapshot {
	t.Helper()
	path := fixture(t)
	snapOnce.Do(func() { snap, snapErr = SnapshotFile(context.Background(), path, allowed) })
	if snapErr != nil {
		t.Fatalf("snapshot fixture: %v", snapErr)
	}
	return snap
}

// newRunner returns a runner over the fixture's snapshot whose worker is
// this test binary.
func newRunner(t testing.TB, limits sandbox.Limits) *Runner {
	t.Helper()
	return newWarmRunner(t, limits, 0)
}

// newWarmRunner is newRunner keeping warm workers ready.
func newWarmRunner(t testing.TB, limits sandbox.Limits, warm int) *Runner {
	t.Helper()
	r, err := NewRunner(context.Background(), snapshotOf(t), []string{os.Args[0]}, &Options{
		Env:    []string{workerEnv},
		Limits: limits,
		Warm:   warm,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
