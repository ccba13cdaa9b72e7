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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind is the shape of a tool's value: what JSON it takes and what type
// its scalar has. The kinds name shapes, not a domain: a shelf state and a
// device status are both KindText, a price in cents and a battery level in
// percent both KindInteger with their unit.
type Kind string

// The value kinds.
const (
	KindText        Kind = "text"         // an enumerated value as a string, or no observation
	KindInteger     Kind = "integer"      // an integer in the attribute's unit, or no observation
	KindNumber      Kind = "number"       // a finite float64 in the attribute's unit, or no observation
	KindEntityCount Kind = "entity_count" // {"count": n, "<entity>_ids": [...]}
	KindEntityList  Kind = "entity_list"  // {"<entity>_ids": [...]}
	KindRowCount    Kind = "row_count"    // {"count": n}
	KindTable       Kind = "table"        // {"columns": [...], "rows": [[...], ...]} (Table)
)

// Kinds lists every value kind.
var Kinds = []Kind{KindText, KindInteger, KindNumber, KindEntityCount, KindEntityList, KindRowCount, KindTable}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// Scalar reports whether k is a scalar kind (text, integer, number): the
// kinds that may be unobserved.
func (k Kind) Scalar() bool { return k == KindText || k == KindInteger || k == KindNumber }

// HasIDs reports whether a value of kind k lists entity ids under an
// IDsField (entity counts and entity lists).
func (k Kind) HasIDs() bool { return k == KindEntityCount || k == KindEntityList }

// Value is a tool's typed value. Scalars (text, integer, number) may be
// unobserved; counts and lists are always observed (zero is a value).
type Value struct {
	Kind     Kind
	Observed bool     // false only for a scalar with no event on or before as_of
	Text     string   // KindText
	Int      int64    // KindInteger
	Num      float64  // KindNumber; always finite
	Unit     string   // KindInteger, KindNumber: the attribute's unit ("cents"), or ""
	Count    int      // KindEntityCount, KindRowCount
	IDsField string   // KindEntityCount, KindEntityList: the JSON key of IDs ("store_ids")
	IDs      []string // KindEntityCount, KindEntityList; sorted
	Table    *Table   // KindTable; shared by copies of the value: read it, never write it
}

// ErrNotFinite is returned by Number for NaN or an infinity: a value that
// JSON cannot carry and no comparison can judge.
var ErrNotFinite = errors.New("number is not finite")

// Text is an observed enumerated value.
func Text(s string) Value { return Value{Kind: KindText, Observed: true, Text: s} }

// Integer is an observed integer in unit ("" for none).
func Integer(n int64, unit string) Value {
	return Value{Kind: KindInteger, Observed: true, Int: n, Unit: unit}
}

// Number is an observed finite number in unit ("" for none); NaN and the
// infinities are refused.
func Number(x float64, unit string) (Value, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Value{}, ErrNotFinite
	}
	if x == 0 {
		x = 0 // -0 and 0 are one value, written one way
	}
	return Value{Kind: KindNumber, Observed: true, Num: x, Unit: unit}, nil
}

// NoObservation is a scalar of kind k with no event on or before as_of.
func NoObservation(k Kind) Value { return Value{Kind: k} }

// RowCount is a count of rows (events) with no ids: {"count": n}.
func RowCount(n int) Value { return Value{Kind: KindRowCount, Observed: true, Count: n} }

// EntityList is a list of distinct entity ids, written under the key
// field ("product_ids"); the ids are sorted.
func EntityList(field string, ids []string) Value {
	return Value{Kind: KindEntityList, Observed: true, IDsField: field, IDs: sortedCopy(ids)}
}

// EntityCount is a count of distinct entities with the entities
// themselves, written as {"count": n, field: [...]}; the ids are sorted and
// the count is their number.
func EntityCount(field string, ids []string) Value {
	s := sortedCopy(ids)
	return Value{Kind: KindEntityCount, Observed: true, Count: len(s), IDsField: field, IDs: s}
}

// IsZero reports whether v is a grounded zero: no observation, a count of
// 0, or an empty list.
func (v Value) IsZero() bool {
	switch v.Kind {
	case KindEntityCount, KindRowCount:
		return v.Count == 0
	case KindEntityList:
		return len(v.IDs) == 0
	case KindTable:
		return v.Table.IsZero()
	}
	return !v.Observed
}

