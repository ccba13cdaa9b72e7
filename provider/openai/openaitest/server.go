// Package openaitest is a fake OpenAI-compatible chat-completions server
// for tests and recordings. Its "model" is deterministic: it selects tools
// with the rules provider's parser and composes with rules.Sentence, so a
// recording made from it is the same on every machine. A Script hook lets
// a test make it misbehave.
//
// It does not import package openai, so that package's own tests can use it.
package openaitest

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

	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

// Job is which of the two model jobs a request asks for.
type Job int

// The jobs: a request with tools is a selection, one without is a
// composition.
const (
	Select Job = iota + 1
	Compose
)

// Request is one request as the server saw it.
type Request struct {
	Auth string
	Body []byte
}

// Server is the fake endpoint, serving POST /v1/chat/completions.
type Server struct {
	*httptest.Server
	// Script, when set, sees every request first (with the question: the
	// user message for a selection, the question field of a composition)
	// and reports whether it wrote the response itself.
	Script func(w http.ResponseWriter, r *http.Request, job Job, question string) bool

	mu       sync.Mutex
	requests []Request
}

// NewServer starts a server that tb closes.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handle)
	s.Server = httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

// BaseURL is the API root clients are configured with.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Last returns the last request the server saw.
func (s *Server) Last(tb testing.TB) Request {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		tb.Fatal("the fake server saw no request")
	}
	return s.requests[len(s.requests)-1]
}

// chatRequest is the part of a chat-completions request the server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Tools []json.RawMessage `json:"tools"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Auth: r.Header.Get("Authorization"), Body: body})
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

func (s *Server) selectTool(w http.ResponseWriter, r *http.Request, model, question string) {
	if s.Script != nil && s.Script(w, r, Select, question) {
		return
	}
	p, _ := rules.Provider{}.Select(context.Background(), question, registry.Menu())
	if p == nil {
		Reply(w, model, "No tool on the menu answers that question.")
		return
	}
	b, err := json.Marshal(p.Params)
	if err != nil {
		http.Error(w, "encode arguments", http.StatusInternalServerError)
		return
	}
	Reply(w, model, "", ToolCall{p.Tool, string(b)})
}

func (s *Server) compose(w http.ResponseWriter, r *http.Request, model, user string) {
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
	if s.Script != nil && s.Script(w, r, Compose, in.Question) {
		return
	}
	v, err := decodeValue(in.Tool, in.Value)
	if err != nil {
		http.Error(w, `{"error": {"message": "bad value"}}`, http.StatusBadRequest)
		return
	}
	d, _ := registry.Lookup(in.Tool)
	Reply(w, model, tool.Sentence(d, in.Arguments, v))
}

// ToolCall is one tool call in a reply: a name and raw argument text.
type ToolCall struct{ Name, Args string }

// Reply writes a chat completion with content and tool calls.
func Reply(w http.ResponseWriter, model, content string, calls ...ToolCall) {
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
			cs = append(cs, call{fmt.Sprintf("call_%d", i), "function", fn{c.Name, c.Args}})
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

// registry is the fake model's menu: the retail catalog's tools, whose
// phrasings the rules parser matches.
var registry = catalogstest.Retail()

// decodeValue reads a value in fact.Value's JSON shapes back, for the
// tool's value kind.
func decodeValue(toolName string, raw json.RawMessage) (fact.Value, error) {
	d, ok := registry.Lookup(toolName)
	if !ok {
		return fact.Value{}, fmt.Errorf("decode value: unknown tool")
	}
	if d.Value.Scalar() && string(raw) == "null" {
		return fact.NoObservation(d.Value), nil
	}
	switch d.Value {
	case fact.KindText:
		var s string
		err := json.Unmarshal(raw, &s)
		return fact.Text(s), err
	case fact.KindInteger:
		var n int64
		err := json.Unmarshal(raw, &n)
		return fact.Integer(n, d.Unit), err
	case fact.KindNumber:
		var x float64
		if err := json.Unmarshal(raw, &x); err != nil {
			return fact.Value{}, err
		}
		return fact.Number(x, d.Unit)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fact.Value{}, err
	}
	var (
		count int
		ids   []string
	)
	if c, ok := obj["count"]; ok {
		if err := json.Unmarshal(c, &count); err != nil {
			return fact.Value{}, err
		}
	}
	if l, ok := obj[d.IDsField]; ok && d.IDsField != "" {
		if err := json.Unmarshal(l, &ids); err != nil {
			return fact.Value{}, err
		}
	}
	switch d.Value {
	case fact.KindEntityCount:
		return fact.EntityCount(d.IDsField, ids), nil
	case fact.KindEntityList:
		return fact.EntityList(d.IDsField, ids), nil
	}
	return fact.RowCount(count), nil
}
