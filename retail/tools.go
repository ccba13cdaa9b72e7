package retail

import (
	"fmt"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// TEMPORARY (issue 8): the retail tools as Go data. The lead derives these
// definitions from catalogs/retail.yaml through package catalog and then
// deletes this file; nothing outside retail-specific code (the executor,
// the resolver, the rules provider, the demo's gold set and tests) may
// name a tool, and those reach the definitions through a tool.Registry.

// Tool names.
const (
	GetStockState            = "get_stock_state"
	GetPrice                 = "get_price"
	GetComplianceFlag        = "get_compliance_flag"
	CountStoresWithCondition = "count_stores_with_condition"
	ListProductsInState      = "list_products_in_state"
	CountEventsInWindow      = "count_events_in_window"
)

// ScopeEntity is the entity a caller's scope lists: stores.
const ScopeEntity = "store"

// The attributes the scalar tools read (as catalogs/retail.yaml names
// them).
const (
	AttrState          = "state"
	AttrPrice          = "price"
	AttrComplianceFlag = "compliance_flag"
)

// Defs returns the six retail tool definitions in menu order. Each call
// returns fresh slices.
func Defs() []tool.Def {
	const (
		storePattern   = `^st-[0-9]{3}$`
		productPattern = `^pr-[0-9]{3}$`
	)
	var (
		pStore = tool.Param{Name: "store_id", Kind: tool.EntityID, Description: "Store id, " + tool.PatternHint(storePattern) + ".",
			Entity: "store", Pattern: storePattern, Hint: tool.PatternHint(storePattern)}
		pProduct = tool.Param{Name: "product_id", Kind: tool.EntityID, Description: "Product id, " + tool.PatternHint(productPattern) + ".",
			Entity: "product", Pattern: productPattern, Hint: tool.PatternHint(productPattern)}
		pAsOf = tool.Param{Name: "as_of", Kind: tool.Timestamp,
			Description: "Instant (UTC, to the second, trailing Z); the latest scan at or before it counts."}
		pState = tool.Param{Name: "state", Kind: tool.Enum, Description: "Shelf state.",
			Values: enumStrings(States)}
		pCondition = tool.Param{Name: "condition", Kind: tool.Enum,
			Description: "Store condition judged on each product's latest scan.", Values: enumStrings(Conditions)}
		pStart = tool.Param{Name: "start", Kind: tool.Timestamp, Description: "Window start, inclusive (UTC, to the second, trailing Z)."}
		pEnd   = tool.Param{Name: "end", Kind: tool.Timestamp, Description: "Window end, exclusive (UTC, to the second, trailing Z)."}
	)
	params := func(ps ...tool.Param) []tool.Param { return ps }
	return []tool.Def{
		{Name: GetStockState, Description: "Shelf state of one product at one store: the state of the latest scan at or before as_of.",
			Params: params(pStore, pProduct, pAsOf), Value: fact.KindText, Values: enumStrings(States), Attribute: AttrState},
		{Name: GetPrice, Description: "Shelf price in cents of one product at one store: the price of the latest scan at or before as_of.",
			Params: params(pStore, pProduct, pAsOf), Value: fact.KindInteger, Unit: "cents", Attribute: AttrPrice},
		{Name: GetComplianceFlag, Description: "Compliance flag of one product at one store: the flag of the latest scan at or before as_of.",
			Params: params(pStore, pProduct, pAsOf), Value: fact.KindText, Values: enumStrings(Flags), Attribute: AttrComplianceFlag},
		{Name: CountStoresWithCondition, Description: "Number of distinct stores where some product's latest scan at or before as_of meets the condition, with the store ids.",
			Params: params(pCondition, pAsOf), Value: fact.KindEntityCount, IDsField: "store_ids", IDsPattern: pStore.Pattern},
		{Name: ListProductsInState, Description: "Product ids at one store whose latest scan at or before as_of is in the given shelf state.",
			Params: params(pStore, pState, pAsOf), Value: fact.KindEntityList, IDsField: "product_ids", IDsPattern: pProduct.Pattern},
		{Name: CountEventsInWindow, Description: "Number of scans at one store with the given shelf state in the half-open window [start, end).",
			Params: params(pStore, pState, pStart, pEnd), Value: fact.KindRowCount},
	}
}

// Registry returns a registry of Defs with ScopeEntity. The definitions
// are fixed data, so an error is a programming mistake (TestRegistry
// catches it) and panics.
func Registry() *tool.Registry {
	r, err := tool.NewRegistry(Defs(), ScopeEntity)
	if err != nil {
		panic(fmt.Sprintf("retail: %v", err))
	}
	return r
}

// DeclaredIDs returns the declared ids of d by entity (store, product):
// what a tool.Wall checks entity-id parameters against.
func DeclaredIDs(d *Dataset) map[string]map[string]bool {
	stores := make(map[string]bool, len(d.Stores))
	for _, s := range d.Stores {
		stores[s.ID] = true
	}
	products := make(map[string]bool, len(d.Products))
	for _, p := range d.Products {
		products[p.ID] = true
	}
	return map[string]map[string]bool{"store": stores, "product": products}
}

// Scalar returns the value a scalar tool d (Attribute state, price or
// compliance_flag) reads from e.
func Scalar(d tool.Def, e Event) fact.Value {
	switch d.Attribute {
	case AttrPrice:
		return fact.Integer(e.PriceCents, d.Unit)
	case AttrComplianceFlag:
		return fact.Text(string(e.Flag))
	}
	return fact.Text(string(e.State))
}

func enumStrings[T ~string](vs []T) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return s
}
