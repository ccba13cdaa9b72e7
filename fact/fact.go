// Package fact defines what a tool computes: a typed Value, the Provenance
// behind it (the exact events, or an attestation that none exist), the
// Result pairing them, and the resolver's Verdict on a Result.
//
// The constructors keep one promise: a positive answer always carries at
// least one event, and only a grounded zero (no observation, a count of 0,
// an empty list) may carry an absence attestation instead. An empty event
// list cannot be built.
//
// The package imports only the standard library.
package fact

import (
	"encoding/json"
	"errors"
	"iter"
	"maps"
	"slices"
)

// Kind is the shape of a tool's value.
type Kind string

// The value kinds, one per tool family.
const (
	KindState       Kind = "state"        // a shelf state, or no observation
	KindFlag        Kind = "flag"         // a compliance flag, or no observation
	KindPrice       Kind = "price"        // price in cents, or no observation
	KindStoreCount  Kind = "store_count"  // {"count": n, "store_ids": [...]}
	KindProductList Kind = "product_list" // {"product_ids": [...]}
	KindEventCount  Kind = "event_count"  // {"count": n}
)

// Value is a tool's typed value. Scalars (state, flag, price) may be
// unobserved; counts and lists are always observed (zero is a value).
type Value struct {
	Kind     Kind
	Observed bool     // false only for a scalar with no event on or before as_of
	Text     string   // KindState, KindFlag
	Cents    int64    // KindPrice
	Count    int      // KindStoreCount, KindEventCount
	IDs      []string // KindStoreCount (store ids), KindProductList (product ids); sorted
}

// Scalar values.
func State(s string) Value       { return Value{Kind: KindState, Observed: true, Text: s} }
func Flag(f string) Value        { return Value{Kind: KindFlag, Observed: true, Text: f} }
func Price(cents int64) Value    { return Value{Kind: KindPrice, Observed: true, Cents: cents} }
func NoObservation(k Kind) Value { return Value{Kind: k} }
func EventCount(n int) Value     { return Value{Kind: KindEventCount, Observed: true, Count: n} }
func ProductList(ids []string) Value {
	return Value{Kind: KindProductList, Observed: true, IDs: sortedCopy(ids)}
}

// StoreCount is a count of distinct stores with the stores themselves.
func StoreCount(storeIDs []string) Value {
	ids := sortedCopy(storeIDs)
	return Value{Kind: KindStoreCount, Observed: true, Count: len(ids), IDs: ids}
}

// IsZero reports whether v is a grounded zero: no observation, a count of
// 0, or an empty list.
func (v Value) IsZero() bool {
	switch v.Kind {
	case KindStoreCount, KindEventCount:
		return v.Count == 0
	case KindProductList:
		return len(v.IDs) == 0
	}
	return !v.Observed
}

// Equal reports whether two values are the same typed value.
func (v Value) Equal(w Value) bool {
	return v.Kind == w.Kind && v.Observed == w.Observed && v.Text == w.Text &&
		v.Cents == w.Cents && v.Count == w.Count && slices.Equal(v.IDs, w.IDs)
}

// MarshalJSON writes the documented shapes: a string for state and flag,
// an integer for price, objects for counts and lists, null for no
// observation.
func (v Value) MarshalJSON() ([]byte, error) { return json.Marshal(v.JSONShape()) }

// JSONShape returns v as plain data that encoding/json writes exactly as
// MarshalJSON does: for an encoder that embeds the value, since the output
// of a Marshaler is scanned once more by the enclosing encoder. It shares
// v's lists; treat it as read-only.
func (v Value) JSONShape() any {
	ids := v.IDs
	if ids == nil {
		ids = []string{}
	}
	switch {
	case v.Kind == KindStoreCount:
		return struct {
			Count    int      `json:"count"`
			StoreIDs []string `json:"store_ids"`
		}{v.Count, ids}
	case v.Kind == KindProductList:
		return struct {
			ProductIDs []string `json:"product_ids"`
		}{ids}
	case v.Kind == KindEventCount:
		return struct {
			Count int `json:"count"`
		}{v.Count}
	case !v.Observed:
		return nil
	case v.Kind == KindPrice:
		return v.Cents
	}
	return v.Text
}

// Absence attests that a search found nothing. EnumeratedCount is the size
// of the independent re-enumeration and is 0 in any attestation that ships.
type Absence struct {
	Tool            string            `json:"tool"`
	Filter          map[string]string `json:"filter"`
	Window          []string          `json:"window"` // [as_of] or [start, end)
	DatasetVersion  string            `json:"dataset_version"`
	EnumeratedCount int               `json:"enumerated_count"`
}

