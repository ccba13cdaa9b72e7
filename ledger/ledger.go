// Package ledger records what a request computed: every successful tool
// execution gets a result id from an IDSource (an Allocator in a server:
// time-ordered, unique across processes and restarts), with its typed value, its provenance, and the numerals
// an answer may cite. The grounding checker holds a composed sentence to
// those numerals.
//
// The package imports only the standard library and the pure packages.
package ledger

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/tool"
)

// IDSource hands out result ids. An implementation is safe for
// concurrent use and never hands out the same id twice.
type IDSource interface {
	Next() string
}

var (
	_ IDSource = (*Allocator)(nil)
	_ IDSource = (*Sequence)(nil)
)

// Allocator hands out result ids unique across processes, restarts and
// replicas, with no coordination: "res-", the creation time as 15 decimal
// digits of Unix milliseconds, then a 20-digit suffix, 64 random bits
// drawn once per millisecond and incremented for each further id in it.
// Ids have a fixed length (39 bytes) and sort, as strings, in creation
// order within a process (a clock that steps back is ignored until it
// passes the last id's millisecond), and a later process's ids after an
// earlier one's whenever the clock has advanced. Two processes collide
// only if they draw suffixes within a few ids of each other in the same
// millisecond: about 2^-64 per pair of ids. Digits only, so that a
// sentence citing an id has it read as one identifier, not as numbers.
//
// The clock orders ids; it decides nothing else. Safe for concurrent use.
type Allocator struct {
	now  func() time.Time
	rand func() uint64

	mu       sync.Mutex
	started  bool
	ms, next uint64 // the last id's millisecond, and the suffix after it
}

// AllocatorOptions configures NewAllocator; nil means defaults.
type AllocatorOptions struct {
	Now  func() time.Time // nil: time.Now
	Rand func() uint64    // nil: 64 bits from crypto/rand
}

// NewAllocator returns an allocator.
func NewAllocator(opts *AllocatorOptions) *Allocator {
	var o AllocatorOptions
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = cryptoUint64
	}
	return &Allocator{now: o.Now, rand: o.Rand}
}

// Next returns a fresh result id.
func (a *Allocator) Next() string {
	ms := uint64(max(a.now().UnixMilli(), 0))
	a.mu.Lock()
	switch {
	case a.started && ms <= a.ms && a.next != 0:
		ms = a.ms // the same millisecond, or the clock stepped back
	case a.started && ms <= a.ms:
		ms = a.ms + 1 // the suffix wrapped around: borrow the next millisecond
		a.next = a.rand()
	default:
		a.next = a.rand()
	}
	a.started, a.ms = true, ms
	suffix := a.next
	a.next++
	a.mu.Unlock()
	return resultID(ms, suffix)
}

// resultID renders fmt.Sprintf("res-%015d%020d", ms%1e15, suffix)
// without fmt's reflection: every executed call takes one.
func resultID(ms, suffix uint64) string {
	var b [4 + 15 + 20]byte
	copy(b[:], "res-")
	putDigits(b[4:19], ms%1e15)
	putDigits(b[19:], suffix)
	return string(b[:])
}

// putDigits writes n in decimal into b, right-aligned and zero-padded.
// n must have no more digits than b holds.
func putDigits(b []byte, n uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
}

func cryptoUint64() uint64 {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return binary.BigEndian.Uint64(b[:])
}

// Sequence hands out res-000001, res-000002, ...: deterministic, and
// unique only within itself. For tests and golden files; a server uses an
// Allocator. Safe for concurrent use; the zero value starts at 1.
type Sequence struct {
	n atomic.Uint64
}

// Next returns the next id of the sequence.
func (s *Sequence) Next() string { return fmt.Sprintf("res-%06d", s.n.Add(1)) }

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
	ids     IDSource
	mu      sync.Mutex
	entries []Entry
}

// New returns an empty ledger drawing ids from ids.
func New(ids IDSource) *Ledger { return &Ledger{ids: ids} }

