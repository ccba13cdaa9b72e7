package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/pipeline"
)

// The rows resource: every event id behind a result whose answer listed
// its provenance in part, one page at a time.
const (
	RowsURITemplate = Scheme + "://results/{result_id}/rows{?page}"
	rowsURIPrefix   = Scheme + "://results/"
)

// errGone does not repeat the URI: the data changed since the result.
var errGone = &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "resource gone: the data changed since the result was computed; ask again"}

// errTimeout is a page past the ask timeout, as REST's 504 timeout says:
// once a bare "internal error".
var errTimeout = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "timeout: the request's deadline passed"}

// readRows serves provenant://results/{result_id}/rows?page=N for the
// caller's scope: another scope's result, an unknown id and a page past
// the last are all "not found".
func (h *handlers) readRows(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	rest, ok := strings.CutPrefix(req.Params.URI, rowsURIPrefix)
	if !ok {
		return nil, errNotFound
	}
	path, query, _ := strings.Cut(rest, "?")
	id, ok := strings.CutSuffix(path, "/rows")
	if !ok || id == "" || strings.Contains(id, "/") {
		return nil, errNotFound
	}
	page := 1
	if query != "" {
		q, err := url.ParseQuery(query)
		if err != nil || len(q) != 1 || len(q["page"]) != 1 {
			return nil, errNotFound
		}
		raw := q.Get("page")
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || len(raw) > 10 || raw[0] == '+' {
			return nil, errNotFound
		}
		page = n
	}
	// A page runs the result's call again: bound it as a tool call is,
	// as REST bounds GET /v1/results/{id}/rows.
	ctx, cancel := h.bound(ctx)
	defer cancel()
	body, err := h.rows.Rows(withScope(ctx, req.Extra), id, page)
	switch {
	case errors.Is(err, pipeline.ErrDataChanged):
		return nil, errGone
	case errors.Is(err, pipeline.ErrUnknownResult), errors.Is(err, pipeline.ErrNoSuchPage), errors.Is(err, pipeline.ErrNoPaging):
		return nil, errNotFound
	case err != nil && ctx.Err() != nil:
		return nil, errTimeout
	case err != nil:
		return nil, fmt.Errorf("read rows: %w", err)
	}
	return contents(req.Params.URI, "private", json.RawMessage(body))
}
