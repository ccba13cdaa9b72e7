package httpapi

// The REST tool API: the same tools the MCP surface offers, from the same
// registry (tool.Offered), over plain HTTP.
//
//	GET  /v1/tools          -> [{"name", "description", "input_schema", "annotations"}, ...]
//	POST /v1/tools/{name}   a JSON object of arguments -> the answer object
//	                        (for ask: {"question": "..."}, exactly as /v1/ask)
//
// A menu tool's arguments go to the backend's Call: the same wall,
// execution, re-derivation and stapling as a question, with no model. The
// body is read strictly as one JSON object of at most Options.MaxBodyBytes
// whose top-level keys are distinct (names match exactly); its values may
// be any JSON, because judging them (types, domains, query syntax, the
// exact parameter set) is the wall's job: a call the wall refuses is a 200
// with outcome rejected, counted like any other request. Statuses follow
// /v1/ask (StatusOf).
//
// A path naming no offered tool is 404 unknown_tool, before the body is
// read: the resource does not exist, which is not the same thing as an
// unregistered tool a model proposed (that is a typed rejection, because
// a model's proposal is an answer to a question). The name is not echoed.
// GET /v1/tools and GET /openapi.json depend only on the registry, so they
// are served while the dataset is still loading.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/tool"
)

// CodeUnknownTool is the error code of POST /v1/tools/{name} for a name
// that is not an offered tool.
const CodeUnknownTool = "unknown_tool"

// ToolInfo describes one tool in GET /v1/tools.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema map[string]any  `json:"input_schema"`
	Annotations ToolAnnotations `json:"annotations"`
}

// ToolAnnotations tell a client what calling a tool does. They are the
// same for every tool, and true of each: it only reads, the same arguments
// give the same answer over the same dataset, it reaches nothing outside
// the loaded dataset, and it changes nothing.
type ToolAnnotations struct {
	ReadOnly    bool `json:"read_only"`
	Idempotent  bool `json:"idempotent"`
	ClosedWorld bool `json:"closed_world"`
	Destructive bool `json:"destructive"`
}

// Tools returns the tool list GET /v1/tools serves.
func Tools(reg *tool.Registry) []ToolInfo {
	offered := reg.Offered()
	out := make([]ToolInfo, len(offered))
	for i, e := range offered {
		out[i] = ToolInfo{
			Name:        e.Name,
			Description: e.Description,
			InputSchema: e.InputSchema,
			Annotations: ToolAnnotations{ReadOnly: true, Idempotent: true, ClosedWorld: true, Destructive: false},
		}
	}
	return out
}

func (s *Server) handleTools(w http.ResponseWriter, r *http.Request) {
	b, err := s.docs.tools()
	if err != nil {
		writeError(w, http.StatusInternalServerError, CodeInternal, "internal error")
		return
	}
	writeJSON(w, http.StatusOK, json.RawMessage(b))
}

// handleCall serves POST /v1/tools/{name}.
func (s *Server) handleCall(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if name == tool.AskName {
		s.handleAsk(w, r)
		return
	}
	if _, ok := s.opts.Registry.Lookup(name); !ok {
		writeError(w, http.StatusNotFound, CodeUnknownTool, "no tool by that name; GET /v1/tools lists the tools")
		return
	}
	serveAnswer(s, w, r, s.decodeArgs, func(ctx context.Context, a Asker, args map[string]any) answer.Answer {
		return a.Call(ctx, tool.Proposal{Tool: name, Params: args})
	})
}

// decodeArgs reads a tool call's arguments: exactly one JSON object, read
// by the one strict decoder (no key twice at any depth, valid UTF-8, no
// trailing data). Values are kept as decoded JSON (numbers as json.Number,
// so none is lost to float64 range) for the wall to judge. On failure it
// returns a status, an error code and a message that holds nothing from
// the body: only the registered parameter names are named.
func (s *Server) decodeArgs(body io.Reader) (args map[string]any, status int, code, msg string) {
	status, code, msg, _ = decodeJSON(body, &args, &strictjson.Options{Names: s.paramNames})
	if code == CodeWrongType {
		return nil, http.StatusBadRequest, CodeNotAnObject, "the body must be a JSON object of arguments"
	}
	return args, status, code, msg
}
