package ledger_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

func result(t *testing.T, tool string, args map[string]string, v fact.Value, ids []string) fact.Result {
	t.Helper()
	var p fact.Provenance
	if len(ids) == 0 {
		p = fact.Absent(fact.Absence{Tool: tool})
	} else {
		var err error
		if p, err = fact.Events(ids); err != nil {
			t.Fatal(err)
		}
	}
	r, err := fact.NewResult(tool, args, v, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// def returns the retail tool named name.
func def(t *testing.T, name string) tool.Def {
	t.Helper()
	d, ok := retail.Registry().Lookup(name)
	if !ok {
		t.Fatalf("tool %s is not registered", name)
	}
	return d
}

func TestAllocator_NeverReuses(t *testing.T) {
	a := ledger.NewAllocator(nil)
	seen := sync.Map{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				if _, dup := seen.LoadOrStore(a.Next(), true); dup {
					t.Error("result id reused")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestNumerals(t *testing.T) {
	price := result(t, "get_price", map[string]string{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"},
		fact.Integer(781, "cents"), []string{"evt-002357"})
	count := result(t, "count_stores_with_condition", map[string]string{"condition": "EXPIRED", "as_of": "2026-01-06T08:00:00Z"},
		fact.EntityCount("store_ids", []string{"st-001", "st-002"}), []string{"evt-000001", "evt-000002", "evt-000003"})
	window := result(t, "count_events_in_window", map[string]string{"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"},
		fact.RowCount(0), nil)
	// A tool of another domain: the numerals follow the value's kind and
	// the parameters' kinds, not the retail names.
	zoneDef := tool.Def{Name: "get_battery", Value: fact.KindNumber, Unit: "percent", Params: []tool.Param{
		{Name: "device", Kind: tool.EntityID, Entity: "device", Pattern: `^dv-[0-9]{4}$`, Hint: "dv- and 4 digits"},
		{Name: "store_id", Kind: tool.Enum, Values: []string{"st-003"}},
		{Name: "as_of", Kind: tool.Timestamp},
	}}
	pct, err := fact.Number(41.5, "percent")
	if err != nil {
		t.Fatal(err)
	}
	battery := result(t, "get_battery", map[string]string{"device": "dv-0042", "store_id": "st-003", "as_of": "2026-01-06T08:00:00Z"},
		pct, []string{"evt-000042"})
	tests := []struct {
		name string
		r    fact.Result
		def  tool.Def // zero: the retail tool of r
		want []grounding.Numeral
		not  []grounding.Numeral
	}{
		{"number in its unit, ids by parameter kind", battery, zoneDef, []grounding.Numeral{
			{Value: 41.5, Unit: grounding.UnitPercent}, {Unit: grounding.UnitID, ID: "dv-0042"}, {Unit: grounding.UnitID, ID: "evt-000042"}},
			[]grounding.Numeral{{Unit: grounding.UnitID, ID: "st-003"}}},
		{"price", price, tool.Def{}, []grounding.Numeral{
			{Value: 781, Unit: grounding.UnitCents}, {Unit: grounding.UnitID, ID: "st-003"}, {Unit: grounding.UnitID, ID: "pr-007"},
			{Unit: grounding.UnitID, ID: "evt-002357"}, {Value: 1767686400, Unit: grounding.UnitTimestamp},
			{Unit: grounding.UnitTimestamp, Window: [2]string{"2026-01-06T08:00:00Z", "2026-01-06T08:00:00Z"}}}, nil},
		{"count", count, tool.Def{}, []grounding.Numeral{
			{Value: 2, Unit: grounding.UnitCount}, {Value: 3, Unit: grounding.UnitCount},
			{Unit: grounding.UnitID, ID: "st-001"}, {Unit: grounding.UnitID, ID: "st-002"}}, nil},
		{"empty window", window, tool.Def{}, []grounding.Numeral{
			{Value: 0, Unit: grounding.UnitCount},
			{Unit: grounding.UnitTimestamp, Window: [2]string{"2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"}}},
			[]grounding.Numeral{{Value: 1, Unit: grounding.UnitCount}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.def
			if d.Name == "" {
				d = def(t, tt.r.Tool)
			}
			got := ledger.Numerals(tt.r, d)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing %+v in %+v", w, got)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("unexpected %+v", n)
				}
			}
		})
	}
}

func TestLedger_RecordsOnlyWhatItIsGiven(t *testing.T) {
	var a ledger.Sequence
	l := ledger.New(&a)
	if len(l.Grounding().Numerals) != 0 || len(l.IDs()) != 0 {
		t.Fatal("a new ledger is not empty")
	}
	e := l.Record(result(t, "get_price", map[string]string{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"},
		fact.Integer(781, "cents"), []string{"evt-002357"}), def(t, "get_price"))
	if e.ID != "res-000001" || !slices.Equal(l.IDs(), []string{"res-000001"}) {
		t.Errorf("ids %v, entry %s", l.IDs(), e.ID)
	}
	rep := grounding.Check("The price of pr-007 at st-003 is $7.81.", l.Grounding(), "", grounding.StrictPolicy())
	if rep.Verdict != grounding.Pass {
		t.Errorf("a sentence citing the ledger was refused: %+v", rep)
	}
	rep = grounding.Check("The price of pr-007 at st-003 is $8.71.", l.Grounding(), "", grounding.StrictPolicy())
	if rep.Verdict != grounding.Refuse {
		t.Errorf("a transposed price passed: %+v", rep)
	}
}
