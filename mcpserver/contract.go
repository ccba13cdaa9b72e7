package mcpserver

// The contract MCP shares with REST: arguments read by the one strict
// decoder and refused with REST's codes, protocol errors that repeat
// nothing a client sent, the same media-type rule, and the SDK's own log
// records kept below the request line.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/tool"
)

// decodeArgs reads a tool call's arguments with the one strict decoder
// into v. On failure it returns the code REST gives the same body
// (duplicate_field, unknown_field, invalid_json, not_an_object,
// wrong_type) and the decoder's safe message. Absent arguments are an
// empty object; arguments that are not an object, null included, are
// not_an_object, as a REST body is.
func decodeArgs(raw json.RawMessage, v any, opts *strictjson.Options) (code, msg string, ok bool) {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	err := strictjson.DecodeObject(raw, v, opts)
	if err == nil {
		return "", "", true
	}
	return strictjson.CodeOf(err), strictjson.Message(err, "the arguments are not valid JSON"), false
}

// invalid is the typed rejection of arguments the decoder refused: kind
// invalid, its detail REST's code and the safe message ("invalid:
// duplicate_field: $.store_id: field appears more than once").
func invalid(name, code, msg string) *mcp.CallToolResult {
	return toolResult(answer.Reject(name, &tool.Rejection{Kind: tool.Invalid, Reason: code + ": " + msg}))
}

// callTool runs a menu tool through the wall. Arguments are read strictly
// (a key twice, at any depth, is duplicate_field); their values, numbers
// as json.Number, go to the wall, which judges the parameter set and every
// value, and names a parameter at fault.
func (h *handlers) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if code, msg, ok := decodeArgs(req.Params.Arguments, &args, &strictjson.Options{Names: h.paramNames}); !ok {
			return invalid(name, code, msg), nil
		}
		ctx, cancel := h.bound(ctx)
		defer cancel()
		return toolResult(h.p.Call(withScope(ctx, req.Extra), tool.Proposal{Tool: name, Params: args})), nil
	}
}

// askArgs is the ask tool's one argument, matched exactly: "QUESTION" is
// an unknown field, as on REST.
type askArgs struct {
	Question *string `json:"question"`
}

// ask answers a question. A question over tool.MaxQuestionLength
// characters (what the schema's maxLength says) is rejected before the
// pipeline, as REST refuses it with question_too_long.
func (h *handlers) ask(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in askArgs
	code, msg, ok := decodeArgs(req.Params.Arguments, &in, nil)
	var r *tool.Rejection
	switch {
	case !ok && code == strictjson.CodeWrongType && strings.HasPrefix(msg, "$.question:"):
		r = &tool.Rejection{Kind: tool.Invalid, Param: "question", Reason: "must be a string"}
	case !ok:
		return invalid(tool.AskName, code, msg), nil
	case in.Question == nil:
		r = &tool.Rejection{Kind: tool.Invalid, Param: "question", Reason: "is missing"}
	case strings.TrimSpace(*in.Question) == "":
		r = &tool.Rejection{Kind: tool.Invalid, Param: "question", Reason: "must not be empty"}
	case tool.QuestionTooLong(*in.Question):
		r = &tool.Rejection{Kind: tool.Invalid, Param: "question", Reason: fmt.Sprintf("must be at most %d characters", tool.MaxQuestionLength)}
	default:
		ctx, cancel := h.bound(ctx)
		defer cancel()
		return toolResult(h.p.Ask(withScope(ctx, req.Extra), *in.Question)), nil
	}
	return toolResult(answer.Reject(tool.AskName, r)), nil
}

// groundingError is check_grounding's refusal: a tool error whose
// structured content is the body REST's /v1/ground gives, {"error":
// {"code", "message"}}, with a message that repeats nothing the client
// sent.
func groundingError(code, msg string) *mcp.CallToolResult {
	body := map[string]any{"error": map[string]string{"code": code, "message": msg}}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: code + ": " + msg}}, StructuredContent: body, IsError: true}
}

