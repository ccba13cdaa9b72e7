package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// specRequests are query_metric calls whose provenance is summed from the
// key digests (large) or listed (small, or without digests).
var specRequests = []struct {
	name   string
	params map[string]any
	scope  tool.Scope
}{
	{"a day by zone", map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, tool.AllStores()},
	{"odd minutes", map[string]any{"metric": "observed_time", "start": "2026-01-05T03:17:09Z", "end": "2026-01-06T21:48:00Z"}, tool.AllStores()},
	{"not in a zone", map[string]any{"metric": "fault_count", "grain": "day", "start": "2026-01-04T10:30:00Z", "end": "2026-01-07T10:30:00Z",
		"filters": []any{map[string]any{"dimension": "zone", "op": "not_in", "values": []any{"zone-02", "zone-03"}}}}, tool.AllStores()},
	{"a scoped caller", map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-04T00:00:00Z", "end": "2026-01-08T00:00:00Z"}, tool.StoresOnly("zone-01")},
	{"small", map[string]any{"metric": "availability", "start": "2026-01-05T00:00:00Z", "end": "2026-01-05T00:20:00Z"}, tool.AllStores()},
}

// TestQueryMetric_ResolverBeside: on an engine whose data cannot change
// while it serves (the versions read once, as serve reads a DuckDB file
// opened read-only), every query_metric call's resolver re-derives on a
// snapshot of its own beside the executor and the resolver takes that
// re-derivation; the answers are those of an engine over the same data
// that re-derives after the executor, on the request's snapshot, and an
// engine whose data may change never starts one.
func TestQueryMetric_ResolverBeside(t *testing.T) {
	const n, limit = 5000, 200
	opts := &engine.Options{ProvenanceLimit: limit, MetricRollups: true, MetricValueRollups: true}
	derive := &shape.DeriveOptions{RollupKeys: true, RollupValues: true, Every: 97}
	engines := []struct {
		name   string
		e      *engine.Engine
		beside bool
	}{
		{"unchanging", enginetest.OpenWarehouseUnchanging(t, n, opts, derive), true},
		{"unchanging without digests", enginetest.OpenWarehouseUnchanging(t, n, &engine.Options{ProvenanceLimit: limit}, nil), true},
		{"may change", enginetest.OpenWarehouseDerived(t, n, opts, derive), false},
	}
	want := map[string]string{}
	for _, en := range engines {
		for _, tt := range specRequests {
			t.Run(en.name+"/"+tt.name, func(t *testing.T) {
				started, used := engine.MetricSpeculated(en.e)
				a := en.e.Pipeline.Call(pipeline.WithScope(t.Context(), tt.scope), tool.Proposal{Tool: shape.QueryMetric, Params: tt.params})
				if a.Outcome() != answer.Answered {
					t.Fatalf("outcome %s (%s), want answered", a.Outcome(), a.Reason())
				}
				started2, used2 := engine.MetricSpeculated(en.e)
				if en.beside && (started2-started != 1 || used2-used != 1) {
					t.Errorf("re-derivations beside the executor: %d started, %d taken; want 1 and 1", started2-started, used2-used)
				}
				if !en.beside && started2 != started {
					t.Errorf("%d re-derivations started beside the executor on data that may change", started2-started)
				}
				v, _ := a.Value()
				p, _ := a.Provenance()
				got, err := json.Marshal(struct {
					V fact.Value
					N int
					D string
					K []string
				}{v, p.NumEvents(), p.EventDigest(), p.EventIDs()})
				if err != nil {
					t.Fatal(err)
				}
				if en.name == "unchanging without digests" {
					return // a provenance of another scheme
				}
				if w, ok := want[tt.name]; ok && w != string(got) {
					t.Errorf("answer differs between engines:\n%s\n%s", got, w)
				}
				want[tt.name] = string(got)
			})
		}
	}
}

// TestQueryMetric_ResolverBesideDefects: a result altered after the
// executor is refused by a resolver that took the re-derivation started
// beside the executor, as by one that re-derives after it (each case on
// a request's pinned snapshot, as the pipeline runs a call, and on none).
func TestQueryMetric_ResolverBesideDefects(t *testing.T) {
	const limit = 200
	e := enginetest.OpenWarehouseUnchanging(t, 5000, &engine.Options{ProvenanceLimit: limit, MetricRollups: true}, &shape.DeriveOptions{RollupKeys: true})
	wall, exec, res := e.Parts()
	pinner, ok := exec.(pipeline.Pinner)
	if !ok {
		t.Fatal("the executor pins no snapshot")
	}
	large := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T00:10:00Z", "end": "2026-01-06T07:45:00Z"}
	small := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T00:00:00Z", "end": "2026-01-05T00:20:00Z"}
	otherValue := func(r fact.Result) fact.Result {
		tb := *r.Value.Table
		tb.Rows = slices.Clone(tb.Rows)
		row := slices.Clone(tb.Rows[0])
		row[len(row)-1] = fact.NumberCell(row[len(row)-1].Num + 0.01)
		tb.Rows[0] = row
		r.Value = fact.TableValue(&tb)
		return r
	}
	withProvenance := func(first []string, n int, d string) func(fact.Result) fact.Result {
		return func(r fact.Result) fact.Result {
			p, err := fact.EventsInPart(first, n, d)
			if n == len(first) && !strings.HasPrefix(d, fact.LtHashScheme) {
				p, err = fact.Events(first) // listed whole
			}
			if err != nil {
				t.Fatal(err)
			}
			alt, err := fact.NewResult(r.Tool, r.Args, r.Value, p)
			if err != nil {
				t.Fatal(err)
			}
			return alt
		}
	}
	// The provenance of each call as its executor gives it.
	honest := map[string]fact.Result{}
	for name, params := range map[string]map[string]any{"large": large, "small": small} {
		c, err := wall.Check(tool.Proposal{Tool: shape.QueryMetric, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		if honest[name], err = exec.Execute(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	lp := honest["large"].Provenance
	ids, n, d := lp.EventIDs(), lp.NumEvents(), lp.EventDigest()
	if !strings.HasPrefix(d, fact.LtHashScheme) || strings.HasPrefix(honest["small"].Provenance.EventDigest(), fact.LtHashScheme) {
		t.Fatalf("digests %s and %s, want the large one summed and the small one listed", d, honest["small"].Provenance.EventDigest())
	}
	other := lthash.Of(ids...)
	sp := honest["small"].Provenance
	smallSummed := lthash.Of(sp.EventIDs()...)
	tests := []struct {
		name   string
		params map[string]any
		alter  func(fact.Result) fact.Result
		valid  bool // provenance_valid
		value  bool // value_matches
		taken  bool // the resolver takes the re-derivation beside the executor
	}{
		{"honest", large, nil, true, true, true},
		{"honest small", small, nil, true, true, true},
		{"another value", large, otherValue, true, false, true},
		{"another small value", small, otherValue, true, false, true},
		{"a row left out of the count", large, withProvenance(ids, n-1, d), false, true, true},
		{"the digest of other keys", large, withProvenance(ids, n, other.Digest()), false, true, true},
		{"other first keys", large, withProvenance(ids[1:], n, d), false, true, true},
		{"a first key that does not contribute", large, withProvenance(append(slices.Clone(ids[:len(ids)-1]), ids[len(ids)-1]+"x"), n, d), false, true, true},
		// The kind of provenance is not the one predicted: the resolver
		// re-derives on the request's snapshot.
		{"a summed provenance listed", large, withProvenance(ids, limit, fact.Digest(ids)), false, true, false},
		{"a listed provenance summed", small, withProvenance(sp.EventIDs()[:sp.NumEvents()-1], sp.NumEvents(), smallSummed.Digest()), false, true, false},
	}
	for _, tt := range tests {
		for _, pinned := range []bool{true, false} {
			name := tt.name + "/pinned"
			if !pinned {
				name = tt.name + "/unpinned"
			}
			t.Run(name, func(t *testing.T) {
				ctx, release := t.Context(), func() {}
				if pinned {
					ctx, release = pinner.Pin(ctx)
				}
				defer release()
				c, err := wall.Check(tool.Proposal{Tool: shape.QueryMetric, Params: tt.params})
				if err != nil {
					t.Fatal(err)
				}
				started, used := engine.MetricSpeculated(e)
				r, err := exec.Execute(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				if tt.alter != nil {
					r = tt.alter(r)
				}
				v, err := res.Resolve(ctx, c, r)
				if err != nil {
					t.Fatal(err)
				}
				if v.ProvenanceValid != tt.valid || v.ValueMatches != tt.value {
					t.Errorf("verdict %+v, want provenance_valid=%t value_matches=%t", v, tt.valid, tt.value)
				}
				started2, used2 := engine.MetricSpeculated(e)
				wantStarted, wantUsed := int64(0), int64(0)
				if pinned {
					wantStarted = 1
					if tt.taken {
						wantUsed = 1
					}
				}
				if started2-started != wantStarted || used2-used != wantUsed {
					t.Errorf("re-derivations beside the executor: %d started, %d taken; want %d and %d", started2-started, used2-used, wantStarted, wantUsed)
				}
			})
		}
	}
}

// TestQueryMetric_ResolverBesideUntaken: a re-derivation started beside
// the executor that no resolver takes (the call ends after the executor)
// ends with the request's release, and the engine answers after it.
func TestQueryMetric_ResolverBesideUntaken(t *testing.T) {
	e := enginetest.OpenWarehouseUnchanging(t, 5000, &engine.Options{ProvenanceLimit: 200, MetricRollups: true}, &shape.DeriveOptions{RollupKeys: true})
	wall, exec, _ := e.Parts()
	c, err := wall.Check(tool.Proposal{Tool: shape.QueryMetric, Params: specRequests[0].params})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 * engine.MetricSlots(e) {
		ctx, release := exec.(pipeline.Pinner).Pin(t.Context())
		if _, err := exec.Execute(ctx, c); err != nil {
			t.Fatal(err)
		}
		release()
	}
	if started, used := engine.MetricSpeculated(e); started != int64(3*engine.MetricSlots(e)) || used != 0 {
		t.Errorf("%d started, %d taken; want %d and 0", started, used, 3*engine.MetricSlots(e))
	}
	// Every slot free again: a call is answered.
	a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: specRequests[0].params})
	if a.Outcome() != answer.Answered {
		t.Fatalf("outcome %s (%s), want answered", a.Outcome(), a.Reason())
	}
}

// TestQueryMetric_ResolverBesidePostgres: on PostgreSQL, whose data a
// writer can change between two snapshots, the resolver re-derives beside
// the executor on the executor's snapshot exported to a second
// transaction (postgres.SnapshotSharer): an import committed after the
// executor's snapshot was taken and before the resolver's first read is
// seen by neither, so the answer verifies, from the re-derivation beside
// the executor; the next call reads the new data. Skipped without
// PROVENANT_POSTGRES_DSN outside CI (pgtest).
func TestQueryMetric_ResolverBesidePostgres(t *testing.T) {
	ctx := t.Context()
	db, sharer, cat, l, sink := openWarehousePostgres(t, postgres.MaxConns)
	// The demo's events in time order: the first 4,000 now, the rest by
	// the writer.
	lines := bytes.SplitAfter(ingesttest.DemoJSONL(t, 5000), []byte("\n"))
	load := func(ctx context.Context, part [][]byte) error {
		_, err := ingest.Import(ctx, sink, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(bytes.Join(part, nil))))
		return err
	}
	if err := load(ctx, lines[:4000]); err != nil {
		t.Fatal(err)
	}
	src := shape.Source{DB: db, Snapshot: &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}, Sharer: sharer}
	e, err := engine.OpenCatalog(ctx, cat, src, &engine.Options{ProvenanceLimit: 200, MetricRollups: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	for _, tt := range specRequests {
		t.Run(tt.name, func(t *testing.T) {
			started, used := engine.MetricSpeculated(e)
			a := e.Pipeline.Call(pipeline.WithScope(t.Context(), tt.scope), tool.Proposal{Tool: shape.QueryMetric, Params: tt.params})
			if a.Outcome() != answer.Answered {
				t.Fatalf("outcome %s (%s), want answered", a.Outcome(), a.Reason())
			}
			if s, u := engine.MetricSpeculated(e); s-started != 1 || u-used != 1 {
				t.Errorf("re-derivations beside the executor: %d started, %d taken; want 1 and 1", s-started, u-used)
			}
		})
	}
	t.Run("a writer between the two", func(t *testing.T) {
		// A window the later rows change: every zone's availability.
		params := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T00:00:00Z", "end": "2026-01-13T00:00:00Z"}
		var wrote error
		engine.BeforeSpeculatedReads(e, func() {
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			wrote = load(wctx, lines[4000:])
		})
		defer engine.BeforeSpeculatedReads(e, nil)
		started, used := engine.MetricSpeculated(e)
		a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: params})
		if wrote != nil {
			t.Fatalf("the writer's import: %v", wrote)
		}
		if a.Outcome() != answer.Answered {
			t.Fatalf("outcome %s (%s), want answered", a.Outcome(), a.Reason())
		}
		if s, u := engine.MetricSpeculated(e); s-started != 1 || u-used != 1 {
			t.Errorf("re-derivations beside the executor: %d started, %d taken; want 1 and 1", s-started, u-used)
		}
		engine.BeforeSpeculatedReads(e, nil)
		b := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: params})
		if b.Outcome() != answer.Answered {
			t.Fatalf("after the writer: outcome %s (%s), want answered", b.Outcome(), b.Reason())
		}
		va, _ := a.Value()
		vb, _ := b.Value()
		if slices.EqualFunc(va.Table.Rows, vb.Table.Rows, slices.Equal) || a.DataVersion() == b.DataVersion() {
			t.Errorf("the call after the writer read the same data (version %s, then %s): the writer changed nothing the test can see", a.DataVersion(), b.DataVersion())
		}
	})
}

