package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/metrics"
	"github.com/provenant/provenant/retail"
)

// TestServer_Timeout: a request whose deadline has passed (here, whose
// context is already done, so no timer is involved) gets 504 with the
// answer object's reason timeout on both answering endpoints, and is
// counted under errors_total{kind="timeout"}, not internal.
func TestServer_Timeout(t *testing.T) {
	obs := metrics.New(nil)
	srv := httpapi.New(&httpapi.Options{Registry: retail.Registry()})
	srv.SetBackend(backend(openDemo(t, obs)))
	requests := []struct{ name, path, body string }{
		{"ask", "/v1/ask", `{"question":"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}`},
		{"tool call", "/v1/tools/get_price", `{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`},
	}
	for _, r := range requests {
		t.Run(r.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, r.path, strings.NewReader(r.body))
			req.Header.Set("Content-Type", "application/json")
			req.Host = "localhost" // httptest's default, example.com, is not an allowed host
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			var body struct{ Outcome, Reason string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %s: %v", rec.Body, err)
			}
			if rec.Code != http.StatusGatewayTimeout || body.Outcome != "error" || body.Reason != "timeout" {
				t.Errorf("= %d %s, want 504 with outcome error, reason timeout", rec.Code, rec.Body)
			}
		})
	}
	s, err := obs.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var timeouts, internal uint64
	for k, n := range s.Errors {
		switch {
		case strings.HasSuffix(k, "/timeout"):
			timeouts += n
		case strings.HasSuffix(k, "/internal"):
			internal += n
		}
	}
	if timeouts != 2 || internal != 0 {
		t.Errorf("errors by stage/kind = %v, want 2 timeouts and no internal", s.Errors)
	}
}
