// Package retail holds the store-file format of the retail demo: shelf-scan
// events in retail stores, the stores and products they name, the shelf
// states, compliance flags and store conditions, a strict loader and a
// writer. The demo's tools are not here: catalogs/retail.yaml declares
// them and package shape derives them; package retail/storefile maps a
// store file onto that catalog.
//
// The package imports only the standard library and internal/strictjson.
package retail

import (
	"fmt"
	"slices"
)

// State is the shelf state a scan observed.
type State string

// The shelf states.
const (
	InStock    State = "IN_STOCK"
	LowStock   State = "LOW_STOCK"
	OutOfStock State = "OUT_OF_STOCK"
	Overstock  State = "OVERSTOCK"
)

// States lists every shelf state in a fixed order.
var States = []State{InStock, LowStock, OutOfStock, Overstock}

// Valid reports whether s is one of States.
func (s State) Valid() bool { return slices.Contains(States, s) }

// Flag is the compliance flag a scan recorded.
type Flag string

// The compliance flags.
const (
	Compliant          Flag = "COMPLIANT"
	PriceMismatch      Flag = "PRICE_MISMATCH"
	ExpiredProduct     Flag = "EXPIRED_PRODUCT"
	PlanogramViolation Flag = "PLANOGRAM_VIOLATION"
)

// Flags lists every compliance flag in a fixed order.
var Flags = []Flag{Compliant, PriceMismatch, ExpiredProduct, PlanogramViolation}

// Valid reports whether f is one of Flags.
func (f Flag) Valid() bool { return slices.Contains(Flags, f) }

// Condition is a store condition judged on a single event.
// One event can meet several conditions.
type Condition string

// The store conditions.
const (
	CondOutOfStock    Condition = "OUT_OF_STOCK"
	CondLowStock      Condition = "LOW_STOCK"
	CondPriceMismatch Condition = "PRICE_MISMATCH"
	CondExpired       Condition = "EXPIRED"
	CondNonCompliant  Condition = "NON_COMPLIANT"
)

// Conditions lists every condition in a fixed order.
var Conditions = []Condition{CondOutOfStock, CondLowStock, CondPriceMismatch, CondExpired, CondNonCompliant}

// Valid reports whether c is one of Conditions.
func (c Condition) Valid() bool { return slices.Contains(Conditions, c) }

// Match is the event filter a condition stands for, written as the set of
// states or the set of flags that satisfy it (exactly one is non-empty):
// the conditions of catalogs/retail.yaml, for code that judges a store
// file's events in Go (the demo generator's tests).
type Match struct {
	States []State
	Flags  []Flag
}

// Match returns the filter that c stands for. It panics on an invalid
// condition: callers hold validated values.
func (c Condition) Match() Match {
	switch c {
	case CondOutOfStock:
		return Match{States: []State{OutOfStock}}
	case CondLowStock:
		return Match{States: []State{LowStock}}
	case CondPriceMismatch:
		return Match{Flags: []Flag{PriceMismatch}}
	case CondExpired:
		return Match{Flags: []Flag{ExpiredProduct}}
	case CondNonCompliant:
		return Match{Flags: []Flag{PriceMismatch, ExpiredProduct, PlanogramViolation}}
	}
	panic(fmt.Sprintf("retail: invalid condition %q", string(c)))
}

// Accepts reports whether e satisfies m. An empty Match accepts everything.
func (m Match) Accepts(e Event) bool {
	if len(m.States) > 0 && !slices.Contains(m.States, e.State) {
		return false
	}
	if len(m.Flags) > 0 && !slices.Contains(m.Flags, e.Flag) {
		return false
	}
	return true
}

// Store is a retail store declared in a store file.
type Store struct {
	ID   string `json:"store_id"`
	Name string `json:"name"`
}

// Product is a product declared in a store file.
type Product struct {
	ID       string `json:"product_id"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// Event is one shelf scan. Timestamp is ISO-8601 UTC to the second with a
// trailing Z; being fixed width, string order is time order.
type Event struct {
	ID         string `json:"event_id"`
	StoreID    string `json:"store_id"`
	ProductID  string `json:"product_id"`
	Timestamp  string `json:"timestamp"`
	State      State  `json:"state"`
	PriceCents int64  `json:"price_cents"`
	Flag       Flag   `json:"compliance_flag"`
}

// Dataset is a loaded, validated store file.
type Dataset struct {
	Version  string    `json:"dataset_version"`
	Stores   []Store   `json:"stores"`
	Products []Product `json:"products"`
	Events   []Event   `json:"events"`
}

// Info summarises a dataset for health checks and absence attestations.
type Info struct {
	Version  string `json:"dataset_version"`
	Stores   int    `json:"stores"`
	Products int    `json:"products"`
	Events   int    `json:"events"`
	First    string `json:"first_timestamp,omitempty"`
	Last     string `json:"last_timestamp,omitempty"`
}

// Info computes the dataset summary.
func (d *Dataset) Info() Info {
	in := Info{Version: d.Version, Stores: len(d.Stores), Products: len(d.Products), Events: len(d.Events)}
	for _, e := range d.Events {
		if in.First == "" || e.Timestamp < in.First {
			in.First = e.Timestamp
		}
		if e.Timestamp > in.Last {
			in.Last = e.Timestamp
		}
	}
	return in
}
