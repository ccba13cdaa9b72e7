package postgres_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// snapshotOpts is the engine's snapshot: what a point pool's
// connections give every batch.
var snapshotOpts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}

// TestPointPool_OneSnapshot: a point call's batch on the point pool, sent
// without BEGIN and COMMIT, is one read-only REPEATABLE READ transaction:
// a row another connection commits between the batch's first and last
// statements is not seen by the last, and the transaction cannot write.
// The same batch on a pool without the point pool's settings (an
// ordinary READ COMMITTED connection) sees the row, so the test can tell
// the two apart. The order is made by an advisory lock, not by sleeping:
// the batch's second statement waits for the lock the test holds, the
// test inserts once it sees the batch waiting, then lets it go.
func TestPointPool_OneSnapshot(t *testing.T) {
	dsn := pgtest.Schema(t)
	db, err := postgres.OpenPool(t.Context(), dsn, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (x INT)`); err != nil {
		t.Fatal(err)
	}
	pools := openPools(t, dsn)
	plain, err := postgres.OpenPool(t.Context(), dsn, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	tests := []struct {
		name     string
		pools    *postgres.SnapshotPools
		generic  bool // a point call's batch
		wantSame bool
		wantIso  string
		wantRO   string
	}{
		{"a point call's batch", pools, true, true, "repeatable read", "on"},
		{"another batch", pools, false, true, "repeatable read", "on"},
		{"connections without the settings", &postgres.SnapshotPools{Points: plain, Others: plain}, true, false, "read committed", "off"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lock := int64(7300 + i)
			holder, err := db.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			if _, err := holder.ExecContext(t.Context(), `SELECT pg_advisory_lock($1)`, lock); err != nil {
				t.Fatal(err)
			}
			pl := postgres.NewPipeliner(db, &postgres.PipelinerOptions{Pools: tt.pools})
			type result struct {
				sets []shape.Rowset
				err  error
			}
			done := make(chan result, 1)
			go func() {
				sets, err := pl.Pipeline(t.Context(), snapshotOpts, []shape.Stmt{
					{SQL: `SELECT COUNT(*) FROM t`, Generic: tt.generic},
					{SQL: `SELECT pg_advisory_xact_lock($1)::text`, Args: []any{lock}, Generic: tt.generic},
					{SQL: `SELECT COUNT(*), current_setting('transaction_isolation'), current_setting('transaction_read_only') FROM t`, Generic: tt.generic},
				})
				done <- result{sets, err}
			}()
			// Wait until the batch waits for the lock: its first statement
			// has run and taken its snapshot.
			for {
				var waiting bool
				q := `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1)`
				if err := db.QueryRowContext(t.Context(), q, lock).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting {
					break
				}
				select {
				case r := <-done:
					t.Fatalf("the batch ended before waiting for the lock: %v", r.err)
				default:
				}
			}
			if _, err := db.ExecContext(t.Context(), `INSERT INTO t VALUES (1)`); err != nil {
				t.Fatal(err)
			}
			if _, err := holder.ExecContext(t.Context(), `SELECT pg_advisory_unlock($1)`, lock); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			var before, after int64
			var iso, ro string
			if err := r.sets[0].Scan(0, &before); err != nil {
				t.Fatal(err)
			}
			if err := r.sets[2].Scan(0, &after, &iso, &ro); err != nil {
				t.Fatal(err)
			}
			if got := before == after; got != tt.wantSame {
				t.Errorf("count %d before the insert, %d after: same snapshot = %v, want %v", before, after, got, tt.wantSame)
			}
			if iso != tt.wantIso || ro != tt.wantRO {
				t.Errorf("transaction isolation %q, read only %q; want %q, %q", iso, ro, tt.wantIso, tt.wantRO)
			}
		})
	}
	t.Run("cannot write", func(t *testing.T) {
		pl := postgres.NewPipeliner(db, &postgres.PipelinerOptions{Pools: pools})
		for _, generic := range []bool{true, false} {
			_, err := pl.Pipeline(t.Context(), snapshotOpts, []shape.Stmt{{SQL: `INSERT INTO t VALUES (2) RETURNING x`, Generic: generic}})
			if err == nil {
				t.Fatalf("a write succeeded (point batch: %v)", generic)
			}
		}
	})
}

// TestPointPool_FailedStatement: a statement that fails in a point batch
// ends its implicit transaction (rolled back at the Sync), and the
// connection serves the next batch.
func TestPointPool_FailedStatement(t *testing.T) {
	dsn := pgtest.Schema(t)
	db, err := postgres.OpenPool(t.Context(), dsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pl := postgres.NewPipeliner(db, &postgres.PipelinerOptions{Pools: openPools(t, dsn)})
	bad := []shape.Stmt{{SQL: `SELECT 1`, Generic: true}, {SQL: `SELECT 1 / (SELECT 0)`, Generic: true}, {SQL: `SELECT 2`, Generic: true}}
	if _, err := pl.Pipeline(t.Context(), snapshotOpts, bad); err == nil {
		t.Fatal("a division by zero succeeded")
	}
	sets, err := pl.Pipeline(t.Context(), snapshotOpts, []shape.Stmt{{SQL: `SELECT 3`, Generic: true}})
	if err != nil {
		t.Fatalf("the next batch: %v", err)
	}
	var n int64
	if err := sets[0].Scan(0, &n); err != nil || n != 3 {
		t.Fatalf("the next batch read %d, %v", n, err)
	}
}

// TestPointPool_UnknownSetting: a database that refuses the snapshot
// settings at connection, or whose transactions do not show them, gets
// no pools and no error, so that the Pipeliner keeps a transaction per
// batch; one that refuses only plan_cache_mode gets no point pool.
func TestPointPool_UnknownSetting(t *testing.T) {
	dsn := pgtest.Schema(t)
	refused := map[string]string{"provenant_no_such_setting": "on"}
	pools, err := postgres.OpenSnapshotPoolsWith(t.Context(), dsn, 1, refused, nil)
	if pools != nil || err != nil {
		t.Fatalf("OpenSnapshotPools on a refused setting = %v, %v; want nil, nil", pools, err)
	}
	pools, err = postgres.OpenSnapshotPoolsWith(t.Context(), dsn, 1, nil, refused)
	if err != nil || pools == nil || pools.Points != nil || pools.Others == nil {
		t.Fatalf("OpenSnapshotPools on a refused point setting = %+v, %v; want Others only", pools, err)
	}
	pools.Close()
	// Settings accepted but not in effect (a pooler that drops them):
	// played by connections given none.
	pools, err = postgres.OpenSnapshotPoolsWith(t.Context(), dsn, 1, map[string]string{"application_name": "provenant-test"}, nil)
	if pools != nil || err != nil {
		t.Fatalf("OpenSnapshotPools whose settings are not in effect = %+v, %v; want nil, nil", pools, err)
	}
	if _, err := postgres.OpenSnapshotPoolsWith(t.Context(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=1", 1, nil, nil); err == nil {
		t.Fatal("OpenSnapshotPools on a server that is not there succeeded")
	}
}

// openPools opens SnapshotPools of one connection each on dsn, closed
// when the test ends.
func openPools(t *testing.T, dsn string) *postgres.SnapshotPools {
	t.Helper()
	pools, err := postgres.OpenSnapshotPools(t.Context(), dsn, 1)
	if err != nil || pools == nil || pools.Points == nil {
		t.Fatalf("OpenSnapshotPools: %+v, %v", pools, err)
	}
	t.Cleanup(func() { pools.Close() })
	return pools
}

// TestPointPool_Calls: point calls answered through the point pool, and
// windows through the other, are the calls answered in a transaction
// each, value and keys, with a verdict that holds, and the point calls'
// statements keep their generic plans from the first execution (the
// pool's plan_cache_mode).
func TestPointPool_Calls(t *testing.T) {
	db, dsn := demoDBAt(t, &counter{}, 2_000)
	cat := ingesttest.WarehouseCatalog(t)
	pools := openPools(t, dsn)
	open := func(o *postgres.PipelinerOptions) *shape.Engine {
		eng, err := shape.New(t.Context(), cat, shape.Source{DB: db, Snapshot: snapshotOpts, Pipeline: postgres.NewPipeliner(db, o)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eng.Close() })
		return eng
	}
	withPool, without := open(&postgres.PipelinerOptions{Pools: pools}), open(nil)
	const calls = 8
	for i := range calls {
		for _, tool := range []string{"get_temperature", "get_device_status", "get_battery_level"} {
			c := shape.Call{Tool: tool, Args: map[string]string{"device_id": fmt.Sprintf("dev-%04d", i+1), "as_of": asOf}, Scope: shape.All()}
			got, v := shapetest.Answer(t, withPool, c)
			if !v.OK() {
				t.Fatalf("%s: verdict %+v", tool, v)
			}
			want, _ := shapetest.Answer(t, without, c)
			if fmt.Sprint(got.Value, got.Keys) != fmt.Sprint(want.Value, want.Keys) {
				t.Errorf("%s dev-%04d: %v %v through the point pool, %v %v without", tool, i+1, got.Value, got.Keys, want.Value, want.Keys)
			}
		}
	}
	for _, w := range [][2]string{{"2026-01-06T08:00:00Z", "2026-01-06T10:00:00Z"}, {"2026-01-05T00:00:00Z", "2026-01-08T00:00:00Z"}} {
		c := shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "start": w[0], "end": w[1]}, Scope: shape.All()}
		got, v := shapetest.Answer(t, withPool, c)
		if !v.OK() {
			t.Fatalf("window %v: verdict %+v", w, v)
		}
		want, _ := shapetest.Answer(t, without, c)
		if fmt.Sprint(got.Value, got.Keys, got.Rows, got.Digest) != fmt.Sprint(want.Value, want.Keys, want.Rows, want.Digest) {
			t.Errorf("window %v: %v %d rows through the pools, %v %d without", w, got.Value, got.Rows, want.Value, want.Rows)
		}
	}
	var windows int64
	if err := pools.Others.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE '%"status_events" x WHERE x."zone_id"%'`).Scan(&windows); err != nil {
		t.Fatal(err)
	}
	if windows == 0 {
		t.Error("no window statement ran on the other pool")
	}
	var custom, generic int64
	q := `SELECT COALESCE(SUM(custom_plans), 0), COALESCE(SUM(generic_plans), 0) FROM pg_prepared_statements WHERE statement LIKE '%"temperature_c" AS%'`
	if err := pools.Points.QueryRowContext(t.Context(), q).Scan(&custom, &generic); err != nil {
		t.Fatal(err)
	}
	// The first call reads the checkpoint index in a transaction of its
	// own; each later one runs its executor's and resolver's statements.
	if custom+generic < 2*(calls-1) {
		t.Fatalf("%d executions of the point statements on the point pool, want at least %d (the calls did not run on it)", custom+generic, 2*(calls-1))
	}
	if custom != 0 {
		t.Errorf("%d custom plans, %d generic on the point pool; want no custom plan", custom, generic)
	}
}

// TestSnapshotPools_Size: each pool holds as many connections as the
// in-flight bound lets pipelines into the database, and half of Open's
// pool when there is no bound.
func TestSnapshotPools_Size(t *testing.T) {
	dsn := pgtest.Schema(t)
	tests := []struct {
		name     string
		inFlight int
		want     int
	}{
		{"default", 0, postgres.DefaultMaxInFlight()},
		{"a bound", 3, 3},
		{"no bound", -1, postgres.MaxConns / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pools, err := postgres.OpenSnapshotPools(t.Context(), dsn, tt.inFlight)
			if err != nil || pools == nil {
				t.Fatalf("OpenSnapshotPools: %+v, %v", pools, err)
			}
			defer pools.Close()
			for name, db := range map[string]*sql.DB{"points": pools.Points, "others": pools.Others} {
				if got := db.Stats().MaxOpenConnections; got != tt.want {
					t.Errorf("%s: at most %d connections, want %d", name, got, tt.want)
				}
			}
		})
	}
}
