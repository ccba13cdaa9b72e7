// Package resolver re-derives a tool result independently of the executor
// that produced it: it asks the event store (SQL, in the DuckDB backend)
// for the complete satisfying event set, recomputes the value from it, and
// judges the result clause by clause:
//
//   - provenance valid: every asserted event exists and satisfies the call;
//   - value matches: the re-derived value equals the asserted value;
//   - complete: the asserted event set equals the re-derived set, which
//     catches a dropped event and an extra one alike; for an absence, the
//     re-enumeration must be empty.
//
// It must not import package executor; a test keeps it so.
package resolver

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// Resolver judges results against an event store.
type Resolver struct {
	store retail.EventStore
}

// New returns a resolver over store.
func New(store retail.EventStore) *Resolver { return &Resolver{store: store} }

// Resolve re-derives c and judges r. An error means the store could not be
// asked, or ctx is done (the error then wraps ctx.Err(): the resolver's
// loops look at ctx every deadline.Every steps); a failed clause is a
// Verdict, not an error.
func (rv *Resolver) Resolve(ctx context.Context, c tool.Call, r fact.Result) (fact.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return fact.Verdict{}, fmt.Errorf("resolve %s: %w", c.Tool(), err)
	}
	sel := selection(c)
	derived, err := rv.store.Select(ctx, sel)
	if err != nil {
		return fact.Verdict{}, fmt.Errorf("resolve %s: %w", c.Tool(), err)
	}

	derivedIDs := make([]string, len(derived))
	for i, e := range derived {
		if err := deadline.Check(ctx, i); err != nil {
			return fact.Verdict{}, fmt.Errorf("resolve %s: %w", c.Tool(), err)
		}
		derivedIDs[i] = e.ID
	}
	want := value(c, derived)
	asserted := r.Provenance.EventIDs() // sorted, deduplicated

	// Asserted events outside the re-derived set need a look-up to tell a
	// real event that fails the filter (or is not the latest) from a
	// dangling pointer. Events inside it are real and satisfying already.
	var outside []string
	for i, id := range asserted {
		if err := deadline.Check(ctx, i+1); err != nil {
			return fact.Verdict{}, fmt.Errorf("resolve %s: %w", c.Tool(), err)
		}
		if _, found := slices.BinarySearch(derivedIDs, id); !found {
			outside = append(outside, id)
		}
	}
	valid := true
	if len(outside) > 0 {
		found, err := rv.store.Lookup(ctx, outside)
		if err != nil {
			return fact.Verdict{}, fmt.Errorf("resolve %s: %w", c.Tool(), err)
		}
		valid = len(found) == len(outside)
		for _, e := range found {
			valid = valid && satisfies(sel, e)
		}
	}
	_, absent := r.Provenance.Absence()
	if absent && len(asserted) != 0 || !absent && len(asserted) == 0 {
		valid = false
	}
	return fact.Verdict{
		ProvenanceValid: valid,
		ValueMatches:    r.Tool == c.Tool() && r.Value.Equal(want),
		Complete:        slices.Equal(asserted, derivedIDs),
		Enumerated:      len(derived),
	}, nil
}

// selection states the call as an event-store selection.
func selection(c tool.Call) retail.Selection {
	s := retail.Selection{StoreID: c.Arg("store_id"), ProductID: c.Arg("product_id")}
	if scope := c.Scope(); !scope.All() {
		s.Stores = append([]string{}, scope.Stores()...) // non-nil even when empty: nothing
	}
	switch c.Def().Value {
	case fact.KindRowCount:
		s.Start, s.End = c.Arg("start"), c.Arg("end")
		s.Match = retail.Match{States: []retail.State{retail.State(c.Arg("state"))}}
	default:
		s.Latest, s.AsOf = true, c.Arg("as_of")
		switch {
		case c.Arg("condition") != "":
			s.Match = retail.Condition(c.Arg("condition")).Match()
		case c.Arg("state") != "":
			s.Match = retail.Match{States: []retail.State{retail.State(c.Arg("state"))}}
		}
	}
	return s
}

// satisfies reports whether e passes the selection's filter and time
// bound. Latest-ness is not judged here: an older satisfying event is
// caught by the completeness clause.
func satisfies(s retail.Selection, e retail.Event) bool {
	if s.StoreID != "" && e.StoreID != s.StoreID || s.ProductID != "" && e.ProductID != s.ProductID {
		return false
	}
	if s.Stores != nil && !slices.Contains(s.Stores, e.StoreID) {
		return false
	}
	if s.Latest && e.Timestamp > s.AsOf || !s.Latest && (e.Timestamp < s.Start || e.Timestamp >= s.End) {
		return false
	}
	return s.Match.Accepts(e)
}

// value computes the call's value from the re-derived event set.
func value(c tool.Call, events []retail.Event) fact.Value {
	d := c.Def()
	switch d.Value {
	case fact.KindText, fact.KindInteger, fact.KindNumber:
		if len(events) != 1 {
			return fact.NoObservation(d.Value)
		}
		return retail.Scalar(d, events[0])
	case fact.KindEntityCount:
		stores := map[string]bool{}
		for _, e := range events {
			stores[e.StoreID] = true
		}
		return fact.EntityCount(d.IDsField, slices.Collect(maps.Keys(stores)))
	case fact.KindEntityList:
		products := make([]string, len(events))
		for i, e := range events {
			products[i] = e.ProductID
		}
		return fact.EntityList(d.IDsField, products)
	}
	return fact.RowCount(len(events))
}
