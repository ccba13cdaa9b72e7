package catalog_test

import (
	"fmt"
	"strings"

	"github.com/provenant/provenant/catalog"
)

func ExampleLoad() {
	const src = `name: shop
version: "1"
scope_entity: store
datasets:
  - name: scans
    table: events
    key: event_id
    time: ts
    series: [store]
    entities:
      - {name: store, column: store_id, pattern: '^st-[0-9]{3}$'}
    attributes:
      - {name: state, column: state, values: [IN_STOCK, OUT_OF_STOCK]}
    conditions:
      - {name: OUT_OF_STOCK, atribute: state, op: eq, value: OUT_OF_STOCK}
tools: []
`
	_, err := catalog.Load(strings.NewReader(src), "shop.yaml")
	fmt.Println(err)
	// Output:
	// shop.yaml:15:30: unknown key `atribute`; did you mean `attribute`?
}
