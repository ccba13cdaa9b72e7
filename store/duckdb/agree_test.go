package duckdb_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/memstore"
)

// genDataset draws a small store whose timestamps come from a short list,
// so ties, boundary hits and empty pairs are common.
func genDataset(t *rapid.T) *retail.Dataset {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	nStores := rapid.IntRange(1, 3).Draw(t, "stores")
	nProducts := rapid.IntRange(1, 3).Draw(t, "products")
	d := &retail.Dataset{Version: "prop-v1"}
	for i := 1; i <= nStores; i++ {
		d.Stores = append(d.Stores, retail.Store{ID: fmt.Sprintf("st-%03d", i), Name: "s"})
	}
	for i := 1; i <= nProducts; i++ {
		d.Products = append(d.Products, retail.Product{ID: fmt.Sprintf("pr-%03d", i), Name: "p", Category: "c"})
	}
	spread := rapid.SampledFrom([]int{1, 60, 3600, 86400}).Draw(t, "spread") // seconds between slots
	n := rapid.IntRange(0, 40).Draw(t, "events")
	for i := 1; i <= n; i++ {
		d.Events = append(d.Events, retail.Event{
			ID:         fmt.Sprintf("evt-%06d", rapid.IntRange(1, 999999).Filter(func(id int) bool { return !hasID(d, id) }).Draw(t, "id")),
			StoreID:    rapid.SampledFrom(d.Stores).Draw(t, "store").ID,
			ProductID:  rapid.SampledFrom(d.Products).Draw(t, "product").ID,
			Timestamp:  base.Add(time.Duration(rapid.IntRange(0, 8).Draw(t, "slot")*spread) * time.Second).Format(retail.TimestampLayout),
			State:      rapid.SampledFrom(retail.States).Draw(t, "state"),
			Flag:       rapid.SampledFrom(retail.Flags).Draw(t, "flag"),
			PriceCents: int64(rapid.IntRange(0, 999).Draw(t, "price")),
		})
	}
	return d
}

func hasID(d *retail.Dataset, id int) bool {
	want := fmt.Sprintf("evt-%06d", id)
	return slices.ContainsFunc(d.Events, func(e retail.Event) bool { return e.ID == want })
}

func genSelection(t *rapid.T, d *retail.Dataset) retail.Selection {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	instant := func(label string) string {
		// Slots, their neighbours, and far outside the data.
		secs := rapid.SampledFrom([]int{-1, 0, 1, 59, 60, 61, 3599, 3600, 86400, 86401, 8 * 86400, 30 * 86400}).Draw(t, label)
		return base.Add(time.Duration(secs) * time.Second).Format(retail.TimestampLayout)
	}
	var s retail.Selection
	if rapid.Bool().Draw(t, "store?") {
		s.StoreID = rapid.SampledFrom(d.Stores).Draw(t, "sel store").ID
	}
	if rapid.Bool().Draw(t, "product?") {
		s.ProductID = rapid.SampledFrom(d.Products).Draw(t, "sel product").ID
	}
	switch rapid.IntRange(0, 2).Draw(t, "match") {
	case 1:
		s.Match.States = []retail.State{rapid.SampledFrom(retail.States).Draw(t, "match state")}
	case 2:
		s.Match = rapid.SampledFrom(retail.Conditions).Draw(t, "condition").Match()
	}
	if rapid.Bool().Draw(t, "latest?") {
		s.Latest, s.AsOf = true, instant("as_of")
	} else {
		s.Start, s.End = instant("start"), instant("end")
		if s.Start > s.End {
			s.Start, s.End = s.End, s.Start
		}
	}
	return s
}

// TestAgreesWithDuckDB: for random stores and selections, the memstore
// (built both ways) returns exactly the events DuckDB's SQL returns.
func TestAgreesWithDuckDB(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d := genDataset(rt)
		db, err := duckdb.Open(t.Context(), d)
		if err != nil {
			rt.Fatal(err)
		}
		defer db.Close()
		fromSQL, err := memstore.Load(t.Context(), db)
		if err != nil {
			rt.Fatal(err)
		}
		fromGo, err := memstore.FromDataset(d)
		if err != nil {
			rt.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			sel := genSelection(rt, d)
			want, err := db.Select(t.Context(), sel)
			if err != nil {
				rt.Fatal(err)
			}
			for name, s := range map[string]*memstore.Store{"sql intervals": fromSQL, "go intervals": fromGo} {
				got, err := s.Select(t.Context(), sel)
				if err != nil {
					rt.Fatal(err)
				}
				if !slices.Equal(got, want) {
					rt.Fatalf("%s: Select(%+v) = %v, duckdb = %v", name, sel, got, want)
				}
			}
		}
	})
}
