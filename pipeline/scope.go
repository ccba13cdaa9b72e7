package pipeline

import (
	"context"

	"github.com/provenant/provenant/tool"
)

type scopeKey struct{}

// WithScope returns ctx carrying the caller's scope: the stores an
// authenticated principal may see. Surfaces that authenticate set it per
// request; the pipeline hands it to the wall, which stamps it on the call.
func WithScope(ctx context.Context, s tool.Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeFrom returns the scope ctx carries, if any.
func ScopeFrom(ctx context.Context) (tool.Scope, bool) {
	s, ok := ctx.Value(scopeKey{}).(tool.Scope)
	return s, ok
}

// scope is the request's scope, or the pipeline's default for a request
// that carries none.
func (p *Pipeline) scope(ctx context.Context) tool.Scope {
	if s, ok := ScopeFrom(ctx); ok {
		return s
	}
	return *p.opts.DefaultScope
}

// TokenInfoScopeKey is the key under which an authenticating HTTP layer
// stores the principal's tool.Scope in the MCP SDK's TokenInfo.Extra: the
// one value the SDK carries from the HTTP request to a tool handler.
const TokenInfoScopeKey = "provenant.scope"

// Scope returns the scope a request under ctx reads with: the one ctx
// carries, or the pipeline's default.
func (p *Pipeline) Scope(ctx context.Context) tool.Scope { return p.scope(ctx) }
