package httpapi

import (
	"context"
	"net/http"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/principal"
)

// Authenticator matches bearer tokens to principals (principal.Set).
type Authenticator interface {
	Authenticate(token string) (principal.Principal, bool)
}

// CodeUnauthorized is the error code of a 401.
const CodeUnauthorized = "unauthorized"

// AuthOptions configures RequireToken.
type AuthOptions struct {
	// PublicMetrics leaves GET /metrics open; otherwise it needs a token
	// like every other path (any principal's: the metrics are counts by
	// outcome and kind over every store, with no ids and no values).
	PublicMetrics bool
}

// RequireToken wraps next so that every path but /healthz, /openapi.json
// and (with PublicMetrics) /metrics needs a valid bearer token, read by
// principal.Bearer, the one parser of the Authorization header. A request
// without one gets the same JSON 401 on every path, /mcp included, with
// no word on whether a token was missing, malformed or unknown. An
// accepted request carries its principal's scope: in the request context
// for the REST handlers, and in the MCP SDK's TokenInfo for MCP tool and
// resource handlers. nil opts means defaults.
func RequireToken(auth Authenticator, next http.Handler, opts *AuthOptions) http.Handler {
	var o AuthOptions
	if opts != nil {
		o = *opts
	}
	open := map[string]bool{"/healthz": true, "/openapi.json": true, "/metrics": o.PublicMetrics}
	// The SDK carries TokenInfo to tool handlers only through its own
	// middleware. It runs after ours has accepted the request, and its
	// verifier hands over the principal ours found: it never decides.
	// (Every header principal.Bearer accepts is one the SDK splits into
	// the same scheme and token.)
	mcp := sdkauth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		p, ok := ctx.Value(principalKey{}).(principal.Principal)
		if !ok {
			return nil, sdkauth.ErrInvalidToken
		}
		return &sdkauth.TokenInfo{UserID: p.Name, Extra: map[string]any{pipeline.TokenInfoScopeKey: p.Scope}}, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if open[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		p, ok := authenticate(auth, r)
		if !ok {
			answerWithoutBody(w, r)
			w.Header().Set("WWW-Authenticate", `Bearer realm="provenant"`)
			writeError(w, http.StatusUnauthorized, CodeUnauthorized, "authentication required")
			return
		}
		// The principal's scope, its session (its autonomy gate: a
		// grant to it is its own) and itself (for the approvals
		// endpoint, which names the approver from it).
		ctx := pipeline.WithScope(r.Context(), p.Scope)
		ctx = pipeline.WithSession(ctx, pipeline.SessionOf(p.Name))
		ctx = context.WithValue(ctx, principalKey{}, p)
		if r.URL.Path == "/mcp" {
			mcp.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

type principalKey struct{}

// principalFrom returns the principal RequireToken accepted for the
// request under ctx, if any.
func principalFrom(ctx context.Context) (principal.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(principal.Principal)
	return p, ok
}

func authenticate(auth Authenticator, r *http.Request) (principal.Principal, bool) {
	vs := r.Header.Values("Authorization")
	if len(vs) != 1 {
		return principal.Principal{}, false
	}
	token, ok := principal.Bearer(vs[0])
	if !ok {
		return principal.Principal{}, false
	}
	return auth.Authenticate(token)
}
