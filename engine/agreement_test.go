package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// eventTimes is the small set of scan times random stores draw from, so
// that ties on timestamp are frequent and queries often hit an event
// exactly.
var eventTimes = []string{
	"2026-01-01T00:00:00Z",
	"2026-01-01T00:00:01Z",
	"2026-01-01T12:00:00Z",
	"2026-01-02T00:00:00Z",
}

// queryTimes adds instants before, between and after the scans.
var queryTimes = append(slices.Clone(eventTimes),
	"2025-12-31T23:59:59Z",
	"2026-01-01T06:00:00Z",
	"2026-01-01T23:59:59Z",
	"2026-01-03T00:00:00Z",
)

// drawDataset draws a small valid store: 1-4 stores, 1-4 products, 0-40
// events in random order with distinct random ids, scan times from
// eventTimes, random states, flags and prices. It goes through Write and
// Load, so it is a store file the loader accepts.
func drawDataset(t *rapid.T) *retail.Dataset {
	ids := func(label, format string, lo, hi, minN, maxN int) []string {
		nums := rapid.SliceOfNDistinct(rapid.IntRange(lo, hi), minN, maxN, rapid.ID[int]).Draw(t, label)
		out := make([]string, len(nums))
		for i, n := range nums {
			out[i] = fmt.Sprintf(format, n)
		}
		return out
	}
	d := &retail.Dataset{Version: "agreement-v1"}
	for _, id := range ids("stores", "st-%03d", 0, 999, 1, 4) {
		d.Stores = append(d.Stores, retail.Store{ID: id, Name: "Store " + id})
	}
	for _, id := range ids("products", "pr-%03d", 0, 999, 1, 4) {
		d.Products = append(d.Products, retail.Product{ID: id, Name: "Product " + id, Category: "test"})
	}
	n := rapid.IntRange(0, 40).Draw(t, "events")
	for _, id := range ids("event_ids", "evt-%06d", 0, 99, n, n) {
		d.Events = append(d.Events, retail.Event{
			ID:         id,
			StoreID:    rapid.SampledFrom(d.Stores).Draw(t, "store").ID,
			ProductID:  rapid.SampledFrom(d.Products).Draw(t, "product").ID,
			Timestamp:  rapid.SampledFrom(eventTimes).Draw(t, "timestamp"),
			State:      rapid.SampledFrom(retail.States).Draw(t, "state"),
			PriceCents: rapid.Int64Range(0, 500).Draw(t, "price_cents"),
			Flag:       rapid.SampledFrom(retail.Flags).Draw(t, "flag"),
		})
	}
	var buf bytes.Buffer
	if err := retail.Write(&buf, d); err != nil {
		t.Fatalf("write drawn store: %v", err)
	}
	loaded, err := retail.Load(&buf)
	if err != nil {
		t.Fatalf("load drawn store: %v", err)
	}
	return loaded
}

// drawProposal draws a call of a random tool with every parameter drawn
// from its domain: declared ids, enum values, queryTimes, and start <= end.
func drawProposal(t *rapid.T, d *retail.Dataset) tool.Proposal {
	def := rapid.SampledFrom(catalogstest.Retail().Menu()).Draw(t, "tool")
	p := tool.Proposal{Tool: def.Name, Params: map[string]any{}}
	for _, q := range def.Params {
		var v string
		switch {
		case q.Kind == tool.EntityID && q.Entity == "store":
			v = rapid.SampledFrom(d.Stores).Draw(t, q.Name).ID
		case q.Kind == tool.EntityID && q.Entity == "product":
			v = rapid.SampledFrom(d.Products).Draw(t, q.Name).ID
		case q.Kind == tool.Timestamp:
			v = rapid.SampledFrom(queryTimes).Draw(t, q.Name)
		case q.Kind == tool.Enum:
			v = rapid.SampledFrom(q.Values).Draw(t, q.Name)
		default:
			t.Fatalf("tool %s: parameter %s has a kind this test cannot draw", def.Name, q.Name)
		}
		p.Params[q.Name] = v
	}
	if start, ok := p.Params["start"].(string); ok && start > p.Params["end"].(string) {
		p.Params["start"], p.Params["end"] = p.Params["end"], start
	}
	return p
}

