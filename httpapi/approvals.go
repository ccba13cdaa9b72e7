package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/internal/strictjson"
)

// Approvals applies a human's approval of an elevation. The server
// calls it only for an authenticated principal the principals file marks
// approver: true, and names the approver from that identity, never from
// the body. Its implementation (main's) holds the autonomy.Authority.
type Approvals interface {
	Approve(ctx context.Context, approver string, req ApprovalRequest) (eventlog.ElevationDecided, error)
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

// The error codes of POST /v1/approvals.
const (
	CodeNotApprover     = "not_approver"     // 403: the principal may not approve (or the server authenticates no one)
	CodeInvalidApproval = "invalid_approval" // 400: the gate refused the grant (tools, tier, limits)
	CodeNoApprovals     = "no_approvals"     // 404: the server takes no approvals
)

func (s *Server) handleApprovals(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	if b == nil || b.Approvals == nil {
		writeError(w, http.StatusNotFound, CodeNoApprovals, "this server takes no approvals")
		return
	}
	p, ok := principalFrom(r.Context())
	if !ok || !p.Approver {
		writeError(w, http.StatusForbidden, CodeNotApprover, "only an authenticated approver may approve an elevation")
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	var req ApprovalRequest
	if status, code, msg, _ := decodeJSON(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), &req, &strictjson.Options{Names: []string{"session", "tools", "tier", "questions", "age"}}); code != "" {
		writeError(w, status, code, msg)
		return
	}
	dec, err := b.Approvals.Approve(r.Context(), p.Name, req)
	if err != nil {
		msg := "the grant was refused: name declared tools one by one, a tier above the session's, and limits within bounds"
		if errors.Is(err, autonomy.ErrWildcard) {
			msg = "the grant was refused: name tools one by one, never a pattern"
		}
		writeError(w, http.StatusBadRequest, CodeInvalidApproval, msg)
		return
	}
	writeJSON(w, http.StatusOK, dec)
}

// addApprovalPaths documents POST /v1/approvals (Options.Approvals).
func addApprovalPaths(doc map[string]any) {
	paths := doc["paths"].(map[string]any)
	body := map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"session", "tools", "tier", "questions"},
		"properties": map[string]any{
			"session":   map[string]any{"type": "string", "description": "The session to raise: a principal's name, or local."},
			"tools":     map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$"}, "description": "The tools, by name: never a pattern."},
			"tier":      map[string]any{"enum": []any{"L2", "L3"}},
			"questions": map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "description": "The grant lapses after this many questions of the session."},
			"age":       map[string]any{"type": "integer", "minimum": 1, "maximum": 1000000, "description": "Or after this many units of logical time (one a question), whichever comes first; 1000 when absent."},
		},
	}
	o := operation("approve_elevation", "Approve an elevation",
		"Grant a session named tools at a higher autonomy tier, on the word of the authenticated principal, who must be an approver (approver: true in the principals file). The approver is named from the token, never from the body.",
		body, map[string]any{
			"200": jsonResponse("The elevation.decided record of the grant.", map[string]any{"type": "object"}),
			"400": jsonResponse("A malformed request, or a grant the gate refuses (invalid_approval).", ref("Error")),
			"403": jsonResponse("The principal may not approve (not_approver).", ref("Error")),
			"404": jsonResponse("The server takes no approvals (no_approvals).", ref("Error")),
			"415": jsonResponse("The Content-Type is not application/json.", ref("Error")),
		})
	o["tags"] = []any{"autonomy"}
	paths["/v1/approvals"] = map[string]any{"post": o}
	doc["tags"] = append(doc["tags"].([]any), map[string]any{"name": "autonomy", "description": "Human approval of autonomy elevations (serve with --principals)."})
}
