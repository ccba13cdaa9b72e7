package postgres_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestDigestSQL: the digest PostgreSQL computes is shape.Digest, byte for
// byte, on keys Go and a locale-aware collation order differently
// (non-ASCII text, case, punctuation, a control character below the
// newline, a key that is a prefix of another), whatever the column's
// collation (here ICU's, which orders them otherwise).
func TestDigestSQL(t *testing.T) {
	db := pgtest.Open(t)
	p := postgres.NewPipeliner(db, nil)
	tests := []struct {
		name string
		keys []string
	}{
		{"one", []string{"evt-1"}},
		{"ascii", []string{"evt-10", "evt-9", "EVT-2", "evt_1", "evt-1"}},
		{"non-ASCII", []string{"ünter", "unter", "Zoë", "zoe", "日本-1", "ß", "ss", "é", "e\u0301"}},
		{"prefix and control", []string{"a", "a\tb", "ab", "a b", "a\u007f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			// The keys in an order of their own, so that the SQL's ORDER BY
			// is what sorts them.
			arr := slices.Clone(tt.keys)
			slices.Reverse(arr)
			q := "SELECT " + p.DigestSQL("k") + ` FROM (SELECT t COLLATE "und-x-icu" AS k FROM unnest($1::text[]) AS u(t)) x`
			if err := db.QueryRowContext(t.Context(), q, arr).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if want := shape.Digest(tt.keys); got != want {
				t.Errorf("digest in SQL = %s, shape.Digest = %s", got, want)
			}
			var first sql.NullString
			if err := db.QueryRowContext(t.Context(), "SELECT k FROM (SELECT t COLLATE \"und-x-icu\" AS k FROM unnest($1::text[]) AS u(t)) x ORDER BY "+p.KeyOrder("k")+" LIMIT 1", arr).Scan(&first); err != nil {
				t.Fatal(err)
			}
			if want := slices.Min(tt.keys); first.String != want {
				t.Errorf("first key in SQL = %q, Go's = %q", first.String, want)
			}
		})
	}
}

// counter counts the statements a database's connections send, outside
// batches and in them.
type counter struct{ queries, batches atomic.Int64 }

func (c *counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.queries.Add(1)
	return ctx
}
func (c *counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.batches.Add(1)
	return ctx
}
func (c *counter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestPipeline_OneRoundTrip: with a Pipeliner, a call of every tool
// shape, executed and re-derived on one snapshot, sends one batch and no
// other statement (once the checkpoint index is kept), and its answer is
// the one the engine gives without (the window's count and digest read in
// SQL equal to Go's, past the provenance limit), judged correct.
func TestPipeline_OneRoundTrip(t *testing.T) {
	cnt := &counter{}
	db := demoDB(t, cnt, 20_000)
	cat := ingesttest.WarehouseCatalog(t)
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	for _, variant := range []struct {
		name string
		p    shape.Pipeliner
	}{
		{"digest in SQL", postgres.NewPipeliner(db, nil)},
		{"keys shipped", postgres.NewPipeliner(db, nil).WithoutSQLDigest()},
	} {
		t.Run(variant.name, func(t *testing.T) { testOneRoundTrip(t, cnt, db, cat, opts, variant.p) })
	}
}

func testOneRoundTrip(t *testing.T, cnt *counter, db *sql.DB, cat *catalog.Catalog, opts *sql.TxOptions, p shape.Pipeliner) {
	piped, err := shape.New(t.Context(), cat, shape.Source{DB: db, Snapshot: opts, Pipeline: p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { piped.Close() })
	plain, err := shape.New(t.Context(), cat, shape.Source{DB: db, Snapshot: opts}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	tests := pipelineCalls
	// The first calls read the checkpoint index, once.
	for _, tt := range tests {
		shapetest.Answer(t, piped, tt.call)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, _ := shapetest.Answer(t, plain, tt.call)
			q0, b0 := cnt.queries.Load(), cnt.batches.Load()
			got, v := shapetest.Answer(t, piped, tt.call)
			if q, b := cnt.queries.Load()-q0, cnt.batches.Load()-b0; q != 0 || b != 1 {
				t.Errorf("a call sent %d statements and %d batches, want 0 and 1", q, b)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("pipelined answer = %+v, without a pipeline %+v", got, want)
			}
			if got.Rows < tt.minRows {
				t.Errorf("rows = %d, want at least %d (the call does not test what it names)", got.Rows, tt.minRows)
			}
			if !v.OK() {
				t.Errorf("verdict = %+v, want every clause to hold", v)
			}
		})
	}
}

const asOf = "2026-01-09T12:00:00Z"

// pipelineCalls are a call of every tool shape on the warehouse demo
// (ingesttest.DemoCSV), with the fewest provenance rows each must have.
var pipelineCalls = []struct {
	name    string
	call    shape.Call
	minRows int
}{
	{"latest_value", shape.Call{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0001", "as_of": asOf}, Scope: shape.All()}, 1},
	{"latest_value absent", shape.Call{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0001", "as_of": "2025-01-01T00:00:00Z"}, Scope: shape.All()}, 0},
	{"count_entities_where", shape.Call{Tool: "count_devices_with_condition", Args: map[string]string{"condition": "NEEDS_ATTENTION", "as_of": asOf}, Scope: shape.All()}, 1},
	{"list_entities_in_state", shape.Call{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "as_of": asOf}, Scope: shape.All()}, 1},
	{"list_entities_in_state scoped out", shape.Call{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "as_of": asOf}, Scope: shape.Only("zone-02")}, 0},
	{"count_rows_in_window", shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "start": "2026-01-05T00:00:00Z", "end": "2026-01-12T00:00:00Z"}, Scope: shape.All()}, shape.DefaultMaxKeys + 1},
	{"count_rows_in_window small", shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "start": "2026-01-06T08:00:00Z", "end": "2026-01-06T10:00:00Z"}, Scope: shape.All()}, 1},
}

