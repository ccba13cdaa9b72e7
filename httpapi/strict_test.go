package httpapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/retail"
)

// TestStrictDecoding pins what the one strict decoder adds on REST: nested
// duplicates, invalid UTF-8, client-chosen keys never in a message, and an
// over-long question refused before the pipeline.
func TestStrictDecoding(t *testing.T) {
	srv := httpapi.New(&httpapi.Options{Registry: retail.Registry()})
	srv.SetBackend(backend(openDemo(t, nil)))
	ts := httptest.NewServer(srv)
	defer ts.Close()
	const (
		js     = "application/json"
		ledger = `{"numerals": [{"value": 781, "unit": "cents"}]}`
		args   = `"product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"`
	)
	tests := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"ask: invalid UTF-8", "/v1/ask", "{\"question\": \"what \xff is " + marker + "\"}", 400, httpapi.CodeInvalidJSON},
		{"ask: lone surrogate", "/v1/ask", `{"question": "\ud800 ` + marker + `"}`, 400, httpapi.CodeInvalidJSON},
		{"ask: key in another case", "/v1/ask", `{"QUESTION": "hi"}`, 400, httpapi.CodeUnknownField},
		{"ask: question over 4096 characters", "/v1/ask", `{"question": "` + strings.Repeat("é", 4097) + `"}`, 400, httpapi.CodeQuestionTooLong},
		{"tools: nested duplicate", "/v1/tools/get_price", `{"store_id": {"` + marker + `": 1, "` + marker + `": 2}, ` + args + `}`, 400, httpapi.CodeDuplicateField},
		{"tools: invalid UTF-8", "/v1/tools/get_price", "{\"store_id\": \"st-003\xff\", " + args + "}", 400, httpapi.CodeInvalidJSON},
		{"ground: key in another case", "/v1/ground", `{"TEXT": "x", "ledger": ` + ledger + `}`, 400, httpapi.CodeUnknownField},
		{"ground: unknown key in the ledger", "/v1/ground", `{"text": "x", "ledger": {"numerals": [{"value": 1, "` + marker + `": 2}]}}`, 400, httpapi.CodeInvalidGround},
		{"ground: unknown top key in the ledger", "/v1/ground", `{"text": "x", "ledger": {"` + marker + `": []}}`, 400, httpapi.CodeInvalidGround},
		{"ground: duplicate in the ledger", "/v1/ground", `{"text": "x", "ledger": {"numerals": [{"value": 1, "value": 2}]}}`, 400, httpapi.CodeDuplicateField},
		{"ground: number beyond float64", "/v1/ground", `{"text": "x", "ledger": {"numerals": [{"value": 1e400}]}}`, 400, httpapi.CodeInvalidGround},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, "POST", ts.URL+tt.path, js, []byte(tt.body))
			checkClientError(t, r, tt.status, tt.code, marker)
		})
	}
}
