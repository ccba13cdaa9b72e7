package adversarial_test

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestRebinding_ForeignHostOnEveryRoute: a page that rebinds its own name
// to 127.0.0.1 sends that name as Host. Every route but /healthz refuses
// it with 403 and a body that does not repeat it, with and without
// tokens, and even with a valid token.
func TestRebinding_ForeignHostOnEveryRoute(t *testing.T) {
	for _, withTokens := range []bool{false, true} {
		t.Run(map[bool]string{false: "no tokens", true: "tokens"}[withTokens], func(t *testing.T) {
			s := start(t, config{withTokens: withTokens})
			_, port, _ := net.SplitHostPort(s.addr)
			hosts := []string{"rebind-zqx.example", "rebind-zqx.example:" + port, "192.0.2.7:" + port,
				"127.0.0.1.rebind-zqx.example:" + port, "localhost.rebind-zqx.example", "[::ffff:192.0.2.7]:" + port}
			for _, rt := range routes {
				for _, host := range hosts {
					h := map[string]string{"Host": host, "Accept": "application/json, text/event-stream"}
					if withTokens {
						h["Authorization"] = "Bearer " + adminToken
					}
					r := s.do(t, rt.method, rt.path, rt.body, h)
					if r.status != http.StatusForbidden || errorCode(r.body) != "forbidden_host" {
						t.Errorf("%s %s with Host %s: %d %s, want 403 forbidden_host", rt.method, rt.path, host, r.status, r.body)
					}
					if strings.Contains(r.body, "zqx") || strings.Contains(r.body, "192.0.2.7") {
						t.Errorf("%s %s: the 403 repeats the Host: %s", rt.method, rt.path, r.body)
					}
				}
			}
			if r := s.do(t, "GET", "/healthz", "", map[string]string{"Host": "rebind-zqx.example"}); r.status != http.StatusOK {
				t.Errorf("/healthz with a foreign Host: %d, want 200", r.status)
			}
		})
	}
}

// TestRebinding_ForeignOriginOnEveryRoute: a browser request from another
// origin is refused on every route but /healthz, whatever its method.
func TestRebinding_ForeignOriginOnEveryRoute(t *testing.T) {
	s := start(t, config{})
	for _, rt := range routes {
		for _, h := range []map[string]string{
			{"Origin": "http://evil-zqx.example"},
			{"Origin": "https://evil-zqx.example:443"},
			{"Origin": "null"},
			{"Sec-Fetch-Site": "cross-site"},
		} {
			r := s.do(t, rt.method, rt.path, rt.body, h)
			if r.status != http.StatusForbidden || errorCode(r.body) != "cross_origin" {
				t.Errorf("%s %s with %v: %d %s, want 403 cross_origin", rt.method, rt.path, h, r.status, r.body)
			}
			if strings.Contains(r.body, "zqx") {
				t.Errorf("%s %s: the 403 repeats the Origin: %s", rt.method, rt.path, r.body)
			}
		}
	}
	// The server's own origin passes.
	if r := s.do(t, "POST", "/v1/ask", goodQuestion, map[string]string{"Origin": s.base}); r.status != http.StatusOK {
		t.Errorf("same-origin ask: %d %s", r.status, r.body)
	}
}

// TestRebinding_AllowedHostOnEveryRoute: a name the operator allows with
// --allowed-hosts reaches every route, /mcp included (the MCP SDK's own
// localhost check must not refuse what the one host check allowed).
func TestRebinding_AllowedHostOnEveryRoute(t *testing.T) {
	s := start(t, config{allowedHosts: []string{"api.allowed.example"}})
	for _, rt := range routes {
		h := map[string]string{"Host": "api.allowed.example", "Accept": "application/json, text/event-stream"}
		r := s.do(t, rt.method, rt.path, rt.body, h)
		if r.status == http.StatusForbidden {
			t.Errorf("%s %s with an allowed Host: 403 %s", rt.method, rt.path, r.body)
		}
	}
}
