package httpapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/retail"
)

func TestGround(t *testing.T) {
	ts := httptest.NewServer(httpapi.New(&httpapi.Options{Registry: retail.Registry()})) // no engine: the checker reads no data
	defer ts.Close()
	const ledger = `{"numerals": [{"value": 781, "unit": "cents"}, {"id": "st-003"}]}`
	tests := []struct {
		name, body string
		status     int
		code       string
		verdict    string
	}{
		{"backed", `{"text": "At st-003 it costs $7.81.", "ledger": ` + ledger + `}`, 200, "", "PASS"},
		{"fabricated", `{"text": "At st-003 it costs $8.71.", "ledger": ` + ledger + `}`, 200, "", "REFUSE"},
		{"strict", `{"text": "Of 24, $7.81.", "question": "of 24?", "policy": "strict", "ledger": ` + ledger + `}`, 200, "", "REFUSE"},
		{"no text", `{"ledger": ` + ledger + `}`, 400, httpapi.CodeInvalidGround, ""},
		{"text not a string", `{"text": 5, "ledger": ` + ledger + `}`, 400, httpapi.CodeInvalidGround, ""},
		{"bad unit", `{"text": "x", "ledger": {"numerals": [{"value": 1, "unit": "furlongs987654321"}]}}`, 400, httpapi.CodeInvalidGround, ""},
		{"bad policy", `{"text": "x", "policy": "lenient987654321", "ledger": ` + ledger + `}`, 400, httpapi.CodeInvalidGround, ""},
		{"unknown field", `{"text": "x", "ledger": ` + ledger + `, "sql987654321": 1}`, 400, httpapi.CodeUnknownField, ""},
		{"duplicate field", `{"text": "x", "text": "y", "ledger": ` + ledger + `}`, 400, httpapi.CodeDuplicateField, ""},
		{"not JSON", `{text`, 400, httpapi.CodeInvalidJSON, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, "POST", ts.URL+"/v1/ground", "application/json", []byte(tt.body))
			if tt.code != "" {
				checkClientError(t, r, tt.status, tt.code, "987654321")
				return
			}
			var rep struct{ Verdict string }
			if err := json.Unmarshal(r.body, &rep); err != nil || r.status != tt.status || rep.Verdict != tt.verdict {
				t.Errorf("status %d, body %s", r.status, r.body)
			}
		})
	}
}
