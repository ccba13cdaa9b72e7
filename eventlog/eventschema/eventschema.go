// Package eventschema holds events to the JSON Schemas package eventlog
// commits and embeds (eventlog.Schemas). It is the one place that links
// a JSON Schema validator (github.com/santhosh-tekuri/jsonschema/v6), so
// package eventlog stays free of it; `log verify` passes a Validator to
// eventlog.Verify.
package eventschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/provenant/provenant/eventlog"
)

// ErrSchema: an event that breaks its type's schema, or names a type or
// version with no schema.
var ErrSchema = errors.New("event breaks its schema")

// Validator holds event lines to their schemas. It is safe for
// concurrent use.
type Validator struct {
	schemas map[string]*jsonschema.Schema // by file name
}

var _ eventlog.SchemaValidator = (*Validator)(nil)

var (
	once    sync.Once
	shared  *Validator
	loadErr error
)

// Load returns the Validator over the embedded schemas, compiled once.
func Load() (*Validator, error) {
	once.Do(func() { shared, loadErr = compile(eventlog.Schemas()) })
	return shared, loadErr
}

func compile(fsys fs.FS) (*Validator, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	files, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, fmt.Errorf("load event schemas: %w", err)
	}
	for _, name := range files {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("load event schemas: %w", err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("load event schemas: %s: %w", name, err)
		}
		if err := c.AddResource(eventlog.SchemaBase+name, doc); err != nil {
			return nil, fmt.Errorf("load event schemas: %s: %w", name, err)
		}
	}
	v := &Validator{schemas: map[string]*jsonschema.Schema{}}
	for _, name := range files {
		s, err := c.Compile(eventlog.SchemaBase + name)
		if err != nil {
			return nil, fmt.Errorf("compile event schema %s: %w", name, err)
		}
		v.schemas[name] = s
	}
	return v, nil
}

// ValidateEvent holds one event's JSON to the schema of the type and
// version it names. The error names the schema's failing location, never
// the event's values.
func (v *Validator) ValidateEvent(line []byte) error {
	var head struct {
		Type          string `json:"type"`
		SchemaVersion int    `json:"schema_version"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return fmt.Errorf("%w: not an event object", ErrSchema)
	}
	s, ok := v.schemas[eventlog.SchemaFile(eventlog.Type(head.Type), head.SchemaVersion)]
	if !ok || head.Type == "envelope" {
		return fmt.Errorf("%w: no schema for its type and version", ErrSchema)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("%w: malformed", ErrSchema)
	}
	if err := s.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%w: at %s", ErrSchema, location(ve))
		}
		return fmt.Errorf("%w", ErrSchema)
	}
	return nil
}

// location names the deepest failing instance location, as a JSON
// Pointer of field names (keys the schema declares: additionalProperties
// false refuses others before they are descended into).
func location(ve *jsonschema.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	p := ""
	for i, part := range ve.InstanceLocation {
		p += "/" + part
		if part == "arguments" && i == 1 {
			break // a tool's argument names are not ours to repeat
		}
	}
	if p == "" {
		return "/"
	}
	return p
}

// Event validates an event the way Verify's schema check does.
func (v *Validator) Event(e eventlog.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("validate event: %w", err)
	}
	return v.ValidateEvent(b)
}