// TestQueryMetric_ResolverTotalsByVersion: the resolver sums the stored
// key digests from totals by hour that it keeps per data version (apart
// from the executor's running sums): after an import the next call reads
// them again, and the answer, which counts the new rows, verifies.
func TestQueryMetric_ResolverTotalsByVersion(t *testing.T) {
	ctx := t.Context()
	cat, db, l, lines := warehouseDemoLines(t, 6000)
	importWithRollups(t, cat, db, l, lines[:4000])
	e := openCatalogEngine(t, ctx, cat, db, &engine.Options{ProvenanceLimit: 200, MetricRollups: true})
	params := map[string]any{"metric": "observed_time", "start": "2026-01-04T00:00:00Z", "end": "2026-01-20T00:00:00Z"}
	var counts []int
	for i, part := range [][][]byte{nil, lines[4000:]} {
		if part != nil {
			importWithRollups(t, cat, db, l, part)
		}
		a := e.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: params})
		p, _ := a.Provenance()
		if a.Outcome() != answer.Answered || !strings.HasPrefix(p.EventDigest(), fact.LtHashScheme) {
			t.Fatalf("call %d: outcome %s (%s), digest %s; want answered with an lthash digest", i, a.Outcome(), a.Reason(), p.EventDigest())
		}
		counts = append(counts, p.NumEvents())
	}
	if counts[1] <= counts[0] {
		t.Errorf("contributing rows %d, then %d after the import: the call after it missed the new rows", counts[0], counts[1])
	}
}

