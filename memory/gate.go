package memory

import (
	"errors"
	"fmt"
	"slices"
)

// Visibility says who may read a record. The zero value is visible to
// every reader. A store keeps it beside the record (it is read in one
// batch per retrieval, and with each chain); a key whose visibility a
// store does not return is a failure to decide, and a read fails closed.
type Visibility struct {
	// Agent, when set, scopes the record to that agent alone.
	Agent string `json:"agent,omitempty"`
	// Tags, when set, are tags the reader must hold (every one, or at
	// least one, by the reader's Match).
	Tags []string `json:"tags,omitempty"`
	// Purposes, when set, are the purposes a reader may read it for.
	Purposes []string `json:"purposes,omitempty"`
}

// Validate checks a visibility; an invalid one read from a store is a
// failure to decide visibility.
func (v Visibility) Validate() error {
	if err := checkID("visibility.agent", v.Agent, false); err != nil {
		return err
	}
	if err := checkList("visibility.tags", v.Tags, MaxTags); err != nil {
		return err
	}
	return checkList("visibility.purposes", v.Purposes, MaxTags)
}

// Match is how a reader's tags meet a record's visibility tags.
type Match string

// The two matches. MatchAll is the default.
const (
	MatchAll Match = "all" // the reader holds every tag the record requires
	MatchAny Match = "any" // the reader holds at least one of them
)

// Reader is who reads, and for what. On the network surfaces it is built
// from the authenticated principal, never from a request body; Match is
// the principal's setting too.
type Reader struct {
	Agent   string   `json:"agent"`
	Purpose string   `json:"purpose,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Match   Match    `json:"match,omitempty"`
}

// Caller errors: the read was asked wrongly, and nothing was read.
var (
	// ErrCaller is wrapped by every *CallerError.
	ErrCaller = errors.New("caller error")
	// ErrNoReader: a read that names no reader.
	ErrNoReader = errors.New("no reader")
)

// CallerError is a read asked wrongly (no reader, no cues, a bad
// max_items): the caller's fault, a 4xx on a network surface. Field names
// the declared field; the value is never repeated.
type CallerError struct {
	Field   string
	Problem string
	Err     error
}

func (e *CallerError) Error() string {
	return fmt.Sprintf("read memory: %s: %s", e.Field, e.Problem)
}

func (e *CallerError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrCaller}
	}
	return []error{ErrCaller, e.Err}
}

// check validates a reader; nil or without an agent is ErrNoReader.
func (r *Reader) check() error {
	if r == nil || r.Agent == "" {
		return &CallerError{Field: "reader", Problem: "required", Err: ErrNoReader}
	}
	if checkID("reader.agent", r.Agent, true) != nil {
		return &CallerError{Field: "reader.agent", Problem: "not an identifier"}
	}
	if checkID("reader.purpose", r.Purpose, false) != nil {
		return &CallerError{Field: "reader.purpose", Problem: "not an identifier"}
	}
	if checkList("reader.tags", r.Tags, MaxTags) != nil {
		return &CallerError{Field: "reader.tags", Problem: "not a list of distinct identifiers"}
	}
	switch r.Match {
	case "", MatchAll, MatchAny:
	default:
		return &CallerError{Field: "reader.match", Problem: "not any or all"}
	}
	return nil
}

// Visible reports whether reader may read a record of visibility v. A
// record scoped to an agent is visible to that agent only; required tags
// must be held by the reader (all of them, or one under MatchAny); listed
// purposes must include the reader's. An invalid visibility or reader is
// an error, never a yes.
func Visible(v Visibility, reader *Reader) (bool, error) {
	if err := reader.check(); err != nil {
		return false, err
	}
	if err := v.Validate(); err != nil {
		return false, fmt.Errorf("decide visibility: %w", err)
	}
	if v.Agent != "" && v.Agent != reader.Agent {
		return false, nil
	}
	if len(v.Purposes) > 0 && !slices.Contains(v.Purposes, reader.Purpose) {
		return false, nil
	}
	if len(v.Tags) == 0 {
		return true, nil
	}
	if reader.Match == MatchAny {
		for _, t := range v.Tags {
			if slices.Contains(reader.Tags, t) {
				return true, nil
			}
		}
		return false, nil
	}
	for _, t := range v.Tags {
		if !slices.Contains(reader.Tags, t) {
			return false, nil
		}
	}
	return true, nil
}