// Fixed protocol error messages, by JSON-RPC code. A protocol error never
// carries data, and its message is one of these or one this package
// wrote itself (safeMessages): the SDK's own messages quote the method,
// the tool or prompt name, the URI, or a fragment of the body.
var fixedMessages = map[int64]string{
	jsonrpc.CodeParseError:     "parse error",
	jsonrpc.CodeInvalidRequest: "invalid request",
	jsonrpc.CodeMethodNotFound: "method not found",
	jsonrpc.CodeInvalidParams:  "invalid params",
	jsonrpc.CodeInternalError:  "internal error",
}

// safeMessages are the protocol error messages this package writes; each
// names nothing a client chose.
var safeMessages = map[string]bool{
	errNotFound.Message:        true,
	errGone.Message:            true,
	errTimeout.Message:         true,
	"unknown prompt":           true,
	errUnknownArgument.Message: true,
	"Resource not found":       true, // the SDK's own, without its data
}

// promptArgMessages are the "invalid prompt argument NAME" messages of
// every prompt argument a server offers (addPrompts registers them): the
// names come from the catalog, never from a client. Only the retail
// demo's names were listed here once, so any other catalog's argument
// (the warehouse's zone_id) was answered with a bare "invalid params".
var promptArgMessages sync.Map

// safeMessage reports whether msg is a protocol error message this
// package wrote, which names nothing a client chose.
func safeMessage(msg string) bool {
	if safeMessages[msg] {
		return true
	}
	_, ok := promptArgMessages.Load(msg)
	return ok
}

// sanitize returns a protocol error that repeats nothing a client sent.
func sanitize(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		e = &jsonrpc.Error{Code: jsonrpc.CodeInternalError}
		if strings.Contains(err.Error(), "unsupported") || strings.Contains(err.Error(), "not handled") {
			e.Code = jsonrpc.CodeMethodNotFound
		}
	}
	if safeMessage(e.Message) {
		return &jsonrpc.Error{Code: e.Code, Message: e.Message}
	}
	msg, ok := fixedMessages[e.Code]
	if !ok {
		msg = "request failed"
	}
	return &jsonrpc.Error{Code: e.Code, Message: msg}
}

// guard is the receiving middleware: a tool name that is not offered is
// the wall's typed unregistered rejection (the name is never echoed), an
// unknown prompt a fixed error, and every error a handler or the SDK
// returns is sanitized.
func (h *handlers) guard(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.CallToolRequest:
			if r.Params != nil && !h.tools[r.Params.Name] {
				// The pipeline's wall rejects it as unregistered, counted
				// like any other rejection, as REST's /v1/ask does.
				return toolResult(h.p.Call(withScope(ctx, r.Extra), tool.Proposal{Tool: r.Params.Name})), nil
			}
		case *mcp.GetPromptRequest:
			if r.Params != nil && !h.prompts[r.Params.Name] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown prompt"}
			}
		}
		res, err := next(ctx, method, req)
		if err != nil {
			return nil, sanitize(err)
		}
		return res, nil
	}
}

// conn wraps a transport's connection: every error response it writes is
// sanitized (the SDK answers some requests before any middleware: an
// unknown method, params that do not decode), and when its input ends it
// answers every call already read before reporting the end.
type conn struct {
	mcp.Connection
	mu sync.Mutex
	// pending holds the ids of the calls read and not yet answered. A
	// call whose id is already pending is not added: the SDK drops it
	// without an answer ("request ID already in use"), and counted, it
	// kept the server waiting at the end of input for ever.
	pending map[jsonrpc.ID]bool
	changed chan struct{} // closed when pending changes
}

// Read passes messages through. At the end of input (or a read error) it
// waits until every call read has been answered, or ctx ends, and only
// then reports the end: the SDK closes the session when Read fails.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		for {
			c.mu.Lock()
			n, ch := len(c.pending), c.changed
			c.mu.Unlock()
			if n == 0 {
				return nil, err
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, err
			}
		}
	}
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
		c.mu.Lock()
		c.pending[r.ID] = true
		c.mu.Unlock()
	}
	return msg, nil
}

// Write sanitizes error responses and counts answered calls.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	r, ok := msg.(*jsonrpc.Response)
	if ok && r.Error != nil {
		msg = &jsonrpc.Response{ID: r.ID, Error: sanitize(r.Error)}
	}
	err := c.Connection.Write(ctx, msg)
	if ok {
		c.mu.Lock()
		delete(c.pending, r.ID)
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
	return err
}

// guarded is a transport whose connections are wrapped in conn.
type guarded struct{ mcp.Transport }

