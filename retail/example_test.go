package retail_test

import (
	"fmt"
	"strings"

	"github.com/provenant/provenant/retail"
)

// Load fails closed, naming the record and the field but not the value.
func ExampleLoad() {
	_, err := retail.Load(strings.NewReader(`{"dataset_version": "v1",
		"stores": [{"store_id": "st-001", "name": "Downtown"}],
		"products": [{"product_id": "pr-001", "name": "Oat milk 1L", "category": "dairy"}],
		"events": [{"event_id": "evt-000001", "store_id": "st-001", "product_id": "pr-001",
			"timestamp": "2026-01-01T08:00:00Z", "state": "IN_STOCK", "price_cents": "2.99",
			"compliance_flag": "COMPLIANT"}]}`))
	fmt.Println(err)
	// Output: load store: events[0] (evt-000001): field price_cents: must be a non-negative JSON integer
}

// A condition is data: the states or flags that satisfy it.
func ExampleCondition_Match() {
	m := retail.CondNonCompliant.Match()
	fmt.Println(m.Flags)
	fmt.Println(m.Accepts(retail.Event{Flag: retail.ExpiredProduct}), m.Accepts(retail.Event{Flag: retail.Compliant}))
	// Output:
	// [PRICE_MISMATCH EXPIRED_PRODUCT PLANOGRAM_VIOLATION]
	// true false
}
