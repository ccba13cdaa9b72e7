package tool_test

import (
	"fmt"

	"github.com/provenant/provenant/tool"
)

// The wall turns an untrusted proposal into a validated call, or into one
// of three typed rejections that never repeat the offending value.
func ExampleWall_Check() {
	wall := tool.NewWall(tool.Catalog{
		Stores:   map[string]bool{"st-003": true},
		Products: map[string]bool{"pr-007": true},
	})
	proposals := []tool.Proposal{
		{Tool: "get_price", Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
		{Tool: "get_revenue", Params: map[string]any{"store_id": "st-003"}},
		{Tool: "get_price", Params: map[string]any{"store_id": "st-003' OR '1'='1", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
		{Tool: "get_price", Params: map[string]any{"store_id": "banana", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}},
	}
	for _, p := range proposals {
		c, err := wall.Check(p)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("valid:", c.Tool(), c.Arg("store_id"))
	}
	// Output:
	// valid: get_price st-003
	// reject call: unregistered: tool is not on the menu
	// reject call: raw_query: parameter store_id carries query syntax
	// reject call: invalid: parameter store_id is not a store id (st- and 3 digits)
}
