package openai

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/provider/openai/openaitest"
)

// scriptedServer is the fake OpenAI-compatible server (package openaitest)
// with this package's failure scripts: questions starting with "script:"
// make it misbehave in a named way.
type scriptedServer struct{ *openaitest.Server }

func newScriptedServer(t testing.TB) *scriptedServer {
	t.Helper()
	s := openaitest.NewServer(t)
	s.Script = script
	return &scriptedServer{s}
}

func (s *scriptedServer) baseURL() string                      { return s.BaseURL() }
func (s *scriptedServer) last(t testing.TB) openaitest.Request { return s.Last(t) }

func script(w http.ResponseWriter, r *http.Request, job openaitest.Job, question string) bool {
	if misbehave(w, r, question) {
		return true
	}
	const args = `{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`
	reply := openaitest.Reply
	type call = openaitest.ToolCall
	if job == openaitest.Retry {
		switch question {
		case "script: invalid then valid", "script: invalid then abstain":
			if question == "script: invalid then abstain" {
				reply(w, "m", "The question does not give a store id.")
				return true
			}
			reply(w, "m", "", call{Name: "get_price", Args: args})
			return true
		case "script: invalid then status 500":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error": {"message": "the model crashed"}}`))
			return true
		}
	}
	if job != openaitest.Compose {
		switch question {
		case "script: invalid then valid", "script: invalid then abstain", "script: invalid then status 500":
			reply(w, "m", "", call{Name: "get_price", Args: `{"store_id": "store three", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`})
		case "script: two calls":
			reply(w, "m", "", call{Name: "get_price", Args: args}, call{Name: "get_stock_state", Args: args})
		case "script: truncated arguments":
			reply(w, "m", "", call{Name: "get_price", Args: `{"store_id": "st-003",`})
		case "script: array arguments":
			reply(w, "m", "", call{Name: "get_price", Args: `["st-003", "pr-007"]`})
		case "script: number argument":
			reply(w, "m", "", call{Name: "get_price", Args: `{"store_id": 3, "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`})
		case "script: hallucinated tool":
			reply(w, "m", "", call{Name: "get_weather", Args: `{"city": "Paris"}`})
		default:
			return false
		}
		return true
	}
	switch question {
	case "script: empty sentence":
		reply(w, "m", "  \n ")
	case "script: long sentence":
		reply(w, "m", strings.Repeat("word ", MaxSentence))
	case "script: messy sentence":
		reply(w, "m", "The price is\n\t$2.99\x1b[31m \u200bnow.\xff")
	default:
		return false
	}
	return true
}

// misbehave answers the failure scripts shared by both jobs; it reports
// whether it wrote a response.
func misbehave(w http.ResponseWriter, r *http.Request, question string) bool {
	switch question {
	case "script: status 500":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error": {"message": "the model crashed"}}`))
	case "script: status 401":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error": {"message": "bad key"}}`))
	case "script: garbage":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`<html>gateway says hello</html>`))
	case "script: truncated json":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": "x", "choices": [{"index": 0, "message": {"role": "assis`))
	case "script: no choices":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}`))
	case "script: wrong shape":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices": "many"}`))
	case "script: huge":
		// A well-formed reply (an abstention) that only the size cap refuses.
		openaitest.Reply(w, "m", strings.Repeat("x", MaxResponseSize))
	case "script: slow":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
			openaitest.Reply(w, "m", "too late")
		}
	default:
		return false
	}
	return true
}
