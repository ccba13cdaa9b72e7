package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/tool"
)

// probe is a distinctive string every echo test sends and then looks for.
const probe = "ZQXPROBEQXZ"

// rawMCP serves the demo engine as `serve` does (httpapi with /mcp) and
// returns its URL; logs go to logger.
func rawMCP(t *testing.T, logger *slog.Logger) string {
	t.Helper()
	e := enginetest.OpenDemo(t, engine.Options{Logger: logger})
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Logger: logger})
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules",
		MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, &mcpserver.Options{Logger: logger}), logger)})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

type rpcReply struct {
	status int
	header http.Header
	body   []byte
}

// post sends one raw JSON-RPC body to url; edit may change the request.
func post(t *testing.T, url, body string, edit func(*http.Request)) rpcReply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rpcReply{resp.StatusCode, resp.Header, b}
}

// callBody is a tools/call request with raw JSON arguments.
func callBody(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// toolReply decodes a tools/call result: isError and the structured
// content's reason (an answer object) or error code (check_grounding).
func toolReply(t *testing.T, r rpcReply) (isError bool, reason, code string) {
	t.Helper()
	var resp struct {
		Result *struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Outcome string `json:"outcome"`
				Reason  string `json:"reason"`
				Error   struct {
					Code string `json:"code"`
				} `json:"error"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil || resp.Result == nil {
		t.Fatalf("status %d: not a tool result: %s", r.status, r.body)
	}
	sc := resp.Result.StructuredContent
	return resp.Result.IsError, sc.Reason, sc.Error.Code
}

// TestMCP_AsStrictAsREST: over real MCP (raw HTTP POSTs to /mcp as
// mounted), arguments are read by the same strict decoder as REST bodies.
func TestMCP_AsStrictAsREST(t *testing.T) {
	url := rawMCP(t, nil)
	const (
		ledger = `{"numerals":[{"value":781,"unit":"cents"}]}`
		price  = `"product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"`
	)
	tests := []struct {
		name, tool, args string
		wantReason       string // prefix of the answer's reason
		wantCode         string // check_grounding's error code
	}{
		{"duplicate argument", "get_price", `{"store_id":"st-003","store_id":"st-004",` + price + `}`, "invalid: duplicate_field", ""},
		{"duplicate nested key", "get_price", `{"store_id":{"a":1,"a":2},` + price + `}`, "invalid: duplicate_field", ""},
		{"number beyond float64 names its field", "get_price", `{"store_id":1e400,` + price + `}`, "invalid: parameter store_id", ""},
		{"ask: QUESTION", tool.AskName, `{"QUESTION":"What is the price of pr-007 at st-003?"}`, "invalid: unknown_field", ""},
		{"ask: duplicate question", tool.AskName, `{"question":"a","question":"b"}`, "invalid: duplicate_field", ""},
		{"ask: over 4096 characters", tool.AskName, `{"question":"` + strings.Repeat("é", tool.MaxQuestionLength+1) + `"}`, "invalid: parameter question must be at most 4096", ""},
		{"ask: invalid UTF-8", tool.AskName, "{\"question\":\"\xff\"}", "invalid: invalid_json", ""},
		{"check_grounding: TEXT", tool.CheckGroundingName, `{"TEXT":"$7.81","ledger":` + ledger + `}`, "", "unknown_field"},
		{"check_grounding: Ledger", tool.CheckGroundingName, `{"text":"$7.81","Ledger":` + ledger + `}`, "", "unknown_field"},
		{"check_grounding: duplicate", tool.CheckGroundingName, `{"text":"$7.81","text":"$7.81","ledger":` + ledger + `}`, "", "duplicate_field"},
		{"check_grounding: duplicate in the ledger", tool.CheckGroundingName, `{"text":"$7.81","ledger":{"numerals":[],"numerals":[]}}`, "", "duplicate_field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, url, callBody(tt.tool, tt.args), nil)
			isError, reason, code := toolReply(t, r)
			if !isError {
				t.Errorf("isError false: %s", r.body)
			}
			if !strings.HasPrefix(reason, tt.wantReason) || code != tt.wantCode {
				t.Errorf("reason %q code %q, want %q %q", reason, code, tt.wantReason, tt.wantCode)
			}
			if strings.Contains(reason, "is missing") {
				t.Errorf("arguments vanished: %s", reason)
			}
		})
	}
	t.Run("4096 characters is not too long", func(t *testing.T) {
		r := post(t, url, callBody(tool.AskName, `{"question":"`+strings.Repeat("é", tool.MaxQuestionLength)+`"}`), nil)
		if _, reason, _ := toolReply(t, r); strings.Contains(reason, "too_long") {
			t.Errorf("reason %q for a question of exactly the limit", reason)
		}
	})
	t.Run("charset latin-1 is 415 as on REST", func(t *testing.T) {
		r := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, func(req *http.Request) {
			req.Header.Set("Content-Type", "application/json; charset=latin-1")
		})
		if r.status != http.StatusUnsupportedMediaType {
			t.Errorf("status %d, want 415: %s", r.status, r.body)
		}
	})
	t.Run("charset utf-8 is served", func(t *testing.T) {
		r := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, func(req *http.Request) {
			req.Header.Set("Content-Type", "application/json; charset=UTF-8")
		})
		if r.status != http.StatusOK {
			t.Errorf("status %d, want 200: %s", r.status, r.body)
		}
	})
}

// TestMCP_ErrorsNeverEchoInput sends a distinctive probe in every place a
// protocol error could repeat it, and scans every answer for it.
func TestMCP_ErrorsNeverEchoInput(t *testing.T) {
	url := rawMCP(t, nil)
	tests := []struct {
		name string
		body string
		edit func(*http.Request)
	}{
		{"unknown tool", callBody(probe, `{}`), nil},
		{"unknown tool in another case", callBody(strings.ToUpper("get_price")+probe, `{"store_id":"`+probe+`"}`), nil},
		{"unknown prompt", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"` + probe + `"}}`, nil},
		{"prompt argument of the wrong type", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"shift_handover","arguments":{"` + probe + `":5}}}`, nil},
		{"bad prompt argument", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"shift_handover","arguments":{"store_id":"` + probe + `","start":"x","end":"y"}}}`, nil},
		{"resource matching no template", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"provenant://` + probe + `"}}`, nil},
		{"resource of another scheme", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///` + probe + `"}}`, nil},
		{"event id not an id", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"provenant://events/` + probe + `"}}`, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"` + probe + `"}`, nil},
		{"unknown method with params", `{"jsonrpc":"2.0","id":1,"method":"` + probe + `/x","params":{}}`, nil},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5,"` + probe + `":1}}`, nil},
		{"unparseable body", `{"jsonrpc":"2.0","id":1,"method":"tools/list"` + probe, nil},
		{"unparseable value", `{"jsonrpc":"2.0","id":1,"method":` + probe + `}`, nil},
		{"not JSON-RPC", `{"` + probe + `":1}`, nil},
		{"duplicate argument key", callBody("get_price", `{"`+probe+`":1,"`+probe+`":2}`), nil},
		{"unknown argument key", callBody("get_price", `{"`+probe+`":1}`), nil},
		{"ask: unknown key", callBody(tool.AskName, `{"`+probe+`":"x"}`), nil},
		{"check_grounding: unknown key", callBody(tool.CheckGroundingName, `{"text":"x","`+probe+`":1,"ledger":{"numerals":[]}}`), nil},
		{"check_grounding: unknown ledger key", callBody(tool.CheckGroundingName, `{"text":"x","ledger":{"numerals":[{"`+probe+`":1}]}}`), nil},
		{"check_grounding: bad policy", callBody(tool.CheckGroundingName, `{"text":"x","policy":"`+probe+`","ledger":{"numerals":[]}}`), nil},
		{"Host header", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, func(r *http.Request) { r.Host = probe + ".example" }},
		{"protocol version header", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, func(r *http.Request) { r.Header.Set("MCP-Protocol-Version", probe) }},
		{"initialize with an unknown version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + probe + `","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, nil},
		{"Mcp-Method header mismatch", callBody("get_price", `{}`), func(r *http.Request) { r.Header.Set("Mcp-Method", probe) }},
		{"Mcp-Name header mismatch", callBody("get_price", `{}`), func(r *http.Request) { r.Header.Set("Mcp-Method", "tools/call"); r.Header.Set("Mcp-Name", probe) }},
		{"content type", `{}`, func(r *http.Request) { r.Header.Set("Content-Type", "text/"+probe) }},
		{"accept header", `{}`, func(r *http.Request) { r.Header.Set("Accept", probe) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, url, tt.body, tt.edit)
			if r.status >= 500 {
				t.Errorf("status %d for a client's fault: %s", r.status, r.body)
			}
			if bytes.Contains(bytes.ToUpper(r.body), []byte(probe)) {
				t.Errorf("status %d, answer repeats the probe: %s", r.status, r.body)
			}
			for k, vs := range r.header {
				for _, v := range vs {
					if strings.Contains(strings.ToUpper(v), probe) {
						t.Errorf("header %s repeats the probe: %s", k, v)
					}
				}
			}
		})
	}
	t.Run("unknown tool is the typed unregistered rejection", func(t *testing.T) {
		r := post(t, url, callBody(probe, `{}`), nil)
		isError, reason, _ := toolReply(t, r)
		if !isError || !strings.HasPrefix(reason, "unregistered") {
			t.Errorf("isError %t reason %q, want an unregistered rejection: %s", isError, reason, r.body)
		}
	})
}

