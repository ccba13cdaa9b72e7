package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// TestSelect_RetryOnce: a proposal that fails its tool's schema is retried
// once with the schema error, and only once; the retry's proposal goes to
// the caller as it is. The fake server counts the requests.
func TestSelect_RetryOnce(t *testing.T) {
	tests := []struct {
		name     string
		question string
		want     *tool.Proposal
		wantErr  bool
		requests int // requests the server sees: 1, or 2 with the one retry
		retried  bool
	}{
		{"valid first time: no retry", templateCases[1].question, templateCases[1].want, false, 1, false},
		{"abstention: no retry", "How many employees work at st-003?", nil, false, 1, false},
		{"invalid then valid", "script: invalid then valid", scalarCall("get_price"), false, 2, true},
		{"invalid twice: the second goes to the wall", "script: number argument",
			&tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": json.Number("3"), "product_id": "pr-007", "as_of": asOf}}, false, 2, true},
		{"unregistered twice", "script: hallucinated tool",
			&tool.Proposal{Tool: "get_weather", Params: map[string]any{"city": "Paris"}}, false, 2, true},
		{"input not an object twice", "script: array input",
			&tool.Proposal{Tool: "get_price", Params: map[string]any{}}, false, 2, true},
		{"invalid then abstain", "script: invalid then abstain", nil, false, 2, true},
		{"invalid then unavailable", "script: invalid then status 500", nil, true, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newScriptedServer(t)
			var logs bytes.Buffer
			p := newProvider(t, Options{BaseURL: srv.baseURL(), Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
			got, err := p.Select(t.Context(), tt.question, catalogstest.Retail().Menu())
			if tt.wantErr != (err != nil) {
				t.Fatalf("Select error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, provider.ErrUnavailable) {
				t.Errorf("error = %v, want provider.ErrUnavailable", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Select = %+v, want %+v", got, tt.want)
			}
			if n := srv.Requests(); n != tt.requests {
				t.Errorf("server saw %d requests, want %d", n, tt.requests)
			}
			lines := strings.Count(logs.String(), "\n")
			if tt.retried != (lines == 1) || lines > 1 {
				t.Errorf("logged %d lines for retried=%v:\n%s", lines, tt.retried, logs.String())
			}
			for _, echo := range []string{"Paris", "get_weather", "city", "store three"} {
				if strings.Contains(logs.String(), echo) {
					t.Errorf("log echoes the model's %q:\n%s", echo, logs.String())
				}
			}
			if !tt.retried {
				return
			}
			var entry map[string]any
			if err := json.Unmarshal(logs.Bytes(), &entry); err != nil {
				t.Fatalf("decode log line: %v", err)
			}
			if entry["level"] != "WARN" || entry["provider"] != p.Name() || entry["reason"] == "" {
				t.Errorf("retry log line = %v", entry)
			}
		})
	}
}

// TestSelect_RetryRequest checks the retry's conversation: the question,
// the refused tool_use as the model wrote it, and a tool_result for it
// that is an error giving the schema error, with the same tools.
func TestSelect_RetryRequest(t *testing.T) {
	tests := []struct {
		question  string
		wantInput string // the refused tool_use's input as sent back
		wantError string
	}{
		{"script: invalid then valid", `{"store_id":"store three","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`,
			"tool get_price: parameter store_id must match ^st-[0-9]{3}$"},
		{"script: array input", `{}`, "tool get_price: parameter store_id is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			srv := newScriptedServer(t)
			p := newProvider(t, Options{BaseURL: srv.baseURL()})
			if _, err := p.Select(t.Context(), tt.question, catalogstest.Retail().Menu()); err != nil {
				t.Fatalf("Select: %v", err)
			}
			type block struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			}
			var body struct {
				Messages []struct {
					Role    string  `json:"role"`
					Content []block `json:"content"`
				} `json:"messages"`
				Tools []json.RawMessage `json:"tools"`
			}
			req := srv.last(t)
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatalf("decode retry request: %v", err)
			}
			m := body.Messages
			if len(m) != 3 || m[0].Role != "user" || m[0].Content[0].Text != tt.question {
				t.Fatalf("retry messages = %+v", m)
			}
			if m[1].Role != "assistant" || len(m[1].Content) != 1 || m[1].Content[0].Type != "tool_use" ||
				m[1].Content[0].Name != "get_price" || !jsonEqual(t, m[1].Content[0].Input, []byte(tt.wantInput)) {
				t.Errorf("refused call = %+v, want get_price with input %s", m[1], tt.wantInput)
			}
			if len(m[2].Content) != 1 {
				t.Fatalf("tool result message = %+v", m[2])
			}
			r := m[2].Content[0]
			if m[2].Role != "user" || r.Type != "tool_result" || r.ToolUseID != m[1].Content[0].ID || r.ToolUseID == "" || !r.IsError {
				t.Errorf("tool result = %+v, want an error result for %q", r, m[1].Content[0].ID)
			}
			if !strings.Contains(string(r.Content), tt.wantError) {
				t.Errorf("tool result %s does not give the schema error %q", r.Content, tt.wantError)
			}
			if len(body.Tools) != len(catalogstest.Retail().Menu()) {
				t.Errorf("retry offers %d tools", len(body.Tools))
			}
		})
	}
}

// TestProposal_StrictInput: the model's input is read by the one strict
// decoder; a number beyond float64 no longer empties it.
func TestProposal_StrictInput(t *testing.T) {
	tests := []struct {
		name, input string
		want        map[string]any
	}{
		{"ok", `{"store_id":"st-003"}`, map[string]any{"store_id": "st-003"}},
		{"number beyond float64 is kept", `{"store_id":1e400,"as_of":"x"}`, map[string]any{"store_id": json.Number("1e400"), "as_of": "x"}},
		{"repeated key is not last-wins", `{"store_id":"st-003","store_id":"st-004"}`, map[string]any{}},
		{"not an object", `[1]`, map[string]any{}},
		{"a JSON string holding an object", `"{\"store_id\":\"st-003\"}"`, map[string]any{}},
		{"absent", ``, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := proposal("get_price", json.RawMessage(tt.input)).Params
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) || got == nil {
				t.Errorf("params = %s, want %s", g, w)
			}
		})
	}
}
