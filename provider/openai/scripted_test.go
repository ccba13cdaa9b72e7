package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

// scriptedServer is a fake OpenAI-compatible chat-completions endpoint. As
// a "model" it selects tools with the rules provider's parser and composes
// with rules.Sentence, so its answers are deterministic. Questions starting
// with "script:" make it misbehave in a named way (see the handler).
type scriptedServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []scriptedRequest
}

// scriptedRequest is one request as the server saw it.
type scriptedRequest struct {
	Auth string
	Body []byte
}

// chatRequest is the part of a chat-completions request the server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func newScriptedServer(t testing.TB) *scriptedServer {
	t.Helper()
	s := &scriptedServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handle)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// baseURL is the API root clients are configured with.
func (s *scriptedServer) baseURL() string { return s.URL + "/v1" }

// last returns the last request the server saw.
func (s *scriptedServer) last(t testing.TB) scriptedRequest {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		t.Fatal("the scripted server saw no request")
	}
	return s.requests[len(s.requests)-1]
}

func (s *scriptedServer) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, scriptedRequest{Auth: r.Header.Get("Authorization"), Body: body})
	s.mu.Unlock()
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) != 2 ||
		req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		http.Error(w, `{"error": {"message": "want a system and a user message"}}`, http.StatusBadRequest)
		return
	}
	user := req.Messages[1].Content
	if len(req.Tools) > 0 {
		s.selectTool(w, r, req.Model, user)
		return
	}
	s.compose(w, r, req.Model, user)
}

// toolCall is one scripted tool call: a name and raw argument text.
type toolCall struct{ name, args string }

func (s *scriptedServer) selectTool(w http.ResponseWriter, r *http.Request, model, question string) {
	if misbehave(w, r, question) {
		return
	}
	const args = `{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`
	switch question {
	case "script: two calls":
		reply(w, model, "", toolCall{tool.GetPrice, args}, toolCall{tool.GetStockState, args})
		return
	case "script: truncated arguments":
		reply(w, model, "", toolCall{tool.GetPrice, `{"store_id": "st-003",`})
		return
	case "script: array arguments":
		reply(w, model, "", toolCall{tool.GetPrice, `["st-003", "pr-007"]`})
		return
	case "script: number argument":
		reply(w, model, "", toolCall{tool.GetPrice, `{"store_id": 3, "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`})
		return
	case "script: hallucinated tool":
		reply(w, model, "", toolCall{"get_weather", `{"city": "Paris"}`})
		return
	}
	p, _ := rules.Provider{}.Select(context.Background(), question, nil)
	if p == nil {
		reply(w, model, "No tool on the menu answers that question.")
		return
	}
	b, err := json.Marshal(p.Params)
	if err != nil {
		http.Error(w, "encode arguments", http.StatusInternalServerError)
		return
	}
	reply(w, model, "", toolCall{p.Tool, string(b)})
}

func (s *scriptedServer) compose(w http.ResponseWriter, r *http.Request, model, user string) {
	var in struct {
		Question  string            `json:"question"`
		Tool      string            `json:"tool"`
		Arguments map[string]string `json:"arguments"`
		Value     json.RawMessage   `json:"value"`
	}
	dec := json.NewDecoder(strings.NewReader(user))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		http.Error(w, `{"error": {"message": "compose input is not the expected JSON"}}`, http.StatusBadRequest)
		return
	}
	if misbehave(w, r, in.Question) {
		return
	}
	switch in.Question {
	case "script: empty sentence":
		reply(w, model, "  \n ")
		return
	case "script: long sentence":
		reply(w, model, strings.Repeat("word ", MaxSentence))
		return
	case "script: messy sentence":
		reply(w, model, "The price is\n\t$2.99\x1b[31m \u200bnow.\xff")
		return
	}
	v, err := decodeValue(in.Tool, in.Value)
	if err != nil {
		http.Error(w, `{"error": {"message": "bad value"}}`, http.StatusBadRequest)
		return
	}
	reply(w, model, rules.Sentence(in.Tool, in.Arguments, v))
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
		reply(w, "m", strings.Repeat("x", MaxResponseSize))
	case "script: slow":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
			reply(w, "m", "too late")
		}
	default:
		return false
	}
	return true
}

// reply writes a chat completion with content and tool calls.
func reply(w http.ResponseWriter, model, content string, calls ...toolCall) {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if len(calls) > 0 {
		var cs []call
		for i, c := range calls {
			cs = append(cs, call{fmt.Sprintf("call_%d", i), "function", fn{c.name, c.args}})
		}
		msg["tool_calls"] = cs
		msg["content"] = nil
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion", "created": 1767225600, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
}

// decodeValue reads a value in fact.Value's JSON shapes back, for the
// tool's value kind.
func decodeValue(toolName string, raw json.RawMessage) (fact.Value, error) {
	d, ok := tool.Lookup(toolName)
	if !ok {
		return fact.Value{}, fmt.Errorf("unknown tool %q", toolName)
	}
	var obj struct {
		Count      int      `json:"count"`
		StoreIDs   []string `json:"store_ids"`
		ProductIDs []string `json:"product_ids"`
	}
	switch d.Value {
	case fact.KindState, fact.KindFlag:
		var s *string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fact.Value{}, err
		}
		if s == nil {
			return fact.NoObservation(d.Value), nil
		}
		return fact.Value{Kind: d.Value, Observed: true, Text: *s}, nil
	case fact.KindPrice:
		var c *int64
		if err := json.Unmarshal(raw, &c); err != nil {
			return fact.Value{}, err
		}
		if c == nil {
			return fact.NoObservation(d.Value), nil
		}
		return fact.Price(*c), nil
	case fact.KindStoreCount:
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fact.Value{}, err
		}
		return fact.StoreCount(obj.StoreIDs), nil
	case fact.KindProductList:
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fact.Value{}, err
		}
		return fact.ProductList(obj.ProductIDs), nil
	case fact.KindEventCount:
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fact.Value{}, err
		}
		return fact.EventCount(obj.Count), nil
	}
	return fact.Value{}, fmt.Errorf("unknown value kind %q", d.Value)
}
