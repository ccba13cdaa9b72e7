package ledger_test

import (
	"testing"
	"time"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/tool"
)

// TestNumerals_Table: a metric table's ledger holds every number cell in
// its unit (a share as a ratio, so a sentence may cite it as a percent),
// every dimension value as an identifier and every bucket as an instant;
// the table sentence the code writes passes grounding against it, and a
// number the table does not hold is refused.
func TestNumerals_Table(t *testing.T) {
	def, ok := catalogstest.WarehouseMenu().Lookup("query_metric")
	if !ok {
		t.Fatal("the warehouse menu has no query_metric")
	}
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	tb, err := fact.NewTable([]fact.Column{
		{Name: "zone", Type: fact.CellText}, {Name: "bucket", Type: fact.CellInstant}, {Name: "value", Type: fact.CellNumber, Unit: "share"},
	}, [][]fact.Cell{
		{fact.TextCell("zone-01"), fact.InstantCell(day), fact.NumberCell(0.65625)},
		{fact.TextCell("zone-02"), fact.InstantCell(day), fact.NumberCell(4.0 / 7)},
		{fact.TextCell("zone-03"), fact.InstantCell(day), fact.NullCell()},
	})
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]string{"metric": "availability", "dimensions": `["zone"]`, "grain": "day",
		"filters": `[{"dimension":"device","op":"not_in","values":["dev-0007"]}]`,
		"start":   "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}
	r := result(t, "query_metric", args, fact.TableValue(tb), []string{"w01", "w02"})
	nums := ledger.Numerals(r, def)
	has := func(n grounding.Numeral) bool {
		for _, m := range nums {
			if m == n {
				return true
			}
		}
		return false
	}
	for _, want := range []grounding.Numeral{
		{Value: 0.65625, Unit: grounding.UnitRatio},
		{Value: 4.0 / 7, Unit: grounding.UnitRatio},
		{Unit: grounding.UnitID, ID: "zone-02"},
		{Unit: grounding.UnitID, ID: "dev-0007"},
		{Value: float64(day.Unix()), Unit: grounding.UnitTimestamp},
	} {
		if !has(want) {
			t.Errorf("ledger lacks %+v: %+v", want, nums)
		}
	}
	led := ledger.New(&ledger.Sequence{})
	led.Record(r, def)
	text := tool.Sentence(def, args, r.Value)
	const want = "availability by zone per day where device not in dev-0007 from 2026-01-05T00:00:00Z to 2026-01-06T00:00:00Z: zone-01 2026-01-05T00:00:00Z 65.63%; zone-02 2026-01-05T00:00:00Z 57.14%; zone-03 2026-01-05T00:00:00Z no value."
	if text != want {
		t.Errorf("sentence\n%s\nwant\n%s", text, want)
	}
	if rep := grounding.Check(text, led.Grounding(), "", grounding.DefaultPolicy()); rep.Verdict != grounding.Pass {
		t.Errorf("grounding of the code's sentence: %+v", rep)
	}
	if rep := grounding.Check("Availability in zone-02 was 61.2%.", led.Grounding(), "", grounding.DefaultPolicy()); rep.Verdict != grounding.Refuse {
		t.Errorf("a share the table does not hold passed grounding: %+v", rep)
	}
	if rep := grounding.Check("Availability in zone-02 was 57%.", led.Grounding(), "", grounding.DefaultPolicy()); rep.Verdict != grounding.Pass {
		t.Errorf("a share cited as a whole percent: %+v", rep)
	}
}

func TestFormatMeasure(t *testing.T) {
	tests := []struct {
		x    float64
		unit string
		want string
	}{
		{0.65625, "share", "65.63%"},
		{4.0 / 7, "share", "57.14%"},
		{0.0001234, "share", "0.01234%"},
		{1, "share", "100%"},
		{0, "share", "0%"},
		{13, "count", "13"},
		{3600, "seconds", "3600 seconds"},
		{123456.7, "seconds", "123457 seconds"},
		{2.5, "", "2.5"},
		{-0.125, "", "-0.125"},
	}
	for _, tt := range tests {
		if got := tool.FormatMeasure(tt.x, tt.unit); got != tt.want {
			t.Errorf("FormatMeasure(%v, %q) = %q, want %q", tt.x, tt.unit, got, tt.want)
		}
	}
}