// Equal reports whether two values are the same typed value.
func (v Value) Equal(w Value) bool {
	return v.Kind == w.Kind && v.Observed == w.Observed && v.Text == w.Text &&
		v.Int == w.Int && v.Num == w.Num && v.Unit == w.Unit && v.Count == w.Count &&
		v.IDsField == w.IDsField && slices.Equal(v.IDs, w.IDs) && v.Table.Equal(w.Table)
}

// MarshalJSON writes the documented shapes: a string for text, a number
// for integer and number values (a number in its shortest form that
// reads back as the same float64), objects for counts and lists, null for
// no observation.
func (v Value) MarshalJSON() ([]byte, error) { return json.Marshal(v.JSONShape()) }

// JSONShape returns v as data that encoding/json writes exactly as
// MarshalJSON does: for an encoder that embeds the value. Counts and lists
// without a dynamic key are plain data (the encoder does not scan them
// twice); it shares v's lists; treat it as read-only.
func (v Value) JSONShape() any {
	ids := v.IDs
	if ids == nil {
		ids = []string{}
	}
	switch {
	case v.Kind == KindEntityCount:
		return idsObject{count: v.Count, withCount: true, field: v.IDsField, ids: ids}
	case v.Kind == KindEntityList:
		return idsObject{field: v.IDsField, ids: ids}
	case v.Kind == KindTable:
		return v.Table
	case v.Kind == KindRowCount:
		return struct {
			Count int `json:"count"`
		}{v.Count}
	case !v.Observed:
		return nil
	case v.Kind == KindInteger:
		return v.Int
	case v.Kind == KindNumber:
		return v.Num
	}
	return v.Text
}

// idsObject writes {"count": n, "<field>": [...]} or {"<field>": [...]}
// with its keys in that order, whatever the field's name.
type idsObject struct {
	count     int
	withCount bool
	field     string
	ids       []string
}

func (o idsObject) MarshalJSON() ([]byte, error) {
	field, err := json.Marshal(o.field)
	if err != nil {
		return nil, err
	}
	ids, err := json.Marshal(o.ids)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(field)+len(ids)+32)
	b = append(b, '{')
	if o.withCount {
		b = append(b, `"count":`...)
		b = strconv.AppendInt(b, int64(o.count), 10)
		b = append(b, ',')
	}
	b = append(b, field...)
	b = append(b, ':')
	b = append(b, ids...)
	return append(b, '}'), nil
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

// Attest describes the search behind an absence: the tool, the filter
// (every argument but the instants) and the window searched ([as_of] or
// [start, end)), and the version of the data searched. EnumeratedCount is
// filled in from the independent re-enumeration before the answer ships.
func Attest(tool string, args map[string]string, version string) Absence {
	a := Absence{Tool: tool, Filter: map[string]string{}, DatasetVersion: version}
	for name, val := range args {
		switch name {
		case "as_of":
			a.Window = []string{val}
		case "start", "end":
		default:
			a.Filter[name] = val
		}
	}
	if start, ok := args["start"]; ok {
		a.Window = []string{start, args["end"]}
	}
	return a
}

// Provenance is either a non-empty sorted set of event ids or an absence
// attestation. The zero Provenance is neither and is never valid.
//
// A large set may be listed in part: the first ids in sorted order, with
// the number of them all and their Digest, so that an answer behind a
// million events stays small and can still be checked whole.
type Provenance struct {
	eventIDs []string // every id, or the first ones when total > len(eventIDs)
	total    int      // the number of event ids
	digest   string   // Digest of every id, when listed in part
	absence  *Absence
	stmt     *Statement
	query    *Query
}

// Query names the compiled query a governed metric's table came from: the
// SHA-256 of its SQL text (never the text) and the tables it read. The
// engine wrote that SQL from the catalog, so the hash lets an operator tie
// an answer to the statement the engine's log and `validate` know, and the
// tables say what the value can rest on.
type Query struct {
	SQLHash string   `json:"sql_sha256"`
	Tables  []string `json:"tables"`
}

// ErrBadQuery is returned by WithQuery for a query without a SHA-256 in
// lowercase hex or without a table, and for a statement provenance (free
// SQL names its own statement).
var ErrBadQuery = errors.New("query provenance needs a hash, a table and event or absence provenance")

