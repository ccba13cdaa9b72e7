package httpapi_test

import (
	"context"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/httpapi"
)

// stubServer serves a loaded stub backend (answers abstain; /mcp and
// /metrics answer 200) with opts.
func stubServer(t *testing.T, opts *httpapi.Options) *httptest.Server {
	t.Helper()
	var o httpapi.Options
	if opts != nil {
		o = *opts
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	if o.Metrics == nil {
		o.Metrics = ok
	}
	if o.Registry == nil {
		o.Registry = catalogstest.Retail()
	}
	api := httpapi.New(&o)
	api.SetBackend(httpapi.Backend{MCP: ok, Asker: askerFunc(func(context.Context, string) answer.Answer {
		return answer.Abstain(answer.ReasonNoTool, "stub")
	})})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv
}

// routes is one request on every route the server has.
var routes = []struct{ method, path, body string }{
	{"POST", "/v1/ask", `{"question":"q"}`},
	{"GET", "/v1/tools", ""},
	{"POST", "/v1/tools/get_price", `{}`},
	{"POST", "/v1/ground", `{"text":"1","ledger":{"numerals":[]}}`},
	{"GET", "/openapi.json", ""},
	{"GET", "/v1/results/res-x/rows", ""},
	{"POST", "/v1/approvals", `{"session":"s","tools":["t"],"tier":"L3","questions":1}`},
	{"GET", "/metrics", ""},
	{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
	{"GET", "/no/such/path", ""},
}

func requestWith(t *testing.T, srv *httptest.Server, method, path, body string, header map[string]string) response {
	t.Helper()
	h := map[string]string{}
	if body != "" {
		h["Content-Type"] = "application/json"
	}
	for k, v := range header {
		h[k] = v
	}
	return doWith(t, method, srv.URL+path, []byte(body), h)
}

// TestHosts_ForeignHostRefused: a Host header that is not a loopback name
// or address (or an allowed host) is refused with 403 on every route but
// /healthz, without echoing it: a page that rebinds its own name to
// 127.0.0.1 reads nothing.
func TestHosts_ForeignHostRefused(t *testing.T) {
	srv := stubServer(t, nil)
	port := srv.Listener.Addr().String()
	port = port[strings.LastIndex(port, ":")+1:]
	foreign := []string{"rebind-zqx.example", "rebind-zqx.example:" + port, "10.1.2.3:" + port, "127.0.0.1.rebind-zqx.example",
		"localhost:1", "2130706433", "localhost.rebind-zqx.example", "[::2]:" + port}
	for _, rt := range routes {
		for _, host := range foreign {
			t.Run(rt.path+" "+host, func(t *testing.T) {
				r := requestWith(t, srv, rt.method, rt.path, rt.body, map[string]string{"Host": host})
				if r.status != http.StatusForbidden {
					t.Fatalf("status = %d (%s), want 403", r.status, r.body)
				}
				if strings.Contains(string(r.body), "zqx") || strings.Contains(string(r.body), host) {
					t.Errorf("403 body echoes the Host: %s", r.body)
				}
			})
		}
	}
	for _, host := range []string{"localhost", "localhost:" + port, "127.0.0.1:" + port, "127.9.8.7", "[::1]:" + port, "[::1]", "LOCALHOST:" + port} {
		t.Run("loopback "+host, func(t *testing.T) {
			if r := requestWith(t, srv, "GET", "/v1/tools", "", map[string]string{"Host": host}); r.status != http.StatusOK {
				t.Errorf("status = %d (%s), want 200", r.status, r.body)
			}
		})
	}
	if r := requestWith(t, srv, "GET", "/healthz", "", map[string]string{"Host": "rebind-zqx.example"}); r.status != http.StatusOK {
		t.Errorf("/healthz with a foreign Host = %d, want 200 (a prober may use any name)", r.status)
	}
}

// TestHosts_ForeignOriginRefused: a browser request whose Origin is not
// an allowed host is refused on every route but /healthz, whatever the
// method.
func TestHosts_ForeignOriginRefused(t *testing.T) {
	srv := stubServer(t, nil)
	for _, rt := range routes {
		for _, h := range []map[string]string{
			{"Origin": "http://evil-zqx.example"},
			{"Origin": "null"},
			{"Origin": "http://localhost.evil-zqx.example:1"},
			{"Sec-Fetch-Site": "cross-site"},
		} {
			t.Run(rt.path, func(t *testing.T) {
				r := requestWith(t, srv, rt.method, rt.path, rt.body, h)
				if r.status != http.StatusForbidden {
					t.Fatalf("%v: status = %d (%s), want 403", h, r.status, r.body)
				}
				if strings.Contains(string(r.body), "zqx") || strings.Contains(string(r.body), "null") {
					t.Errorf("403 body echoes the Origin: %s", r.body)
				}
			})
		}
	}
	if r := requestWith(t, srv, "GET", "/v1/tools", "", map[string]string{"Origin": srv.URL}); r.status != http.StatusOK {
		t.Errorf("same-origin request = %d, want 200", r.status)
	}
}

// TestHosts_Allowed: --allowed-hosts extends the loopback names.
func TestHosts_Allowed(t *testing.T) {
	srv := stubServer(t, &httpapi.Options{AllowedHosts: []string{"api.example.com", "proxy.example.com:443"}})
	for host, want := range map[string]int{
		"api.example.com": 200, "API.example.com": 200, "proxy.example.com:443": 200,
		"proxy.example.com": 403, "api.example.com:9": 403, "other.example.com": 403, "localhost": 200,
	} {
		if r := requestWith(t, srv, "GET", "/v1/tools", "", map[string]string{"Host": host}); r.status != want {
			t.Errorf("Host %s: %d, want %d", host, r.status, want)
		}
	}
	if r := requestWith(t, srv, "GET", "/v1/tools", "", map[string]string{"Host": "api.example.com", "Origin": "https://api.example.com"}); r.status != 200 {
		t.Errorf("allowed Origin: %d, want 200", r.status)
	}
}
