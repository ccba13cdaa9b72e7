// Package httpapi is the HTTP surface of the engine:
//
//	POST /v1/ask          {"question": "..."} -> the answer object (the same one `ask --json` prints)
//	GET  /v1/tools        the offered tools: name, description, input schema, annotations (tools.go)
//	POST /v1/tools/{name} a direct tool call through the same wall -> the answer object (tools.go)
//	GET  /openapi.json    an OpenAPI 3.1 document generated from the registry (openapi.go)
//	POST /v1/ground       the numeral grounding checker on a client's text and ledger (ground.go)
//	     /mcp             the Model Context Protocol, stateless streamable HTTP (Backend.MCP)
//	GET  /healthz         503 {"status":"loading"} until an engine is set, then
//	                      200 {"status":"ok","dataset_version":...,"provider":...}
//	GET  /metrics         Prometheus text format (when Options.Metrics is set)
//
// RequireToken (auth.go) puts bearer-token authentication and principal
// scopes in front of every path but /healthz, /metrics and /openapi.json;
// LimitInFlight (limits.go) caps the requests served at once.
//
// # Status codes
//
// A question that was served gets 200 whatever its outcome (answered,
// absence, abstained, rejected): a rejected tool call or an abstention is
// a typed result, not a failed request. Our own failures are 5xx, still
// with the full answer object as the body:
//
//	outcome error, reason internal or verification_failed -> 500
//	outcome error, reason model_unavailable (select or compose stage) -> 503
//	  (the model is an upstream that is temporarily unreachable; a
//	  compose failure still carries the verified value and provenance)
//
// A request the client got wrong is a 4xx with the body
// {"error": {"code": "...", "message": "..."}}; the message is fixed text
// and never echoes any part of the request:
//
//	415 unsupported_media_type  Content-Type is not application/json
//	413 body_too_large          body over Options.MaxBodyBytes (64 KiB)
//	400 empty_body              no body
//	400 invalid_json            not one well-formed JSON value
//	400 not_an_object           the JSON value is not an object
//	400 unknown_field           a field other than "question" (names match exactly)
//	400 duplicate_field         "question" given twice
//	400 invalid_question        "question" is not a string
//	400 missing_question        "question" is absent or null
//	400 empty_question          "question" is empty or only white space
//	401 unauthorized            no valid bearer token (when RequireToken is in front)
//	403 cross_origin            a browser request from another origin to /mcp
//	404 not_found, 404 unknown_tool, 405 method_not_allowed (with Allow)
//	503 loading                 /v1/ask before the engine is loaded
//	503 busy                    too many requests in flight (with Retry-After)
//	500 internal                a recovered panic
//
// The server can listen before the dataset is loaded: the engine is held
// in an atomic pointer that SetBackend fills once loading finishes.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/tool"
)

// DefaultMaxBodyBytes caps a request body.
const DefaultMaxBodyBytes = 64 << 10

// DefaultAskTimeout bounds one question.
const DefaultAskTimeout = 10 * time.Second

// Asker answers one question, or one tool call a client made directly
// (a *pipeline.Pipeline).
type Asker interface {
	Ask(ctx context.Context, question string) answer.Answer
	Call(ctx context.Context, p tool.Proposal) answer.Answer
}

// Backend is a loaded engine as the server sees it.
type Backend struct {
	Asker          Asker
	DatasetVersion string
	Provider       string
	// MCP, when set, serves the Model Context Protocol's streamable HTTP
	// transport at /mcp.
	MCP http.Handler
}

// Options configures New.
type Options struct {
	Logger       *slog.Logger  // nil: discard
	Metrics      http.Handler  // served at GET /metrics; nil: not served
	MaxBodyBytes int64         // 0: DefaultMaxBodyBytes
	AskTimeout   time.Duration // 0: DefaultAskTimeout
}

// Server is the HTTP API. Safe for concurrent use.
type Server struct {
	opts    Options
	mux     *http.ServeMux
	backend atomic.Pointer[Backend]
}

var _ http.Handler = (*Server)(nil)

