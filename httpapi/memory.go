package httpapi

// The memory endpoints: an agent's journal (package memory), with the
// request types of package memory/memapi, whose JSON the registry's
// schemas describe (tool.RememberSchema, tool.AnnotateSchema,
// tool.RecallSchema).
//
//	POST /v1/memory/remember  {"text", "subject"?, ...}            -> {"key", "time"}
//	POST /v1/memory/annotate  {"kind", "target", "text"?, ...}     -> {"key", "time"}
//	POST /v1/memory/recall    {"subject"?, "tags"?, "text"?, ...}  -> the belief sheet
//
// The writing agent and the reader are the authenticated principal
// (Options.Auth), never a field of the body; without authentication they
// are MemoryOptions.Agent. Bodies are read by the one strict decoder
// (unknown or repeated keys, wrong types: 400 with the path of the
// declared field at fault); a record or query the memory refuses is 400
// invalid_record or invalid_recall, a repeated key 409 duplicate_key, an
// unknown target 404 unknown_target, each naming declared fields only. A
// recall re-checks each claim carrying provenance against the loaded
// engine under the principal's scope; before the engine has loaded,
// claims carry no check.

import (
	"context"
	"errors"
	"net/http"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/enginecheck"
	"github.com/provenant/provenant/memory/memapi"
)

// MemoryOptions configures the memory endpoints.
type MemoryOptions struct {
	// Service appends and reads; its Rerunner is replaced per request by
	// one over the loaded engine. Required.
	Service *memapi.Service
	// Agent is the writer and reader when the server authenticates no
	// one; "" means "local".
	Agent string
}

func (s *Server) addMemoryRoutes() {
	s.mux.HandleFunc("POST /v1/memory/remember", s.handleRemember)
	s.mux.HandleFunc("POST /v1/memory/annotate", s.handleAnnotate)
	s.mux.HandleFunc("POST /v1/memory/recall", s.handleRecall)
}

// memoryAgent is who writes and reads: the authenticated principal, or
// the configured local agent.
func (s *Server) memoryAgent(r *http.Request) string {
	if p, ok := principalFrom(r.Context()); ok {
		return p.Name
	}
	if s.opts.Memory.Agent != "" {
		return s.opts.Memory.Agent
	}
	return "local"
}

// decodeMemory reads a memory request body strictly; false means an
// error was written.
func decodeMemory[T any](s *Server, w http.ResponseWriter, r *http.Request) (T, bool) {
	var req T
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
		return req, false
	}
	if status, code, msg, _ := decodeJSON(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), &req, nil); code != "" {
		writeError(w, status, code, msg)
		return req, false
	}
	return req, true
}

// writeMemoryError answers a memory error: the caller's mistakes with
// their codes, ours as a 500 with fixed text.
func (s *Server) writeMemoryError(w http.ResponseWriter, r *http.Request, err error) {
	var e *memapi.Error
	if !errors.As(err, &e) {
		s.opts.Logger.ErrorContext(r.Context(), "memory request failed", "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, CodeInternal, "internal error")
		return
	}
	status := http.StatusBadRequest
	switch e.Code {
	case memapi.CodeDuplicateKey:
		status = http.StatusConflict
	case memapi.CodeUnknownTarget:
		status = http.StatusNotFound
	}
	writeError(w, status, e.Code, e.Message)
}

func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeMemory[memapi.RememberRequest](s, w, r)
	if !ok {
		return
	}
	out, err := s.opts.Memory.Service.Remember(r.Context(), s.memoryAgent(r), req)
	if err != nil {
		s.writeMemoryError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAnnotate(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeMemory[memapi.AnnotateRequest](s, w, r)
	if !ok {
		return
	}
	out, err := s.opts.Memory.Service.Annotate(r.Context(), s.memoryAgent(r), req)
	if err != nil {
		s.writeMemoryError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleRecall(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeMemory[memapi.RecallRequest](s, w, r)
	if !ok {
		return
	}
	svc := *s.opts.Memory.Service
	svc.Rerunner = nil
	if b := s.backend.Load(); b != nil {
		svc.Rerunner = enginecheck.New(b.Asker)
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.AskTimeout)
	defer cancel()
	sheet, err := svc.Recall(ctx, memory.Reader{Agent: s.memoryAgent(r)}, req)
	if err != nil {
		s.writeMemoryError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sheet)
}
