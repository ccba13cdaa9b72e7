package adversarial_test

import (
	"net/http"
	"strings"
	"testing"
)

// mcpEchoCases plant the probe in every place an MCP protocol error could
// repeat it: the tool, prompt and resource names, the method, the params,
// a body that does not parse, and the headers the transport reads.
func mcpEchoCases() []echoCase {
	p := probe
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	rpc := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	}
	list := rpc("tools/list", `{}`)
	return []echoCase{
		{"unknown tool", "POST", "/mcp", call(p, `{}`), nil},
		{"unknown prompt", "POST", "/mcp", rpc("prompts/get", `{"name":"`+p+`"}`), nil},
		{"prompt argument of another type", "POST", "/mcp", rpc("prompts/get", `{"name":"shift_handover","arguments":{"`+p+`":5}}`), nil},
		{"resource matching no template", "POST", "/mcp", rpc("resources/read", `{"uri":"provenant://`+p+`"}`), nil},
		{"event that is not an id", "POST", "/mcp", rpc("resources/read", `{"uri":"provenant://events/`+p+`"}`), nil},
		{"unknown method", "POST", "/mcp", rpc(p, `{}`), nil},
		{"params of another type", "POST", "/mcp", rpc("tools/call", `{"name":5,"`+p+`":1}`), nil},
		{"unparseable body", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"` + p, nil},
		{"duplicate argument", "POST", "/mcp", call("get_price", `{"`+p+`":1,"`+p+`":2}`), nil},
		{"unknown argument", "POST", "/mcp", call("get_price", `{"`+p+`":1}`), nil},
		{"ask in another case", "POST", "/mcp", call("ask", `{"QUESTION":"`+p+`"}`), nil},
		{"check_grounding ledger key", "POST", "/mcp", call("check_grounding", `{"text":"13","ledger":{"numerals":[{"value":13,"`+p+`":1}]}}`), nil},
		{"check_grounding policy", "POST", "/mcp", call("check_grounding", `{"text":"13","ledger":{"numerals":[]},"policy":"`+p+`"}`), nil},
		{"host", "POST", "/mcp", list, map[string]string{"Host": p + ".example"}},
		{"protocol version", "POST", "/mcp", list, map[string]string{"MCP-Protocol-Version": p}},
		{"content type charset", "POST", "/mcp", list, map[string]string{"Content-Type": "application/json; charset=" + p}},
		{"accept", "POST", "/mcp", list, map[string]string{"Accept": p}},
	}
}

// TestEcho_MCP: no /mcp reply repeats the probe, whether the transport,
// the protocol layer, the decoder or the wall refuses the request.
func TestEcho_MCP(t *testing.T) {
	s := start(t, config{})
	for _, c := range mcpEchoCases() {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{"Accept": "application/json, text/event-stream"}
			for k, v := range c.header {
				h[k] = v
			}
			r := s.do(t, c.method, c.path, c.body, h)
			if strings.Contains(strings.ToLower(r.body), probe) {
				t.Errorf("%d, the body repeats the probe: %s", r.status, r.body)
			}
			for k, vs := range r.header {
				for _, v := range vs {
					if strings.Contains(strings.ToLower(k+": "+v), probe) {
						t.Errorf("header %s: %s repeats the probe", k, v)
					}
				}
			}
			if r.status >= 500 && r.status != http.StatusServiceUnavailable {
				t.Errorf("%d for a client's request: %s", r.status, r.body)
			}
		})
	}
}
