package anthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/anthropic/anthropictest"
	"github.com/provenant/provenant/tool"
)

// TestRepair: the repair is one follow-up turn on the fake server (the
// question, the failed call as the assistant's tool_use, the repair
// message as its tool_result), its first tool_use the proposal; no
// tool_use abstains, and a failing server is unavailable.
func TestRepair(t *testing.T) {
	const q = "repair: availability"
	prev := tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": "utilisation", "start": "2026-01-06T00:00:00Z", "end": "2026-01-07T00:00:00Z"}}
	msg := "Your previous proposal failed verification with failure class empty_result: check the window."
	tests := []struct {
		name    string
		reply   func(w http.ResponseWriter)
		want    string // the proposed metric; "" for no proposal
		wantErr bool
	}{
		{"corrected", func(w http.ResponseWriter) {
			anthropictest.Reply(w, "m", "", anthropictest.ToolUse{Name: "query_metric", Input: `{"metric":"availability","start":"2026-01-06T00:00:00Z","end":"2026-01-07T00:00:00Z"}`})
		}, "availability", false},
		{"abstains", func(w http.ResponseWriter) { anthropictest.Reply(w, "m", "I cannot fix it.") }, "", false},
		{"unavailable", func(w http.ResponseWriter) {
			anthropictest.Error(w, http.StatusInternalServerError, "api_error", "down")
		}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := anthropictest.NewServer(t)
			var sawJob anthropictest.Job
			srv.Script = func(w http.ResponseWriter, r *http.Request, job anthropictest.Job, question string) bool {
				if question != q {
					return false
				}
				sawJob = job
				tt.reply(w)
				return true
			}
			p := newProvider(t, Options{BaseURL: srv.BaseURL()})
			got, err := p.Repair(t.Context(), provider.RepairInput{Question: q, Menu: catalogstest.Warehouse().Menu(), Previous: prev, Class: "empty_result", Message: msg, Attempt: 1})
			if (err != nil) != tt.wantErr || err != nil && !errors.Is(err, provider.ErrUnavailable) {
				t.Fatalf("Repair error = %v, want error %t (unavailable)", err, tt.wantErr)
			}
			if tt.want == "" && got != nil || tt.want != "" && (got == nil || got.Tool != "query_metric" || got.Params["metric"] != tt.want) {
				t.Fatalf("Repair = %+v, want metric %q", got, tt.want)
			}
			if srv.Requests() != 1 || sawJob != anthropictest.Retry {
				t.Fatalf("server saw %d requests, job %d; want one follow-up turn", srv.Requests(), sawJob)
			}
			var body struct {
				Messages []struct {
					Role    string `json:"role"`
					Content []struct {
						Type    string          `json:"type"`
						Text    string          `json:"text"`
						Name    string          `json:"name"`
						Input   json.RawMessage `json:"input"`
						Content json.RawMessage `json:"content"`
						IsError bool            `json:"is_error"`
					} `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(srv.Last(t).Body, &body); err != nil {
				t.Fatal(err)
			}
			m := body.Messages
			if len(m) != 3 || m[0].Content[0].Text != q || m[1].Role != "assistant" || m[1].Content[0].Name != "query_metric" ||
				!strings.Contains(string(m[1].Content[0].Input), `"utilisation"`) || m[2].Content[0].Type != "tool_result" ||
				!strings.Contains(string(m[2].Content[0].Content), "empty_result") || !m[2].Content[0].IsError {
				t.Fatalf("conversation = %s", srv.Last(t).Body)
			}
		})
	}
}
