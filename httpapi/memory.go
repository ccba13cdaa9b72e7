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
	"github.com/provenant/provenant/tool"
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

// addMemoryPaths adds the memory endpoints to an OpenAPI document, their
// request bodies the registry's schemas.
func addMemoryPaths(doc map[string]any) {
	paths := doc["paths"].(map[string]any)
	errs := func(extra map[string]any) map[string]any {
		out := map[string]any{
			"400": jsonResponse("A malformed request, or a record or query the memory refuses (invalid_record, invalid_recall).", ref("Error")),
			"413": jsonResponse("The body is too large.", ref("Error")),
			"415": unsupportedMediaType(),
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	written := jsonResponse("The record's key and logical time.", map[string]any{
		"type":       "object",
		"properties": map[string]any{"key": map[string]any{"type": "string"}, "time": map[string]any{"type": "integer"}},
	})
	conflict := map[string]any{"409": jsonResponse("The key is already in the journal (duplicate_key).", ref("Error"))}
	for _, op := range []struct {
		path, id, summary, description string
		schema                         map[string]any
		responses                      map[string]any
	}{
		{"/v1/memory/remember", tool.RememberName, "Remember a claim, an observation or a note", tool.RememberDescription,
			tool.RememberSchema(), errs(map[string]any{"200": written, "409": conflict["409"]})},
		{"/v1/memory/annotate", tool.AnnotateName, "Confirm, retract or supersede a record", tool.AnnotateDescription,
			tool.AnnotateSchema(), errs(map[string]any{"200": written, "409": conflict["409"],
				"404": jsonResponse("The target is not in the journal (unknown_target).", ref("Error"))})},
		{"/v1/memory/recall", tool.RecallName, "Recall a belief sheet", tool.RecallDescription,
			tool.RecallSchema(), errs(map[string]any{"200": jsonResponse("The belief sheet.", map[string]any{"type": "object"})})},
	} {
		o := operation(op.id, op.summary, op.description+" The writer and reader are the authenticated principal.", op.schema, op.responses)
		o["tags"] = []any{"memory"}
		paths[op.path] = map[string]any{"post": o}
	}
	doc["tags"] = append(doc["tags"].([]any), map[string]any{"name": "memory", "description": "An agent's memory journal (with --memory)."})
}
