package toolcall_test

import (
	"fmt"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider/internal/toolcall"
	"github.com/provenant/provenant/tool"
)

// A proposal whose store id fails its pattern earns the model one retry,
// told what is wrong; the value itself is never repeated.
func ExampleCheck() {
	menu := catalogstest.Retail().Menu()
	p := tool.Proposal{Tool: "get_price", Params: toolcall.Args([]byte(`{"store_id":"store 3","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`))}
	err := toolcall.Check(menu, p)
	fmt.Println(err)
	// Output:
	// check proposal: tool get_price: parameter store_id must match ^st-[0-9]{3}$
}
