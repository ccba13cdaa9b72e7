package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/autonomy/autonomytest"
	"github.com/provenant/provenant/autonomy/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// oldOpen is what a provenant from before the clock's sequence (commit
// b96a311's sqlstore.NewGrantStore) runs when it opens a schema: the
// clock a one-row table.
func oldOpen(schema string) []string {
	return []string{
		"CREATE SCHEMA IF NOT EXISTS " + schema,
		"CREATE TABLE IF NOT EXISTS " + schema + ".autonomy_clock (id INTEGER PRIMARY KEY CHECK (id = 1), now BIGINT NOT NULL)",
		"INSERT INTO " + schema + ".autonomy_clock (id, now) VALUES (1, 0) ON CONFLICT DO NOTHING",
		"CREATE TABLE IF NOT EXISTS " + schema + ".autonomy_sessions (session TEXT PRIMARY KEY, now BIGINT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS " + schema + `.autonomy_grants (
			session TEXT NOT NULL,
			grant_id TEXT NOT NULL,
			seq BIGINT NOT NULL,
			tools TEXT NOT NULL,
			tier INTEGER NOT NULL,
			approver TEXT NOT NULL,
			granted BIGINT NOT NULL,
			questions BIGINT NOT NULL,
			max_questions BIGINT NOT NULL,
			max_age BIGINT NOT NULL,
			PRIMARY KEY (session, grant_id),
			UNIQUE (session, seq))`,
	}
}

// oldTicks are the earlier version's ticks: Tick, and TickUpdate's
// (the session's time raised to the tick).
func oldTicks(schema string) []string {
	clock, sessions := schema+".autonomy_clock", schema+".autonomy_sessions"
	return []string{
		"UPDATE " + clock + " SET now = now + 1 WHERE id = 1 RETURNING now",
		"WITH c AS (UPDATE " + clock + " SET now = now + 1 WHERE id = 1 RETURNING now) UPDATE " + sessions +
			" AS s SET now = GREATEST(s.now, c.now) FROM c WHERE s.session = 's1' RETURNING c.now, s.now",
	}
}

func rawDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { db.Close() })
	return db
}

// oldSchema lays out schema as the earlier version leaves it: the clock
// at now, session s1 at now with a live grant g1 (3 questions, 1,000
// units of age, 1 question counted).
func oldSchema(t *testing.T, db *sql.DB, schema string, now int64) {
	t.Helper()
	stmts := append(oldOpen(schema),
		fmt.Sprintf("UPDATE %s.autonomy_clock SET now = %d", schema, now),
		fmt.Sprintf("INSERT INTO %s.autonomy_sessions VALUES ('s1', %d)", schema, now),
		fmt.Sprintf("INSERT INTO %s.autonomy_grants VALUES ('s1', 'g1', 0, 'open_task', 3, 'alice', %d, 1, 3, 1000)", schema, now-1),
	)
	for _, q := range stmts {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("lay out the earlier schema: %v", err)
		}
	}
}

// relkind is autonomy_clock's kind in schema: "r" a table, "v" a view,
// "" none; and whether the clock's sequence exists.
func relkind(t *testing.T, db *sql.DB, schema string) (clock string, seq bool) {
	t.Helper()
	q := `SELECT c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`
	if err := db.QueryRowContext(t.Context(), q, schema, "autonomy_clock").Scan(&clock); err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	var s string
	if err := db.QueryRowContext(t.Context(), q, schema, "autonomy_clock_seq").Scan(&s); err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	return clock, s == "S"
}