// oracleLatest is the latest event of a (store, product) pair at or before
// asOf by linear scan: greatest timestamp, ties broken by the higher id.
func oracleLatest(d *retail.Dataset, store, product, asOf string) (retail.Event, bool) {
	var (
		best  retail.Event
		found bool
	)
	for _, e := range d.Events {
		if e.StoreID != store || e.ProductID != product || e.Timestamp > asOf {
			continue
		}
		if !found || e.Timestamp > best.Timestamp || e.Timestamp == best.Timestamp && e.ID > best.ID {
			best, found = e, true
		}
	}
	return best, found
}

// oracleMeets judges a store condition on one event, as the issue states
// it.
func oracleMeets(condition string, e retail.Event) bool {
	switch condition {
	case "OUT_OF_STOCK":
		return e.State == "OUT_OF_STOCK"
	case "LOW_STOCK":
		return e.State == "LOW_STOCK"
	case "PRICE_MISMATCH":
		return e.Flag == "PRICE_MISMATCH"
	case "EXPIRED":
		return e.Flag == "EXPIRED_PRODUCT"
	case "NON_COMPLIANT":
		return e.Flag != "COMPLIANT"
	}
	panic("oracle: unknown condition " + condition)
}

// oracle answers a call by linear scan over the dataset: the value and the
// sorted ids of the events behind it.
func oracle(d *retail.Dataset, c tool.Call) (fact.Value, []string) {
	var ids []string
	asOf := c.Arg("as_of")
	switch c.Tool() {
	case "get_stock_state", "get_price", "get_compliance_flag":
		e, ok := oracleLatest(d, c.Arg("store_id"), c.Arg("product_id"), asOf)
		kind := map[string]fact.Kind{"get_stock_state": fact.KindText, "get_price": fact.KindInteger, "get_compliance_flag": fact.KindText}[c.Tool()]
		if !ok {
			return fact.NoObservation(kind), nil
		}
		switch c.Tool() {
		case "get_stock_state":
			return fact.Text(string(e.State)), []string{e.ID}
		case "get_price":
			return fact.Integer(e.PriceCents, "cents"), []string{e.ID}
		}
		return fact.Text(string(e.Flag)), []string{e.ID}
	case "count_stores_with_condition":
		var stores []string
		for _, s := range d.Stores {
			met := false
			for _, p := range d.Products {
				if e, ok := oracleLatest(d, s.ID, p.ID, asOf); ok && oracleMeets(c.Arg("condition"), e) {
					ids = append(ids, e.ID)
					met = true
				}
			}
			if met {
				stores = append(stores, s.ID)
			}
		}
		slices.Sort(ids)
		return fact.EntityCount("store_ids", stores), ids
	case "list_products_in_state":
		var products []string
		for _, p := range d.Products {
			if e, ok := oracleLatest(d, c.Arg("store_id"), p.ID, asOf); ok && string(e.State) == c.Arg("state") {
				ids = append(ids, e.ID)
				products = append(products, p.ID)
			}
		}
		slices.Sort(ids)
		return fact.EntityList("product_ids", products), ids
	case "count_events_in_window":
		for _, e := range d.Events {
			if e.StoreID == c.Arg("store_id") && string(e.State) == c.Arg("state") &&
				c.Arg("start") <= e.Timestamp && e.Timestamp < c.Arg("end") {
				ids = append(ids, e.ID)
			}
		}
		slices.Sort(ids)
		return fact.RowCount(len(ids)), ids
	}
	panic("oracle: unknown tool " + c.Tool())
}

