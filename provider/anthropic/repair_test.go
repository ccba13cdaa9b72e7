package anthropic

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/provenant/provenant/provider/anthropic/anthropictest"
	"github.com/provenant/provenant/provider/internal/providertest"
)

// TestRepair: the repair is one follow-up turn (the question, the failed
// call as the assistant's tool_use, the repair message as its
// tool_result), its first tool_use the proposal (providertest.RunRepair).
func TestRepair(t *testing.T) {
	start := func(t *testing.T, reply providertest.RepairReply) providertest.RepairServer {
		srv := anthropictest.NewServer(t)
		var sawJob anthropictest.Job
		srv.Script = func(w http.ResponseWriter, r *http.Request, job anthropictest.Job, question string) bool {
			if question != providertest.RepairQuestion {
				return false
			}
			sawJob = job
			switch reply {
			case providertest.Corrected:
				anthropictest.Reply(w, "m", "", anthropictest.ToolUse{Name: "query_metric",
					Input: `{"metric":"availability","start":"` + providertest.RepairStart + `","end":"` + providertest.RepairEnd + `"}`})
			case providertest.Abstains:
				anthropictest.Reply(w, "m", "I cannot fix it.")
			default:
				anthropictest.Error(w, http.StatusInternalServerError, "api_error", "down")
			}
			return true
		}
		return providertest.RepairServer{
			Provider: newProvider(t, Options{BaseURL: srv.BaseURL()}),
			Retried:  func() bool { return srv.Requests() == 1 && sawJob == anthropictest.Retry },
			Body:     func(t *testing.T) []byte { return srv.Last(t).Body },
		}
	}
	providertest.RunRepair(t, start, func(t *testing.T, raw []byte) {
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
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		m := body.Messages
		if len(m) != 3 || m[0].Content[0].Text != providertest.RepairQuestion || m[1].Role != "assistant" || m[1].Content[0].Name != "query_metric" ||
			!strings.Contains(string(m[1].Content[0].Input), `"utilisation"`) || m[2].Content[0].Type != "tool_result" ||
			!strings.Contains(string(m[2].Content[0].Content), "empty_result") || !m[2].Content[0].IsError {
			t.Fatalf("conversation = %s", raw)
		}
	})
}
