package phrase

import (
	"encoding/json"
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

// FuzzParse_Lists: with list slots, any question parses to a call whose
// lists are JSON arrays of declared values, or abstains with an
// *Abstention; it never panics.
func FuzzParse_Lists(f *testing.F) {
	for _, s := range []string{"throughput by depot last week", "daily throughput at dp-03 and North for slowco this month",
		"throughput at depot 1 and hub 3 last week", "throughput by by depot", "throughput at depot \" last week",
		"parcel volume per carrier per depot between 2026-03-01 and 2026-03-02"} {
		f.Add(s)
	}
	p, err := NewParser(volumes())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, err := p.Parse(q, now)
		if err != nil {
			if _, ok := errors.AsType[*Abstention](err); !ok {
				t.Fatalf("Parse(%q): %v is not an *Abstention", q, err)
			}
			return
		}
		if v, ok := got.Params["dimensions"]; ok {
			var dims []string
			if err := json.Unmarshal([]byte(v), &dims); err != nil || len(dims) == 0 {
				t.Fatalf("Parse(%q): dimensions %q is not a JSON array of names", q, v)
			}
			for _, d := range dims {
				if d != "depot" && d != "carrier" {
					t.Fatalf("Parse(%q): dimension %q is not declared", q, d)
				}
			}
		}
		if v, ok := got.Params["filters"]; ok {
			var fs []struct {
				Dimension string
				Op        string
				Values    []string
			}
			if err := json.Unmarshal([]byte(v), &fs); err != nil || len(fs) == 0 {
				t.Fatalf("Parse(%q): filters %q is not a JSON array of filters", q, v)
			}
			for _, f := range fs {
				if (f.Op == "eq") != (len(f.Values) == 1) || f.Op != "eq" && f.Op != "in" {
					t.Fatalf("Parse(%q): filter %+v", q, f)
				}
			}
		}
	})
}
