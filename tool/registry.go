// Package tool is the closed tool menu: the one registry of tool
// definitions every surface derives from (the model's tool schemas, the
// HTTP and MCP descriptions), the untrusted Proposal a model returns, and
// the Wall, the only constructor of a validated Call.
//
// The package imports only the standard library and the domain packages.
package tool

import (
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/retail"
)

// ParamKind is the domain a parameter's value must come from. No parameter
// is a free string.
type ParamKind int

// The parameter domains.
const (
	StoreID   ParamKind = iota + 1 // a declared store id, st-NNN
	ProductID                      // a declared product id, pr-NNN
	Timestamp                      // YYYY-MM-DDTHH:MM:SSZ
	State                          // one of retail.States
	Condition                      // one of retail.Conditions
)

// Param is one named, typed parameter of a tool.
type Param struct {
	Name        string
	Kind        ParamKind
	Description string
}

// Def defines one tool.
type Def struct {
	Name        string
	Description string
	Params      []Param
	Value       fact.Kind
}

// Tool names.
const (
	GetStockState            = "get_stock_state"
	GetPrice                 = "get_price"
	GetComplianceFlag        = "get_compliance_flag"
	CountStoresWithCondition = "count_stores_with_condition"
	ListProductsInState      = "list_products_in_state"
	CountEventsInWindow      = "count_events_in_window"
)

var (
	pStore     = Param{"store_id", StoreID, "Store id, st- and 3 digits."}
	pProduct   = Param{"product_id", ProductID, "Product id, pr- and 3 digits."}
	pAsOf      = Param{"as_of", Timestamp, "Instant (UTC, to the second, trailing Z); the latest scan at or before it counts."}
	pState     = Param{"state", State, "Shelf state."}
	pCondition = Param{"condition", Condition, "Store condition judged on each product's latest scan."}
	pStart     = Param{"start", Timestamp, "Window start, inclusive (UTC, to the second, trailing Z)."}
	pEnd       = Param{"end", Timestamp, "Window end, exclusive (UTC, to the second, trailing Z)."}
)

var menu = []Def{
	{GetStockState, "Shelf state of one product at one store: the state of the latest scan at or before as_of.",
		[]Param{pStore, pProduct, pAsOf}, fact.KindState},
	{GetPrice, "Shelf price in cents of one product at one store: the price of the latest scan at or before as_of.",
		[]Param{pStore, pProduct, pAsOf}, fact.KindPrice},
	{GetComplianceFlag, "Compliance flag of one product at one store: the flag of the latest scan at or before as_of.",
		[]Param{pStore, pProduct, pAsOf}, fact.KindFlag},
	{CountStoresWithCondition, "Number of distinct stores where some product's latest scan at or before as_of meets the condition, with the store ids.",
		[]Param{pCondition, pAsOf}, fact.KindStoreCount},
	{ListProductsInState, "Product ids at one store whose latest scan at or before as_of is in the given shelf state.",
		[]Param{pStore, pState, pAsOf}, fact.KindProductList},
	{CountEventsInWindow, "Number of scans at one store with the given shelf state in the half-open window [start, end).",
		[]Param{pStore, pState, pStart, pEnd}, fact.KindEventCount},
}

// Menu returns the closed tool menu in a fixed order. The slice is a copy.
func Menu() []Def {
	m := make([]Def, len(menu))
	for i, d := range menu {
		d.Params = append([]Param(nil), d.Params...)
		m[i] = d
	}
	return m
}

// Lookup returns the definition of a registered tool.
func Lookup(name string) (Def, bool) {
	for _, d := range menu {
		if d.Name == name {
			return d, true
		}
	}
	return Def{}, false
}

// Enum returns the allowed values of an enumerated parameter kind (State,
// Condition), or nil for the others.
func (k ParamKind) Enum() []string {
	switch k {
	case State:
		return enumStrings(retail.States)
	case Condition:
		return enumStrings(retail.Conditions)
	}
	return nil
}

func enumStrings[T ~string](vs []T) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return s
}
