package phrase_test

import (
	"fmt"
	"time"

	"github.com/provenant/provenant/phrase"
)

func Example() {
	p, _ := phrase.Compile("what('s| is) the status of {device_id} (as of|at) {as_of}")
	args, ok := p.Match("What's the status of dev-0042 as of 2026-01-06T08:00:00Z?")
	fmt.Println(ok, args["device_id"], args["as_of"])

	t, _ := phrase.ParseTemplate("{count:device needs|devices need} attention as of {as_of}: {ids}.")
	fmt.Println(t.Render(phrase.Fill{Args: args, IDs: []string{"dev-0007", "dev-0042"}, Count: 2}))
	// Output:
	// true dev-0042 2026-01-06T08:00:00Z
	// 2 devices need attention as of 2026-01-06T08:00:00Z: dev-0007, dev-0042.
}

// A parser reads questions as people ask them against declared
// vocabulary: keywords, an entity's nouns, ids and names, values and
// their synonyms, and time against an explicit clock.
func ExampleParser_Parse() {
	depot := phrase.Slot{Name: "depot_id", Kind: phrase.SlotEntity, Entity: "depot", Nouns: []string{"depot"},
		Pattern: `^dp-[0-9]{2}$`, IDs: []phrase.Named{{ID: "dp-01", Name: "North"}, {ID: "dp-02", Name: "North Annex"}}}
	status := phrase.Slot{Name: "status", Kind: phrase.SlotEnum,
		Values: []phrase.Value{{Value: "LOST", Synonyms: []string{"lost", "missing"}}, {Value: "DELIVERED", Synonyms: []string{"delivered"}}}}
	p, _ := phrase.NewParser(phrase.Vocabulary{Tools: []phrase.ToolVocab{
		{Name: "list_parcels", Keywords: []string{"parcels"},
			Slots: []phrase.Slot{depot, status, {Name: "as_of", Kind: phrase.SlotInstant}}},
		{Name: "count_scans", Keywords: []string{"how many scans"},
			Slots: []phrase.Slot{depot, {Name: "start", Kind: phrase.SlotStart}, {Name: "end", Kind: phrase.SlotEnd}}},
	}})
	now := time.Date(2026, 3, 15, 18, 30, 0, 0, time.UTC)
	for _, q := range []string{
		"Which parcels are missing at North Annex?",
		"how many scans at depot 1 last week",
		"which parcels are missing?",
		"how many scans at Nowhere today",
	} {
		got, err := p.Parse(q, now)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(got)
	}
	// Output:
	// list_parcels as_of=2026-03-15T18:30:00Z depot_id=dp-02 status=LOST
	// count_scans depot_id=dp-01 end=2026-03-09T00:00:00Z start=2026-03-02T00:00:00Z
	// missing_slot: depot (the question names no depot)
	// unknown_name: depot (the question names no declared depot)
}