// demoDB is a fresh schema holding n warehouse demo events, imported and
// derived, on connections traced by cnt.
func demoDB(tb testing.TB, cnt *counter, n int) *sql.DB {
	tb.Helper()
	db, _ := demoDBAt(tb, cnt, n)
	return db
}

// demoDBAt is demoDB that also returns the DSN of its schema.
func demoDBAt(tb testing.TB, cnt *counter, n int) (*sql.DB, string) {
	tb.Helper()
	dsn := pgtest.Schema(tb)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Tracer = cnt
	db := stdlib.OpenDB(*cfg)
	tb.Cleanup(func() { db.Close() })
	l := ingesttest.WarehouseLayout(tb)
	sink := postgres.NewSink(db, shape.ImportOptions(nil))
	if _, err := ingest.Import(tb.Context(), sink, l, ingest.NewCSV("events.csv", l, bytes.NewReader(ingesttest.DemoCSV(tb, n)))); err != nil {
		tb.Fatal(err)
	}
	return db, dsn
}

// BenchmarkCall: one call of each tool shape, executed and re-derived on
// one snapshot (Begin, Execute, Resolve, Close), one client, over 100,000
// warehouse demo events (40 devices, 6 zones, 7 days), with the
// Pipeliner (pipeline=true: one round trip, a window's count and digest
// in SQL), with it but without the digest in SQL (pipeline=nodigest) and
// without (pipeline=false: each statement its own round trip, every key
// of a window shipped twice). Compare with benchstat -col /pipeline.
func BenchmarkCall(b *testing.B) {
	db := demoDB(b, &counter{}, 100_000)
	cat := ingesttest.WarehouseCatalog(b)
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	for _, tt := range pipelineCalls {
		if strings.Contains(tt.name, " ") && tt.name != "count_rows_in_window small" {
			continue
		}
		for _, piped := range []string{"false", "true", "nodigest"} {
			b.Run(fmt.Sprintf("shape=%s/pipeline=%v", strings.ReplaceAll(tt.name, " ", "_"), piped), func(b *testing.B) {
				src := shape.Source{DB: db, Snapshot: opts}
				if piped == "true" {
					src.Pipeline = postgres.NewPipeliner(db, nil)
				}
				if piped == "nodigest" {
					src.Pipeline = postgres.NewPipeliner(db, nil).WithoutSQLDigest()
				}
				eng, err := shape.New(b.Context(), cat, src, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer eng.Close()
				cpu0 := cpuTime()
				for b.Loop() {
					snap, err := eng.Begin(b.Context())
					if err != nil {
						b.Fatal(err)
					}
					r, err := snap.Execute(b.Context(), tt.call)
					if err != nil {
						b.Fatal(err)
					}
					if v, err := snap.Resolve(b.Context(), tt.call, r); err != nil || !v.OK() {
						b.Fatalf("verdict %+v, %v", v, err)
					}
					snap.Close()
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// TestPipeline_WindowDigests: with the window key digests served
// (shape.Options.WindowDigests), a window they do not serve (within the
// provenance limit) still costs one batch and no other statement once
// the engine keeps the digests' counts, and a large window summed from
// them (an lthash digest, outside the pipeline) has the count and first
// keys of the engine without them, judged correct.
func TestPipeline_WindowDigests(t *testing.T) {
	cnt := &counter{}
	cfg, err := pgx.ParseConfig(pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tracer = cnt
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { db.Close() })
	l := ingesttest.WarehouseLayout(t)
	sink := postgres.NewSink(db, shape.ImportOptions(&shape.DeriveOptions{WindowKeys: true}))
	if _, err := ingest.Import(t.Context(), sink, l, ingest.NewCSV("events.csv", l, bytes.NewReader(ingesttest.DemoCSV(t, 20_000)))); err != nil {
		t.Fatal(err)
	}
	cat := ingesttest.WarehouseCatalog(t)
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	open := func(o *shape.Options) *shape.Engine {
		e, err := shape.New(t.Context(), cat, shape.Source{DB: db, Snapshot: opts, Pipeline: postgres.NewPipeliner(db, nil).WithoutSQLDigest()}, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	summed, plain := open(&shape.Options{WindowDigests: true}), open(nil)
	large, small := pipelineCalls[5].call, pipelineCalls[6].call
	shapetest.Answer(t, summed, small) // reads the checkpoint index and the digests' counts
	q0, b0 := cnt.queries.Load(), cnt.batches.Load()
	got, v := shapetest.Answer(t, summed, small)
	if q, b := cnt.queries.Load()-q0, cnt.batches.Load()-b0; q != 0 || b != 1 || !v.OK() {
		t.Errorf("a small window sent %d statements and %d batches (want 0 and 1), verdict %+v", q, b, v)
	}
	if want, _ := shapetest.Answer(t, plain, small); !reflect.DeepEqual(got, want) {
		t.Errorf("small window with digests = %+v, without %+v", got, want)
	}
	got, v = shapetest.Answer(t, summed, large)
	want, _ := shapetest.Answer(t, plain, large)
	if !strings.HasPrefix(got.Digest, "lthash16x1024:") || got.Rows != want.Rows || !slices.Equal(got.Keys, want.Keys) || !got.Value.Equal(want.Value) || !v.OK() {
		t.Errorf("large window with digests: %d rows, digest %s, verdict %+v; without: %d rows", got.Rows, got.Digest, v, want.Rows)
	}
}

// TestPipeline_MaxInFlight: of eight pipelines at once, at most
// MaxInFlight are in PostgreSQL together: each sleeps in the database and
// then counts the pool's backends running a statement, itself included.
// Without the gate the count reaches the pipelines' number.
func TestPipeline_MaxInFlight(t *testing.T) {
	const pipelines = 8
	app := fmt.Sprintf("pgpoint-inflight-%d", time.Now().UnixNano())
	dsn := pgtest.DSN(t)
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "application_name=" + app
	} else {
		dsn += " application_name=" + app
	}
	db, err := postgres.OpenPool(t.Context(), dsn, pipelines)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, tt := range []struct {
		limit, want int
	}{{1, 1}, {3, 3}} {
		t.Run(fmt.Sprint("limit=", tt.limit), func(t *testing.T) {
			p := postgres.NewPipeliner(db, &postgres.PipelinerOptions{MaxInFlight: tt.limit})
			queries := []shape.Stmt{
				{SQL: "SELECT pg_sleep(0.05)"},
				{SQL: "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'", Args: []any{app}},
			}
			var most atomic.Int64
			var wg sync.WaitGroup
			for range pipelines {
				wg.Go(func() {
					sets, err := p.Pipeline(t.Context(), nil, queries)
					if err != nil {
						t.Error(err)
						return
					}
					var n int64
					if err := sets[1].Scan(0, &n); err != nil {
						t.Error(err)
						return
					}
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
				})
			}
			wg.Wait()
			if got := most.Load(); got > int64(tt.want) {
				t.Errorf("%d pipelines in PostgreSQL at once, want at most %d", got, tt.want)
			}
		})
	}
}

// cpuTime is the process's user and system CPU time (the engine's, its
// garbage collector's and the driver's; not PostgreSQL's backends): on a
// shared machine a steadier cost per call than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPipeline_PointCallsGenericPlans: a pipelined point call's
// statements run on their generic plans from the first call
// (shape.Stmt.Generic: SET LOCAL plan_cache_mode in the call's
// transaction), where PostgreSQL's own choice plans each of the first five
// executions anew, and at 10,000,000 events the resolver's on every call;
// a window's statements keep PostgreSQL's choice. One connection, so that
// its prepared statements (pgx's cache) show every execution.
func TestPipeline_PointCallsGenericPlans(t *testing.T) {
	db := demoDB(t, &counter{}, 2_000)
	db.SetMaxOpenConns(1)
	cat := ingesttest.WarehouseCatalog(t)
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	eng, err := shape.New(t.Context(), cat, shape.Source{DB: db, Snapshot: opts, Pipeline: postgres.NewPipeliner(db, nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	call := func(c shape.Call) {
		t.Helper()
		if _, v := shapetest.Answer(t, eng, c); !v.OK() {
			t.Fatalf("verdict %+v", v)
		}
	}
	plans := func(like string) (custom, generic int64) {
		t.Helper()
		q := `SELECT COALESCE(SUM(custom_plans), 0), COALESCE(SUM(generic_plans), 0) FROM pg_prepared_statements WHERE statement LIKE $1`
		if err := db.QueryRowContext(t.Context(), q, like).Scan(&custom, &generic); err != nil {
			t.Fatal(err)
		}
		return custom, generic
	}
	// The first call reads the checkpoint index, in a transaction of its
	// own; the calls measured are pipelined.
	call(shape.Call{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0001", "as_of": asOf}, Scope: shape.All()})
	const calls = 8
	for i := range calls {
		call(shape.Call{Tool: "get_temperature", Args: map[string]string{"device_id": fmt.Sprintf("dev-%04d", i+1), "as_of": asOf}, Scope: shape.All()})
	}
	for range calls {
		call(shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "start": "2026-01-06T08:00:00Z", "end": "2026-01-06T10:00:00Z"}, Scope: shape.All()})
	}
	tests := []struct {
		name, like  string
		wantCustom  bool
		minExecuted int64
	}{
		{"point: the executor's query", `%"temperature_c" AS v%`, false, calls},
		{"point: the resolver's query", `%"temperature_c" AS _o%`, false, calls},
		{"window", `%"status_events" x WHERE x."zone_id"%`, true, calls},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			custom, generic := plans(tt.like)
			if custom+generic < tt.minExecuted {
				t.Fatalf("%d executions of statements like %s, want at least %d (the test does not test what it names)", custom+generic, tt.like, tt.minExecuted)
			}
			if got := custom > 0; got != tt.wantCustom {
				t.Errorf("custom plans %d, generic %d: custom planned = %v, want %v", custom, generic, got, tt.wantCustom)
			}
		})
	}
}

// TestPipeline_NoPlanCacheMode: on a database that refuses the generic
// plans' setting as unknown (an engine of the PostgreSQL wire without
// plan_cache_mode, played here by a setting PostgreSQL does not have),
// point calls are still answered, on the database's own plans, and the
// setting is not sent again.
func TestPipeline_NoPlanCacheMode(t *testing.T) {
	db := demoDB(t, &counter{}, 2_000)
	cat := ingesttest.WarehouseCatalog(t)
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	pl := postgres.NewPipeliner(db, nil)
	postgres.SetGenericStatement(pl, "SET LOCAL provenant_no_such_setting = on")
	eng, err := shape.New(t.Context(), cat, shape.Source{DB: db, Snapshot: opts, Pipeline: pl}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for i := range 3 {
		c := shape.Call{Tool: "get_temperature", Args: map[string]string{"device_id": fmt.Sprintf("dev-%04d", i+1), "as_of": asOf}, Scope: shape.All()}
		if _, v := shapetest.Answer(t, eng, c); !v.OK() {
			t.Fatalf("call %d: verdict %+v", i, v)
		}
	}
	if !postgres.GenericPlansOff(pl) {
		t.Error("generic plans still on after the database refused the setting")
	}
}