// New returns a server with no backend: /healthz says loading and /v1/ask
// answers 503 until SetBackend. nil opts means defaults.
func New(opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.AskTimeout <= 0 {
		o.AskTimeout = DefaultAskTimeout
	}
	s := &Server{opts: o, mux: http.NewServeMux()}
	s.mux.HandleFunc("POST /v1/ask", s.handleAsk)
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /v1/tools", handleTools)
	s.mux.HandleFunc("POST /v1/tools/{name}", s.handleCall)
	s.mux.HandleFunc("GET /openapi.json", handleOpenAPI)
	s.mux.HandleFunc("POST /v1/ground", s.handleGround)
	s.mux.HandleFunc("/mcp", s.handleMCP)
	if o.Metrics != nil {
		s.mux.Handle("GET /metrics", o.Metrics)
	}
	return s
}

// SetBackend makes the server ready. It panics if b.Asker is nil: that is
// a programming error.
func (s *Server) SetBackend(b Backend) {
	if b.Asker == nil {
		panic("httpapi: SetBackend needs an Asker")
	}
	s.backend.Store(&b)
}

// Error codes of the JSON error body.
const (
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeBodyTooLarge         = "body_too_large"
	CodeEmptyBody            = "empty_body"
	CodeInvalidJSON          = "invalid_json"
	CodeNotAnObject          = "not_an_object"
	CodeUnknownField         = "unknown_field"
	CodeDuplicateField       = "duplicate_field"
	CodeInvalidQuestion      = "invalid_question"
	CodeMissingQuestion      = "missing_question"
	CodeEmptyQuestion        = "empty_question"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeLoading              = "loading"
	CodeInternal             = "internal"
	CodeCrossOrigin          = "cross_origin"
)

// ErrorBody is the JSON body of every 4xx and of 5xx without an answer.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is a machine code and a fixed human message.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ServeHTTP routes the request, turning the mux's plain-text 404 and 405
// into JSON and any panic into a 500.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tw := &trackingWriter{ResponseWriter: w}
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
		// The panic value may hold request data; log only its type.
		s.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "recovered panic in handler",
			slog.String("path", r.URL.Path), slog.String("panic_type", fmt.Sprintf("%T", v)))
		if !tw.wrote {
			writeError(tw, http.StatusInternalServerError, CodeInternal, "internal error")
		}
	}()
	if h, pattern := s.mux.Handler(r); pattern == "" {
		s.unrouted(tw, r, h)
		return
	}
	s.mux.ServeHTTP(tw, r)
}

// unrouted answers a request no pattern matched in JSON, keeping the
// mux's status and Allow header.
func (s *Server) unrouted(w http.ResponseWriter, r *http.Request, h http.Handler) {
	rec := &statusRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if allow := rec.header.Get("Allow"); allow != "" {
		w.Header().Set("Allow", allow)
	}
	switch rec.status {
	case http.StatusMethodNotAllowed:
		writeError(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method not allowed for this path")
	default:
		writeError(w, http.StatusNotFound, CodeNotFound, "no such path")
	}
}

type askRequest struct {
	Question *string `json:"question"`
}

func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	serveAnswer(s, w, r, decodeAsk, func(ctx context.Context, a Asker, q string) answer.Answer { return a.Ask(ctx, q) })
}

// serveAnswer is the shape of every answering endpoint: a JSON body read
// strictly by decode (a 4xx on failure), then run under the ask timeout
// once the engine is loaded, and the answer written with its status.
func serveAnswer[T any](s *Server, w http.ResponseWriter, r *http.Request,
	decode func(io.Reader) (T, int, string, string), run func(context.Context, Asker, T) answer.Answer) {
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	in, status, code, msg := decode(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if code != "" {
		s.opts.Logger.LogAttrs(r.Context(), slog.LevelDebug, "bad request", slog.String("code", code))
		writeError(w, status, code, msg)
		return
	}
	b := s.backend.Load()
	if b == nil {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, CodeLoading, "the dataset is still loading")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.AskTimeout)
	defer cancel()
	a := run(ctx, b.Asker, in)
	writeJSON(w, StatusOf(a), a)
}