// TestMCP_OneLogLinePerRequest: one MCP request over HTTP at INFO writes
// exactly one line, the request's own; the SDK's records are DEBUG.
func TestMCP_OneLogLinePerRequest(t *testing.T) {
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), &slog.HandlerOptions{Level: slog.LevelInfo}))
	url := rawMCP(t, logger)
	mu.Lock()
	buf.Reset() // loading the engine may log
	mu.Unlock()
	r := post(t, url, callBody("get_price", `{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`), nil)
	if isError, _, _ := toolReply(t, r); isError {
		t.Fatalf("call failed: %s", r.body)
	}
	mu.Lock()
	defer mu.Unlock()
	if lines := strings.Count(buf.String(), "\n"); lines != 1 {
		t.Errorf("%d log lines for one request, want 1:\n%s", lines, buf.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestStdio_AnswersEverythingBeforeEOF writes N calls, closes the input,
// and expects N answers.
func TestStdio_AnswersEverythingBeforeEOF(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	const n = 40
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_price","arguments":{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}}}`+"\n", i)
	}
	probes := []string{
		`{"jsonrpc":"2.0","id":1001,"method":"` + probe + `"}`,
		`{"jsonrpc":"2.0","id":1002,"method":"tools/call","params":{"name":"` + probe + `","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1003,"method":"prompts/get","params":{"name":"` + probe + `"}}`,
		`{"jsonrpc":"2.0","id":1004,"method":"resources/read","params":{"uri":"provenant://` + probe + `"}}`,
		`{"jsonrpc":"2.0","id":1005,"method":"tools/call","params":{"name":5,"` + probe + `":1}}`,
	}
	for _, p := range probes {
		in.WriteString(p + "\n")
	}
	outR, outW := io.Pipe()
	lines := make(chan []string)
	go func() {
		var got []string
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	err := mcpserver.ServeIO(t.Context(), mcpserver.New(e.Pipeline, e, nil), io.NopCloser(strings.NewReader(in.String())), outW)
	outW.Close()
	got := <-lines
	if err != nil {
		t.Fatalf("ServeIO: %v", err)
	}
	answered := map[int]bool{}
	for _, l := range got {
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal([]byte(l), &resp) == nil && resp.ID != nil && (resp.Result != nil || resp.Error != nil) {
			answered[*resp.ID] = true
		}
		if strings.Contains(l, probe) {
			t.Errorf("stdio answer repeats the probe: %s", l)
		}
	}
	for i := 0; i <= n; i++ {
		if !answered[i] {
			t.Errorf("request %d was not answered (%d of %d answered)", i, len(answered), n+1+len(probes))
		}
	}
	for i := range probes {
		if !answered[1001+i] {
			t.Errorf("probe %d was not answered", i)
		}
	}
}

// TestStdio_ReusedIDStillEnds: a call whose id is already in flight is
// dropped by the SDK (it answers nothing), so it must not count as a call
// waiting for its answer: before, the server waited for it at the end of
// input and never exited, even on SIGTERM. The other calls are answered.
func TestStdio_ReusedIDStillEnds(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	const (
		init0 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		ready = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		call  = `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"get_price","arguments":{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}}}`
		ping  = `{"jsonrpc":"2.0","id":99,"method":"ping"}`
	)
	tests := []struct {
		name  string
		lines []string
	}{
		{"the id of initialize, while it runs", []string{init0, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, ready, ping}},
		{"a fractional id the SDK reads as initialize's", []string{init0, `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, ready, ping}},
		{"two calls with one number", []string{init0, ready, fmt.Sprintf(call, "5"), fmt.Sprintf(call, "5"), fmt.Sprintf(call, "5"), ping}},
		{"two calls with one string", []string{init0, ready, fmt.Sprintf(call, `"a"`), fmt.Sprintf(call, `"a"`), ping}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() {
				done <- mcpserver.ServeIO(t.Context(), mcpserver.New(e.Pipeline, e, nil),
					io.NopCloser(strings.NewReader(strings.Join(tt.lines, "\n")+"\n")), nopWriteCloser{&out})
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("ServeIO: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("ServeIO did not return after the end of input")
			}
			if !strings.Contains(out.String(), `"id":99`) {
				t.Errorf("the ping was not answered:\n%s", out.String())
			}
		})
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// TestStdio_BadLinesAnswered: each line that is not a JSON-RPC message
// gets one error answer with a fixed message, and the session goes on to
// answer the calls after it. Before, the SDK's reader ended the session
// at the first such line (exit 1, the rest unanswered) with an error that
// quoted a byte of it.
func TestStdio_BadLinesAnswered(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	deep := strings.Repeat("[", 1100) + strings.Repeat("]", 1100)
	bad := []struct {
		line   string
		code   int
		wantID string // the answer's id, as JSON
	}{
		{probe + " not JSON", -32700, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"` + probe, -32700, "null"},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}{"` + probe + `":1}`, -32700, "null"},
		{`{"` + probe + `":1}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":{"` + probe + `":1},"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"1.0","id":77,"method":"` + probe + `"}`, -32600, "77"},
		{`{"jsonrpc":"1.0","id":"s-78","method":"` + probe + `"}`, -32600, `"s-78"`},
		// Ids the SDK would answer under another id: a fraction (as 1)
		// and an integer past 64 bits.
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, -32600, "null"},
		{`[]`, -32600, "null"},
		{`[{"` + probe + `":1}]`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_price","arguments":{"x":` + deep + `}}}`, 0, ""},
	}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i, b := range bad {
		in.WriteString(b.line + "\r\n\n")
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", 100+i)
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.ServeIO(t.Context(), mcpserver.New(e.Pipeline, e, nil), io.NopCloser(strings.NewReader(in.String())), nopWriteCloser{&out})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeIO: %v (the session ended)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeIO did not return after the end of input")
	}
	errorsByID := map[string][]int{}
	answered := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(l, probe) {
			t.Errorf("an answer repeats the line: %s", l)
		}
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &resp); err != nil {
			t.Fatalf("answer %q is not JSON: %v", l, err)
		}
		answered[string(resp.ID)] = true
		if resp.Error != nil {
			errorsByID[string(resp.ID)] = append(errorsByID[string(resp.ID)], resp.Error.Code)
		}
	}
	wantNull := 0
	for i, b := range bad {
		if id := fmt.Sprint(100 + i); !answered[id] {
			t.Errorf("the ping after line %d (%s) was not answered", i, b.line[:min(len(b.line), 40)])
		}
		switch {
		case b.code == 0:
		case b.wantID == "null":
			wantNull++
		default:
			if got := errorsByID[b.wantID]; len(got) != 1 || got[0] != b.code {
				t.Errorf("line %d: errors with id %s = %v, want [%d]", i, b.wantID, got, b.code)
			}
		}
	}
	if got := len(errorsByID["null"]); got != wantNull {
		t.Errorf("%d errors with a null id (%v), want %d", got, errorsByID["null"], wantNull)
	}
}
