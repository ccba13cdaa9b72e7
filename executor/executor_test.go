package executor_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/provenant/provenant/executor"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/tool"
)

type call struct {
	tool   string
	params map[string]any
}

// The fixture (retail/storetest): st-001/pr-001 has a tie at 09:00
// (evt-000003 LOW_STOCK, evt-000004 OUT_OF_STOCK + EXPIRED_PRODUCT);
// st-001/pr-002 is OUT_OF_STOCK + PRICE_MISMATCH from 08:30; st-002/pr-001
// is OUT_OF_STOCK from 10:00 on day 1 and IN_STOCK from day 2; st-003 has
// no scans.
var cases = []struct {
	name   string
	call   call
	value  fact.Value
	events []string // nil: an absence
}{
	{"state, tie goes to the higher id", call{retail.GetStockState, map[string]any{"store_id": "st-001", "product_id": "pr-001", "as_of": "2026-01-01T09:00:00Z"}},
		fact.Text("OUT_OF_STOCK"), []string{"evt-000004"}},
	{"state, as_of inclusive", call{retail.GetStockState, map[string]any{"store_id": "st-001", "product_id": "pr-001", "as_of": "2026-01-01T08:00:00Z"}},
		fact.Text("IN_STOCK"), []string{"evt-000001"}},
	{"state, before the first scan", call{retail.GetStockState, map[string]any{"store_id": "st-001", "product_id": "pr-001", "as_of": "2026-01-01T07:59:59Z"}},
		fact.NoObservation(fact.KindText), nil},
	{"price", call{retail.GetPrice, map[string]any{"store_id": "st-002", "product_id": "pr-001", "as_of": "2026-01-05T00:00:00Z"}},
		fact.Integer(310, "cents"), []string{"evt-000006"}},
	{"price, pair never scanned", call{retail.GetPrice, map[string]any{"store_id": "st-003", "product_id": "pr-001", "as_of": "2026-01-05T00:00:00Z"}},
		fact.NoObservation(fact.KindInteger), nil},
	{"flag", call{retail.GetComplianceFlag, map[string]any{"store_id": "st-001", "product_id": "pr-002", "as_of": "2026-01-05T00:00:00Z"}},
		fact.Text("PRICE_MISMATCH"), []string{"evt-000002"}},
	{"count, several events in one store", call{retail.CountStoresWithCondition, map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-01T10:00:00Z"}},
		fact.EntityCount("store_ids", []string{"st-001", "st-002"}), []string{"evt-000002", "evt-000004", "evt-000005"}},
	{"count, a later scan clears a store", call{retail.CountStoresWithCondition, map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-03T00:00:00Z"}},
		fact.EntityCount("store_ids", []string{"st-001"}), []string{"evt-000002", "evt-000004"}},
	{"count, flag condition", call{retail.CountStoresWithCondition, map[string]any{"condition": "NON_COMPLIANT", "as_of": "2026-01-03T00:00:00Z"}},
		fact.EntityCount("store_ids", []string{"st-001"}), []string{"evt-000002", "evt-000004"}},
	{"count, zero", call{retail.CountStoresWithCondition, map[string]any{"condition": "LOW_STOCK", "as_of": "2026-01-03T00:00:00Z"}},
		fact.EntityCount("store_ids", nil), nil},
	{"list", call{retail.ListProductsInState, map[string]any{"store_id": "st-001", "state": "OUT_OF_STOCK", "as_of": "2026-01-03T00:00:00Z"}},
		fact.EntityList("product_ids", []string{"pr-001", "pr-002"}), []string{"evt-000002", "evt-000004"}},
	{"list, store never scanned", call{retail.ListProductsInState, map[string]any{"store_id": "st-003", "state": "IN_STOCK", "as_of": "2026-01-03T00:00:00Z"}},
		fact.EntityList("product_ids", nil), nil},
	{"window counts every scan, start inclusive", call{retail.CountEventsInWindow, map[string]any{"store_id": "st-001", "state": "OUT_OF_STOCK", "start": "2026-01-01T08:30:00Z", "end": "2026-01-02T00:00:00Z"}},
		fact.RowCount(2), []string{"evt-000002", "evt-000004"}},
	{"window, end exclusive", call{retail.CountEventsInWindow, map[string]any{"store_id": "st-001", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T09:00:00Z"}},
		fact.RowCount(1), []string{"evt-000002"}},
	{"window, empty", call{retail.CountEventsInWindow, map[string]any{"store_id": "st-001", "state": "OUT_OF_STOCK", "start": "2026-01-01T09:00:00Z", "end": "2026-01-01T09:00:00Z"}},
		fact.RowCount(0), nil},
}

func TestExecute(t *testing.T) {
	d := storetest.Fixture()
	wall := tool.NewWall(retail.Registry(), retail.DeclaredIDs(d))
	for _, every := range []int{0, 1, 2, 5} { // 0: the default interval
		x := executor.New(d, &executor.Options{CheckpointEvery: every})
		for _, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				c, err := wall.Check(tool.Proposal{Tool: tt.call.tool, Params: tt.call.params})
				if err != nil {
					t.Fatal(err)
				}
				r, err := x.Execute(t.Context(), c)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Value.Equal(tt.value) {
					t.Errorf("checkpoint every %d: value = %+v, want %+v", every, r.Value, tt.value)
				}
				if got := r.Provenance.EventIDs(); !slices.Equal(got, tt.events) {
					t.Errorf("checkpoint every %d: events = %v, want %v", every, got, tt.events)
				}
				if a, absent := r.Provenance.Absence(); absent != (tt.events == nil) || absent && (a.DatasetVersion != d.Version || a.Tool != tt.call.tool) {
					t.Errorf("checkpoint every %d: absence = %+v (%t)", every, a, absent)
				}
			})
		}
	}
}

// TestExecute_Concurrent runs every case from many goroutines at once (the
// sweep shares pooled scratch space) and checks each against its serial
// answer; run under -race in CI.
func TestExecute_Concurrent(t *testing.T) {
	d := storetest.Fixture()
	wall := tool.NewWall(retail.Registry(), retail.DeclaredIDs(d))
	x := executor.New(d, &executor.Options{CheckpointEvery: 2})
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				tt := cases[(g+i)%len(cases)]
				c, err := wall.Check(tool.Proposal{Tool: tt.call.tool, Params: tt.call.params})
				if err != nil {
					t.Error(err)
					return
				}
				r, err := x.Execute(t.Context(), c)
				if err != nil || !r.Value.Equal(tt.value) || !slices.Equal(r.Provenance.EventIDs(), tt.events) {
					t.Errorf("%s: got %+v %v (%v)", tt.name, r.Value, r.Provenance.EventIDs(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
