// Package provider is the model seam: the two jobs a language model may do
// (propose a tool call from the closed menu, and phrase a verified value as
// one sentence) and the errors a provider may return. Implementations live
// in provider/<name>; every network model call goes through one HTTP
// transport (package provider/cassette records and replays it).
package provider

import (
	"context"
	"errors"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// ErrUnavailable is wrapped by a provider that cannot reach its model.
var ErrUnavailable = errors.New("model unavailable")

// Provider proposes tool calls and composes sentences.
type Provider interface {
	// Name identifies the provider in health checks and reports.
	Name() string
	// Select proposes one call from menu for the question, or nil to
	// abstain; an *Abstention error abstains with its reason. The proposal
	// is untrusted: the wall validates it. The request's clock, when the
	// caller gives one, is in ctx (NowFrom).
	Select(ctx context.Context, question string, menu []tool.Def) (*tool.Proposal, error)
	// Compose phrases a verified value as one display sentence. It is
	// shown the value and the call, never the provenance.
	Compose(ctx context.Context, in ComposeInput) (string, error)
}

// ComposeInput is everything a composer may see.
type ComposeInput struct {
	Question string
	Def      tool.Def // the called tool's definition (its sentence templates)
	Tool     string
	Args     map[string]string
	Value    fact.Value
	// Asked is, for a yes/no question ("is pr-007 in stock?"), the value
	// it asked about: one of Def.Values; "" otherwise.
	Asked string
}
