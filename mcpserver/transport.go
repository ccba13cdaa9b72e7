package mcpserver

// The stateless streamable-HTTP path, with a fast lane for tool calls.
//
// Why: go-sdk v1.8.0 decodes JSON through internal/json.Unmarshal, which
// builds a new segmentio/encoding json.Decoder per call; its first Decode
// allocates a 32 KiB read buffer (segmentio json.go, minBufferSize) however
// small the message. One tools/call over the stateless streamable handler
// decodes the body about fourteen times: readBatch twice (in
// ephemeralConnectOpts and again in servePOST; each tries a batch, then
// jsonrpc2.DecodeMessage decodes the envelope and the method), extractName
// and extractParamHeaderAnnotations (a remarshal of the tool's input schema
// on every call) in validateMcpHeaders, extractRequestMeta twice,
// decodeMetaValue's remarshal of clientInfo and clientCapabilities, and the
// params. That is about 450 KB allocated per call before the tool runs.
// third_party/go-sdk-patches/0001-internal-json-unmarshal-without-decoder-buffer.patch
// is the fix offered upstream; until a release carries it, this handler
// keeps the SDK for everything but the one hot request shape.
//
// The fast lane takes a POST that is exactly one well-formed tools/call
// request for a tool registered through New, whose headers, protocol
// version and _meta the SDK would accept without further conditions. It
// decodes the body once with encoding/json into pooled buffers, runs the
// same tool handler the SDK would run, and writes the response the SDK
// would write (TestFastPathMatchesSDK compares them byte for byte).
// Anything else, including every request the SDK would refuse, goes to the
// SDK's own handler with the body replayed unchanged, so its checks and
// error messages stay the only ones.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/internal/strictjson"
)

// Wire names the fast lane checks; they are the SDK's (unexported there).
const (
	protocolVersionHeader = "Mcp-Protocol-Version"
	methodHeader          = "Mcp-Method"
	nameHeader            = "Mcp-Name"
	lastEventIDHeader     = "Last-Event-ID"
	// newProtocol is the first version that carries the protocol version,
	// client capabilities and client info in every request's _meta
	// (SEP-2575), and the Mcp-Method and Mcp-Name headers.
	newProtocol               = "2026-07-28"
	metaKeyProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaKeyClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaKeyClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaKeyServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// toolTable is what the fast lane needs of a server built by New: its
// identity (for the serverInfo a new-protocol result carries) and the
// handlers of its tools.
type toolTable struct {
	impl       *mcp.Implementation
	serverInfo []byte // {"io.modelcontextprotocol/serverInfo": impl}, encoded once
	handlers   map[string]mcp.ToolHandler
}

// newToolTable is the table of a server whose identity is impl.
func newToolTable(impl *mcp.Implementation) *toolTable {
	info, _ := json.Marshal(mcp.Meta{metaKeyServerInfo: impl}) // nil on failure: the generic encoding
	return &toolTable{impl: impl, serverInfo: info, handlers: map[string]mcp.ToolHandler{}}
}

// addTool adds t to s, and to the fast lane unless its input schema binds
// a parameter to a header (x-mcp-header), which the SDK checks and the
// fast lane does not.
func addTool(s *Server, t *mcp.Tool, h mcp.ToolHandler) {
	s.AddTool(t, h)
	if b, err := json.Marshal(t.InputSchema); err != nil || bytes.Contains(b, []byte("x-mcp-header")) {
		return
	}
	s.tools.handlers[t.Name] = h
}

// statelessHandler is the fast lane in front of the SDK's stateless
// streamable handler.
type statelessHandler struct {
	sdk      http.Handler
	tools    *toolTable // nil: no fast lane
	maxBytes int64
	versions []string // protocol versions the server accepts
}

func newStatelessHandler(s *Server, sdk http.Handler, maxBytes int64) *statelessHandler {
	return &statelessHandler{sdk: sdk, tools: s.tools, maxBytes: maxBytes, versions: mcp.SupportedProtocolVersions()}
}

// bufPool holds request and response buffers.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled caps the buffers kept for reuse.
const maxPooled = 64 << 10

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		b.Reset()
		bufPool.Put(b)
	}
}

