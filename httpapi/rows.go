package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/provenant/provenant/pipeline"
)

// The errors of GET /v1/results/{id}/rows. None repeats the id or the
// page a client sent.
const (
	CodeUnknownResult = "unknown_result" // 404: no result by that id with provenance listed in part, for this caller
	CodeNoSuchPage    = "no_such_page"   // 404: the page is past the last
	CodeBadPage       = "bad_page"       // 400: page is not a whole number from 1, or is given twice, or the query is malformed
	CodeDataChanged   = "data_changed"   // 410: the data changed since the result; ask again
	CodeTimeout       = "timeout"        // 504: the request's deadline passed
)

// handleRows serves GET /v1/results/{id}/rows?page=N: one page of the
// event ids behind a result whose answer listed its provenance in part,
// for the caller's scope (another scope's result is unknown).
func (s *Server) handleRows(w http.ResponseWriter, r *http.Request) {
	// The query is parsed strictly, as the MCP resource's is: r.URL.Query
	// drops a malformed pair (page=2;x, page=%zz) and keeps the first of
	// two pages, which would serve page 1 or 2 for a page the client never
	// asked for.
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || len(q["page"]) > 1 {
		writeError(w, http.StatusBadRequest, CodeBadPage, "page must be a whole number from 1, given once")
		return
	}
	page := 1
	if pages, ok := q["page"]; ok {
		raw := pages[0]
		if raw == "" || strings.Trim(raw, "0123456789") != "" {
			writeError(w, http.StatusBadRequest, CodeBadPage, "page must be a whole number from 1, given once")
			return
		}
		n, err := strconv.Atoi(raw)
		if err != nil {
			// Only digits, too many for an int: a whole number past
			// every result's last page.
			writeError(w, http.StatusNotFound, CodeNoSuchPage, "the result has fewer pages")
			return
		}
		if n < 1 {
			writeError(w, http.StatusBadRequest, CodeBadPage, "page must be a whole number from 1, given once")
			return
		}
		page = n
	}
	b := s.backend.Load()
	if b == nil {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, CodeLoading, "the dataset is still loading")
		return
	}
	if b.Rows == nil {
		writeError(w, http.StatusNotFound, CodeUnknownResult, "no result by that id lists its provenance in part")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.AskTimeout)
	defer cancel()
	body, err := b.Rows.Rows(ctx, r.PathValue("id"), page)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, body)
	case errors.Is(err, pipeline.ErrUnknownResult), errors.Is(err, pipeline.ErrNoPaging):
		writeError(w, http.StatusNotFound, CodeUnknownResult, "no result by that id lists its provenance in part")
	case errors.Is(err, pipeline.ErrNoSuchPage):
		writeError(w, http.StatusNotFound, CodeNoSuchPage, "the result has fewer pages")
	case errors.Is(err, pipeline.ErrDataChanged):
		writeError(w, http.StatusGone, CodeDataChanged, "the data changed since the result was computed; ask again")
	case ctx.Err() != nil:
		writeError(w, http.StatusGatewayTimeout, CodeTimeout, "the request's deadline passed")
	default:
		s.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "page rows", slog.String("error", err.Error()))
		writeError(w, http.StatusInternalServerError, CodeInternal, "internal error")
	}
}
