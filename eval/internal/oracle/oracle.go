// Package oracle is the eval harness's third computation: a naive linear
// scan over a dataset's events that computes what each tool should answer,
// written from the definitions alone. It shares no code with the
// executor (an in-memory index) or the resolver (SQL through the event
// store) and must not import either, nor any store backend; a test in
// package eval keeps it so.
//
// Every call scans every event. That is the point: it is slow, obvious and
// hard to get subtly wrong, and it only runs when the gold set is generated
// or checked.
package oracle

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/provenant/provenant/retail"
)

// Expectation is what a tool call should produce.
type Expectation struct {
	// Outcome is "answered" for a positive value, "absence" for a grounded
	// zero (no observation, a count of 0, an empty list).
	Outcome string
	// Value is the answer's value in its documented JSON shape.
	Value json.RawMessage
	// EventIDs is the complete satisfying event set, sorted; empty for an
	// absence.
	EventIDs []string
}

// Latest returns the latest event of (store, product) with timestamp <=
// asOf: the greatest by timestamp, then by event id (the higher id is the
// later one). ok is false when the pair has no such event.
func Latest(events []retail.Event, store, product, asOf string) (e retail.Event, ok bool) {
	for _, x := range events {
		if x.StoreID != store || x.ProductID != product || x.Timestamp > asOf {
			continue
		}
		if !ok || x.Timestamp > e.Timestamp || (x.Timestamp == e.Timestamp && x.ID > e.ID) {
			e, ok = x, true
		}
	}
	return e, ok
}

// meets judges a store condition on one event, as the issue defines it.
func meets(condition string, e retail.Event) (bool, error) {
	switch condition {
	case "OUT_OF_STOCK":
		return e.State == "OUT_OF_STOCK", nil
	case "LOW_STOCK":
		return e.State == "LOW_STOCK", nil
	case "PRICE_MISMATCH":
		return e.Flag == "PRICE_MISMATCH", nil
	case "EXPIRED":
		return e.Flag == "EXPIRED_PRODUCT", nil
	case "NON_COMPLIANT":
		return e.Flag != "COMPLIANT", nil
	}
	return false, fmt.Errorf("judge condition: unknown condition %q", condition)
}

// Compute returns the expectation for a call of the named tool with the
// given parameters over d. It checks that every parameter the tool needs
// is present; it does not judge their domains (the wall does).
func Compute(d *retail.Dataset, toolName string, params map[string]string) (Expectation, error) {
	need := map[string][]string{
		"get_stock_state":             {"store_id", "product_id", "as_of"},
		"get_price":                   {"store_id", "product_id", "as_of"},
		"get_compliance_flag":         {"store_id", "product_id", "as_of"},
		"count_stores_with_condition": {"condition", "as_of"},
		"list_products_in_state":      {"store_id", "state", "as_of"},
		"count_events_in_window":      {"store_id", "state", "start", "end"},
	}
	names, ok := need[toolName]
	if !ok {
		return Expectation{}, fmt.Errorf("compute expectation: unknown tool %q", toolName)
	}
	if len(params) != len(names) {
		return Expectation{}, fmt.Errorf("compute expectation: %s takes %d parameters, got %d", toolName, len(names), len(params))
	}
	for _, n := range names {
		if params[n] == "" {
			return Expectation{}, fmt.Errorf("compute expectation: %s: missing parameter %s", toolName, n)
		}
	}
	p := params
	var (
		value    any
		ids      []string
		positive bool
	)
	switch toolName {
	case "get_stock_state", "get_price", "get_compliance_flag":
		e, found := Latest(d.Events, p["store_id"], p["product_id"], p["as_of"])
		if found {
			ids, positive = []string{e.ID}, true
			switch toolName {
			case "get_stock_state":
				value = string(e.State)
			case "get_price":
				value = e.PriceCents
			default:
				value = string(e.Flag)
			}
		}
	case "count_stores_with_condition":
		stores := []string{}
		for _, s := range d.Stores {
			hit := false
			for _, pr := range d.Products {
				e, found := Latest(d.Events, s.ID, pr.ID, p["as_of"])
				if !found {
					continue
				}
				ok, err := meets(p["condition"], e)
				if err != nil {
					return Expectation{}, err
				}
				if ok {
					hit = true
					ids = append(ids, e.ID)
				}
			}
			if hit {
				stores = append(stores, s.ID)
			}
		}
		sort.Strings(stores)
		value = map[string]any{"count": len(stores), "store_ids": stores}
		positive = len(stores) > 0
	case "list_products_in_state":
		products := []string{}
		for _, pr := range d.Products {
			e, found := Latest(d.Events, p["store_id"], pr.ID, p["as_of"])
			if found && string(e.State) == p["state"] {
				products = append(products, pr.ID)
				ids = append(ids, e.ID)
			}
		}
		sort.Strings(products)
		value = map[string]any{"product_ids": products}
		positive = len(products) > 0
	case "count_events_in_window":
		for _, e := range d.Events {
			if e.StoreID == p["store_id"] && string(e.State) == p["state"] &&
				e.Timestamp >= p["start"] && e.Timestamp < p["end"] {
				ids = append(ids, e.ID)
			}
		}
		value = map[string]any{"count": len(ids)}
		positive = len(ids) > 0
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return Expectation{}, fmt.Errorf("encode expectation: %w", err)
	}
	sort.Strings(ids)
	x := Expectation{Outcome: "absence", Value: raw}
	if positive {
		x.Outcome, x.EventIDs = "answered", ids
	}
	return x, nil
}
