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
	var req ApprovalRequest
	if status, code, msg, _ := decodeJSON(r.Body, &req, &strictjson.Options{Names: []string{"session", "tools", "tier", "questions", "age"}}); code != "" {
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
