package mcpserver_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/mcpserver"
)

// Request bodies as the SDK's own client sends them (protocol 2026-07-28
// carries the version, capabilities and client info in _meta).
const (
	newMeta   = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	priceArgs = `"arguments":{"as_of":"2026-01-06T08:00:00Z","product_id":"pr-007","store_id":"st-003"}`
)

type wireCase struct {
	name    string
	body    string
	headers map[string]string // beyond Content-Type and Accept
	fast    bool              // served by the fast lane, not the SDK
}

func newHeaders(method, name string) map[string]string {
	return map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name}
}

var oldHeaders = map[string]string{"Mcp-Protocol-Version": "2025-11-25"}

var wireCases = []wireCase{
	{"new protocol get_price", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + newMeta + `,"name":"get_price",` + priceArgs + `}}`, newHeaders("tools/call", "get_price"), true},
	{"string id", `{"jsonrpc":"2.0","id":"a-7","method":"tools/call","params":{` + newMeta + `,"name":"get_price",` + priceArgs + `}}`, newHeaders("tools/call", "get_price"), true},
	{"no client info", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get_price",` + priceArgs + `}}`, newHeaders("tools/call", "get_price"), true},
	{"old protocol", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, oldHeaders, true},
	{"rejected arguments", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_price","arguments":{"store_id":"<script>","sku":1}}}`, oldHeaders, true},
	{"no arguments", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"count_events_in_window"}}`, oldHeaders, true},
	{"ask", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + newMeta + `,"name":"ask","arguments":{"question":"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}}}`, newHeaders("tools/call", "ask"), true},
	// Arguments reach the same tool handler, so the same strict decoding
	// and the same fixed messages: the fast lane is no way around them.
	{"duplicate argument", `{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"get_price","arguments":{"store_id":"st-003","store_id":"st-004","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}}}`, oldHeaders, true},
	{"cased argument", `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"ask","arguments":{"QUESTION":"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}}}`, oldHeaders, true},
	{"cased grounding argument", `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"check_grounding","arguments":{"TEXT":"It is 7.81","Ledger":{"numerals":[]}}}}`, oldHeaders, true},
	{"huge number argument", `{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"get_price","arguments":{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z","n":1e999}}}`, oldHeaders, true},
	{"utf-8 charset", `{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Content-Type": "application/json; charset=UTF-8"}, true},
	{"check_grounding", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"check_grounding","arguments":{"text":"It is 7.81 & more","ledger":{"numerals":[]}}}}`, oldHeaders, true},

	// Everything else is the SDK's, refusals included.
	{"unknown tool", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"drop_table"}}`, oldHeaders, false},
	{"name header mismatch", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{` + newMeta + `,"name":"get_price",` + priceArgs + `}}`, newHeaders("tools/call", "ask"), false},
	{"missing method header", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{` + newMeta + `,"name":"get_price",` + priceArgs + `}}`, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Name": "get_price"}, false},
	{"meta version mismatch", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"name":"get_price",` + priceArgs + `}}`, newHeaders("tools/call", "get_price"), false},
	{"new protocol without meta", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, newHeaders("tools/call", "get_price"), false},
	{"progress token", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"get_price",` + priceArgs + `}}`, oldHeaders, false},
	{"batch", `[{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}]`, oldHeaders, false},
	{"cased member", `{"jsonrpc":"2.0","id":16,"Method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, oldHeaders, false},
	{"duplicate member", `{"jsonrpc":"2.0","id":17,"method":"tools/call","method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, oldHeaders, false},
	{"trailing data", `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}} {}`, oldHeaders, false},
	{"float id", `{"jsonrpc":"2.0","id":19.0,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, oldHeaders, false},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, oldHeaders, false},
	{"tools/list", `{"jsonrpc":"2.0","id":20,"method":"tools/list"}`, oldHeaders, false},
	{"no version header", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, nil, false},
	{"unsupported version", `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, false},
	{"latin-1 charset", `{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Content-Type": "application/json; charset=latin-1"}, false},
	{"other media type parameter", `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"get_price",` + priceArgs + `}}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Content-Type": "application/json; profile=x"}, false},
	{"too large", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"ask","arguments":{"question":"` + strings.Repeat("x", mcpserver.MaxRequestBytes) + `"}}}`, oldHeaders, false},
}

func wireRequest(c wireCase) *http.Request {
	// A loopback Host, which httpapi's host check admits (the benchmarks
	// hand these requests to the whole server).
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(c.body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range c.headers {
		r.Header.Set(k, v)
	}
	return r
}

// countingFastLane is HTTPHandler's fast lane over s, falling back to the
// SDK's handler, and a count of the requests it handed to the SDK.
func countingFastLane(s *mcpserver.Server) (http.Handler, *atomic.Int32) {
	delegated := new(atomic.Int32)
	inner := mcpserver.SDKHandler(s)
	return mcpserver.FastLaneOver(s, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		delegated.Add(1)
		inner.ServeHTTP(w, r)
	})), delegated
}

