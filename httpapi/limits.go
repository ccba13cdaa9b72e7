package httpapi

import (
	"net/http"
	"strconv"
)

// DefaultMaxInFlight bounds the requests served at once.
const DefaultMaxInFlight = 64

// CodeBusy is the error code of a request refused because too many are in
// flight.
const CodeBusy = "busy"

// LimitInFlight wraps next so that at most max requests are served at
// once (every path but /healthz, which a prober must always reach); the
// next one gets 503 with Retry-After at once instead of queueing, so a
// flood of slow requests cannot pile up work. max <= 0 means
// DefaultMaxInFlight.
func LimitInFlight(max int, next http.Handler) http.Handler {
	if max <= 0 {
		max = DefaultMaxInFlight
	}
	slots := make(chan struct{}, max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", strconv.Itoa(1))
			writeError(w, http.StatusServiceUnavailable, CodeBusy, "too many requests in flight; retry shortly")
		}
	})
}
