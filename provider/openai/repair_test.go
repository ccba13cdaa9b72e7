package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/provenant/provenant/provider/internal/providertest"
	"github.com/provenant/provenant/provider/openai/openaitest"
)

// TestRepair: the repair is one follow-up turn (the question, the failed
// call as the assistant's, the repair message as its tool reply), its
// first tool call the proposal (providertest.RunRepair).
func TestRepair(t *testing.T) {
	start := func(t *testing.T, reply providertest.RepairReply) providertest.RepairServer {
		srv := openaitest.NewServer(t)
		var sawJob openaitest.Job
		srv.Script = func(w http.ResponseWriter, r *http.Request, job openaitest.Job, question string) bool {
			if question != providertest.RepairQuestion {
				return false
			}
			sawJob = job
			switch reply {
			case providertest.Corrected:
				openaitest.Reply(w, "m", "", openaitest.ToolCall{Name: "query_metric",
					Args: `{"metric":"availability","start":"` + providertest.RepairStart + `","end":"` + providertest.RepairEnd + `"}`})
			case providertest.Abstains:
				openaitest.Reply(w, "m", "I cannot fix it.")
			default:
				http.Error(w, `{"error":{"message":"down"}}`, http.StatusInternalServerError)
			}
			return true
		}
		return providertest.RepairServer{
			Provider: newProvider(t, Options{BaseURL: srv.BaseURL()}),
			Retried:  func() bool { return srv.Requests() == 1 && sawJob == openaitest.Retry },
			Body:     func(t *testing.T) []byte { return srv.Last(t).Body },
		}
	}
	providertest.RunRepair(t, start, func(t *testing.T, raw []byte) {
		var body struct {
			Messages []struct {
				Role      string `json:"role"`
				Content   string `json:"content"`
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		m := body.Messages
		if len(m) != 4 || m[1].Content != providertest.RepairQuestion || m[2].Role != "assistant" || m[3].Role != "tool" || m[3].Content != providertest.RepairMessage {
			t.Fatalf("conversation = %+v", m)
		}
		if c := m[2].ToolCalls; len(c) != 1 || c[0].Function.Name != "query_metric" || !strings.Contains(c[0].Function.Arguments, `"utilisation"`) {
			t.Errorf("the failed call sent back = %+v", c)
		}
	})
}
