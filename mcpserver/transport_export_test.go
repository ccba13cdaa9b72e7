package mcpserver

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SDKHandler is HTTPHandler without the fast lane: the SDK's own stateless
// streamable handler behind httpGuard, as HTTPHandler falls back to it.
func SDKHandler(s *mcp.Server) http.Handler {
	return sdkHandler(s, nil, MaxRequestBytes)
}

// FastLaneOver is HTTPHandler with sdk in place of the SDK's handler, so a
// test sees which requests reach it.
func FastLaneOver(s *mcp.Server, sdk http.Handler) http.Handler {
	return newStatelessHandler(s, sdk, MaxRequestBytes)
}
