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
// Every request but GET /healthz passes, in order: the Host and Origin
// check (hosts.go, against DNS rebinding and cross-origin pages), bearer
// tokens with principal scopes when Options.Auth is set (auth.go; not on
// /openapi.json, nor on /metrics with PublicMetrics), and the limits
// (limits.go): the body is read whole under its own budget and bounds
// before an in-flight slot is taken (/metrics skips the limits).
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
//	415 unsupported_content_encoding
//	                            the body has a Content-Encoding other than
//	                            identity (refused before it is read, with
//	                            Accept-Encoding: identity; limits.go)
//	413 body_too_large          body over Options.MaxBodyBytes (64 KiB)
//	400 empty_body              no body
//	400 invalid_json            not one well-formed JSON value (invalid UTF-8 included)
//	400 not_an_object           the JSON value is not an object (null, an array,
//	                            a string, a number, true or false), on every
//	                            route that reads a body
//	400 unknown_field           a field other than "question" (names match exactly)
//	400 duplicate_field         a key given twice in one object, at any depth
//	400 invalid_question        "question" is not a string
//	400 missing_question        "question" is absent or null
//	400 empty_question          "question" is empty or only white space
//	400 question_too_long       "question" is over 4096 characters (tool.MaxQuestionLength)
//	400 body_unreadable         the client broke off its body
//	401 unauthorized            no valid bearer token (when Options.Auth is set)
//	403 forbidden_host          the Host header names no allowed host
//	403 cross_origin            a browser request from an origin that is not an allowed host
//	408 body_timeout            the body did not arrive within the body-read budget
//	429 too_many_requests       too many bodies arriving at once (from this client, or all)
//	404 not_found, 404 unknown_tool, 405 method_not_allowed (with Allow)
//	                            (a path with an empty, "." or ".." segment
//	                            is not_found, never redirected)
//	400 bad_page, 404 unknown_result, 404 no_such_page, 410 data_changed
//	                            GET /v1/results/{id}/rows (rows.go)
//	503 loading                 /v1/ask before the engine is loaded
//	503 busy                    too many requests in flight (with Retry-After)
//	500 internal                a recovered panic
//
// The server can listen before the dataset is loaded: the engine is held
// in an atomic pointer that SetBackend fills once loading finishes.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/pipeline"
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
	// Rows, when set, pages provenance listed in part
	// (GET /v1/results/{id}/rows).
	Rows pipeline.RowPager
	// Approvals, when set, takes the decisions of authenticated
	// approvers on elevations (POST /v1/approvals, /v1/denials,
	// /v1/revocations, approvals.go).
	Approvals Approvals
}

// Options configures New.
type Options struct {
	// Registry is the tool registry the API describes and serves
	// (GET /v1/tools, POST /v1/tools/{name}, /openapi.json); required.
	Registry     *tool.Registry
	Logger       *slog.Logger  // nil: discard
	Metrics      http.Handler  // served at GET /metrics; nil: not served
	MaxBodyBytes int64         // 0: DefaultMaxBodyBytes
	AskTimeout   time.Duration // 0: DefaultAskTimeout
	// AllowedHosts extends the hosts a request's Host header, and a
	// browser's Origin, may name beyond the loopback names and addresses
	// (hosts.go); "*" allows any. An entry that is not a host name or
	// address with an optional :port makes New panic: check flags with
	// ValidateAllowedHosts first.
	AllowedHosts []string
	// Auth, when set, requires a bearer token (RequireToken, auth.go).
	Auth Authenticator
	// PublicMetrics leaves /metrics open when Auth is set.
	PublicMetrics bool
	// Limits bounds body reading and requests in flight (Limit,
	// limits.go); nil means defaults, with MaxBodyBytes from above.
	Limits *LimitOptions
	// Memory, when set, serves the memory endpoints (memory.go).
	Memory *MemoryOptions
	// Approvals documents POST /v1/approvals, /v1/denials and
	// /v1/revocations in /openapi.json: set it when the backend will
	// take approvals (Backend.Approvals).
	Approvals bool
}

// Server is the HTTP API. Safe for concurrent use.
type Server struct {
	opts       Options
	docs       *docs    // the tool list and the OpenAPI document, encoded once
	paramNames []string // the registry's parameter names, which an error may name
	mux        *http.ServeMux
	hosts      *hostPolicy
	guarded    http.Handler // auth, then limits, then the routes
	backend    atomic.Pointer[Backend]
}

var _ http.Handler = (*Server)(nil)

