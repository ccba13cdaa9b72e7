package metric

import (
	"slices"

	"github.com/provenant/provenant/fact"
)

// DefaultMaxKeys is how many contributing keys a provenance lists in full;
// beyond it, the count and the digest (and the first keys) stand for them.
const DefaultMaxKeys = 1000

// Provenance is what a metric table rests on: the compiled query's hash
// and the tables it read, and the rows that contributed, from the
// re-derivation. The data version is the caller's (the snapshot both ran
// on).
type Provenance struct {
	SQLHash string
	Tables  []string
	// Rows is the number of contributing rows.
	Rows int
	// Keys are the contributing rows' keys, sorted: all of them when Rows
	// <= the limit, else the first ones.
	Keys []string
	// Partial reports whether Keys lists only the first keys.
	Partial bool
	// Digest is fact.Digest of every contributing key (the digest the
	// shapes give large provenance).
	Digest string
}

// ProvenanceOf builds the provenance of q's table from its re-derivation
// re (whose Keys are the contributing rows'), listing at most maxKeys keys
// (DefaultMaxKeys when 0).
func ProvenanceOf(q *Query, re *Table, maxKeys int) Provenance {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	keys := slices.Compact(slices.Sorted(slices.Values(re.Keys)))
	p := Provenance{SQLHash: q.Hash(), Tables: slices.Clone(q.Tables), Rows: len(keys), Digest: fact.Digest(keys)}
	if len(keys) > maxKeys {
		p.Keys, p.Partial = slices.Clone(keys[:maxKeys]), true
	} else {
		p.Keys = keys
	}
	return p
}

// Fact returns the provenance as fact.Provenance: the keys in full, or in
// part with the count and digest. It is fact.ErrNoEvents when no row
// contributed (a table of zeros or of no values: an absence the caller
// attests).
func (p Provenance) Fact() (fact.Provenance, error) {
	if p.Partial {
		return fact.EventsInPart(p.Keys, p.Rows, p.Digest)
	}
	return fact.Events(p.Keys)
}
