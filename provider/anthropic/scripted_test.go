package anthropic

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/provider/anthropic/anthropictest"
)

// scriptedServer is the fake Messages API server (package anthropictest)
// with this package's failure scripts: questions starting with "script:"
// make it misbehave in a named way.
type scriptedServer struct{ *anthropictest.Server }

func newScriptedServer(t testing.TB) *scriptedServer {
	t.Helper()
	s := anthropictest.NewServer(t)
	s.Script = script
	return &scriptedServer{s}
}

func (s *scriptedServer) baseURL() string                         { return s.BaseURL() }
func (s *scriptedServer) last(t testing.TB) anthropictest.Request { return s.Last(t) }

const validInput = `{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`

func script(w http.ResponseWriter, r *http.Request, job anthropictest.Job, question string) bool {
	if misbehave(w, r, question) {
		return true
	}
	reply := anthropictest.Reply
	type use = anthropictest.ToolUse
	if job == anthropictest.Retry {
		switch question {
		case "script: invalid then valid":
			reply(w, "m", "", use{Name: "get_price", Input: validInput})
			return true
		case "script: invalid then abstain":
			reply(w, "m", "The question does not give a store id.")
			return true
		case "script: invalid then status 500":
			anthropictest.Error(w, http.StatusInternalServerError, "api_error", "the model crashed")
			return true
		}
	}
	if job != anthropictest.Compose {
		switch question {
		case "script: invalid then valid", "script: invalid then abstain", "script: invalid then status 500":
			reply(w, "m", "", use{Name: "get_price", Input: `{"store_id": "store three", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`})
		case "script: two calls":
			reply(w, "m", "", use{Name: "get_price", Input: validInput}, use{Name: "get_stock_state", Input: validInput})
		case "script: text then call":
			reply(w, "m", "Let me look that up.", use{Name: "get_price", Input: validInput})
		case "script: string input":
			reply(w, "m", "", use{Name: "get_price", Input: `"{\"store_id\": \"st-003\"}"`})
		case "script: array input":
			reply(w, "m", "", use{Name: "get_price", Input: `["st-003", "pr-007"]`})
		case "script: number argument":
			reply(w, "m", "", use{Name: "get_price", Input: `{"store_id": 3, "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`})
		case "script: hallucinated tool":
			reply(w, "m", "", use{Name: "get_weather", Input: `{"city": "Paris"}`})
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
	case "script: call instead of sentence":
		reply(w, "m", "", use{Name: "get_price", Input: validInput})
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
		anthropictest.Error(w, http.StatusInternalServerError, "api_error", "the model crashed")
	case "script: status 529":
		anthropictest.Error(w, 529, "overloaded_error", "overloaded")
	case "script: status 401":
		anthropictest.Error(w, http.StatusUnauthorized, "authentication_error", "bad key")
	case "script: garbage":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`<html>gateway says hello</html>`))
	case "script: truncated json":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": "x", "type": "message", "content": [{"type": "tool_use", "inp`))
	case "script: null":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`null`))
	case "script: wrong shape":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"content": "many"}`))
	case "script: huge":
		// A well-formed reply (an abstention) that only the size cap refuses.
		anthropictest.Reply(w, "m", strings.Repeat("x", MaxResponseSize))
	case "script: slow":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
			anthropictest.Reply(w, "m", "too late")
		}
	default:
		return false
	}
	return true
}