// TestQueryMetric_ResolverBesidePostgresPools: the resolver's
// transactions beside the executor come from the snapshot sharer's pool of
// their own, so that they never wait for a connection of the engine's
// pool, which the requests' own transactions may all hold while their
// resolvers wait: eight concurrent calls on an engine pool of two
// connections are all answered within their deadline.
func TestQueryMetric_ResolverBesidePostgresPools(t *testing.T) {
	ctx := t.Context()
	db, sharer, cat, l, sink := openWarehousePostgres(t, 2)
	if _, err := ingest.Import(ctx, sink, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, 3000)))); err != nil {
		t.Fatal(err)
	}
	src := shape.Source{DB: db, Snapshot: &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}, Sharer: sharer}
	e, err := engine.OpenCatalog(ctx, cat, src, &engine.Options{ProvenanceLimit: 200, MetricRollups: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	const calls = 8
	outcomes := make([]answer.Outcome, calls)
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			a := e.Pipeline.Call(cctx, tool.Proposal{Tool: shape.QueryMetric, Params: specRequests[i%len(specRequests)].params})
			outcomes[i] = a.Outcome()
		})
	}
	wg.Wait()
	for i, o := range outcomes {
		if o != answer.Answered {
			t.Errorf("call %d: outcome %s, want answered", i, o)
		}
	}
	if started, used := engine.MetricSpeculated(e); started != calls || used != calls {
		t.Errorf("re-derivations beside the executor: %d started, %d taken; want %d and %d", started, used, calls, calls)
	}
}

