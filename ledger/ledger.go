// Package ledger records what a request computed: every successful tool
// execution gets a result id from a single allocator (monotone, never
// reused in a run), with its typed value, its provenance, and the numerals
// an answer may cite. The grounding checker holds a composed sentence to
// those numerals.
//
// The package imports only the standard library and the pure packages.
package ledger

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/retail"
)

// Allocator hands out result ids for a run: res-000001, res-000002, ...
// Safe for concurrent use; the zero value starts at 1.
type Allocator struct {
	n atomic.Uint64
}

// Next returns a fresh result id.
func (a *Allocator) Next() string { return fmt.Sprintf("res-%06d", a.n.Add(1)) }

// Entry is one recorded result.
type Entry struct {
	ID         string
	Tool       string
	Args       map[string]string
	Value      fact.Value
	Provenance fact.Provenance
	Numerals   []grounding.Numeral
}

// Ledger is one request's results. Safe for concurrent use.
type Ledger struct {
	alloc   *Allocator
	mu      sync.Mutex
	entries []Entry
}

// New returns an empty ledger drawing ids from alloc.
func New(alloc *Allocator) *Ledger { return &Ledger{alloc: alloc} }

// Record adds a successful result and returns its entry. A failed
// execution is never recorded, so it contributes nothing an answer may
// cite.
func (l *Ledger) Record(r fact.Result) Entry {
	e := Entry{
		ID: l.alloc.Next(), Tool: r.Tool, Args: maps.Clone(r.Args),
		Value: r.Value, Provenance: r.Provenance, Numerals: Numerals(r),
	}
	l.mu.Lock()
	l.entries = append(l.entries, e)
	l.mu.Unlock()
	return e
}

// Entries returns the recorded entries in order.
func (l *Ledger) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

// IDs returns the recorded result ids in order.
func (l *Ledger) IDs() []string {
	var ids []string
	for _, e := range l.Entries() {
		ids = append(ids, e.ID)
	}
	return ids
}

// Grounding returns every numeral the recorded results let an answer cite.
func (l *Ledger) Grounding() grounding.Ledger {
	var g grounding.Ledger
	for _, e := range l.Entries() {
		g.Numerals = append(g.Numerals, e.Numerals...)
	}
	return g
}

// Numerals lists what an answer may cite from r: its count or list length,
// its price (in cents; the checker equates dollars), the identifiers it
// names (the call's store and product, the value's stores and products,
// the events behind it, and the result id is not a numeral), the number of
// events behind it, and the call's instants, as exact timestamps and as a
// window inside which a cited instant is allowed.
func Numerals(r fact.Result) []grounding.Numeral {
	var out []grounding.Numeral
	count := func(n int) { out = append(out, grounding.Numeral{Value: float64(n), Unit: grounding.UnitCount}) }
	id := func(s string) {
		if s != "" {
			out = append(out, grounding.Numeral{Unit: grounding.UnitID, ID: s})
		}
	}
	v := r.Value
	switch v.Kind {
	case fact.KindPrice:
		if v.Observed {
			out = append(out, grounding.Numeral{Value: float64(v.Cents), Unit: grounding.UnitCents})
		}
	case fact.KindStoreCount, fact.KindEventCount:
		count(v.Count)
	case fact.KindProductList:
		count(len(v.IDs))
	}
	for _, s := range v.IDs {
		id(s)
	}
	id(r.Args["store_id"])
	id(r.Args["product_id"])
	events := r.Provenance.EventIDs()
	for _, e := range events {
		id(e)
	}
	if len(events) > 0 {
		count(len(events))
	}
	asOf, start, end := r.Args["as_of"], r.Args["start"], r.Args["end"]
	for _, ts := range []string{asOf, start, end} {
		if t, ok := unix(ts); ok {
			out = append(out, grounding.Numeral{Value: float64(t), Unit: grounding.UnitTimestamp})
		}
	}
	switch {
	case asOf != "":
		out = append(out, grounding.Numeral{Unit: grounding.UnitTimestamp, Window: [2]string{asOf, asOf}})
	case start != "":
		out = append(out, grounding.Numeral{Unit: grounding.UnitTimestamp, Window: [2]string{start, end}})
	}
	return out
}

func unix(ts string) (int64, bool) {
	if ts == "" {
		return 0, false
	}
	t, err := time.Parse(retail.TimestampLayout, ts)
	return t.Unix(), err == nil
}
