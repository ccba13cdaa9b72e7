package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestPipeline_ServerEndedConnections: after the server ended every
// connection of the pools (pg_terminate_backend, as a restart or a
// failover does), the next batch runs on a new connection, on the
// ordinary pool and on the snapshot pools. A connection used within the
// last second goes back to database/sql's pool unchecked (pgx pings only
// one idle for longer), and the batch sent on it failed with the
// server's FATAL: one failed call per pooled connection, each a 500.
func TestPipeline_ServerEndedConnections(t *testing.T) {
	for _, withPools := range []bool{false, true} {
		name := "pool"
		if withPools {
			name = "snapshot pools"
		}
		t.Run(name, func(t *testing.T) {
			app := pgtest.AppName()
			dsn := pgtest.WithApplicationName(pgtest.Schema(t), app)
			db, err := postgres.OpenPool(t.Context(), dsn, 4)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var o *postgres.PipelinerOptions
			if withPools {
				pools, err := postgres.OpenSnapshotPools(t.Context(), dsn, 4)
				if err != nil || pools == nil {
					t.Fatalf("open snapshot pools: %v", err)
				}
				defer pools.Close()
				o = &postgres.PipelinerOptions{Pools: pools}
			}
			p := postgres.NewPipeliner(db, o)
			queries := []shape.Stmt{{SQL: "SELECT 1"}, {SQL: "SELECT 2"}}
			for round := range 3 {
				if _, err := p.Pipeline(t.Context(), snapshotOpts, queries); err != nil {
					t.Fatalf("round %d, before the server ended the connections: %v", round, err)
				}
				if n := pgtest.Terminate(t, app); n == 0 {
					t.Fatalf("round %d: no connection to end", round)
				}
				if _, err := p.Pipeline(t.Context(), snapshotOpts, queries); err != nil {
					t.Errorf("round %d, the batch after the server ended the connections: %v", round, err)
				}
			}
		})
	}
}

// TestPool_ServerEndedConnections: a connection the server ended (a
// restart, a failover, pg_terminate_backend) is not reused: a statement
// sent right after, on a pool whose connections were all used within the
// last second, runs on a new connection. pgx pings a pooled connection
// only when it has been idle for more than a second, so every store's
// first statement on each such connection (a memory journal's recall, an
// audit read, a snapshot's BEGIN) failed with the server's FATAL.
func TestPool_ServerEndedConnections(t *testing.T) {
	app := pgtest.AppName()
	dsn := pgtest.WithApplicationName(pgtest.Schema(t), app)
	for _, growing := range []bool{false, true} {
		open := postgres.OpenPool
		if growing {
			open = postgres.OpenGrowingPool
		}
		db, err := open(t.Context(), dsn, 4)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for round := range 3 {
			var n int
			if err := db.QueryRowContext(t.Context(), "SELECT 1").Scan(&n); err != nil {
				t.Fatalf("round %d, before the server ended the connections: %v", round, err)
			}
			if n := pgtest.Terminate(t, app); n == 0 {
				t.Fatalf("round %d: no connection to end", round)
			}
			if err := db.QueryRowContext(t.Context(), "SELECT 1").Scan(&n); err != nil {
				t.Errorf("growing %t, round %d, the statement after the server ended the connections: %v", growing, round, err)
			}
			tx, err := db.BeginTx(t.Context(), nil)
			if err == nil {
				err = tx.Rollback()
			}
			if err != nil {
				t.Errorf("growing %t, round %d, a transaction after the server ended the connections: %v", growing, round, err)
			}
		}
	}
}
