package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/provenant/provenant/provider/internal/toolcall"
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
		{"malformed arguments twice", "script: truncated arguments",
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
				t.Errorf("logged %d lines, want %d retry warning(s):\n%s", lines, map[bool]int{true: 1}[tt.retried], logs.String())
			}
			for _, echo := range []string{"Paris", "get_weather", "city", `"3"`} {
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
// the refused call as the model wrote it, and the schema error as that
// call's tool reply, with the same tools and settings.
func TestSelect_RetryRequest(t *testing.T) {
	srv := newScriptedServer(t)
	p := newProvider(t, Options{BaseURL: srv.baseURL()})
	if _, err := p.Select(t.Context(), "script: invalid then valid", catalogstest.Retail().Menu()); err != nil {
		t.Fatalf("Select: %v", err)
	}
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools      []json.RawMessage `json:"tools"`
		ToolChoice string            `json:"tool_choice"`
	}
	req := srv.last(t)
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("decode retry request: %v", err)
	}
	m := body.Messages
	if len(m) != 4 || m[0].Content != toolcall.SelectPrompt || m[1].Content != "script: invalid then valid" {
		t.Fatalf("retry messages = %+v", m)
	}
	if m[2].Role != "assistant" || len(m[2].ToolCalls) != 1 || m[2].ToolCalls[0].Function.Name != "get_price" ||
		!strings.Contains(m[2].ToolCalls[0].Function.Arguments, "store three") {
		t.Errorf("refused call = %+v, want the model's get_price call as written", m[2])
	}
	if m[3].Role != "tool" || m[3].ToolCallID != m[2].ToolCalls[0].ID || m[3].ToolCallID == "" {
		t.Errorf("tool reply = %+v, want the reply to call %q", m[3], m[2].ToolCalls[0].ID)
	}
	if want := "parameter store_id must match ^st-[0-9]{3}$"; !strings.Contains(m[3].Content, want) {
		t.Errorf("tool reply %q does not give the schema error %q", m[3].Content, want)
	}
	if len(body.Tools) != len(catalogstest.Retail().Menu()) || body.ToolChoice != "auto" {
		t.Errorf("retry offers %d tools with tool_choice %q", len(body.Tools), body.ToolChoice)
	}
}