func (h *statelessHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.tools == nil || !h.eligible(r) {
		h.sdk.ServeHTTP(w, r)
		return
	}
	in := bufPool.Get().(*bytes.Buffer)
	defer putBuf(in)
	// Read at most one byte past the limit; the SDK answers an oversized
	// body itself when it reads the replayed one. Without a limit, a body
	// larger than maxPooled goes to the SDK.
	limit := h.maxBytes
	if limit <= 0 {
		limit = maxPooled
	}
	_, err := in.ReadFrom(io.LimitReader(r.Body, limit+1))
	if err != nil || int64(in.Len()) > limit || !h.serveCall(w, r, in.Bytes()) {
		body := r.Body
		if err != nil {
			body = io.NopCloser(io.MultiReader(bytes.NewReader(in.Bytes()), errReader{err}))
		} else {
			body = io.NopCloser(io.MultiReader(bytes.NewReader(in.Bytes()), body))
		}
		r.Body = body
		h.sdk.ServeHTTP(w, r)
	}
}

// errReader replays a read error after the bytes read before it.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// eligible reports whether r's method and headers are ones the SDK serves
// without refusing: anything else goes to the SDK.
func (h *statelessHandler) eligible(r *http.Request) bool {
	if r.Method != http.MethodPost || len(r.Header.Values(lastEventIDHeader)) > 0 {
		return false
	}
	// The media-type rule httpGuard applies (and REST): anything else is
	// its to refuse. Host and Origin are httpapi's to check, for every
	// route alike (the SDK's own localhost check is off).
	if !strictjson.IsJSONMediaType(r.Header.Get("Content-Type")) {
		return false
	}
	if !acceptsBoth(r.Header.Values("Accept")) {
		return false
	}
	v := r.Header.Get(protocolVersionHeader)
	return v != "" && slices.Contains(h.versions, v)
}

// acceptsBoth reports whether Accept names application/json and
// text/event-stream exactly (the SDK also takes wildcards; those go to it).
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for raw := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(raw, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json":
				jsonOK = true
			case "text/event-stream":
				streamOK = true
			}
		}
	}
	return jsonOK && streamOK
}

// call is a decoded tools/call request.
type call struct {
	id        []byte // raw, checked to re-encode unchanged
	name      string
	arguments json.RawMessage
	meta      json.RawMessage
}

// serveCall serves body if it is a fast-lane call, and reports whether it
// did; when it did not, nothing has been written to w.
func (h *statelessHandler) serveCall(w http.ResponseWriter, r *http.Request, body []byte) bool {
	c, ok := parseCall(body)
	if !ok {
		return false
	}
	handler, ok := h.tools.handlers[c.name]
	if !ok {
		return false
	}
	version := r.Header.Get(protocolVersionHeader)
	newProto := version >= newProtocol
	if newProto {
		if r.Header.Get(methodHeader) != "tools/call" || r.Header.Get(nameHeader) != c.name || !newProtocolMeta(c.meta, version) {
			return false
		}
	} else if c.meta != nil {
		return false // progress tokens and the like: the SDK's
	}
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: c.name, Arguments: c.arguments},
		Extra:  &mcp.RequestExtra{TokenInfo: sdkauth.TokenInfoFromContext(r.Context()), Header: r.Header},
	}
	res, err := handler(r.Context(), req)
	if err != nil || res == nil || res.InputRequests != nil || res.RequestState != "" {
		// The SDK formats errors and multi-round-trip results; the tools
		// are read-only and idempotent, so it may run the call again.
		return false
	}
	out := bufPool.Get().(*bytes.Buffer)
	defer putBuf(out)
	if !writePlain(out, c.id, res, newProto, h.tools.serverInfo) {
		out.Reset()
		if !h.writeGeneric(out, c.id, res, newProto) {
			return false
		}
	}
	hd := w.Header()
	hd.Set("Cache-Control", "no-cache, no-transform")
	hd.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Bytes())
	return true
}

