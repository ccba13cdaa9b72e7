package postgres_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestOpenGrowingPool_PlansGrowth: the event log's check before an append,
// first run on a table of one page, then run again after the table has
// grown without an ANALYZE (a server with autovacuum off), scans the whole
// table each time on OpenPool's connection, whose generic plan was made
// for the small table, and not on OpenGrowingPool's.
func TestOpenGrowingPool_PlansGrowth(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	ctx := t.Context()
	seqScans := func(t *testing.T, open func(context.Context, string, int) (*sql.DB, error), table string) int64 {
		db, err := open(ctx, dsn, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// One connection: the statement is prepared once and kept.
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+table+" (pos BIGINT PRIMARY KEY, id TEXT NOT NULL UNIQUE, run TEXT NOT NULL, producer TEXT NOT NULL, seq BIGINT NOT NULL, ltime BIGINT NOT NULL, line TEXT NOT NULL, UNIQUE (run, producer, seq))"); err != nil {
			t.Fatal(err)
		}
		last := func() {
			// The event log's check before an append (internal/sqlstore):
			// a producer's last event and whether the ids are taken.
			rows, err := db.QueryContext(ctx, "(SELECT 0 AS k, seq, ltime FROM "+table+" WHERE run = $1 AND producer = $2 ORDER BY seq DESC LIMIT 1) UNION ALL "+
				"(SELECT -1 AS k, count(*), 0 FROM "+table+" WHERE id IN ($3, $4, $5, $6))", "run-1", "pipeline", "e-1", "e-2", "e-3", "e-4")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
			}
			rows.Close()
		}
		grow := func(from, to int) {
			if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" SELECT i, 'e-' || i, 'run-1', 'pipeline', i, i, repeat('x', 300) FROM generate_series($1::int, $2::int) i", from, to); err != nil {
				t.Fatal(err)
			}
		}
		grow(1, 4)    // a log's first events: one page
		for range 8 { // past PostgreSQL's five custom plans
			last()
		}
		grow(5, 50000)
		var before int64
		read := func() int64 {
			var n int64
			if _, err := db.ExecContext(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRowContext(ctx, "SELECT seq_scan FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2", schema, table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before = read()
		for range 5 {
			last()
		}
		return read() - before
	}
	if n := seqScans(t, postgres.OpenPool, "kept_plan"); n == 0 {
		t.Skip("this server re-planned the statement on its own: the hazard the growing pool avoids does not arise here")
	}
	if n := seqScans(t, postgres.OpenGrowingPool, "custom_plan"); n != 0 {
		t.Errorf("OpenGrowingPool: %d sequential scans of a grown table by a statement prepared when it was empty, want 0", n)
	}
}
