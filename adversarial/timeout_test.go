package adversarial_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTimeout_TypedOnEverySurface: a question past --ask-timeout is its own
// outcome on REST (504, reason timeout, never 500 internal) and over MCP (a
// tool result marked as an error, reason timeout), it ships no value, it is
// counted under its own label, and the server goes on serving.
//
// The ask timeout is 1 ns, so every deadline has passed before the first
// check: the test does not depend on how fast the machine is.
func TestTimeout_TypedOnEverySurface(t *testing.T) {
	lim := smallLimits
	lim.AskTimeout = time.Nanosecond
	s := start(t, config{limits: lim})

	for _, rt := range []route{
		{"POST", "/v1/ask", goodQuestion},
		{"POST", "/v1/tools/get_price", `{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`},
		{"POST", "/v1/tools/count_events_in_window", `{"store_id":"st-003","state":"OUT_OF_STOCK","start":"2026-01-01T00:00:00Z","end":"2026-01-08T00:00:00Z"}`},
	} {
		r := s.do(t, rt.method, rt.path, rt.body, nil)
		var a struct {
			Outcome string          `json:"outcome"`
			Reason  *string         `json:"reason"`
			Value   json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(r.body), &a); err != nil {
			t.Fatalf("%s %s: %d, not an answer object: %s", rt.method, rt.path, r.status, r.body)
		}
		if r.status != http.StatusGatewayTimeout || a.Outcome != "error" || a.Reason == nil || !strings.HasPrefix(*a.Reason, "timeout") {
			t.Errorf("%s %s: %d outcome %q reason %v, want 504 error timeout", rt.method, rt.path, r.status, a.Outcome, a.Reason)
		}
		if len(a.Value) > 0 && string(a.Value) != "null" {
			t.Errorf("%s %s: a timed-out answer ships a value: %s", rt.method, rt.path, a.Value)
		}
	}

	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_price","arguments":{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}}}`
	r := s.do(t, "POST", "/mcp", call, map[string]string{"Accept": "application/json, text/event-stream"})
	var rpc struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Outcome string  `json:"outcome"`
				Reason  *string `json:"reason"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.body), &rpc); err != nil {
		t.Fatalf("/mcp: %d, not a JSON-RPC reply: %s", r.status, r.body)
	}
	sc := rpc.Result.StructuredContent
	if r.status != http.StatusOK || !rpc.Result.IsError || sc.Outcome != "error" || sc.Reason == nil || !strings.HasPrefix(*sc.Reason, "timeout") {
		t.Errorf("/mcp tools/call: %d %s, want an error result with reason timeout", r.status, r.body)
	}

	m := s.do(t, "GET", "/metrics", "", nil)
	if n := errorsOfKind(m.body, "timeout"); n != 4 {
		t.Errorf("/metrics counts %v timeouts, want 4", n)
	}
	if n := errorsOfKind(m.body, "internal"); n != 0 {
		t.Errorf("/metrics counts %v internal errors, want 0 (a timeout is not one)", n)
	}
	if r := s.do(t, "GET", "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("/healthz after timeouts: %d", r.status)
	}
}

// errorsOfKind sums provenant_errors_total over stages for one kind, from
// the Prometheus text format.
func errorsOfKind(metrics, kind string) float64 {
	var n float64
	for _, line := range strings.Split(metrics, "\n") {
		if !strings.HasPrefix(line, "provenant_errors_total{") || !strings.Contains(line, `kind="`+kind+`"`) {
			continue
		}
		if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			n += v
		}
	}
	return n
}