func (g guarded) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := g.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{})}, nil
}

// quiet lowers every record of the SDK's logger to DEBUG: its connection
// and session messages are per request over stateless HTTP, and the
// request's own line (the pipeline's) is the one line at INFO.
type quiet struct{ h slog.Handler }

func (q quiet) Enabled(ctx context.Context, _ slog.Level) bool {
	return q.h.Enabled(ctx, slog.LevelDebug)
}

func (q quiet) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return q.h.Handle(ctx, r)
}

func (q quiet) WithAttrs(as []slog.Attr) slog.Handler { return quiet{q.h.WithAttrs(as)} }
func (q quiet) WithGroup(name string) slog.Handler    { return quiet{q.h.WithGroup(name)} }

// sdkLogger returns l lowered for the SDK, or a discarding logger.
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(quiet{l.Handler()})
}

// httpGuard wraps the SDK's HTTP handler: a POST whose Content-Type is not
// application/json (a charset other than UTF-8 included) is 415, as on
// REST; and any answer the SDK gives with status 400 or more, or any
// JSON-RPC error it writes, is replaced by fixed text, because the SDK's
// messages quote the Host header, the method and fragments of the body.
type httpGuard struct{ next http.Handler }

func (g httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && !strictjson.IsJSONMediaType(r.Header.Get("Content-Type")) {
		writeProtocolError(w, http.StatusUnsupportedMediaType, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Content-Type must be application/json"})
		return
	}
	bw := writers.Get().(*bufferedWriter)
	bw.ResponseWriter, bw.status = w, 0
	g.next.ServeHTTP(bw, r)
	bw.finish()
	bw.ResponseWriter = nil
	if bw.body.Cap() <= 64<<10 {
		bw.body.Reset()
		writers.Put(bw)
	}
}

// writers reuses the buffers of answered requests.
var writers = sync.Pool{New: func() any { return new(bufferedWriter) }}

// bufferedWriter holds the SDK's answer until it is complete, so that an
// error can be rewritten before anything reaches the client. The JSON
// response mode writes one small body per request.
type bufferedWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// Flush is a no-op: the answer is written whole by finish.
func (b *bufferedWriter) Flush() {}

func (b *bufferedWriter) finish() {
	status := b.status
	if status == 0 {
		status = http.StatusOK
	}
	body := b.body.Bytes()
	var resp struct {
		ID    json.RawMessage `json:"id"`
		Error *jsonrpc.Error  `json:"error"`
	}
	switch {
	case (status >= 400 || isErrorResponse(body)) && json.Unmarshal(body, &resp) == nil && resp.Error != nil:
		// A JSON-RPC error, whatever its status: keep the id and the
		// code, replace the message.
		writeProtocolError(b.ResponseWriter, status, resp.ID, sanitize(resp.Error))
		return
	case status >= 400:
		// The SDK's text names what it refused; keep only its class.
		code := int64(jsonrpc.CodeInvalidRequest)
		msg := http.StatusText(status)
		switch {
		case bytes.HasPrefix(body, []byte("malformed payload")):
			code, msg = jsonrpc.CodeParseError, "parse error"
		case bytes.Contains(body, []byte("unsupported")) || bytes.Contains(body, []byte(`"code":-32601`)):
			code, msg = jsonrpc.CodeMethodNotFound, "method not found"
		case status >= 500:
			code = jsonrpc.CodeInternalError
		}
		writeProtocolError(b.ResponseWriter, status, nil, &jsonrpc.Error{Code: code, Message: strings.ToLower(msg)})
		return
	}
	b.ResponseWriter.WriteHeader(status)
	b.ResponseWriter.Write(body)
}

// isErrorResponse reports whether a JSON-RPC response body is an error:
// its "error" key comes before any "result" key. The byte sequence
// `"error":` cannot occur inside a JSON string (its closing quote would be
// escaped), and the id before it is a number or a string, so the first
// such key is the response's own.
func isErrorResponse(body []byte) bool {
	e := bytes.Index(body, []byte(`"error":`))
	if e < 0 {
		return false
	}
	r := bytes.Index(body, []byte(`"result":`))
	return r < 0 || e < r
}

func writeProtocolError(w http.ResponseWriter, status int, id json.RawMessage, e *jsonrpc.Error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