// TestAgreement_EngineOracle checks, on random store files and random
// calls, that the engine Open builds over the imported store file (the
// retail catalog's shapes, held in memory) accepts every in-domain call, that
// its resolver passes every executor result on all three clauses, and
// that both agree with a linear-scan oracle written here in terms of the
// store file.
func TestAgreement_EngineOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := drawDataset(t)
		e, err := engine.Open(context.Background(), d, enginetest.OpenDuckDB, &engine.Options{ProvenanceLimit: 1000})
		if err != nil {
			t.Fatalf("engine.Open() error = %v", err)
		}
		defer e.Close()
		calls := rapid.IntRange(1, 8).Draw(t, "calls")
		// A caller may see every store, or a random subset of them.
		scope, visible := tool.AllStores(), d
		if rapid.Bool().Draw(t, "scoped") {
			var ids []string
			for _, st := range d.Stores {
				if rapid.Bool().Draw(t, "in scope "+st.ID) {
					ids = append(ids, st.ID)
				}
			}
			scope, visible = tool.StoresOnly(ids...), only(d, ids)
		}
		ctx := pipeline.WithScope(context.Background(), scope)
		w := tool.NewWall(e.Registry, nil)
		for range calls {
			p := drawProposal(t, d)
			a := e.Pipeline.Call(ctx, p)
			if store, ok := p.Params["store_id"].(string); ok && !scope.Allows(store) {
				if kind, rejected := a.Rejection(); !rejected || kind != tool.OutOfScope {
					t.Fatalf("store %s outside scope %v: got %s %v, want out_of_scope", store, scope.Stores(), a.Outcome(), kind)
				}
				continue
			}
			if a.Outcome() != answer.Answered && a.Outcome() != answer.Absence {
				t.Fatalf("%s %v: outcome %s, reason %+v", p.Tool, p.Params, a.Outcome(), a.Reason())
			}
			c, err := w.Check(p)
			if err != nil {
				t.Fatalf("wall rejected in-domain proposal %s %v: %v", p.Tool, p.Params, err)
			}
			wantValue, wantIDs := oracle(visible, c)
			v, _ := a.Verdict()
			if !v.OK() || v.Enumerated != len(wantIDs) {
				t.Fatalf("%s %v: verdict %+v, want all clauses and %d enumerated", c.Tool(), c.Args(), v, len(wantIDs))
			}
			checkAnswer(t, d, c, a, wantValue, wantIDs)
		}
	})
}

// checkAnswer compares an answer with the oracle's.
func checkAnswer(t *rapid.T, d *retail.Dataset, c tool.Call, a answer.Answer, wantValue fact.Value, wantIDs []string) {
	t.Helper()
	if a.Tool() != c.Tool() || !maps.Equal(a.Args(), c.Args()) {
		t.Errorf("answer names %s %v, want the call %s %v", a.Tool(), a.Args(), c.Tool(), c.Args())
	}
	if v, _ := a.Value(); !v.Equal(wantValue) {
		t.Errorf("%s %v: value %+v, oracle %+v", c.Tool(), c.Args(), v, wantValue)
	}
	prov, _ := a.Provenance()
	gotIDs := prov.EventIDs()
	abs, absent := prov.Absence()
	if len(wantIDs) > 0 {
		if absent || !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("%s %v: provenance events %v (absence %v), oracle %v", c.Tool(), c.Args(), gotIDs, absent, wantIDs)
		}
		return
	}
	if !absent || len(gotIDs) != 0 {
		t.Fatalf("%s %v: provenance events %v (absence %v), oracle finds none", c.Tool(), c.Args(), gotIDs, absent)
	}
	wantWindow := []string{c.Arg("as_of")}
	if c.Tool() == "count_events_in_window" {
		wantWindow = []string{c.Arg("start"), c.Arg("end")}
	}
	wantFilter := c.Args()
	for _, k := range []string{"as_of", "start", "end"} {
		delete(wantFilter, k)
	}
	if abs.Tool != c.Tool() || abs.DatasetVersion != d.Version || !slices.Equal(abs.Window, wantWindow) || !maps.Equal(abs.Filter, wantFilter) {
		t.Errorf("%s %v: absence %+v, want tool %s, version %s, window %v, filter %v",
			c.Tool(), c.Args(), abs, c.Tool(), d.Version, wantWindow, wantFilter)
	}
}

// only is d with the events of stores outside ids removed: what a scoped
// caller may see, for the oracle.
func only(d *retail.Dataset, ids []string) *retail.Dataset {
	v := *d
	v.Events = nil
	for _, e := range d.Events {
		if slices.Contains(ids, e.StoreID) {
			v.Events = append(v.Events, e)
		}
	}
	return &v
}
