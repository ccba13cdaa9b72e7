// Package openaitest is a fake OpenAI-compatible chat-completions server
// for tests and recordings. Its "model" is deterministic (package
// provider/internal/fakemodel): it selects tools with the rules provider's
// parser and composes with tool.Sentence, so a recording made from it is
// the same on every machine. A retry (the refused call and the tool's reply
// after the question) is answered as the first selection was. A Script
// hook lets a test make it misbehave.
//
// It does not import package openai, so that package's own tests can use it.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/provenant/provenant/provider/internal/fakemodel"
)

// Job is which of the two model jobs a request asks for.
type Job int

// The jobs: a request with tools is a selection (a retry when it carries
// the refused call and the tool's reply after the question), one without
// is a composition.
const (
	Select Job = iota + 1
	Compose
	Retry
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
		Role      string            `json:"role"`
		Content   string            `json:"content"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
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
	if err := json.Unmarshal(body, &req); err != nil || !conversation(req) {
		http.Error(w, `{"error": {"message": "want a system and a user message, then at most one refused call and its reply"}}`, http.StatusBadRequest)
		return
	}
	user := req.Messages[1].Content
	switch {
	case len(req.Tools) > 0 && len(req.Messages) == 4:
		s.selectTool(w, r, Retry, req.Model, user)
	case len(req.Tools) > 0:
		s.selectTool(w, r, Select, req.Model, user)
	case len(req.Messages) == 2:
		s.compose(w, r, req.Model, user)
	default:
		http.Error(w, `{"error": {"message": "a composition is one system and one user message"}}`, http.StatusBadRequest)
	}
}

// conversation reports whether req's messages are a system and a user
// message, optionally followed by an assistant message with one tool call
// and a tool message (a retry).
func conversation(req chatRequest) bool {
	m := req.Messages
	switch {
	case len(m) != 2 && len(m) != 4, m[0].Role != "system", m[1].Role != "user":
		return false
	case len(m) == 4:
		return m[2].Role == "assistant" && len(m[2].ToolCalls) == 1 && m[3].Role == "tool" && m[3].Content != ""
	}
	return true
}

// selectTool answers a selection or a retry the way the rules parser
// reads the question: a model that makes the same mistake twice.
func (s *Server) selectTool(w http.ResponseWriter, r *http.Request, job Job, model, question string) {
	if s.Script != nil && s.Script(w, r, job, question) {
		return
	}
	name, args, ok := fakemodel.Select(question)
	if !ok {
		Reply(w, model, "No tool on the menu answers that question.")
		return
	}
	Reply(w, model, "", ToolCall{name, args})
}

func (s *Server) compose(w http.ResponseWriter, r *http.Request, model, user string) {
	in, err := fakemodel.ParseCompose(user)
	if err != nil {
		http.Error(w, `{"error": {"message": "compose input is not the expected JSON"}}`, http.StatusBadRequest)
		return
	}
	if s.Script != nil && s.Script(w, r, Compose, in.Question) {
		return
	}
	sentence, err := in.Sentence()
	if err != nil {
		http.Error(w, `{"error": {"message": "bad value"}}`, http.StatusBadRequest)
		return
	}
	Reply(w, model, sentence)
}

// Requests returns how many requests the server has seen.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
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
		"usage":   map[string]int{"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
	})
}
