package phrase

import (
	"errors"
	"maps"
	"testing"
)

// volumes is parcels with a metric-like tool: a measure named by phrases,
// lists of groupings and of filters, an optional grain and a window.
func volumes() Vocabulary {
	v := parcels()
	v.Tools = append(v.Tools, ToolVocab{
		Name:     "query_volume",
		Keywords: []string{"parcel volume", "throughput"},
		Slots: []Slot{
			{Name: "measure", Kind: SlotEnum, Values: []Value{{"volume", []string{"parcel volume", "throughput"}}}},
			{Name: "dimensions", Kind: SlotEnumList, Values: []Value{
				{"depot", []string{"by depot", "per depot"}}, {"carrier", []string{"by carrier", "per carrier"}}}},
			{Name: "filters", Kind: SlotFilters, Dims: []Dim{
				{Name: "depot", Entity: "depot"},
				{Name: "carrier", Values: []Value{{"FASTCO", []string{"fastco"}}, {"SLOWCO", []string{"slowco", "slow co"}}}}}},
			{Name: "start", Kind: SlotStart}, {Name: "end", Kind: SlotEnd},
			{Name: "grain", Kind: SlotEnum, Optional: true, Values: []Value{{"day", []string{"daily", "per day"}}}},
		},
	})
	return v
}

func TestParse_Lists(t *testing.T) {
	p, err := NewParser(volumes())
	if err != nil {
		t.Fatal(err)
	}
	win := func(kv ...string) map[string]string {
		m := map[string]string{"measure": "volume", "start": "2026-03-02T00:00:00Z", "end": "2026-03-09T00:00:00Z"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		q      string
		params map[string]string
		kind   AbstentionKind
		slot   string
	}{
		{q: "parcel volume last week", params: win()},
		{q: "throughput by depot last week", params: win("dimensions", `["depot"]`)},
		{q: "throughput per carrier and by depot last week", params: win("dimensions", `["carrier","depot"]`)},
		{q: "throughput by depot by depot last week", params: win("dimensions", `["depot"]`)},
		{q: "daily throughput at dp-03 last week", params: win("grain", "day", "filters", `[{"dimension":"depot","op":"eq","values":["dp-03"]}]`)},
		{q: "throughput at South for slow co last week", params: win("filters",
			`[{"dimension":"depot","op":"eq","values":["dp-03"]},{"dimension":"carrier","op":"eq","values":["SLOWCO"]}]`)},
		{q: "throughput at depot 1 and hub 3 last week", params: win("filters", `[{"dimension":"depot","op":"in","values":["dp-01","dp-03"]}]`)},
		{q: "throughput this month", params: win("start", "2026-03-01T00:00:00Z", "end", "2026-03-15T18:30:00Z")},
		{q: "throughput last month", params: win("start", "2026-02-01T00:00:00Z", "end", "2026-03-01T00:00:00Z")},
		// A list's bare value is not a grouping.
		{q: "throughput depot last week", kind: NotUnderstood},
		{q: "throughput by depot", kind: MissingSlot, slot: "window"},
		{q: "throughput at Harbour last week", kind: Ambiguous, slot: "depot"},
		{q: "throughput at depot Atlantis last week", kind: UnknownName, slot: "depot"},
		{q: "throughput at depot 9 last week", kind: UnknownName, slot: "depot"},
		{q: "throughput by weather last week", kind: NotUnderstood},
		{q: "throughput of pc-0001 last week", kind: NotUnderstood},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			got, err := p.Parse(tt.q, now)
			if tt.kind != "" {
				var a *Abstention
				if !errors.As(err, &a) || a.Kind != tt.kind || a.Slot != tt.slot {
					t.Fatalf("Parse(%q) = %v, %v; want %s %s", tt.q, got, err, tt.kind, tt.slot)
				}
				return
			}
			if err != nil || got.Tool != "query_volume" || !maps.Equal(got.Params, tt.params) {
				t.Errorf("Parse(%q) = %v, %v\n want %v", tt.q, got, err, tt.params)
			}
		})
	}
}