// WithQuery returns p naming the compiled query q that computed its value
// beside its events or its absence attestation.
func (p Provenance) WithQuery(q Query) (Provenance, error) {
	if p.stmt != nil || !validHash(q.SQLHash) || len(q.Tables) == 0 {
		return Provenance{}, ErrBadQuery
	}
	q.Tables = slices.Clone(q.Tables)
	p.query = &q
	return p, nil
}

// Query returns the compiled query p names, if any.
func (p Provenance) Query() (Query, bool) {
	if p.query == nil {
		return Query{}, false
	}
	q := *p.query
	q.Tables = slices.Clone(q.Tables)
	return q, true
}

// validHash reports whether h is a SHA-256 in lowercase hex.
func validHash(h string) bool {
	return len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}

// Statement is the provenance of a table computed by SQL the engine did
// not write (free SQL, run in the sandbox): the statement's hash (never
// its text), the tables it could read, the rows it processed, and how it
// was verified. Such a result rests on no event ids: it was re-executed
// (run again in a fresh sandbox worker and the two results compared),
// not independently re-derived, and says so.
type Statement struct {
	SQLHash       string   `json:"sql_sha256"`
	Tables        []string `json:"tables"` // the allowlist the statement ran over
	RowsProcessed int64    `json:"rows_processed"`
	// ReExecuted: the statement ran a second time in a fresh worker and
	// both results were equal.
	ReExecuted bool `json:"re_executed"`
	// IndependentlyRederived: a second formulation computed the value.
	// Always false for free SQL: nothing but the statement says what it
	// means.
	IndependentlyRederived bool `json:"independently_rederived"`
}

// ErrBadStatement is returned by Ran for a statement provenance without
// a SHA-256 in lowercase hex or without a table.
var ErrBadStatement = errors.New("statement provenance needs a hash and a table")

// Ran builds the provenance of a table a statement computed.
func Ran(s Statement) (Provenance, error) {
	if !validHash(s.SQLHash) || len(s.Tables) == 0 {
		return Provenance{}, ErrBadStatement
	}
	s.Tables = slices.Clone(s.Tables)
	return Provenance{stmt: &s}, nil
}

// Statement returns the statement provenance, if p is one.
func (p Provenance) Statement() (Statement, bool) {
	if p.stmt == nil {
		return Statement{}, false
	}
	s := *p.stmt
	s.Tables = slices.Clone(s.Tables)
	return s, true
}

// ErrNoEvents is returned by Events for an empty id list: a positive answer
// needs at least one event behind it.
var ErrNoEvents = errors.New("provenance needs at least one event")

// ErrBadPage is returned by EventsInPart for a listing that is not the
// sorted, distinct head of a longer set.
var ErrBadPage = errors.New("provenance listing is not the head of its set")

// Events builds event provenance from ids (deduplicated and sorted).
func Events(ids []string) (Provenance, error) {
	s := sortedCopy(ids)
	s = slices.Compact(s)
	if len(s) == 0 {
		return Provenance{}, ErrNoEvents
	}
	return Provenance{eventIDs: s, total: len(s)}, nil
}

// EventsInPart builds the provenance of a large set listed in part: first
// holds its first ids in sorted order (sorted and distinct, at least one),
// total the number of them all (more than len(first)), digest their
// Digest, or another digest of the set named by a scheme prefix
// ("lthash16x1024:" and 64 lowercase hex digits: package lthash's Digest,
// which a metric's large provenance carries).
func EventsInPart(first []string, total int, digest string) (Provenance, error) {
	if len(first) == 0 || total <= len(first) || !validDigest(digest) ||
		!slices.IsSorted(first) || len(slices.Compact(slices.Clone(first))) != len(first) {
		return Provenance{}, ErrBadPage
	}
	return Provenance{eventIDs: slices.Clone(first), total: total, digest: digest}, nil
}

// LtHashScheme prefixes a digest that is package lthash's Digest of the
// ids (each once): "lthash16x1024:" and 64 lowercase hex digits.
const LtHashScheme = "lthash16x1024:"

// validDigest reports whether d is 64 lowercase hex digits (Digest's
// form), alone or after LtHashScheme.
func validDigest(d string) bool {
	return validHash(strings.TrimPrefix(d, LtHashScheme))
}