// openWarehousePostgres opens a fresh PostgreSQL schema on a pool of
// conns connections, a snapshot sharer of two beside it, the warehouse
// catalog, its status_events layout and a sink deriving the key digests
// at each import.
func openWarehousePostgres(t *testing.T, conns int) (*sql.DB, *postgres.SnapshotSharer, *catalog.Catalog, *ingest.Layout, ingest.Sink) {
	t.Helper()
	ctx := t.Context()
	dsn := pgtest.Schema(t)
	db, err := postgres.OpenPool(ctx, dsn, conns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sharer, err := postgres.OpenSnapshotSharer(ctx, dsn, 2)
	if err != nil || sharer == nil {
		t.Fatalf("open snapshot sharer: %v (%v)", err, sharer)
	}
	t.Cleanup(func() { sharer.Close() })
	cat, l := warehouseLayout(t)
	sink := postgres.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, &shape.DeriveOptions{RollupKeys: true, Catalog: cat})
	}})
	return db, sharer, cat, l, sink
}

// TestQueryMetric_IdleBetweenReads: on an engine whose data cannot change
// (a DuckDB file served read-only), a query_metric call holds a
// connection only while it reads, in a metric slot: a call waiting for
// its executor's slot has begun no transaction, and one waiting for its
// resolver's has handed its connection back (shape.Snapshot.Idle).
// Sixteen calls at once on one slot then hold at most two connections at
// any moment (the slot's reader, and one handing its connection back);
// a call holding its connection while it waits shows as many more, as
// does an engine whose data may change, whose snapshots keep their one
// transaction.
func TestQueryMetric_IdleBetweenReads(t *testing.T) {
	opts := &engine.Options{ProvenanceLimit: 200, MetricRollups: true, MetricValueRollups: true, MetricConcurrency: 1}
	derive := &shape.DeriveOptions{RollupKeys: true, RollupValues: true, Every: 97}
	e, db := enginetest.OpenWarehouseUnchangingDB(t, 5000, opts, derive)
	call := func(i int) error {
		tt := specRequests[i%len(specRequests)]
		a := e.Pipeline.Call(pipeline.WithScope(t.Context(), tt.scope), tool.Proposal{Tool: shape.QueryMetric, Params: tt.params})
		if a.Outcome() != answer.Answered {
			return fmt.Errorf("%s: outcome %s (%s), want answered", tt.name, a.Outcome(), a.Reason())
		}
		return nil
	}
	// Each request twice first: the engine prepares a statement text the
	// first time it sees it, in the background, on a connection of its
	// own; then wait for those to end.
	for i := range 2 * len(specRequests) {
		if err := call(i); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); db.Stats().InUse > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still in use after the calls ended", db.Stats().InUse)
		}
	}
	var high atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(db.Stats().InUse); n > high.Load() {
				high.Store(n)
			}
			select {
			case <-done:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	const calls = 16
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() { errs[i] = call(i) })
	}
	wg.Wait()
	close(done)
	<-sampled
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if h := high.Load(); h > 2 {
		t.Errorf("%d connections in use at once by %d calls on one metric slot, want at most 2", h, calls)
	}
}

