package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/openai/openaitest"
	"github.com/provenant/provenant/tool"
)

// TestRepair: the repair is one follow-up turn on the fake server (the
// question, the failed call as the assistant's, the repair message as its
// tool reply), its first tool call the proposal; no call abstains, and a
// failing server is unavailable.
func TestRepair(t *testing.T) {
	const q = "repair: availability"
	prev := tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": "utilisation", "start": "2026-01-06T00:00:00Z", "end": "2026-01-07T00:00:00Z"}}
	msg := "Your previous proposal failed verification with failure class empty_result: check the window."
	tests := []struct {
		name    string
		reply   func(w http.ResponseWriter)
		want    *tool.Proposal
		wantErr bool
	}{
		{"corrected", func(w http.ResponseWriter) {
			openaitest.Reply(w, "m", "", openaitest.ToolCall{Name: "query_metric", Args: `{"metric":"availability","start":"2026-01-06T00:00:00Z","end":"2026-01-07T00:00:00Z"}`})
		}, &tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": "availability", "start": "2026-01-06T00:00:00Z", "end": "2026-01-07T00:00:00Z"}}, false},
		{"abstains", func(w http.ResponseWriter) { openaitest.Reply(w, "m", "I cannot fix it.") }, nil, false},
		{"unavailable", func(w http.ResponseWriter) {
			http.Error(w, `{"error":{"message":"down"}}`, http.StatusInternalServerError)
		}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t)
			var sawJob openaitest.Job
			srv.Script = func(w http.ResponseWriter, r *http.Request, job openaitest.Job, question string) bool {
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
			if tt.want == nil && got != nil || tt.want != nil && (got == nil || got.Tool != tt.want.Tool || got.Params["metric"] != tt.want.Params["metric"]) {
				t.Fatalf("Repair = %+v, want %+v", got, tt.want)
			}
			if srv.Requests() != 1 || sawJob != openaitest.Retry {
				t.Fatalf("server saw %d requests, job %d; want one follow-up turn", srv.Requests(), sawJob)
			}
			var body struct {
				Messages []struct {
					Role      string `json:"role"`
					Content   string `json:"content"`
					ToolCalls []struct {
						Function struct{ Name, Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(srv.Last(t).Body, &body); err != nil {
				t.Fatal(err)
			}
			m := body.Messages
			if len(m) != 4 || m[1].Content != q || m[2].Role != "assistant" || m[3].Role != "tool" || m[3].Content != msg {
				t.Fatalf("conversation = %+v", m)
			}
			if c := m[2].ToolCalls; len(c) != 1 || c[0].Function.Name != "query_metric" || !strings.Contains(c[0].Function.Arguments, `"utilisation"`) {
				t.Errorf("the failed call sent back = %+v", c)
			}
		})
	}
}