// TestFastPathMatchesSDK sends the same requests, in the same order, to
// the SDK's own stateless handler over one demo engine and to HTTPHandler's
// fast lane over another, and requires the same status, headers and body,
// byte for byte; and that the fast lane served exactly the requests it
// should, handing every other one to the SDK.
func TestFastPathMatchesSDK(t *testing.T) {
	// Result ids from a sequence each, so the same calls in the same order
	// get the same ids on both.
	sdkEngine := enginetest.OpenDemo(t, engine.Options{ResultIDs: &ledger.Sequence{}})
	fastEngine := enginetest.OpenDemo(t, engine.Options{ResultIDs: &ledger.Sequence{}})
	sdk := mcpserver.SDKHandler(mcpserver.New(sdkEngine.Pipeline, sdkEngine, nil))
	fast, delegated := countingFastLane(mcpserver.New(fastEngine.Pipeline, fastEngine, nil))
	for _, c := range wireCases {
		t.Run(c.name, func(t *testing.T) {
			want := httptest.NewRecorder()
			sdk.ServeHTTP(want, wireRequest(c))
			before := delegated.Load()
			got := httptest.NewRecorder()
			fast.ServeHTTP(got, wireRequest(c))
			if servedFast := delegated.Load() == before; servedFast != c.fast {
				t.Errorf("served by the fast lane = %v, want %v", servedFast, c.fast)
			}
			if got.Code != want.Code {
				t.Errorf("status %d, SDK %d", got.Code, want.Code)
			}
			for _, h := range []string{"Content-Type", "Cache-Control"} {
				if got.Header().Get(h) != want.Header().Get(h) {
					t.Errorf("%s %q, SDK %q", h, got.Header().Get(h), want.Header().Get(h))
				}
			}
			if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Errorf("body differs from the SDK's:\n got %s\nwant %s", got.Body.Bytes(), want.Body.Bytes())
			}
		})
	}
}

// TestStatelessCallAllocation: one get_price tool call as the SDK's client
// sends it allocates under 48 KB on the server, HTTP layer excluded. The
// SDK's stateless handler alone allocates about 450 KB (a 32 KiB decoder
// buffer per internal unmarshal, about fourteen per call).
func TestStatelessCallAllocation(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	h := mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, nil), nil)
	c := wireCases[0]
	serve := func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, wireRequest(c))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"outcome":"answered"`) {
			t.Fatalf("call: %d %s", w.Code, w.Body.Bytes())
		}
	}
	for range 20 {
		serve() // warm pools and caches
	}
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		serve()
	}
	runtime.ReadMemStats(&after)
	perCall := (after.TotalAlloc - before.TotalAlloc) / n
	// The SDK's own handler allocated about 470 KiB a call (README,
	// "MCP over streamable HTTP"); the fast lane's call, with the engine's
	// database work included, about a tenth of that.
	const limit = 96 << 10
	if perCall > limit {
		t.Errorf("allocated %d B per call, want under %d", perCall, limit)
	}
	t.Logf("%d B per call", perCall)
}

// TestFastLaneStrictArguments: arguments the strict decoder refuses are
// refused the same way on the fast lane, by the same handler, with REST's
// code and a message that repeats no key the client chose.
func TestFastLaneStrictArguments(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	fast, delegated := countingFastLane(mcpserver.New(e.Pipeline, e, nil))
	for _, tc := range []struct {
		name, body, code, secret string
	}{
		{"duplicate key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_price","arguments":{"store_id":"st-003","store_id":"st-004","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}}}`, "duplicate_field", "st-004"},
		{"wrong-case key", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"QUESTION":"What is the price of pr-007 at st-003?"}}}`, "unknown_field", "QUESTION"},
		{"wrong-case grounding key", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"check_grounding","arguments":{"TEXT":"It is 7.81","ledger":{"numerals":[]}}}}`, "unknown_field", "TEXT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := delegated.Load()
			w := httptest.NewRecorder()
			fast.ServeHTTP(w, wireRequest(wireCase{body: tc.body, headers: oldHeaders}))
			if delegated.Load() != before {
				t.Errorf("handed to the SDK; want the fast lane")
			}
			body := w.Body.String()
			if w.Code != http.StatusOK || !strings.Contains(body, `"isError":true`) || !strings.Contains(body, tc.code) {
				t.Errorf("%d %s; want a tool error with %s", w.Code, body, tc.code)
			}
			if strings.Contains(body, tc.secret) {
				t.Errorf("the refusal repeats %q: %s", tc.secret, body)
			}
		})
	}
}