func open(t *testing.T, dsn, schema string) *postgres.Store {
	t.Helper()
	l, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func clockOf(t *testing.T, l autonomy.Ledger) int64 {
	t.Helper()
	n, err := l.Now(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStore_FreshSchema: a new schema's clock is the sequence at 0
// (first tick 1), autonomy_clock a view of it that reads the last time.
func TestStore_FreshSchema(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	db := rawDB(t, dsn)
	l := open(t, dsn, schema)
	if kind, seq := relkind(t, db, schema); kind != "v" || !seq {
		t.Fatalf("autonomy_clock kind %q, sequence %v: want a view and the sequence", kind, seq)
	}
	if n := clockOf(t, l); n != 0 {
		t.Errorf("clock of a new schema: %d, want 0", n)
	}
	for want := int64(1); want <= 3; want++ {
		if n, err := l.Tick(t.Context()); err != nil || n != want {
			t.Fatalf("tick: %d, %v; want %d", n, err, want)
		}
	}
	var view int64
	if err := db.QueryRowContext(t.Context(), "SELECT now FROM "+schema+".autonomy_clock WHERE id = 1").Scan(&view); err != nil || view != 3 {
		t.Errorf("the view reads %d, %v; want 3", view, err)
	}
}

// TestStore_MigratesClock: a schema an earlier version left (the clock a
// row at 41, a session with a live grant) is moved at open to the
// sequence: the clock reads 41 and ticks on from it, the grant and its
// count are kept, and a second open (another process, a restart) finds
// it done and moves nothing.
func TestStore_MigratesClock(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	db := rawDB(t, dsn)
	oldSchema(t, db, schema, 41)
	l := open(t, dsn, schema)
	if kind, seq := relkind(t, db, schema); kind != "v" || !seq {
		t.Fatalf("after open, autonomy_clock kind %q, sequence %v: want a view and the sequence", kind, seq)
	}
	if n := clockOf(t, l); n != 41 {
		t.Fatalf("clock after migration: %d, want the row's 41", n)
	}
	s, err := autonomy.NewLedgerStore(l, autonomytest.Tools, &autonomy.GateOptions{Authority: autonomy.NewAuthority()},
		func(err error) { t.Errorf("ledger: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	// g1 had counted 1 of 3 questions: two more, then the third ends it.
	var expired []string
	for i, want := range []int64{42, 43, 44} {
		q, err := s.Begin(t.Context(), "s1")
		if err != nil || q.Now != want {
			t.Fatalf("question %d: at %d, %v; want %d", i+1, q.Now, err, want)
		}
		for _, e := range q.Expired {
			expired = append(expired, e.GrantID+":"+e.Reason)
		}
	}
	if !slices.Equal(expired, []string{"g1:questions"}) {
		t.Errorf("expiries: %v, want [g1:questions] at the third question", expired)
	}
	again := open(t, dsn, schema)
	if n := clockOf(t, again); n != 44 {
		t.Errorf("clock after a second open: %d, want 44", n)
	}
	if n, err := again.Tick(t.Context()); err != nil || n != 45 {
		t.Errorf("tick after a second open: %d, %v; want 45", n, err)
	}
}

// TestStore_MigrationIsOneTransaction: a migration that fails after
// dropping the clock's table (here: a table squats on the sequence's
// name, so setval fails) leaves the earlier layout whole: the table, its
// time, no view.
func TestStore_MigrationIsOneTransaction(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	db := rawDB(t, dsn)
	oldSchema(t, db, schema, 7)
	if _, err := db.ExecContext(t.Context(), "CREATE TABLE "+schema+".autonomy_clock_seq (x INT)"); err != nil {
		t.Fatal(err)
	}
	if l, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema}); err == nil {
		l.Close()
		t.Fatal("open over a squatted sequence name succeeded; want an error")
	}
	if kind, _ := relkind(t, db, schema); kind != "r" {
		t.Fatalf("after a failed migration, autonomy_clock kind %q: want the table, untouched", kind)
	}
	var now int64
	if err := db.QueryRowContext(t.Context(), "SELECT now FROM "+schema+".autonomy_clock WHERE id = 1").Scan(&now); err != nil || now != 7 {
		t.Errorf("clock row after a failed migration: %d, %v; want 7", now, err)
	}
}

// TestStore_ConcurrentOpeners: processes that open one schema at once,
// an earlier version's (the clock at 1000) or a new one, all succeed,
// migrate it once, and share one clock: it reads the row's time (or 0)
// in each, and their ticks are distinct and after it.
func TestStore_ConcurrentOpeners(t *testing.T) {
	const openers = 6
	for _, start := range []int64{1000, -1} {
		name := "earlier"
		if start < 0 {
			name = "new"
		}
		t.Run(name, func(t *testing.T) {
			dsn, schema := pgtest.SchemaNamed(t)
			db := rawDB(t, dsn)
			want := int64(0)
			if start >= 0 {
				oldSchema(t, db, schema, start)
				want = start
			}
			var (
				wg     sync.WaitGroup
				mu     sync.Mutex
				stores []*postgres.Store
				errs   []error
			)
			ready := make(chan struct{})
			for range openers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-ready
					l, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						errs = append(errs, err)
						return
					}
					stores = append(stores, l)
				}()
			}
			close(ready)
			wg.Wait()
			for _, l := range stores {
				t.Cleanup(func() { l.Close() })
			}
			if len(errs) != 0 {
				t.Fatalf("%d of %d concurrent opens failed: %v", len(errs), openers, errs)
			}
			for i, l := range stores {
				if n := clockOf(t, l); n != want {
					t.Errorf("opener %d reads the clock at %d, want %d", i, n, want)
				}
			}
			seen := map[int64]bool{}
			for i, l := range stores {
				n, err := l.Tick(t.Context())
				if err != nil || n <= want || seen[n] {
					t.Errorf("opener %d ticked %d, %v: want a time after %d given once", i, n, err, want)
				}
				seen[n] = true
			}
			if kind, seq := relkind(t, db, schema); kind != "v" || !seq {
				t.Errorf("autonomy_clock kind %q, sequence %v: want a view and the sequence", kind, seq)
			}
		})
	}
}

// TestStore_EarlierVersionFails: an earlier version does not run beside
// the sequence: opening the migrated schema fails (its clock row cannot
// be inserted into the view), and one that opened before the migration
// (its statements prepared) fails at its next tick, either kind, rather
// than ticking a clock of its own. Reading the clock through the view
// still works.
func TestStore_EarlierVersionFails(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	db := rawDB(t, dsn)
	oldSchema(t, db, schema, 5)
	// The earlier process: its own connection, its ticks prepared and run
	// once before the migration.
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range oldTicks(schema) {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatalf("the earlier version's tick before the migration: %v", err)
		}
	}
	l := open(t, dsn, schema)
	if n := clockOf(t, l); n != 7 {
		t.Fatalf("clock after migration: %d, want the row's 7", n)
	}
	for i, q := range oldTicks(schema) {
		if _, err := conn.Exec(t.Context(), q); err == nil {
			t.Errorf("the earlier process's tick %d after the migration succeeded; want an error", i)
		}
	}
	for i, q := range oldOpen(schema) {
		_, err := db.ExecContext(t.Context(), q)
		if (err == nil) != (i != 2) {
			t.Errorf("the earlier version's open, statement %d: %v; want an error only from the clock row's insert", i, err)
		}
	}
	if n := clockOf(t, l); n != 7 {
		t.Errorf("clock after the earlier version's attempts: %d, want 7", n)
	}
	var view int64
	if err := conn.QueryRow(t.Context(), "SELECT now FROM "+schema+".autonomy_clock WHERE id = 1").Scan(&view); err != nil || view != 7 {
		t.Errorf("reading the clock through the view: %d, %v; want 7", view, err)
	}
}