// New returns a server with no backend: /healthz says loading and /v1/ask
// answers 503 until SetBackend. nil opts means defaults.
//
// Every request but GET /healthz passes, in this order, the Host and
// Origin check (403), the bearer token when Options.Auth is set (401),
// then the limits: the body is read whole under its own budget and
// bounds (413, 408, 429), then an in-flight slot is taken (503).
func New(opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Registry == nil {
		panic("httpapi: Options.Registry is required")
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
	hosts, err := newHostPolicy(o.AllowedHosts)
	if err != nil {
		panic("httpapi: " + err.Error())
	}
	s := &Server{opts: o, docs: newDocs(o.Registry, o.Memory != nil, o.Approvals), paramNames: o.Registry.ParamNames(), mux: http.NewServeMux(), hosts: hosts}
	s.mux.HandleFunc("POST /v1/ask", s.handleAsk)
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /v1/tools", s.handleTools)
	s.mux.HandleFunc("POST /v1/tools/{name}", s.handleCall)
	s.mux.HandleFunc("GET /openapi.json", s.handleOpenAPI)
	s.mux.HandleFunc("POST /v1/ground", s.handleGround)
	s.mux.HandleFunc("GET /v1/results/{id}/rows", s.handleRows)
	s.mux.HandleFunc("POST /v1/approvals", s.handleApprovals)
	s.mux.HandleFunc("POST /v1/denials", s.handleDenials)
	s.mux.HandleFunc("POST /v1/revocations", s.handleRevocations)
	s.mux.HandleFunc("/mcp", s.handleMCP)
	if o.Metrics != nil {
		s.mux.Handle("GET /metrics", o.Metrics)
	}
	if o.Memory != nil {
		s.addMemoryRoutes()
	}
	lim := LimitOptions{MaxBodyBytes: o.MaxBodyBytes}
	if o.Limits != nil {
		lim = *o.Limits
		if lim.MaxBodyBytes <= 0 {
			lim.MaxBodyBytes = o.MaxBodyBytes
		}
	}
	s.guarded = Limit(http.HandlerFunc(s.route), &lim)
	if o.Auth != nil {
		s.guarded = RequireToken(o.Auth, s.guarded, &AuthOptions{PublicMetrics: o.PublicMetrics})
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
	CodeQuestionTooLong      = "question_too_long"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeLoading              = "loading"
	CodeInternal             = "internal"
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
	if r.URL.Path == "/healthz" {
		// A prober may use any name and must always get through, and is
		// answered without waiting for a body it declares.
		answerWithoutBody(tw, r)
		s.route(tw, r)
		return
	}
	if !s.hosts.check(tw, r) {
		return
	}
	s.guarded.ServeHTTP(tw, r)
}

// route serves r from the mux, answering a path no pattern matches in
// JSON.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.EscapedPath(); r.Method != http.MethodConnect && cleanPath(p) != p {
		// The mux would redirect to the cleaned path, repeating the
		// client's segments in Location and an HTML body.
		writeError(w, http.StatusNotFound, CodeNotFound, "no such path")
		return
	}
	if h, pattern := s.mux.Handler(r); pattern == "" {
		s.unrouted(w, r, h)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// cleanPath is the path the mux routes p by (net/http's cleanPath): no
// empty, "." or ".." segment, a trailing slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
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

// decodeAsk reads the request body: exactly one JSON object whose only
// key is "question", a string of 1 to tool.MaxQuestionLength characters.
// On failure it returns a status, an error code and a message that holds
// nothing from the body.
func decodeAsk(body io.Reader) (question string, status int, code, msg string) {
	var req askRequest
	var path string
	if status, code, msg, path = decodeJSON(body, &req, nil); code != "" {
		if code == CodeWrongType && path == "$.question" {
			return "", http.StatusBadRequest, CodeInvalidQuestion, `"question" must be a string`
		}
		return "", status, code, msg
	}
	switch {
	case req.Question == nil:
		return "", http.StatusBadRequest, CodeMissingQuestion, `the body must have a "question" string`
	case strings.TrimSpace(*req.Question) == "":
		return "", http.StatusBadRequest, CodeEmptyQuestion, `"question" must not be empty`
	case tool.QuestionTooLong(*req.Question):
		return "", http.StatusBadRequest, CodeQuestionTooLong, fmt.Sprintf(`"question" must be at most %d characters`, tool.MaxQuestionLength)
	}
	return *req.Question, 0, "", ""
}

// CodeWrongType is decodeJSON's code for a value of the wrong type below
// the top; the callers turn it into their own (invalid_question, ...).
const CodeWrongType = strictjson.CodeWrongType

// decodeJSON reads a whole body and decodes it with the one strict decoder
// (package strictjson): duplicate keys at any depth, keys in another case,
// unknown fields of v, trailing data and invalid UTF-8 are all refused, and
// so is a body that is not a JSON object (null included: every route
// that reads a body takes an object). On
// failure it returns a status, an error code, the decoder's safe message
// (which names declared fields and positions only) and the path at fault.
// A value of the wrong type below the top is CodeWrongType, which callers
// turn into their own code.
func decodeJSON(body io.Reader, v any, opts *strictjson.Options) (status int, code, msg, path string) {
	b, err := io.ReadAll(body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body exceeds the size limit", ""
		}
		return http.StatusBadRequest, CodeInvalidJSON, "the body could not be read", ""
	}
	err = strictjson.DecodeObject(b, v, opts)
	if err == nil {
		return 0, "", "", ""
	}
	var e *strictjson.Error
	if !errors.As(err, &e) {
		return http.StatusBadRequest, CodeInvalidJSON, "the body could not be read as JSON", ""
	}
	switch code = strictjson.CodeOf(err); code {
	case CodeEmptyBody:
		return http.StatusBadRequest, code, "the body is empty; want a JSON object", e.Path
	case CodeNotAnObject:
		return http.StatusBadRequest, code, "the body must be a JSON object", e.Path
	}
	return http.StatusBadRequest, code, "the body is not valid: " + e.SafeMessage(), e.Path
}

// isJSON reports whether a Content-Type is application/json with, at
// most, a UTF-8 charset.
func isJSON(contentType string) bool { return strictjson.IsJSONMediaType(contentType) }

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
// The Host and Origin check in front of every route (hosts.go) has
// already refused a foreign Host and a browser page on another origin,
// as the MCP specification asks of its HTTP transport.
func (s *Server) handleMCP(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	switch {
	case b == nil:
		writeError(w, http.StatusServiceUnavailable, CodeLoading, "the engine is still loading")
	case b.MCP == nil:
		writeError(w, http.StatusNotFound, CodeNotFound, "no such endpoint")
	default:
		b.MCP.ServeHTTP(w, r)
	}
}

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
