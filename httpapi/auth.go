package httpapi

import (
	"context"
	"net/http"
	"strings"

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

// openPaths need no token: health and metrics for operators' probes, and
// the API description.
var openPaths = map[string]bool{"/healthz": true, "/metrics": true, "/openapi.json": true}

// RequireToken wraps next so that every path but the open ones needs a
// valid bearer token. A request without one gets 401 with no detail (no
// word on whether a token was missing, malformed or unknown). An accepted
// request carries its principal's scope: in the request context for the
// REST handlers, and in the MCP SDK's TokenInfo for MCP tool and resource
// handlers.
func RequireToken(auth Authenticator, next http.Handler) http.Handler {
	mcp := sdkauth.RequireBearerToken(func(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
		p, ok := auth.Authenticate(token)
		if !ok {
			return nil, sdkauth.ErrInvalidToken
		}
		return &sdkauth.TokenInfo{UserID: p.Name, Extra: map[string]any{pipeline.TokenInfoScopeKey: p.Scope}}, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if openPaths[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		p, ok := authenticate(auth, r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="provenant"`)
			writeError(w, http.StatusUnauthorized, CodeUnauthorized, "authentication required")
			return
		}
		r = r.WithContext(pipeline.WithScope(r.Context(), p.Scope))
		if r.URL.Path == "/mcp" {
			mcp.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func authenticate(auth Authenticator, r *http.Request) (principal.Principal, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return principal.Principal{}, false
	}
	return auth.Authenticate(strings.TrimSpace(token))
}
