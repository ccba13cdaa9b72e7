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

// A derived metric's expression is parsed into a closed tree: metric
// names, numbers and + - * /, never SQL text.
func ExampleParseExpr() {
	e, err := catalog.ParseExpr("fault_count / (observed_time / 3600)")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e, e.Metrics())
	v, _ := e.Eval(func(m string) (float64, bool) {
		return map[string]float64{"fault_count": 2, "observed_time": 25200}[m], true
	})
	fmt.Printf("%.4f faults per hour\n", v)
	_, err = catalog.ParseExpr("fault_count; DROP TABLE events")
	fmt.Println(err)
	// Output:
	// (fault_count / (observed_time / 3600)) [fault_count observed_time]
	// 0.2857 faults per hour
	// expression: unexpected character at character 12
}
