package eventlog

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gowebpki/jcs"
)

//go:embed nondeterministic.json
var nondeterministicJSON []byte

// NonDeterministicField is one entry of nondeterministic.json: a field
// of an event left out of the log hash.
type NonDeterministicField struct {
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"`
	Why     string `json:"why"`
}

var nondeterministic = func() []NonDeterministicField {
	var f struct {
		Version int                     `json:"version"`
		About   string                  `json:"about"`
		Fields  []NonDeterministicField `json:"fields"`
	}
	dec := json.NewDecoder(bytes.NewReader(nondeterministicJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || f.Version != 1 {
		panic("eventlog: nondeterministic.json does not decode") // the committed file is broken: a build defect
	}
	for _, fd := range f.Fields {
		if !strings.HasPrefix(fd.Pointer, "/") {
			panic("eventlog: nondeterministic.json: a pointer must start with /")
		}
	}
	return f.Fields
}()

// NonDeterministic returns the committed list of fields the log hash
// leaves out (nondeterministic.json).
func NonDeterministic() []NonDeterministicField { return slices.Clone(nondeterministic) }

// Digest is a SHA-256 value.
type Digest [sha256.Size]byte

// String returns d in lowercase hex.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// ParseDigest reads a digest written by Digest.String.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(d) {
		return d, fmt.Errorf("parse digest: %w: want 64 hex digits", ErrInvalid)
	}
	copy(d[:], b)
	return d, nil
}

// HashInput returns what the log hash covers of e: e's canonical JSON
// (RFC 8785) with the non-deterministic fields removed.
func HashInput(e Event) ([]byte, error) {
	if b, ok := fastHashInput(e); ok {
		return b, nil
	}
	return genericHashInput(e)
}

// topLevelOnly: every non-deterministic field is an envelope member, so
// the fast path can leave them out by name.
var topLevelOnly = func() map[string]bool {
	out := map[string]bool{}
	for _, f := range nondeterministic {
		name := strings.TrimPrefix(f.Pointer, "/")
		if strings.ContainsAny(name, "/~") {
			return nil
		}
		out[name] = true
	}
	return out
}()

// plainASCII reports whether s is written in RFC 8785 JSON as itself
// between quotes: printable ASCII without a quote or a backslash.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// fastHashInput writes the hash input of an event whose envelope strings
// are plain ASCII and whose integers are exact in a double, member by
// member in RFC 8785's key order (the keys are ASCII, so byte order), with
// only the payload canonicalised by jcs. ok is false when it does not
// apply; genericHashInput is the definition it must equal
// (TestHashInput_FastEqualsGeneric).
func fastHashInput(e Event) (b []byte, ok bool) {
	if topLevelOnly == nil {
		return nil, false
	}
	for _, s := range []string{e.ID, string(e.Type), e.Run, e.Producer, e.Causation, e.Correlation, e.WallTime, e.Host} {
		if !plainASCII(s) {
			return nil, false
		}
	}
	for _, n := range []int64{int64(e.SchemaVersion), e.Seq, e.Seed, e.Time, e.PID} {
		if n > MaxSafeInteger || n < -MaxSafeInteger {
			return nil, false
		}
	}
	if len(e.Payload) == 0 {
		return nil, false
	}
	// A payload NewEvent built or Decode read is canonical already.
	payload := []byte(e.Payload)
	if !e.checked.covers(&e) {
		var err error
		if payload, err = jcs.Transform(e.Payload); err != nil {
			return nil, false
		}
	}
	b = make([]byte, 0, 256+len(payload))
	b = append(b, '{')
	first := true
	member := func(key string, value func([]byte) []byte, present bool) {
		if !present || topLevelOnly[key] {
			return
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		b = value(b)
	}
	str := func(s string) func([]byte) []byte {
		return func(b []byte) []byte { return append(append(append(b, '"'), s...), '"') }
	}
	num := func(n int64) func([]byte) []byte {
		return func(b []byte) []byte { return strconv.AppendInt(b, n, 10) }
	}
	// The keys in sorted order; omitempty members only when set.
	member("causation", str(e.Causation), e.Causation != "")
	member("correlation", str(e.Correlation), e.Correlation != "")
	member("host", str(e.Host), e.Host != "")
	member("id", str(e.ID), true)
	member("payload", func(b []byte) []byte { return append(b, payload...) }, true)
	member("pid", num(e.PID), e.PID != 0)
	member("producer", str(e.Producer), true)
	member("run", str(e.Run), true)
	member("schema_version", num(int64(e.SchemaVersion)), true)
	member("seed", num(e.Seed), true)
	member("seq", num(e.Seq), true)
	member("time", num(e.Time), true)
	member("type", str(string(e.Type)), true)
	member("wall_time", str(e.WallTime), e.WallTime != "")
	return append(b, '}'), true
}

// genericHashInput is the definition of the hash input: marshal, remove
// the listed members, canonicalise.
func genericHashInput(e Event) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("hash event: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("hash event: %w", err)
	}
	for _, f := range nondeterministic {
		removePointer(doc, f.Pointer)
	}
	b, err = json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("hash event: %w", err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("hash event: %w", err)
	}
	return c, nil
}

// removePointer deletes the member a JSON Pointer (RFC 6901) names, if it
// exists; array indexes are not used by the list.
func removePointer(doc map[string]any, pointer string) {
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(parts[i], "~1", "/"), "~0", "~")
	}
	m := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}

// Compare orders events canonically: by logical time, then producer, then
// seq, then run (the run breaks the one tie the order leaves open,
// between runs in one log).
func Compare(a, b Event) int {
	return cmp.Or(
		cmp.Compare(a.Time, b.Time),
		strings.Compare(a.Producer, b.Producer),
		cmp.Compare(a.Seq, b.Seq),
		strings.Compare(a.Run, b.Run),
	)
}

// Sort puts events in canonical order.
func Sort(events []Event) { slices.SortStableFunc(events, Compare) }

// Chain is the log hash: a SHA-256 chain (not a Merkle tree) over the
// events in canonical order,
//
//	h0 = 32 zero bytes
//	hi = SHA-256(h(i-1) || HashInput(event i))
//
// The log hash is the last hi (h0 for an empty log). Add feeds events
// in canonical order; it does not sort.
type Chain struct {
	head Digest
	n    int
}

// Add extends the chain by e and returns the new head.
func (c *Chain) Add(e Event) (Digest, error) {
	in, err := HashInput(e)
	if err != nil {
		return Digest{}, err
	}
	h := sha256.New()
	h.Write(c.head[:])
	h.Write(in)
	h.Sum(c.head[:0])
	c.n++
	return c.head, nil
}

// Head returns the chain's current head: the log hash of what was added.
func (c *Chain) Head() Digest { return c.head }

// Len returns how many events were added.
func (c *Chain) Len() int { return c.n }

// Hash returns the log hash of events (in any order: a sorted copy is
// hashed).
func Hash(events []Event) (Digest, error) {
	sorted := slices.Clone(events)
	Sort(sorted)
	var c Chain
	for _, e := range sorted {
		if _, err := c.Add(e); err != nil {
			return Digest{}, err
		}
	}
	return c.Head(), nil
}
