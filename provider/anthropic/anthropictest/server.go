// Package anthropictest is a fake Anthropic Messages API server for tests
// and recordings. Its "model" is deterministic (package
// provider/internal/fakemodel): it selects tools with the rules
// provider's parser and composes with tool.Sentence, so a recording made
// from it is the same on every machine. A retry (the refused tool_use and
// its tool_result after the question) is answered as the first selection
// was. A Script hook lets a test make it misbehave.
//
// It does not import package anthropic, so that package's own tests can
// use it.
package anthropictest

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

// The jobs: a request with tools is a selection (a retry when the refused
// tool_use and its tool_result follow the question), one without is a
// composition.
const (
	Select Job = iota + 1
	Compose
	Retry
)

// Request is one request as the server saw it: its credential headers and
// its body.
type Request struct {
	Auth   string // the Authorization header
	APIKey string // the X-Api-Key header
	Body   []byte
}

// Server is the fake endpoint, serving POST /v1/messages.
type Server struct {
	*httptest.Server
	// Script, when set, sees every request first (with the question: the
	// first user message's text for a selection or a retry, the question
	// field of a composition) and reports whether it wrote the response
	// itself.
	Script func(w http.ResponseWriter, r *http.Request, job Job, question string) bool

	mu       sync.Mutex
	requests []Request
}

// NewServer starts a server that tb closes.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.handle)
	s.Server = httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

// BaseURL is the API root clients are configured with (no /v1).
func (s *Server) BaseURL() string { return s.URL }

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

// Requests returns how many requests the server has seen.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// block is one content block of a message, in the fields the server reads.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// messagesRequest is the part of a Messages request the server reads.
type messagesRequest struct {
	Model     string  `json:"model"`
	MaxTokens int     `json:"max_tokens"`
	System    []block `json:"system"`
	Messages  []struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	} `json:"messages"`
	Tools []json.RawMessage `json:"tools"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		Error(w, http.StatusBadRequest, "invalid_request_error", "read body")
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Auth: r.Header.Get("Authorization"), APIKey: r.Header.Get("X-Api-Key"), Body: body})
	s.mu.Unlock()
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil || !conversation(req) {
		Error(w, http.StatusBadRequest, "invalid_request_error",
			"want max_tokens, a system prompt and a user message, then at most one refused tool_use and its tool_result")
		return
	}
	user := req.Messages[0].Content[0].Text
	switch {
	case len(req.Tools) > 0 && len(req.Messages) == 3:
		s.selectTool(w, r, Retry, req.Model, user)
	case len(req.Tools) > 0:
		s.selectTool(w, r, Select, req.Model, user)
	case len(req.Messages) == 1:
		s.compose(w, r, req.Model, user)
	default:
		Error(w, http.StatusBadRequest, "invalid_request_error", "a composition is one user message")
	}
}

// conversation reports whether req is a well-formed request of one of the
// two jobs: max_tokens, one system text block, one user text message,
// optionally followed by an assistant tool_use and a user tool_result
// answering it (a retry).
func conversation(req messagesRequest) bool {
	m := req.Messages
	switch {
	case req.MaxTokens <= 0, len(req.System) != 1, req.System[0].Type != "text":
		return false
	case len(m) != 1 && len(m) != 3, m[0].Role != "user", len(m[0].Content) != 1, m[0].Content[0].Type != "text":
		return false
	case len(m) == 3:
		use, result := m[1].Content, m[2].Content
		return m[1].Role == "assistant" && len(use) == 1 && use[0].Type == "tool_use" && use[0].ID != "" &&
			m[2].Role == "user" && len(result) == 1 && result[0].Type == "tool_result" && result[0].ToolUseID == use[0].ID
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
	Reply(w, model, "", ToolUse{name, args})
}

func (s *Server) compose(w http.ResponseWriter, r *http.Request, model, user string) {
	in, err := fakemodel.ParseCompose(user)
	if err != nil {
		Error(w, http.StatusBadRequest, "invalid_request_error", "compose input is not the expected JSON")
		return
	}
	if s.Script != nil && s.Script(w, r, Compose, in.Question) {
		return
	}
	sentence, err := in.Sentence()
	if err != nil {
		Error(w, http.StatusBadRequest, "invalid_request_error", "bad value")
		return
	}
	Reply(w, model, sentence)
}

// ToolUse is one tool_use block in a reply: a name and raw input text
// (written into the block as it is, so a test can send any JSON).
type ToolUse struct{ Name, Input string }

// Reply writes a message with a text block (when text is not empty) and
// tool_use blocks.
func Reply(w http.ResponseWriter, model, text string, uses ...ToolUse) {
	content := []any{}
	if text != "" {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	stop := "end_turn"
	for i, u := range uses {
		content = append(content, map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", i), "name": u.Name, "input": json.RawMessage(u.Input),
		})
		stop = "tool_use"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 3, "output_tokens": 1},
	})
}

// Error writes an error response in the Messages API's shape.
func Error(w http.ResponseWriter, status int, kind, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"type": "error", "error": map[string]string{"type": kind, "message": message},
	})
}