// writePlain writes the response to a result of the shape toolResult
// gives (one text item, no annotations, structured content already
// encoded as compact JSON by the answer's MarshalJSON, no _meta) as the
// SDK encodes it, without encoding the structured content a second time.
// It reports false, having written nothing useful, for any other shape.
func writePlain(out *bytes.Buffer, id []byte, res *mcp.CallToolResult, complete bool, serverInfo []byte) bool {
	if len(res.Content) != 1 || len(res.Meta) != 0 || (complete && serverInfo == nil) {
		return false
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || tc.Meta != nil || tc.Annotations != nil {
		return false
	}
	sc, ok := res.StructuredContent.(json.RawMessage)
	if !ok || len(sc) < 2 || sc[0] != '{' || sc[len(sc)-1] != '}' {
		return false
	}
	text, err := json.Marshal(tc.Text) // escaped as the SDK's encoder escapes it
	if err != nil {
		return false
	}
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	out.WriteString(`,"result":{`)
	if complete {
		out.WriteString(`"_meta":`)
		out.Write(serverInfo)
		out.WriteByte(',')
	}
	out.WriteString(`"content":[{"type":"text","text":`)
	out.Write(text)
	out.WriteString(`}],"structuredContent":`)
	out.Write(sc)
	if res.IsError {
		out.WriteString(`,"isError":true`)
	}
	if complete {
		out.WriteString(`,"resultType":"complete"`)
	}
	out.WriteString(`}}`)
	return true
}

// writeGeneric writes the response to any other result through the SDK's
// own encoding of it.
func (h *statelessHandler) writeGeneric(out *bytes.Buffer, id []byte, res *mcp.CallToolResult, newProto bool) bool {
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	if newProto {
		if res.Meta == nil {
			res.Meta = mcp.Meta{}
		}
		if _, ok := res.Meta[metaKeyServerInfo]; !ok {
			res.Meta[metaKeyServerInfo] = h.tools.impl
		}
	}
	return writeResponse(out, id, res, newProto) == nil
}

// writeResponse writes the JSON-RPC response as the SDK's jsonrpc2
// encoder does: version, id, result; a new-protocol result also says it is
// complete.
func writeResponse(out *bytes.Buffer, id []byte, res *mcp.CallToolResult, complete bool) error {
	b, err := res.MarshalJSON()
	if err != nil {
		return err
	}
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	out.WriteString(`,"result":`)
	if complete {
		if len(b) < 2 || b[len(b)-1] != '}' {
			return errors.New("encode result: not an object")
		}
		out.Write(b[:len(b)-1])
		if len(b) > 2 {
			out.WriteByte(',')
		}
		out.WriteString(`"resultType":"complete"}`)
	} else {
		out.Write(b)
	}
	out.WriteByte('}')
	return nil
}

// parseCall decodes body as exactly one JSON-RPC tools/call request with
// an id, params with a name and optionally object arguments and _meta, and
// no other member. It reports false for anything else (batches,
// notifications, duplicate or differently cased members, other methods).
func parseCall(body []byte) (call, bool) {
	var c call
	if !json.Valid(body) {
		return c, false
	}
	var seen uint8
	ok := eachMember(body, func(key string, raw json.RawMessage) bool {
		switch key {
		case "jsonrpc":
			seen |= 1
			return string(raw) == `"2.0"`
		case "id":
			seen |= 2
			c.id = raw
			return plainID(raw)
		case "method":
			seen |= 4
			return string(raw) == `"tools/call"`
		case "params":
			seen |= 8
			return parseParams(raw, &c)
		}
		return false
	})
	return c, ok && seen == 15 && c.name != ""
}

func parseParams(raw json.RawMessage, c *call) bool {
	var seen uint8
	return eachMember(raw, func(key string, v json.RawMessage) bool {
		switch key {
		case "name":
			seen |= 1
			if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
				return false // a tool name needs no escape
			}
			c.name = string(v[1 : len(v)-1])
			return true
		case "arguments":
			seen |= 2
			c.arguments = bytes.Clone(v) // the handler may keep it; body is pooled
			return len(v) > 0 && v[0] == '{'
		case "_meta":
			seen |= 4
			c.meta = v
			return len(v) > 0 && v[0] == '{'
		}
		return false
	}) && seen&1 == 1
}

