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
