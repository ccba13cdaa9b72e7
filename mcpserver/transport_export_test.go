package mcpserver

import "net/http"

// SDKHandler is HTTPHandler without the fast lane: the SDK's own stateless
// streamable handler behind httpGuard, as HTTPHandler falls back to it.
func SDKHandler(s *Server) http.Handler {
	return sdkHandler(s.Server, nil, MaxRequestBytes)
}

// FastLaneOver is HTTPHandler with sdk in place of the SDK's handler, so a
// test sees which requests reach it.
func FastLaneOver(s *Server, sdk http.Handler) http.Handler {
	return newStatelessHandler(s, sdk, MaxRequestBytes)
}
