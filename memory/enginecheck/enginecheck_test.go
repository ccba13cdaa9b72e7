package enginecheck_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/enginecheck"
	"github.com/provenant/provenant/memory/memstore"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/retail/storefile"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/tool"
)

// openRetail imports the retail demo into an in-memory DuckDB and opens
// a catalog engine that reads the database at every call (no rows held
// in memory), so that an import after it opens is a new data version.
// It returns the engine and a function that imports more events.
func openRetail(t *testing.T) (*engine.Engine, func(events ...retail.Event)) {
	t.Helper()
	ctx := t.Context()
	cat, err := catalogs.Load(storefile.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := ingest.NewLayout(cat, storefile.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	ds := cat.Dataset(storefile.Dataset)
	importEvents := func(d *retail.Dataset, refs bool) {
		opts := shape.ImportOptions(nil)
		derive := opts.AfterInsert
		opts.AfterInsert = func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
			if refs {
				for _, e := range ds.Entities {
					if rows, ok := storefile.References(d)[e.Name.Value]; ok && e.Reference != nil {
						if err := ingest.ImportReference(ctx, tx, "store file", e, rows); err != nil {
							return err
						}
					}
				}
			}
			return derive(ctx, tx, l)
		}
		if _, err := ingest.Import(ctx, duckdb.NewSink(db, opts), l, ingest.NewRecords("store file", l, storefile.Records(d))); err != nil {
			t.Fatal(err)
		}
	}
	importEvents(d, true)
	e, err := engine.OpenCatalog(ctx, cat, shape.Source{DB: db}, &engine.Options{Provider: rules.Provider{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, func(events ...retail.Event) { importEvents(&retail.Dataset{Events: events}, false) }
}

// remember records the answer to a stock-state call as a claim, as an
// agent would after asking.
func remember(t *testing.T, st *memstore.Store, e *engine.Engine, key, product, store string) {
	t.Helper()
	args := map[string]any{"product_id": product, "store_id": store, "as_of": "2026-01-08T00:00:00Z"}
	a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: "get_stock_state", Params: args})
	if a.Outcome() != answer.Answered {
		t.Fatalf("call: %s (%s)", a.Outcome(), a.Reason())
	}
	v, _ := a.Value()
	p, _ := a.Provenance()
	value, _ := json.Marshal(v)
	rawArgs, _ := json.Marshal(args)
	r := memory.Record{
		Key: key, Agent: "stock-bot", Kind: memory.KindObservation, Subject: product + "@" + store, Time: 1,
		Text: fmt.Sprintf("%s is %s at %s", product, v.Text, store),
		Provenance: &memory.Provenance{
			ResultIDs: a.ResultIDs(), RowKeys: p.EventIDs(), DataVersion: a.DataVersion(), Value: value,
			ToolCall: &memory.ToolCall{Tool: "get_stock_state", Arguments: rawArgs},
		},
	}
	if err := st.Append(t.Context(), r, memory.Visibility{}); err != nil {
		t.Fatal(err)
	}
}

// TestRecall_RetailDemo: a claim recorded from the engine, then a newer
// scan imported for its product and store, is outdated and names the new
// event; a claim whose data did not move is current. No model is asked.
func TestRecall_RetailDemo(t *testing.T) {
	e, importEvents := openRetail(t)
	st := memstore.New()
	remember(t, st, e, "m-moved", "pr-007", "st-003")
	remember(t, st, e, "m-still", "pr-001", "st-001")

	importEvents(retail.Event{ID: "evt-900001", StoreID: "st-003", ProductID: "pr-007",
		Timestamp: "2026-01-07T20:00:00Z", State: "OUT_OF_STOCK", PriceCents: 781, Flag: "COMPLIANT"})

	rr := enginecheck.New(e.Pipeline)
	reader := &memory.Reader{Agent: "stock-bot"}
	check := func(subject string) *memory.Check {
		t.Helper()
		q := memory.Query{Cues: memory.Cues{Subject: subject}, AsOf: 10, MaxItems: 5}
		s, err := memory.Recall(t.Context(), st, reader, q, memory.DefaultPolicy(), rr)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Claims) != 1 || s.Claims[0].Check == nil {
			t.Fatalf("sheet %+v: want one checked claim", s.Claims)
		}
		return s.Claims[0].Check
	}
	moved := check("pr-007@st-003")
	if moved.Status != memory.StatusOutdated || !slices.Equal(moved.NewerEvents, []string{"evt-900001"}) ||
		string(moved.Value) != `"OUT_OF_STOCK"` {
		t.Errorf("moved claim: %+v, want outdated by evt-900001, now OUT_OF_STOCK", moved)
	}
	still := check("pr-001@st-001")
	if still.Status != memory.StatusCurrent || still.DataVersion == "" {
		t.Errorf("unmoved claim: %+v, want current at the new data version", still)
	}
}

// TestRerun_Refused: an unregistered tool and arguments the wall rejects
// are refused (memory.ErrRefused), whatever they hold.
func TestRerun_Refused(t *testing.T) {
	e, _ := openRetail(t)
	rr := enginecheck.New(e.Pipeline)
	for _, c := range []memory.ToolCall{
		{Tool: "drop_everything", Arguments: json.RawMessage(`{}`)},
		{Tool: "get_stock_state", Arguments: json.RawMessage(`{"product_id":"pr-007","store_id":"st-003","as_of":"yesterday"}`)},
		{Tool: "get_stock_state", Arguments: json.RawMessage(`[1]`)},
	} {
		t.Run(c.Tool, func(t *testing.T) {
			_, err := rr.Rerun(t.Context(), c)
			if !errors.Is(err, memory.ErrRefused) {
				t.Fatalf("rerun: %v, want ErrRefused", err)
			}
		})
	}
}