// Provenance is either a non-empty sorted set of event ids or an absence
// attestation. The zero Provenance is neither and is never valid.
type Provenance struct {
	eventIDs []string
	absence  *Absence
}

// ErrNoEvents is returned by Events for an empty id list: a positive answer
// needs at least one event behind it.
var ErrNoEvents = errors.New("provenance needs at least one event")

// Events builds event provenance from ids (deduplicated and sorted).
func Events(ids []string) (Provenance, error) {
	s := sortedCopy(ids)
	s = slices.Compact(s)
	if len(s) == 0 {
		return Provenance{}, ErrNoEvents
	}
	return Provenance{eventIDs: s}, nil
}

// Absent builds absence provenance.
func Absent(a Absence) Provenance {
	a.Filter = maps.Clone(a.Filter)
	a.Window = slices.Clone(a.Window)
	return Provenance{absence: &a}
}

// EventIDs returns a copy of the event ids; nil for an absence.
func (p Provenance) EventIDs() []string { return slices.Clone(p.eventIDs) }

// NumEvents returns the number of event ids; 0 for an absence.
func (p Provenance) NumEvents() int { return len(p.eventIDs) }

// AllEventIDs yields the event ids in order, without copying them (a
// window's provenance lists every event in it); none for an absence.
func (p Provenance) AllEventIDs() iter.Seq[string] { return slices.Values(p.eventIDs) }

// Absence returns the attestation, if p is one.
func (p Provenance) Absence() (Absence, bool) {
	if p.absence == nil {
		return Absence{}, false
	}
	a := *p.absence
	a.Filter = maps.Clone(a.Filter)
	a.Window = slices.Clone(a.Window)
	return a, true
}

// WithEnumeratedCount returns p with the attestation's independently
// enumerated count set; event provenance is returned unchanged.
func (p Provenance) WithEnumeratedCount(n int) Provenance {
	if p.absence == nil {
		return p
	}
	a, _ := p.Absence()
	a.EnumeratedCount = n
	return Provenance{absence: &a}
}

// MarshalJSON writes {"event_ids": [...]} or {"absence": {...}}.
func (p Provenance) MarshalJSON() ([]byte, error) { return json.Marshal(p.JSONShape()) }

// JSONShape returns p as plain data that encoding/json writes exactly as
// MarshalJSON does, as Value.JSONShape does for a value (a window's
// provenance lists every event in it). It shares p's lists; treat it as
// read-only.
func (p Provenance) JSONShape() any {
	if p.absence != nil {
		return struct {
			Absence *Absence `json:"absence"`
		}{p.absence}
	}
	return struct {
		EventIDs []string `json:"event_ids"`
	}{p.eventIDs}
}

// Result is a tool's output: the value and the provenance behind it, for
// the named tool and its validated arguments.
type Result struct {
	Tool       string
	Args       map[string]string
	Value      Value
	Provenance Provenance
}

// ErrMismatchedProvenance is returned by NewResult when a positive value
// lacks events or a grounded zero lacks an absence attestation.
var ErrMismatchedProvenance = errors.New("value and provenance disagree")

// NewResult pairs a value with its provenance, refusing a positive value
// without events and a grounded zero without an attestation.
func NewResult(tool string, args map[string]string, v Value, p Provenance) (Result, error) {
	_, absent := p.Absence()
	if v.IsZero() != absent || (!absent && len(p.eventIDs) == 0) {
		return Result{}, ErrMismatchedProvenance
	}
	return Result{Tool: tool, Args: maps.Clone(args), Value: v, Provenance: p}, nil
}

// Verdict is the resolver's judgement of a Result, clause by clause.
type Verdict struct {
	// ProvenanceValid: every asserted event exists and satisfies the call.
	ProvenanceValid bool `json:"provenance_valid"`
	// ValueMatches: the independently re-derived value equals the asserted one.
	ValueMatches bool `json:"value_matches"`
	// Complete: the asserted event set equals the re-derived set (for an
	// absence, the re-enumeration is empty).
	Complete bool `json:"complete"`
	// Enumerated is the size of the re-derived event set.
	Enumerated int `json:"-"`
}

// OK reports whether every clause holds.
func (v Verdict) OK() bool { return v.ProvenanceValid && v.ValueMatches && v.Complete }

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
