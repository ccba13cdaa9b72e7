package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// canonical returns the RFC 8785 form of v's JSON: marshalled, then
// canonicalised by the maintained implementation (jcs).
func canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("canonicalise: %w", err)
	}
	return c, nil
}

// sealed is what NewEvent and Decode checked of an event's payload: its
// type, its schema version and its canonical bytes (a copy of its own,
// so that a change to the event's Payload, in place or not, is seen).
// Validate skips the strict decoding of a payload its seal covers.
type sealed struct {
	typ     Type
	version int
	payload []byte
}

func seal(typ Type, version int, payload []byte) *sealed {
	return &sealed{typ: typ, version: version, payload: bytes.Clone(payload)}
}

// covers reports whether s was made for e's type, version and payload
// exactly.
func (s *sealed) covers(e *Event) bool {
	return s != nil && s.typ == e.Type && s.version == e.SchemaVersion && bytes.Equal(s.payload, e.Payload)
}

// Encode returns e's JSON line (without a newline), which the stores
// write: json.Marshal(e).
func Encode(e Event) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	return b, nil
}
