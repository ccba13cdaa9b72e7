package tool_test

import (
	"fmt"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// The wall turns an untrusted proposal into a validated call, or into one
// of three typed rejections that never repeat the offending value.
func ExampleWall_Check() {
	store := tool.Param{Name: "store_id", Kind: tool.EntityID, Description: "Store id.",
		Entity: "store", Pattern: `^st-[0-9]{3}$`, Hint: "st- and 3 digits"}
	product := tool.Param{Name: "product_id", Kind: tool.EntityID, Description: "Product id.",
		Entity: "product", Pattern: `^pr-[0-9]{3}$`, Hint: "pr- and 3 digits"}
	asOf := tool.Param{Name: "as_of", Kind: tool.Timestamp, Description: "Instant."}
	reg, err := tool.NewRegistry([]tool.Def{{Name: "get_price", Description: "Shelf price in cents.",
		Params: []tool.Param{store, product, asOf}, Value: fact.KindInteger, Unit: "cents"}}, "store")
	if err != nil {
		fmt.Println(err)
		return
	}
	wall := tool.NewWall(reg, map[string]map[string]bool{
		"store":   {"st-003": true},
		"product": {"pr-007": true},
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

// An array or object parameter is judged leaf by leaf and carried in the
// call as canonical JSON; a rejection names the item at fault.
func ExampleWall_Check_structured() {
	dims := tool.Param{Kind: tool.Enum, Values: []string{"zone", "device"}, Description: "A dimension."}
	reg, err := tool.NewRegistry([]tool.Def{{Name: "query", Description: "A table.", Value: fact.KindTable, Params: []tool.Param{
		{Name: "dimensions", Kind: tool.Array, Items: &dims, MaxItems: 2, Description: "Group by."},
		{Name: "limit", Kind: tool.Integer, Min: 0, Max: 100, Optional: true, Description: "At most."},
	}}}, "zone")
	if err != nil {
		fmt.Println(err)
		return
	}
	wall := tool.NewWall(reg, nil)
	for _, p := range []map[string]any{
		{"dimensions": []any{"zone", "device"}, "limit": 10.0},
		{"dimensions": []any{"zone", "shoe_size"}},
		{"dimensions": []any{"zone"}, "limit": 1000.0},
	} {
		c, err := wall.Check(tool.Proposal{Tool: "query", Params: p})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("valid:", c.Arg("dimensions"), c.Arg("limit"))
	}
	// Output:
	// valid: ["zone","device"] 10
	// reject call: invalid: parameter dimensions[1] is not one of zone, device
	// reject call: invalid: parameter limit must be between 0 and 100
}