// eachMember calls fn for each member of the JSON object data, in order,
// and reports whether data is one object whose members are all distinct
// and accepted by fn. data must be valid JSON (parseCall checks the whole
// body first); a key with an escape or invalid UTF-8, or more than
// maxMembers members, reports false. raw aliases data.
func eachMember(data []byte, fn func(key string, raw json.RawMessage) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	var keys [maxMembers]string
	n := 0
	for i = skipSpace(data, i+1); i < len(data) && data[i] != '}'; {
		if data[i] != '"' || n == maxMembers {
			return false
		}
		end := skipString(data, i)
		key := data[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return false
		}
		for _, k := range keys[:n] {
			if k == string(key) {
				return false
			}
		}
		keys[n] = string(key)
		n++
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		vend := skipValue(data, i)
		if vend < 0 || !fn(keys[n-1], json.RawMessage(data[i:vend])) {
			return false
		}
		i = skipSpace(data, vend)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return i < len(data) && skipSpace(data, i+1) == len(data) // nothing after the object
}

// maxMembers bounds the members of an object the fast lane reads: a
// tools/call has at most four at any level it looks at.
const maxMembers = 8

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the valid JSON value that starts at
// b[i], or -1.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		default:
			if depth > 0 {
				i++
				continue
			}
			// A number or a literal, at the top.
			j := i
			for j < len(b) && !bytes.ContainsAny(b[j:j+1], ",}] \t\r\n") {
				j++
			}
			return j
		}
		if depth == 0 {
			return i
		}
		if depth < 0 {
			return -1
		}
	}
	return -1
}

// plainID reports whether raw is an id the SDK re-encodes byte for byte: a
// small integer without sign tricks, or a string of printable ASCII with
// no escapes.
func plainID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		if len(raw) < 2 || raw[len(raw)-1] != '"' {
			return false
		}
		for _, b := range raw[1 : len(raw)-1] {
			if b < 0x20 || b > 0x7e || b == '"' || b == '\\' {
				return false
			}
		}
		return true
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return false
		}
	}
	return string(raw) != "-0"
}

// capabilitiesV2 is the SDK's clientCapabilitiesV2.
type capabilitiesV2 struct {
	mcp.ClientCapabilities
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

// newProtocolMeta reports whether meta is a new-protocol request's _meta
// the SDK accepts as is: the protocol version equal to the header's,
// client capabilities, optionally client info, nothing else.
// A client sends the same _meta with every call of a session: the
// answer for meta bytes and a version already accepted is kept
// (acceptedMeta), so that each call does not decode the client's
// capabilities and identity again.
func newProtocolMeta(meta json.RawMessage, version string) bool {
	if meta == nil {
		return false
	}
	if len(meta) > maxKeptMeta {
		return checkProtocolMeta(meta, version)
	}
	key := make([]byte, 0, len(version)+1+len(meta))
	key = append(append(append(key, version...), 0), meta...)
	if _, ok := acceptedMeta.Load(string(key)); ok {
		return true
	}
	if !checkProtocolMeta(meta, version) {
		return false
	}
	if keptMeta.Add(1) <= maxKeptMetas {
		acceptedMeta.Store(string(key), struct{}{})
	}
	return true
}

// acceptedMeta holds, by protocol version and the bytes of _meta, the
// new-protocol _meta values checkProtocolMeta accepted: at most
// maxKeptMetas (keptMeta counts them), each at most maxKeptMeta bytes.
var (
	acceptedMeta sync.Map
	keptMeta     atomic.Int64
)

const (
	maxKeptMetas = 1024
	maxKeptMeta  = 4 << 10
)

// checkProtocolMeta is newProtocolMeta's check itself.
func checkProtocolMeta(meta json.RawMessage, version string) bool {
	var seen uint8
	return eachMember(meta, func(key string, v json.RawMessage) bool {
		switch key {
		case metaKeyProtocolVersion:
			seen |= 1
			var s string
			return json.Unmarshal(v, &s) == nil && s == version
		case metaKeyClientCapabilities:
			seen |= 2
			var caps capabilitiesV2
			return len(v) > 0 && v[0] == '{' && json.Unmarshal(v, &caps) == nil
		case metaKeyClientInfo:
			var impl mcp.Implementation
			return len(v) > 0 && v[0] == '{' && json.Unmarshal(v, &impl) == nil
		}
		return false
	}) && seen == 3
}