// TestSnapshot_Idle: a snapshot of an engine whose data cannot change
// begins its transaction at its first read and hands it back on Idle, the
// next read beginning another; one whose data may change keeps its one
// transaction from Begin to Close, Idle or not.
func TestSnapshot_Idle(t *testing.T) {
	ctx := t.Context()
	_, db := enginetest.OpenWarehouseUnchangingDB(t, 500, nil, nil)
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	versions, err := shape.ReadVersions(ctx, cat, shape.Source{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		versions map[string]string
		// connections in use after Begin, after a read, after Idle
		want [3]int
	}{
		{"unchanging", versions, [3]int{0, 1, 0}},
		{"may change", nil, [3]int{1, 1, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := shape.New(ctx, cat, shape.Source{DB: db, Versions: tt.versions}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			read := func(s *shape.Snapshot) {
				t.Helper()
				q, _, err := s.MetricQuerier(ctx)
				if err != nil {
					t.Fatal(err)
				}
				rows, err := q.QueryContext(ctx, "SELECT COUNT(*) FROM status_events")
				if err != nil {
					t.Fatal(err)
				}
				rows.Close()
			}
			// The text read once first, on a snapshot of its own: the
			// engine prepares a text the first time it sees it, in the
			// background, on a connection of its own. Then wait for
			// that, and the engine's reads at open, to end.
			warm, err := e.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			read(warm)
			warm.Close()
			for deadline := time.Now().Add(30 * time.Second); db.Stats().InUse > 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%d connections still in use", db.Stats().InUse)
				}
			}
			s, err := e.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got [3]int
			got[0] = db.Stats().InUse
			read(s)
			got[1] = db.Stats().InUse
			if err := s.Idle(); err != nil {
				t.Fatal(err)
			}
			got[2] = db.Stats().InUse
			if got != tt.want {
				t.Errorf("connections in use after Begin, a read, Idle: %v, want %v", got, tt.want)
			}
			read(s) // a read after Idle begins again where it ended
			if s.Close(); db.Stats().InUse != 0 {
				t.Errorf("%d connections in use after Close", db.Stats().InUse)
			}
		})
	}
}

// warehouseLayout loads the warehouse catalog and the layout of its status
// events, as the tests that import the demo data into a database of their
// own need them.
func warehouseLayout(t testing.TB) (*catalog.Catalog, *ingest.Layout) {
	t.Helper()
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ingest.NewLayout(cat, "status_events")
	if err != nil {
		t.Fatal(err)
	}
	return cat, l
}
