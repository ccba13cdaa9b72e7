package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/tool"
)

// scopeOf returns the scope of a request that carries a principal's
// token, and whether it is limited (not every store). A token without a
// scope sees no store. The local stdio user has no token: every store.
func scopeOf(extra *mcp.RequestExtra) (tool.Scope, bool) {
	if extra == nil || extra.TokenInfo == nil {
		return tool.AllStores(), false
	}
	s, ok := extra.TokenInfo.Extra[pipeline.TokenInfoScopeKey].(tool.Scope)
	if !ok {
		return tool.StoresOnly(), true
	}
	return s, !s.All()
}

// maxKeyLen bounds a key in an event URI; a longer one names nothing.
const maxKeyLen = 1024

// eventURI is the resource URI of the row with key: the key is one path
// segment, percent-encoded (RFC 3986), since a catalog's key may be any
// text ("order/7", "a b", "50%"). Keys made of letters, digits, "-",
// "_", "." and "~" (the demo's "evt-002357") read as they are.
func eventURI(key string) string { return eventURIPrefix + url.PathEscape(key) }

// eventKey is the key an event URI names, percent-decoded, and whether
// it names one: one segment, no query or fragment, a valid escape, and
// at most maxKeyLen bytes of UTF-8 without NUL once decoded.
func eventKey(uri string) (string, bool) {
	seg, ok := strings.CutPrefix(uri, eventURIPrefix)
	if !ok || seg == "" || len(seg) > 3*maxKeyLen || strings.ContainsAny(seg, "/?#") {
		return "", false
	}
	key, err := url.PathUnescape(seg)
	if err != nil || key == "" || len(key) > maxKeyLen || !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0 {
		// No stored key holds a NUL (import refuses one), and PostgreSQL
		// refuses one in a text parameter: it names nothing.
		return "", false
	}
	return key, true
}

func (h *handlers) readEvent(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	key, ok := eventKey(req.Params.URI)
	if !ok {
		return nil, errNotFound
	}
	// A row of a store outside the caller's scope does not exist for it:
	// the scope is in the query, so it takes the same path as a key that
	// names nothing.
	scope, _ := scopeOf(req.Extra)
	rec, found, err := h.records.Record(ctx, key, scope)
	if err != nil {
		return nil, fmt.Errorf("read event: %w", err)
	}
	if !found {
		return nil, errNotFound
	}
	return contents(eventURI(key), "private", rec)
}

func (h *handlers) readDataset(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	scope, _ := scopeOf(req.Extra)
	sum, err := h.records.Summary(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("read dataset: %w", err)
	}
	return contents(DatasetURI, "private", sum)
}
