package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/gowebpki/jcs"
)

// Status is what recall found for a claim carrying provenance.
type Status string

// The statuses.
const (
	// StatusCurrent: the claim's tool call, re-run at the current data
	// version, gives the value the claim recorded.
	StatusCurrent Status = "current"
	// StatusOutdated: it now gives a different value; Check.NewerEvents
	// names the events the new value rests on that the claim did not.
	// The claim is still shown, flagged.
	StatusOutdated Status = "outdated"
	// StatusUnverifiable: the claim cannot be checked (Check.Reason).
	StatusUnverifiable Status = "unverifiable"
)

// Reasons a claim is unverifiable.
const (
	ReasonNoToolCall = "no_tool_call" // its provenance names no tool call
	ReasonNoValue    = "no_value"     // its provenance recorded no value (or not one JSON value)
	ReasonRefused    = "refused"      // the engine refused the call (unregistered, invalid, out of the reader's scope)
	ReasonFailed     = "failed"       // the engine could not answer it
)

// Check is recall's verdict on one claim.
type Check struct {
	Status Status `json:"status"`
	// Reason says why a claim is unverifiable (one of the Reason
	// constants).
	Reason string `json:"reason,omitempty"`
	// Value is the value the call gives now, when outdated.
	Value json.RawMessage `json:"value,omitempty"`
	// NewerEvents are the event ids the current value rests on that the
	// claim's row keys do not name, sorted, when outdated.
	NewerEvents []string `json:"newer_events,omitempty"`
	// DataVersion is the data version the call was re-run at ("" when
	// the engine names none).
	DataVersion string `json:"data_version,omitempty"`
}

// Rerun is a tool call's answer at the current data version: its value
// as JSON (the answer's "value"), the event ids it rests on, and the data
// version.
type Rerun struct {
	Value       json.RawMessage
	EventIDs    []string
	DataVersion string
}

// Rerunner re-runs a claim's originating tool call through the engine at
// the current data version, under the reader's scope. No model is
// involved. An error wrapping ErrRefused is a call the engine refused;
// any other error is a failure to answer.
type Rerunner interface {
	Rerun(ctx context.Context, call ToolCall) (Rerun, error)
}

// ErrRefused: the engine refused a re-run call (an unregistered tool,
// arguments the wall rejects, a store outside the reader's scope).
var ErrRefused = errors.New("call refused")

// Recall is Read, then a check of each claim carrying provenance: its
// tool call re-run at the current data version (one re-run per distinct
// call), the value compared with the one the claim recorded (as RFC 8785
// canonical JSON). A claim whose value still holds is current; one whose
// value moved is outdated (still shown, with the current value and the
// newer events); one that cannot be checked is unverifiable with a reason.
// Claims without provenance carry no check.
func Recall(ctx context.Context, st Store, reader *Reader, q Query, p Policy, rr Rerunner) (*Sheet, error) {
	if rr == nil {
		return nil, errors.New("recall memory: no rerunner")
	}
	s, err := Read(ctx, st, reader, q, p)
	if err != nil {
		return nil, err
	}
	type result struct {
		r   Rerun
		err error
	}
	done := map[string]result{}
	for i := range s.Claims {
		c := &s.Claims[i]
		if c.Provenance == nil {
			continue
		}
		c.Check = check(ctx, c.Provenance, func(call ToolCall) (Rerun, error) {
			key := call.Tool + "\x00" + canonicalString(call.Arguments)
			if r, ok := done[key]; ok {
				return r.r, r.err
			}
			r, err := rr.Rerun(ctx, call)
			done[key] = result{r, err}
			return r, err
		})
	}
	return s, nil
}

func canonicalString(b json.RawMessage) string {
	if c, err := jcs.Transform(b); err == nil {
		return string(c)
	}
	return string(b)
}

func check(ctx context.Context, p *Provenance, rerun func(ToolCall) (Rerun, error)) *Check {
	if p.ToolCall == nil || p.ToolCall.Tool == "" {
		return &Check{Status: StatusUnverifiable, Reason: ReasonNoToolCall}
	}
	if len(bytes.TrimSpace(p.Value)) == 0 {
		return &Check{Status: StatusUnverifiable, Reason: ReasonNoValue}
	}
	recorded, err := jcs.Transform(p.Value)
	if err != nil {
		return &Check{Status: StatusUnverifiable, Reason: ReasonNoValue}
	}
	if err := ctx.Err(); err != nil {
		return &Check{Status: StatusUnverifiable, Reason: ReasonFailed}
	}
	r, err := rerun(*p.ToolCall)
	if errors.Is(err, ErrRefused) {
		return &Check{Status: StatusUnverifiable, Reason: ReasonRefused}
	}
	if err != nil {
		return &Check{Status: StatusUnverifiable, Reason: ReasonFailed}
	}
	now, err := jcs.Transform(r.Value)
	if err != nil {
		return &Check{Status: StatusUnverifiable, Reason: ReasonFailed, DataVersion: r.DataVersion}
	}
	if bytes.Equal(recorded, now) {
		return &Check{Status: StatusCurrent, DataVersion: r.DataVersion}
	}
	var newer []string
	for _, id := range r.EventIDs {
		if !slices.Contains(p.RowKeys, id) && !slices.Contains(newer, id) {
			newer = append(newer, id)
		}
	}
	slices.Sort(newer)
	return &Check{Status: StatusOutdated, Value: json.RawMessage(now), NewerEvents: newer, DataVersion: r.DataVersion}
}

// String is the check in words, for a terminal.
func (c *Check) String() string {
	switch c.Status {
	case StatusOutdated:
		return fmt.Sprintf("outdated: now %s (newer events %v)", c.Value, c.NewerEvents)
	case StatusUnverifiable:
		return "unverifiable: " + c.Reason
	}
	return string(c.Status)
}