// Digest is the digest of an event id set: SHA-256 over the ids sorted
// bytewise, each followed by a newline, in lowercase hex.
func Digest(ids []string) string {
	s := ids
	if !slices.IsSorted(s) {
		s = sortedCopy(ids)
	}
	// The ids and their newlines go to the hash through one buffer: no
	// allocation per id.
	h := sha256.New()
	buf := make([]byte, 0, digestBuffer)
	for _, id := range s {
		if len(buf)+len(id)+1 > cap(buf) && len(buf) > 0 {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// digestBuffer is the bytes Digest hashes at a time.
const digestBuffer = 16 << 10

// Absent builds absence provenance.
func Absent(a Absence) Provenance {
	a.Filter = maps.Clone(a.Filter)
	a.Window = slices.Clone(a.Window)
	return Provenance{absence: &a}
}

// EventIDs returns a copy of the listed event ids (every one, unless the
// set is listed in part); nil for an absence.
func (p Provenance) EventIDs() []string { return slices.Clone(p.eventIDs) }

// NumEvents returns the number of event ids, listed or not; 0 for an
// absence.
func (p Provenance) NumEvents() int { return p.total }

// Complete reports whether every event id is listed.
func (p Provenance) Complete() bool { return p.total == len(p.eventIDs) }

// EventDigest returns the Digest of every event id; "" for an absence.
func (p Provenance) EventDigest() string {
	switch {
	case p.absence != nil, p.stmt != nil:
		return ""
	case p.digest != "":
		return p.digest
	}
	return Digest(p.eventIDs)
}

// AllEventIDs yields the listed event ids in order, without copying them
// (a window's provenance lists every event in it); none for an absence.
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
	return Provenance{absence: &a, query: p.query}
}

// MarshalJSON writes {"event_ids": [...]}, {"absence": {...}} or
// {"statement": {...}}; a set listed in part adds "event_count" (them
// all) and "event_digest", and a governed metric's events or absence add
// "query" (WithQuery).
func (p Provenance) MarshalJSON() ([]byte, error) { return json.Marshal(p.JSONShape()) }

// JSONShape returns p as plain data that encoding/json writes exactly as
// MarshalJSON does, as Value.JSONShape does for a value (a window's
// provenance lists every event in it). It shares p's lists; treat it as
// read-only.
func (p Provenance) JSONShape() any {
	switch {
	case p.stmt != nil:
		return struct {
			Statement *Statement `json:"statement"`
		}{p.stmt}
	case p.absence != nil:
		return struct {
			Absence *Absence `json:"absence"`
			Query   *Query   `json:"query,omitempty"`
		}{p.absence, p.query}
	case !p.Complete():
		return struct {
			EventIDs    []string `json:"event_ids"`
			EventCount  int      `json:"event_count"`
			EventDigest string   `json:"event_digest"`
			Query       *Query   `json:"query,omitempty"`
		}{p.eventIDs, p.total, p.digest, p.query}
	}
	return struct {
		EventIDs []string `json:"event_ids"`
		Query    *Query   `json:"query,omitempty"`
	}{p.eventIDs, p.query}
}

// Result is a tool's output: the value and the provenance behind it, for
// the named tool and its validated arguments.
type Result struct {
	Tool       string
	Args       map[string]string
	Value      Value
	Provenance Provenance
	// DataVersion names the snapshot a database-backed result was read
	// from (a catalog engine's watermark, such as "seq:20000"); "" for
	// the in-memory store file.
	DataVersion string
}

// ErrMismatchedProvenance is returned by NewResult when a positive value
// lacks events or a grounded zero lacks an absence attestation.
var ErrMismatchedProvenance = errors.New("value and provenance disagree")

// NewResult pairs a value with its provenance, refusing a positive value
// without events and a grounded zero without an attestation.
//
// A table is the one exception: a table of zeros may rest on rows (no
// fault among a thousand observed events) as well as on none, so it may
// carry events or an absence; a table with any other number needs events.
// A table, and only a table, may rest on a statement (Ran) instead.
func NewResult(tool string, args map[string]string, v Value, p Provenance) (Result, error) {
	if p.stmt != nil {
		if v.Kind != KindTable {
			return Result{}, ErrMismatchedProvenance
		}
		return Result{Tool: tool, Args: maps.Clone(args), Value: v, Provenance: p}, nil
	}
	_, absent := p.Absence()
	mismatched := v.IsZero() != absent
	if v.Kind == KindTable {
		mismatched = absent && !v.IsZero()
	}
	if mismatched || (!absent && len(p.eventIDs) == 0) {
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
