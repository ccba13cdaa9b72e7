package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/internal/strictjson"
)

// Approvals applies a human's decision on an elevation: a grant
// (Approve), the refusal of a pending request (Deny), the end of a live
// grant (Revoke). The server calls it only for an authenticated
// principal the principals file marks approver: true, and names the
// approver from that identity, never from the body. Its implementation
// (main's) holds the autonomy.Authority. Its errors wrap the autonomy
// sentinels: autonomy.ErrNoGrant (404 unknown_grant),
// autonomy.ErrNotPending (404 unknown_request), autonomy.ErrGrant,
// ErrWildcard, ErrUnknownTool and ErrUnknownTier (400); anything else is
// the server's failure (5xx).
type Approvals interface {
	Approve(ctx context.Context, approver string, req ApprovalRequest) (eventlog.ElevationDecided, error)
	Deny(ctx context.Context, approver string, req DenialRequest) (eventlog.ElevationDecided, error)
	Revoke(ctx context.Context, approver string, req RevocationRequest) (eventlog.ElevationExpired, error)
}

// DenialRequest is the body of POST /v1/denials: the session whose
// pending elevation is refused, the tools it asked for by name, and the
// tier it asked for.
type DenialRequest struct {
	Session string   `json:"session"`
	Tools   []string `json:"tools"`
	Tier    string   `json:"tier"`
}

// RevocationRequest is the body of POST /v1/revocations: the live grant
// to end, and the session it raises.
type RevocationRequest struct {
	Session string `json:"session"`
	GrantID string `json:"grant_id"`
}

// ApprovalRequest is the body of POST /v1/approvals: the session to
// raise, the tools by name (never a pattern), the tier, and the limits
// (the grant lapses after the first it reaches).
type ApprovalRequest struct {
	Session   string   `json:"session"`
	Tools     []string `json:"tools"`
	Tier      string   `json:"tier"`
	Questions int64    `json:"questions"`
	Age       int64    `json:"age,omitempty"`
}

// The error codes of POST /v1/approvals, /v1/denials and
// /v1/revocations.
const (
	CodeNotApprover       = "not_approver"       // 403: the principal may not approve (or the server authenticates no one)
	CodeInvalidApproval   = "invalid_approval"   // 400: the gate refused the grant (tools, tier, limits)
	CodeInvalidDenial     = "invalid_denial"     // 400: the gate refused the denial (tools, tier)
	CodeInvalidRevocation = "invalid_revocation" // 400: the session or grant id is malformed
	CodeUnknownRequest    = "unknown_request"    // 404: no elevation of those tools is pending: the session holds them
	CodeUnknownGrant      = "unknown_grant"      // 404: no live grant of the session has that id
	CodeNoApprovals       = "no_approvals"       // 404: the server takes no approvals
)

func (s *Server) handleApprovals(w http.ResponseWriter, r *http.Request) {
	var req ApprovalRequest
	handleDecision(s, w, r, &req, []string{"session", "tools", "tier", "questions", "age"}, CodeInvalidApproval,
		func(a Approvals, approver string) (any, error) { return a.Approve(r.Context(), approver, req) })
}

func (s *Server) handleDenials(w http.ResponseWriter, r *http.Request) {
	var req DenialRequest
	handleDecision(s, w, r, &req, []string{"session", "tools", "tier"}, CodeInvalidDenial,
		func(a Approvals, approver string) (any, error) { return a.Deny(r.Context(), approver, req) })
}

func (s *Server) handleRevocations(w http.ResponseWriter, r *http.Request) {
	var req RevocationRequest
	handleDecision(s, w, r, &req, []string{"session", "grant_id"}, CodeInvalidRevocation,
		func(a Approvals, approver string) (any, error) { return a.Revoke(r.Context(), approver, req) })
}

