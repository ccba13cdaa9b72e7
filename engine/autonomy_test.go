package engine_test

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
	"github.com/provenant/provenant/task"
	"github.com/provenant/provenant/tool"
)

// gated is an engine over the demo store with writes enabled, the
// Authority that approves on it, its sessions and the events it
// recorded.
type gated struct {
	eng      *engine.Engine
	auth     *autonomy.Authority
	sessions *autonomy.Sessions
	reg      *register.Register
	store    *register.MemStore

	mu     sync.Mutex
	events []eventlog.Payload
}

// opener opens an engine with writes enabled and opts.
type opener func(t *testing.T, opts engine.Options) *engine.Engine

// openDemo: the demo store file in an in-memory DuckDB (--writes).
func openDemo(t *testing.T, opts engine.Options) *engine.Engine {
	opts.Autonomy.Writes = true
	return enginetest.OpenDemo(t, opts)
}

// openRetailOn: the retail catalog with `writes: {enabled: true}` over
// one metric fixture's rows, in the database src holds.
func openRetailOn(src func(t *testing.T) (shape.Source, ingest.Sink)) opener {
	return func(t *testing.T, opts engine.Options) *engine.Engine {
		cat, err := catalogs.Load("retail")
		if err != nil {
			t.Fatal(err)
		}
		cat = cat.WithWrites()
		s, sink := src(t)
		e, _ := enginetest.OpenFixtureWith(t, cat, cat.Metrics[0], s, sink, &opts)
		return e
	}
}

func openGated(t *testing.T, open opener) *gated {
	t.Helper()
	g := &gated{auth: autonomy.NewAuthority()}
	g.store = register.NewMemStore()
	reg, err := register.Open(t.Context(), g.store)
	if err != nil {
		t.Fatal(err)
	}
	g.reg = reg
	g.eng = open(t, engine.Options{Autonomy: &engine.Autonomy{
		Gates: func(tools []autonomy.Tool) (autonomy.Store, error) {
			s, err := autonomy.NewSessions(tools, &autonomy.GateOptions{Authority: g.auth})
			g.sessions = s
			return s, err
		},
		Register: reg,
		OnEvent: func(_ context.Context, p eventlog.Payload) {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.events = append(g.events, p)
		},
	}})
	return g
}

// ids returns two declared ids of the write tool's store parameter and
// one of its product parameter.
func (g *gated) ids(t *testing.T) (store, other, product string) {
	t.Helper()
	d, ok := g.eng.Registry.Lookup("open_restock_task")
	if !ok {
		t.Fatal("open_restock_task is not on the menu")
	}
	pick := func(name string, n int) []string {
		for _, p := range d.Params {
			if p.Name == name {
				ids := slices.Sorted(maps.Keys(p.Names))
				if len(ids) >= n {
					return ids
				}
			}
		}
		t.Fatalf("fewer than %d declared ids of %s", n, name)
		return nil
	}
	stores := pick("store_id", 2)
	return stores[0], stores[1], pick("product_id", 1)[0]
}

func (g *gated) types() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, e := range g.events {
		out = append(out, string(e.EventType()))
	}
	return out
}

