// Package enginecheck re-runs a memory claim's originating tool call
// through the engine, at the current data version, for memory.Recall: the
// same wall, execution and re-derivation as any tool call, with no model.
// The scope is the one the request's context carries
// (pipeline.WithScope), so a reader re-checks only what the principal may
// read.
package enginecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/tool"
)

// Caller is what a re-run needs from the engine: a tool call without a
// question (pipeline.Pipeline's Call).
type Caller interface {
	Call(ctx context.Context, p tool.Proposal) answer.Answer
}

// Rerunner is a memory.Rerunner over a Caller.
type Rerunner struct{ c Caller }

var _ memory.Rerunner = (*Rerunner)(nil)

// New returns a Rerunner over c (an engine's Pipeline).
func New(c Caller) *Rerunner { return &Rerunner{c: c} }

// Errors of a re-run.
var (
	// ErrNoAnswer: the engine answered neither a value nor a grounded
	// absence (an error outcome).
	ErrNoAnswer = errors.New("no answer")
)

// Rerun calls the tool with the recorded arguments. A call the wall
// rejects, or that abstains, wraps memory.ErrRefused; an error outcome
// wraps ErrNoAnswer. The error names the outcome's reason kind (a
// declared word), never an argument.
func (r *Rerunner) Rerun(ctx context.Context, call memory.ToolCall) (memory.Rerun, error) {
	params := map[string]any{}
	if len(call.Arguments) > 0 {
		dec := json.NewDecoder(bytes.NewReader(call.Arguments))
		dec.UseNumber()
		if err := dec.Decode(&params); err != nil || params == nil {
			return memory.Rerun{}, fmt.Errorf("rerun call: arguments are not a JSON object: %w", memory.ErrRefused)
		}
	}
	a := r.c.Call(ctx, tool.Proposal{Tool: call.Tool, Params: params})
	switch a.Outcome() {
	case answer.Answered, answer.Absence:
	case answer.Rejected, answer.Abstained:
		return memory.Rerun{}, fmt.Errorf("rerun call: %s: %w", a.Reason().Kind, memory.ErrRefused)
	default:
		return memory.Rerun{}, fmt.Errorf("rerun call: %s: %w", a.Reason().Kind, ErrNoAnswer)
	}
	v, ok := a.Value()
	if !ok {
		return memory.Rerun{}, fmt.Errorf("rerun call: %w", ErrNoAnswer)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return memory.Rerun{}, fmt.Errorf("rerun call: encode value: %w", err)
	}
	out := memory.Rerun{Value: b, DataVersion: a.DataVersion()}
	if p, ok := a.Provenance(); ok {
		out.EventIDs = p.EventIDs()
	}
	return out, nil
}