// handleDecision serves one approver's decision: only for an
// authenticated approver, the body read strictly into req (names: its
// fields), then decide on the approver's name from the token. A refusal
// is answered with a fixed message by its kind, never repeating the
// body.
func handleDecision(s *Server, w http.ResponseWriter, r *http.Request, req any, names []string, invalid string,
	decide func(a Approvals, approver string) (any, error)) {
	b := s.backend.Load()
	if b == nil || b.Approvals == nil {
		writeError(w, http.StatusNotFound, CodeNoApprovals, "this server takes no approvals")
		return
	}
	p, ok := principalFrom(r.Context())
	if !ok || !p.Approver {
		writeError(w, http.StatusForbidden, CodeNotApprover, "only an authenticated approver may decide on an elevation")
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	if status, code, msg, _ := decodeJSON(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), req, &strictjson.Options{Names: names}); code != "" {
		writeError(w, status, code, msg)
		return
	}
	out, err := decide(b.Approvals, p.Name)
	if err != nil {
		status, code, msg := decisionError(r.Context(), err, invalid)
		writeError(w, status, code, msg)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// decisionError maps an Approvals error to its status, code and fixed
// message.
func decisionError(ctx context.Context, err error, invalid string) (int, string, string) {
	switch {
	case errors.Is(err, autonomy.ErrNoGrant):
		return http.StatusNotFound, CodeUnknownGrant, "no live grant of the session has that id"
	case errors.Is(err, autonomy.ErrNotPending):
		return http.StatusNotFound, CodeUnknownRequest, "no elevation of those tools is pending: the session already holds them"
	case errors.Is(err, autonomy.ErrNoApprover):
		return http.StatusForbidden, CodeNotApprover, "the principal's name cannot name an approver"
	case errors.Is(err, autonomy.ErrWildcard):
		return http.StatusBadRequest, invalid, "refused: name tools one by one, never a pattern"
	case errors.Is(err, autonomy.ErrGrant), errors.Is(err, autonomy.ErrUnknownTool), errors.Is(err, autonomy.ErrUnknownTier):
		switch invalid {
		case CodeInvalidApproval:
			return http.StatusBadRequest, invalid, "the grant was refused: name declared tools one by one, a tier above the session's, and limits within bounds"
		case CodeInvalidDenial:
			return http.StatusBadRequest, invalid, "the denial was refused: name declared tools one by one and a tier above the session's"
		}
		return http.StatusBadRequest, invalid, "the revocation was refused: name a session and a grant id (letters, digits and _.:-)"
	case ctx.Err() != nil:
		return http.StatusGatewayTimeout, CodeTimeout, "the request ended (its deadline passed or its client left) before the decision was recorded"
	}
	return http.StatusInternalServerError, CodeInternal, "internal error"
}

// addApprovalPaths documents POST /v1/approvals, /v1/denials and
// /v1/revocations (Options.Approvals).
func addApprovalPaths(doc map[string]any) {
	paths := doc["paths"].(map[string]any)
	session := map[string]any{"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$", "description": "The session: a principal's name, or local."}
	tools := map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$"}, "description": "The tools, by name: never a pattern."}
	tier := map[string]any{"enum": []any{"L2", "L3"}}
	common := map[string]any{
		"403": jsonResponse("The principal may not approve (not_approver).", ref("Error")),
		"404": jsonResponse("The server takes no approvals (no_approvals).", ref("Error")),
		"415": unsupportedMediaType(),
		"500": jsonResponse("The server's own failure (internal).", ref("Error")),
		"504": jsonResponse("The request ended before the decision was recorded (timeout).", ref("Error")),
	}
	responses := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range common {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	add := func(path, id, summary, desc string, body map[string]any, extra map[string]any) {
		o := operation(id, summary, desc+" Only an authenticated principal marked approver: true may call it; the approver is named from the token, never from the body.", body, responses(extra))
		o["tags"] = []any{"autonomy"}
		paths[path] = map[string]any{"post": o}
	}
	add("/v1/approvals", "approve_elevation", "Approve an elevation",
		"Grant a session named tools at a higher autonomy tier, for a number of questions or an age in logical time, whichever comes first.",
		map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"session", "tools", "tier", "questions"},
			"properties": map[string]any{
				"session": session, "tools": tools, "tier": tier,
				"questions": map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "description": "The grant lapses after this many questions of the session."},
				"age":       map[string]any{"type": "integer", "minimum": 1, "maximum": 1000000, "description": "Or after this many units of logical time (one a question), whichever comes first; 1000 when absent."},
			},
		}, map[string]any{
			"200": jsonResponse("The elevation.decided record of the grant.", map[string]any{"type": "object"}),
			"400": jsonResponse("A malformed request, or a grant the gate refuses (invalid_approval).", ref("Error")),
		})
	add("/v1/denials", "deny_elevation", "Deny a pending elevation",
		"Refuse a session's pending elevation of named tools (a call of each is refused for want of the tier): writes elevation.decided with decision denied and a decision record naming the approver. The session does not change.",
		map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"session", "tools", "tier"},
			"properties": map[string]any{"session": session, "tools": tools, "tier": tier},
		}, map[string]any{
			"200": jsonResponse("The elevation.decided record of the denial.", map[string]any{"type": "object"}),
			"400": jsonResponse("A malformed request, or a denial the gate refuses (invalid_denial).", ref("Error")),
			"404": jsonResponse("No elevation of those tools is pending: the session holds them (unknown_request); or the server takes no approvals (no_approvals).", ref("Error")),
		})
	add("/v1/revocations", "revoke_elevation", "Revoke a live grant",
		"End a session's live grant before it lapses: writes elevation.expired with reason revoked and a decision record naming the approver. The session is back at its default tier for the grant's tools.",
		map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"session", "grant_id"},
			"properties": map[string]any{
				"session":  session,
				"grant_id": map[string]any{"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$", "description": "The grant's id, as its approval returned it."},
			},
		}, map[string]any{
			"200": jsonResponse("The elevation.expired record of the revocation.", map[string]any{"type": "object"}),
			"400": jsonResponse("A malformed request (invalid_revocation).", ref("Error")),
			"404": jsonResponse("No live grant of the session has that id (unknown_grant); or the server takes no approvals (no_approvals).", ref("Error")),
		})
	doc["tags"] = append(doc["tags"].([]any), map[string]any{"name": "autonomy", "description": "Human decisions on autonomy elevations: approve, deny, revoke (serve with --principals)."})
}