// Record adds a successful result of the tool d and returns its entry. A failed
// execution is never recorded, so it contributes nothing an answer may
// cite.
func (l *Ledger) Record(r fact.Result, d tool.Def) Entry {
	e := Entry{
		ID: l.ids.Next(), Tool: r.Tool, Args: maps.Clone(r.Args),
		Value: r.Value, Provenance: r.Provenance, Numerals: Numerals(r, d),
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
// The list may share the entries' memory (a window's lists every event
// behind it): read it, do not write into it.
func (l *Ledger) Grounding() grounding.Ledger {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) == 1 {
		// Clipped: an append by the caller copies instead of writing here.
		return grounding.Ledger{Numerals: slices.Clip(l.entries[0].Numerals)}
	}
	n := 0
	for _, e := range l.entries {
		n += len(e.Numerals)
	}
	if n == 0 {
		return grounding.Ledger{}
	}
	g := grounding.Ledger{Numerals: make([]grounding.Numeral, 0, n)}
	for _, e := range l.entries {
		g.Numerals = append(g.Numerals, e.Numerals...)
	}
	return g
}

// Numerals lists what an answer may cite from r, a result of the tool d,
// as the value's kind says: an integer or a number in its unit (cents:
// the checker equates dollars), a count or a list's length, the
// identifiers it names (the ids in the value, the call's entity-id
// arguments, the events behind it; the result id is not a numeral), the
// number of events behind it, and the call's instants, as exact
// timestamps and as a window inside which a cited instant is allowed.
func Numerals(r fact.Result, d tool.Def) []grounding.Numeral {
	entityArgs := 0
	for _, p := range d.Params {
		if p.Kind == tool.EntityID {
			entityArgs++
		}
	}
	// At most: a value, its ids, the call's entity ids, the listed events
	// and their number, three instants and a window; one allocation. A
	// provenance that lists part of its events (a metric over millions of
	// rows) sizes the list by the listed ones, not by the total.
	listed := 0
	for range r.Provenance.AllEventIDs() {
		listed++
	}
	out := make([]grounding.Numeral, 0, 1+len(r.Value.IDs)+entityArgs+listed+1+3+1)
	count := func(n int) { out = append(out, grounding.Numeral{Value: float64(n), Unit: grounding.UnitCount}) }
	id := func(s string) {
		if s != "" {
			out = append(out, grounding.Numeral{Unit: grounding.UnitID, ID: s})
		}
	}
	v := r.Value
	switch v.Kind {
	case fact.KindInteger:
		if v.Observed {
			out = append(out, grounding.Numeral{Value: float64(v.Int), Unit: unitOf(v.Unit)})
		}
	case fact.KindNumber:
		if v.Observed {
			out = append(out, grounding.Numeral{Value: v.Num, Unit: unitOf(v.Unit)})
		}
	case fact.KindEntityCount, fact.KindRowCount:
		count(v.Count)
	case fact.KindEntityList:
		count(len(v.IDs))
	case fact.KindTable:
		out = append(out, tableNumerals(v.Table)...)
	}
	for _, s := range v.IDs {
		id(s)
	}
	for _, p := range d.Params {
		switch {
		case p.Kind == tool.EntityID:
			id(r.Args[p.Name])
		case p.Kind == tool.Integer && d.Writes():
			// A write's integer argument (a task's quantity) is what
			// the call asked for: its sentence may cite it.
			if n, err := strconv.ParseInt(r.Args[p.Name], 10, 64); err == nil {
				out = append(out, grounding.Numeral{Value: float64(n)})
			}
		case p.Kind.Structured() && r.Args[p.Name] != "":
			// An array or object argument (a metric's filters): the
			// strings in it are values the call named ("zone-02").
			var v any
			if json.Unmarshal([]byte(r.Args[p.Name]), &v) == nil {
				for s := range leaves(v) {
					id(s)
				}
			}
		}
	}
	for e := range r.Provenance.AllEventIDs() {
		id(e)
	}
	if n := r.Provenance.NumEvents(); n > 0 {
		count(n)
	}
	asOf, start, end := r.Args["as_of"], r.Args["start"], r.Args["end"]
	for _, ts := range [...]string{asOf, start, end} {
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

// unitOf is the grounding unit of a value's unit: one the checker knows
// (count, cents, usd, eur, gbp, ratio, percent), or none, which a bare
// number of the same value matches.
func unitOf(u string) grounding.Unit {
	if u == "share" {
		return grounding.UnitRatio // a share of 0.5714 may be cited as 57.14%
	}
	switch g := grounding.Unit(u); g {
	case grounding.UnitCount, grounding.UnitCents, grounding.UnitUSD, grounding.UnitEUR,
		grounding.UnitGBP, grounding.UnitRatio, grounding.UnitPercent:
		return g
	}
	return grounding.UnitNone
}

// leaves yields the strings inside a decoded JSON value.
func leaves(v any) iter.Seq[string] {
	return func(yield func(string) bool) {
		var walk func(any) bool
		walk = func(v any) bool {
			switch x := v.(type) {
			case string:
				return yield(x)
			case []any:
				for _, e := range x {
					if !walk(e) {
						return false
					}
				}
			case map[string]any:
				for _, k := range slices.Sorted(maps.Keys(x)) {
					if !walk(x[k]) {
						return false
					}
				}
			}
			return true
		}
		walk(v)
	}
}

// tableNumerals are what an answer may cite from a table: each non-null
// number cell in its column's unit, each text cell as an identifier (a
// dimension's value: zone-02, an id), and each instant cell as a
// timestamp (a bucket's start).
func tableNumerals(t *fact.Table) []grounding.Numeral {
	if t == nil {
		return nil
	}
	var out []grounding.Numeral
	for _, r := range t.Rows {
		for j, c := range r {
			if !c.Valid {
				continue
			}
			switch col := t.Columns[j]; col.Type {
			case fact.CellNumber:
				out = append(out, grounding.Numeral{Value: c.Num, Unit: unitOf(col.Unit)})
			case fact.CellText:
				out = append(out, grounding.Numeral{Unit: grounding.UnitID, ID: c.Text})
			case fact.CellInstant:
				out = append(out, grounding.Numeral{Value: float64(c.Instant.Unix()), Unit: grounding.UnitTimestamp})
			}
		}
	}
	return out
}

func unix(ts string) (int64, bool) {
	if ts == "" {
		return 0, false
	}
	t, err := time.Parse(tool.TimestampLayout, ts)
	return t.Unix(), err == nil
}
