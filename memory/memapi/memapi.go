// Package memapi is what the memory surfaces (the CLI's memory command,
// the HTTP endpoints and the MCP tools remember, annotate and recall)
// share: the request types, whose JSON the tool registry's schemas
// describe (tool.RememberSchema, tool.AnnotateSchema, tool.RecallSchema),
// and a Service that turns a request and the caller's identity into an
// append or a sheet. The caller's identity (the record's agent, the
// reader) is an argument, never a field of a request: on the network
// surfaces it is the authenticated principal.
//
// Errors a caller caused are *Error values with a code and a message that
// names declared fields only, never a value the caller sent. It imports
// only the standard library and package memory.
package memapi

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/provenant/provenant/memory"
)

// The error codes of a caller's mistake.
const (
	CodeInvalidRecord = "invalid_record" // the record or its visibility fails memory.Validate
	CodeDuplicateKey  = "duplicate_key"  // the key is already in the journal
	CodeUnknownTarget = "unknown_target" // the annotation's target is not in the journal
	CodeInvalidRecall = "invalid_recall" // the recall is asked wrongly (no cues, a bad max_items, ...)
)

// Error is a request the caller got wrong. Message names declared fields
// and problems, never a value from the request.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Visibility is who may read a record a request writes: Private scopes it
// to the writing agent; Tags are tags a reader must hold; Purposes the
// purposes it may be read for.
type Visibility struct {
	Private  bool     `json:"private,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Purposes []string `json:"purposes,omitempty"`
}

// Relevance is a request's declared relevance (memory.Relevance): the
// score is required, as the tools' input schemas say, so that a
// relevance given without one is refused rather than stored as 0.
type Relevance struct {
	Score    *float64 `json:"score"`
	HalfLife int64    `json:"half_life,omitempty"`
}

// record is r as a record's relevance; nil for none.
func (r *Relevance) record() (*memory.Relevance, error) {
	if r == nil {
		return nil, nil
	}
	if r.Score == nil {
		return nil, &Error{CodeInvalidRecord, "relevance: want a score from 0 to 1"}
	}
	return &memory.Relevance{Score: *r.Score, HalfLife: r.HalfLife}, nil
}

// RememberRequest appends a targetless record: a claim, an observation or
// a note (Kind, default claim). Key is optional: the service assigns one.
type RememberRequest struct {
	Key        string             `json:"key,omitempty"`
	Kind       memory.Kind        `json:"kind,omitempty"`
	Text       string             `json:"text"`
	Subject    string             `json:"subject,omitempty"`
	Tags       []string           `json:"tags,omitempty"`
	Class      string             `json:"class,omitempty"`
	Relevance  *Relevance         `json:"relevance,omitempty"`
	Provenance *memory.Provenance `json:"provenance,omitempty"`
	Visibility *Visibility        `json:"visibility,omitempty"`
}

// AnnotateRequest appends an annotation of Target: confirm, retract or
// supersede. A supersede carries the text that stands in the target's
// place (and may carry a subject, tags, relevance and provenance); Stated
// asserts the correction outright.
type AnnotateRequest struct {
	Key        string             `json:"key,omitempty"`
	Kind       memory.Kind        `json:"kind"`
	Target     string             `json:"target"`
	Text       string             `json:"text,omitempty"`
	Subject    string             `json:"subject,omitempty"`
	Tags       []string           `json:"tags,omitempty"`
	Stated     bool               `json:"stated,omitempty"`
	Relevance  *Relevance         `json:"relevance,omitempty"`
	Provenance *memory.Provenance `json:"provenance,omitempty"`
	Visibility *Visibility        `json:"visibility,omitempty"`
}

// RecallRequest reads a sheet: the cues (at least one of subject, tags,
// text), the agents whose records are candidates, keys to leave out, the
// logical time (default: now), the most claims (default 10) and a policy
// document (memory.ParsePolicy; default memory.DefaultPolicy).
type RecallRequest struct {
	Subject   string          `json:"subject,omitempty"`
	Tags      []string        `json:"tags,omitempty"`
	Text      string          `json:"text,omitempty"`
	Partition []string        `json:"partition,omitempty"`
	Exclude   []string        `json:"exclude,omitempty"`
	AsOf      *int64          `json:"as_of,omitempty"`
	MaxItems  int             `json:"max_items,omitempty"`
	Policy    json.RawMessage `json:"policy,omitempty"`
}

// DefaultMaxItems is a recall's max_items when the request names none.
const DefaultMaxItems = 10

// Written is the answer to remember and annotate: the record's key and
// logical time.
type Written struct {
	Key  string `json:"key"`
	Time int64  `json:"time"`
}

// Service serves the requests over a journal.
type Service struct {
	// Journal is where records are appended and read; required.
	Journal memory.Journal
	// Rerunner checks recalled claims against the engine; nil: recall
	// reads without checks (claims carry no check).
	Rerunner memory.Rerunner
	// Now is the logical clock: a record's time and a recall's default
	// as_of; nil: Unix seconds of the wall clock.
	Now func() int64
	// NewKey assigns a key to a request that names none; nil: "m-" and
	// 16 random hex digits.
	NewKey func() string
}

func (s *Service) now() int64 {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now().Unix()
}

func (s *Service) key(k string) string {
	if k != "" {
		return k
	}
	if s.NewKey != nil {
		return s.NewKey()
	}
	var b [8]byte
	rand.Read(b[:])
	return "m-" + hex.EncodeToString(b[:])
}

func visibility(agent string, v *Visibility) memory.Visibility {
	if v == nil {
		return memory.Visibility{}
	}
	out := memory.Visibility{Tags: v.Tags, Purposes: v.Purposes}
	if v.Private {
		out.Agent = agent
	}
	return out
}

// Remember appends a targetless record written by agent.
func (s *Service) Remember(ctx context.Context, agent string, req RememberRequest) (Written, error) {
	kind := cmp.Or(req.Kind, memory.KindClaim)
	if kind.Targeted() {
		return Written{}, &Error{CodeInvalidRecord, "kind: not a targetless kind (observation, claim, note); annotate writes confirm, retract and supersede"}
	}
	rel, err := req.Relevance.record()
	if err != nil {
		return Written{}, err
	}
	t := s.now()
	r := memory.Record{
		Key: s.key(req.Key), Agent: agent, Kind: kind, Text: req.Text, Subject: req.Subject, Tags: req.Tags,
		Class: req.Class, Time: t, Valid: memory.Interval{From: t}, Relevance: rel, Provenance: req.Provenance,
		Recorded: time.Now().UTC(),
	}
	return s.append(ctx, r, visibility(agent, req.Visibility))
}

// Annotate appends an annotation written by agent. A target private to
// another agent is unknown_target, as a key not in the journal is.
func (s *Service) Annotate(ctx context.Context, agent string, req AnnotateRequest) (Written, error) {
	if !req.Kind.Targeted() {
		return Written{}, &Error{CodeInvalidRecord, "kind: not an annotation (confirm, retract, supersede)"}
	}
	rel, err := req.Relevance.record()
	if err != nil {
		return Written{}, err
	}
	t := s.now()
	r := memory.Record{
		Key: s.key(req.Key), Agent: agent, Kind: req.Kind, Target: req.Target, Text: req.Text, Subject: req.Subject,
		Tags: req.Tags, Stated: req.Stated, Time: t, Valid: memory.Interval{From: t}, Relevance: rel,
		Provenance: req.Provenance, Recorded: time.Now().UTC(),
	}
	if err := memory.Validate(r); err != nil {
		return Written{}, callerError(err)
	}
	// A target private to another agent is not the writer's to annotate,
	// and is answered as a key not in the journal, so that the answer
	// does not tell a private key from a missing one.
	vis, err := s.Journal.Visibility(ctx, []string{r.Target})
	if err != nil {
		return Written{}, fmt.Errorf("read target visibility: %w", err)
	}
	if v, ok := vis[r.Target]; ok && v.Agent != "" && v.Agent != agent {
		return Written{}, callerError(memory.ErrUnknownTarget)
	}
	return s.append(ctx, r, visibility(agent, req.Visibility))
}

func (s *Service) append(ctx context.Context, r memory.Record, v memory.Visibility) (Written, error) {
	if err := memory.Validate(r); err != nil {
		return Written{}, callerError(err)
	}
	if err := v.Validate(); err != nil {
		return Written{}, callerError(err)
	}
	if err := s.Journal.Append(ctx, r, v); err != nil {
		if ce := callerError(err); ce != nil {
			return Written{}, ce
		}
		return Written{}, fmt.Errorf("append record: %w", err)
	}
	return Written{Key: r.Key, Time: r.Time}, nil
}

// callerError maps an error the caller caused to an *Error, or returns
// nil.
func callerError(err error) *Error {
	var fe *memory.FieldError
	var ce *memory.CallerError
	switch {
	case errors.As(err, &fe):
		return &Error{CodeInvalidRecord, fe.Field + ": " + fe.Problem}
	case errors.Is(err, memory.ErrDuplicateKey):
		return &Error{CodeDuplicateKey, "key: already in the journal"}
	case errors.Is(err, memory.ErrUnknownTarget):
		return &Error{CodeUnknownTarget, "target: not in the journal"}
	case errors.As(err, &ce):
		return &Error{CodeInvalidRecall, ce.Field + ": " + ce.Problem}
	}
	return nil
}

// Recall reads what reader should currently believe about the request's
// cues, each claim carrying provenance checked against the engine when
// the service has a Rerunner. Policy warnings join the sheet's.
func (s *Service) Recall(ctx context.Context, reader memory.Reader, req RecallRequest) (*memory.Sheet, error) {
	q := memory.Query{
		Cues:      memory.Cues{Subject: req.Subject, Tags: req.Tags, Text: req.Text},
		Partition: req.Partition, Exclude: req.Exclude, MaxItems: cmp.Or(req.MaxItems, DefaultMaxItems),
	}
	if req.AsOf != nil {
		q.AsOf = *req.AsOf
	} else {
		q.AsOf = s.now()
	}
	p, warns := memory.DefaultPolicy(), []memory.Warning(nil)
	if len(req.Policy) > 0 {
		p, warns = memory.ParsePolicy(req.Policy)
	}
	var sheet *memory.Sheet
	var err error
	if s.Rerunner != nil {
		sheet, err = memory.Recall(ctx, s.Journal, &reader, q, p, s.Rerunner)
	} else {
		sheet, err = memory.Read(ctx, s.Journal, &reader, q, p)
	}
	if err != nil {
		if ce := callerError(err); ce != nil {
			return nil, ce
		}
		return nil, fmt.Errorf("recall memory: %w", err)
	}
	if len(warns) > 0 {
		sheet.Warnings = append(sheet.Warnings, warns...)
		slices.SortStableFunc(sheet.Warnings, func(a, b memory.Warning) int {
			return cmp.Or(cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
		})
	}
	return sheet, nil
}