// decodeAsk reads the request body. On failure it returns a status, an
// error code and a fixed message that holds nothing from the body.
func decodeAsk(body io.Reader) (question string, status int, code, msg string) {
	dec := json.NewDecoder(body)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		status, code, msg = decodeError(err)
		return "", status, code, msg
	}
	// Exactly one JSON value: anything after it but white space is an error.
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return "", http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body exceeds the size limit"
		}
		return "", http.StatusBadRequest, CodeInvalidJSON, "the body must hold exactly one JSON object"
	}
	if raw[0] != '{' {
		return "", http.StatusBadRequest, CodeNotAnObject, "the body must be a JSON object"
	}
	// Keys are matched exactly and once: encoding/json alone would take
	// "Question" for "question" and keep the last of two.
	keys := json.NewDecoder(bytes.NewReader(raw))
	keys.Token() // the '{' checked above
	seen := false
	for keys.More() {
		tok, _ := keys.Token()
		if tok != "question" {
			return "", http.StatusBadRequest, CodeUnknownField, `the only field allowed is "question"`
		}
		if seen {
			return "", http.StatusBadRequest, CodeDuplicateField, `"question" must appear once`
		}
		seen = true
		var skip json.RawMessage
		if err := keys.Decode(&skip); err != nil {
			return "", http.StatusBadRequest, CodeInvalidJSON, "the body is not well-formed JSON"
		}
	}
	var req askRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		status, code, msg = decodeError(err)
		return "", status, code, msg
	}
	switch {
	case req.Question == nil:
		return "", http.StatusBadRequest, CodeMissingQuestion, `the body must have a "question" string`
	case strings.TrimSpace(*req.Question) == "":
		return "", http.StatusBadRequest, CodeEmptyQuestion, `"question" must not be empty`
	}
	return *req.Question, 0, "", ""
}

func decodeError(err error) (status int, code, msg string) {
	var (
		tooLarge  *http.MaxBytesError
		syntax    *json.SyntaxError
		typeError *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body exceeds the size limit"
	case errors.Is(err, io.EOF):
		return http.StatusBadRequest, CodeEmptyBody, "the body is empty; want a JSON object"
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return http.StatusBadRequest, CodeInvalidJSON, "the body is not well-formed JSON"
	case errors.As(err, &typeError):
		if typeError.Field == "question" {
			return http.StatusBadRequest, CodeInvalidQuestion, `"question" must be a string`
		}
		return http.StatusBadRequest, CodeNotAnObject, "the body must be a JSON object"
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		// encoding/json has no typed error for this; its message names the
		// field, which is client input, so it is not passed on.
		return http.StatusBadRequest, CodeUnknownField, `the only field allowed is "question"`
	}
	return http.StatusBadRequest, CodeInvalidJSON, "the body could not be read as JSON"
}

// isJSON reports whether a Content-Type is application/json with, at
// most, a UTF-8 charset.
func isJSON(contentType string) bool {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		return false
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return false
		}
	}
	return true
}

// StatusOf maps an answer to its HTTP status: 200 for every outcome but an
// error; 503 when the model was unreachable; 504 when the request's
// deadline passed (reason timeout); 500 for our own failures.
func StatusOf(a answer.Answer) int {
	if a.Outcome() != answer.Error {
		return http.StatusOK
	}
	switch a.Reason().Kind {
	case answer.ReasonModelUnavailable:
		return http.StatusServiceUnavailable
	case answer.ReasonTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// Health is the body of GET /healthz.
type Health struct {
	Status         string `json:"status"`
	DatasetVersion string `json:"dataset_version,omitempty"`
	Provider       string `json:"provider,omitempty"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	if b == nil {
		writeJSON(w, http.StatusServiceUnavailable, Health{Status: "loading"})
		return
	}
	writeJSON(w, http.StatusOK, Health{Status: "ok", DatasetVersion: b.DatasetVersion, Provider: b.Provider})
}

// handleMCP hands /mcp to the backend's MCP handler once it is loaded.
// Cross-origin requests (a browser page on another origin) are refused
// before the protocol sees them.
func (s *Server) handleMCP(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	switch {
	case b == nil:
		writeError(w, http.StatusServiceUnavailable, CodeLoading, "the engine is still loading")
	case b.MCP == nil:
		writeError(w, http.StatusNotFound, CodeNotFound, "no such endpoint")
	default:
		if err := crossOrigin.Check(r); err != nil {
			writeError(w, http.StatusForbidden, CodeCrossOrigin, "cross-origin requests are not allowed")
			return
		}
		b.MCP.ServeHTTP(w, r)
	}
}

// crossOrigin validates the Origin (and Sec-Fetch-Site) header, as the MCP
// specification asks of its HTTP transport.
var crossOrigin = http.NewCrossOriginProtection()

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"encode response"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// trackingWriter remembers whether a response has been started, so a
// recovered panic writes a 500 only when nothing was sent yet.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackingWriter) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// statusRecorder captures what the mux's 404 and 405 handlers write.
type statusRecorder struct {
	header http.Header
	status int
}

func (r *statusRecorder) Header() http.Header { return r.header }
func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return len(b), nil
}
