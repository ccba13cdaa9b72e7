package tool_test

import (
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/phrase"
	"github.com/provenant/provenant/tool"
)

// TestVocabulary_FromCatalog: the parser's vocabulary comes from the
// registry: keywords, yes/no values, nouns, names (after WithNames),
// synonyms, and the time slots by name.
func TestVocabulary_FromCatalog(t *testing.T) {
	reg := catalogstest.Retail().WithNames(map[string]map[string]string{"store": {"st-003": "Riverside", "st-001": "Downtown"}})
	v := tool.Vocabulary(reg.Menu())
	byName := map[string]phrase.ToolVocab{}
	for _, tv := range v.Tools {
		byName[tv.Name] = tv
	}
	st := byName["get_stock_state"]
	if len(st.Keywords) == 0 || len(st.Asks) != 4 || st.Asks[0].Value != "IN_STOCK" || len(st.Asks[0].Synonyms) == 0 {
		t.Errorf("get_stock_state: keywords %v, asks %v", st.Keywords, st.Asks)
	}
	var store, product phrase.Slot
	for _, s := range st.Slots {
		switch s.Name {
		case "store_id":
			store = s
		case "product_id":
			product = s
		}
	}
	if store.Kind != phrase.SlotEntity || store.Entity != "store" || len(store.Nouns) == 0 ||
		len(store.IDs) != 2 || store.IDs[0] != (phrase.Named{ID: "st-001", Name: "Downtown"}) {
		t.Errorf("store slot = %+v", store)
	}
	if product.IDs != nil {
		t.Errorf("product slot has names %v; none were given", product.IDs)
	}
	w := byName["count_events_in_window"]
	kinds := map[string]phrase.SlotKind{}
	for _, s := range w.Slots {
		kinds[s.Name] = s.Kind
	}
	if kinds["start"] != phrase.SlotStart || kinds["end"] != phrase.SlotEnd || kinds["state"] != phrase.SlotEnum {
		t.Errorf("window slots = %v", kinds)
	}
	c := byName["count_stores_with_condition"]
	if s := c.Slots[0]; s.Kind != phrase.SlotEnum || len(s.Values) != 5 || len(s.Values[0].Synonyms) == 0 {
		t.Errorf("condition slot = %+v", s)
	}
	if d, _ := catalogstest.Retail().Lookup("get_stock_state"); d.Params[0].Names != nil {
		t.Error("WithNames changed the registry it was called on")
	}
}

// TestCheckSentence: a yes/no question's sentence says yes or no and
// names the observed value; without an observation it is the tool's
// sentence.
func TestCheckSentence(t *testing.T) {
	d, _ := catalogstest.Retail().Lookup("get_stock_state")
	args := map[string]string{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}
	tests := []struct {
		v     fact.Value
		asked string
		want  string
	}{
		{fact.Text("IN_STOCK"), "IN_STOCK", "Yes: the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z is IN_STOCK."},
		{fact.Text("OVERSTOCK"), "IN_STOCK", "No: the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z is OVERSTOCK."},
		{fact.NoObservation(fact.KindText), "IN_STOCK", "No scan of pr-007 at st-003 was recorded at or before 2026-01-06T08:00:00Z, so its stock state is not known."},
		{fact.Text("LOW_STOCK"), "", "The stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z is LOW_STOCK."},
	}
	for _, tt := range tests {
		if got := tool.CheckSentence(d, args, tt.v, tt.asked); got != tt.want {
			t.Errorf("CheckSentence(%v, %q) = %q, want %q", tt.v, tt.asked, got, tt.want)
		}
	}
}