// grant has the operator alice grant tools at L3 to session for n
// questions.
func (g *gated) grant(t *testing.T, session, id string, n int64, tools ...string) {
	t.Helper()
	gate, err := g.sessions.Gate(session)
	if err != nil {
		t.Fatal(err)
	}
	alice, err := g.auth.Approver("alice")
	if err != nil {
		t.Fatal(err)
	}
	now, err := g.sessions.Now(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gate.Grant(t.Context(), alice, autonomy.GrantRequest{GrantID: id, Tools: tools, Tier: autonomy.L3, MaxQuestions: n, MaxAge: 1000}, now); err != nil {
		t.Fatal(err)
	}
}

// TestWrite_Gated runs the gated write on the demo store file (DuckDB),
// on the retail catalog over DuckDB and over PostgreSQL (skipped without
// PROVENANT_POSTGRES_DSN outside CI: pgtest).
func TestWrite_Gated(t *testing.T) {
	for name, open := range map[string]opener{
		"demo": openDemo,
		"duckdb": openRetailOn(func(t *testing.T) (shape.Source, ingest.Sink) {
			db, err := duckdb.OpenMemory(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return shape.Source{DB: db}, duckdb.NewSink(db, enginetest.Derived())
		}),
		"postgres": openRetailOn(func(t *testing.T) (shape.Source, ingest.Sink) {
			db := pgtest.Open(t)
			return shape.Source{DB: db, Snapshot: &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}},
				postgres.NewSink(db, enginetest.Derived())
		}),
	} {
		t.Run(name, func(t *testing.T) { testWriteGated(t, open) })
	}
}

func testWriteGated(t *testing.T, open opener) {
	g := openGated(t, open)
	ctx := t.Context()
	store, other, product := g.ids(t)
	restock := func(key string, qty int, store string) tool.Proposal {
		return tool.Proposal{Tool: "open_restock_task", Params: map[string]any{
			"store_id": store, "product_id": product, "quantity": qty, "request_key": key}}
	}
	call := func(p tool.Proposal) answer.Answer { return g.eng.Pipeline.Call(ctx, p) }

	// At L1 the write is refused before it runs, and a human is asked.
	a := call(restock("k-1", 12, store))
	if a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Fatalf("at L1: %s %v; want rejected needs_approval", a.Outcome(), a.Reason())
	}
	if got := g.types(); !slices.Equal(got, []string{"elevation.requested"}) {
		t.Errorf("events = %v; want elevation.requested", got)
	}
	if g.reg.Head().Len != 0 {
		t.Errorf("register has %d records before any write", g.reg.Head().Len)
	}

	// A read still answers at L1.
	if a := call(tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": store, "product_id": product, "as_of": "2026-01-06T08:00:00Z"}}); a.Outcome() != answer.Answered && a.Outcome() != answer.Absence {
		t.Fatalf("read at L1: %s %v", a.Outcome(), a.Reason())
	}

	g.grant(t, pipeline.DefaultSession, "g-1", 4, "open_restock_task")
	a = call(restock("k-1", 12, store))
	if a.Outcome() != answer.Answered {
		t.Fatalf("granted: %s %v", a.Outcome(), a.Reason())
	}
	if r, ok := a.Grounding(); !ok || r.Verdict == grounding.Refuse {
		t.Errorf("the write's sentence %q does not pass the grounding check: %+v", a.Text(), r)
	}
	v, _ := a.Value()
	if !slices.Equal(v.IDs, []string{task.ID("k-1")}) {
		t.Errorf("value ids = %v; want [%s]", v.IDs, task.ID("k-1"))
	}
	if h := g.reg.Head(); h.Len != 1 {
		t.Fatalf("register has %d records after one write; want 1", h.Len)
	}
	var rec register.Record
	if err := g.store.Scan(ctx, 0, func(_ int, r register.Record) error { rec = r; return nil }); err != nil {
		t.Fatal(err)
	}
	d := rec.Decision
	if rec.Approver != "alice" || rec.Tier != register.L3 || rec.Task != task.ID("k-1") || d == nil || d.Chosen != "write" ||
		len(d.Alternatives) != 2 || d.Alternatives[0].ID != "write" || d.Alternatives[1].ID != "do_nothing" {
		t.Errorf("decision record = %+v", rec)
	}

	// The same key and arguments: the same task, no second record.
	a = call(restock("k-1", 12, store))
	if v2, _ := a.Value(); a.Outcome() != answer.Answered || !slices.Equal(v2.IDs, v.IDs) {
		t.Errorf("replay: %s %v %v", a.Outcome(), a.Reason(), v2.IDs)
	}
	if h := g.reg.Head(); h.Len != 1 {
		t.Errorf("register has %d records after a replay; want 1", h.Len)
	}

	// The same key, other arguments: refused, typed.
	a = call(restock("k-1", 13, store))
	if a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonKeyReused {
		t.Errorf("reused key: %s %v; want rejected request_key_reused", a.Outcome(), a.Reason())
	}

	// Outside the caller's scope: the wall refuses it, grant or not.
	a = g.eng.Pipeline.Call(pipeline.WithScope(ctx, tool.StoresOnly(other)), restock("k-2", 1, store))
	if a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonOutOfScope {
		t.Errorf("out of scope: %s %v; want rejected out_of_scope", a.Outcome(), a.Reason())
	}

	// Another session holds no grant.
	a = g.eng.Pipeline.Call(pipeline.WithSession(ctx, "bob"), restock("k-3", 1, store))
	if a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("other session: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}

	// The grant covered 4 questions; the 5th after it finds it expired.
	a = call(restock("k-4", 1, store))
	if a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonNeedsApproval {
		t.Errorf("after expiry: %s %v; want needs_approval", a.Outcome(), a.Reason())
	}
	types := g.types()
	if !slices.Contains(types, "elevation.expired") || !slices.Contains(types, "decision.recorded") {
		t.Errorf("events = %v; want elevation.expired and decision.recorded among them", types)
	}
	if _, err := register.Verify(ctx, g.store); err != nil {
		t.Error(err)
	}
}
