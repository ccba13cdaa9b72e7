// Package storetest holds the small hand-written store file that tests of
// the layers above the engine (the pipeline's, say) are stated over.
package storetest

import "github.com/provenant/provenant/retail"

// Fixture is the small hand-written dataset the contract is stated over.
// Pair (st-001, pr-001) has a timestamp tie at 09:00 (evt-000003 and
// evt-000004: the higher id is later).
func Fixture() *retail.Dataset {
	ev := func(id, store, product, ts string, s retail.State, f retail.Flag, cents int64) retail.Event {
		return retail.Event{ID: id, StoreID: store, ProductID: product, Timestamp: ts, State: s, Flag: f, PriceCents: cents}
	}
	return &retail.Dataset{
		Version:  "contract-v1",
		Stores:   []retail.Store{{ID: "st-001", Name: "A"}, {ID: "st-002", Name: "B"}, {ID: "st-003", Name: "C"}},
		Products: []retail.Product{{ID: "pr-001", Name: "X", Category: "c"}, {ID: "pr-002", Name: "Y", Category: "c"}},
		Events: []retail.Event{
			ev("evt-000001", "st-001", "pr-001", "2026-01-01T08:00:00Z", retail.InStock, retail.Compliant, 299),
			ev("evt-000002", "st-001", "pr-002", "2026-01-01T08:30:00Z", retail.OutOfStock, retail.PriceMismatch, 150),
			ev("evt-000003", "st-001", "pr-001", "2026-01-01T09:00:00Z", retail.LowStock, retail.Compliant, 299),
			ev("evt-000004", "st-001", "pr-001", "2026-01-01T09:00:00Z", retail.OutOfStock, retail.ExpiredProduct, 299),
			ev("evt-000005", "st-002", "pr-001", "2026-01-01T10:00:00Z", retail.OutOfStock, retail.Compliant, 310),
			ev("evt-000006", "st-002", "pr-001", "2026-01-02T10:00:00Z", retail.InStock, retail.Compliant, 310),
		},
	}
}
