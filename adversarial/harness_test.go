package adversarial_test

import (
	"context"
	"encoding/json"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/metrics"
	"github.com/provenant/provenant/principal"
	"github.com/provenant/provenant/server"
	"github.com/provenant/provenant/tool"
)

// Tokens of the principals the stack accepts when started withTokens:
// admin sees every store, nobody sees none (any valid token must be
// enough for no attack to succeed).
const (
	adminToken  = "adversarial-admin-0123456789"
	nobodyToken = "adversarial-nobody-0123456789"
)

// smallLimits make the attacks quick: 4 requests in flight, a body must
// arrive within 300 ms, headers within 300 ms.
var smallLimits = server.Limits{
	ReadHeaderTimeout:       300 * time.Millisecond,
	ReadTimeout:             2 * time.Second,
	BodyReadTimeout:         300 * time.Millisecond,
	MaxInFlight:             4,
	MaxBodyReaders:          64,
	MaxBodyReadersPerClient: 4,
}

// stack is a running serve stack.
type stack struct {
	addr string // host:port on 127.0.0.1
	base string // http://addr
}

type config struct {
	withTokens   bool
	limits       server.Limits
	allowedHosts []string // server.Options.AllowedHosts
}

// start serves the demo engine through server.Run on 127.0.0.1, as
// `serve` does, and waits until it is ready; it stops when t ends.
func start(t *testing.T, c config) stack {
	t.Helper()
	opts := &server.Options{Registry: catalogstest.Retail(), Limits: c.limits, AllowedHosts: c.allowedHosts}
	var scope *tool.Scope
	if c.withTokens {
		set, err := principal.Parse(strings.NewReader(`principals:
  - name: admin
    token_env: ADMIN
    stores: all
  - name: nobody
    token_env: NOBODY
`), principal.Sources{LookupEnv: func(k string) (string, bool) {
			v, ok := map[string]string{"ADMIN": adminToken, "NOBODY": nobodyToken}[k]
			return v, ok
		}})
		if err != nil {
			t.Fatal(err)
		}
		opts.Auth = set
		none := tool.StoresOnly()
		scope = &none
	}
	obs := metrics.New(nil)
	opts.Metrics = obs.Handler()
	e := enginetest.OpenDemo(t, engine.Options{DefaultScope: scope, Observer: obs})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, ln, func(context.Context) (server.Loaded, error) {
			return server.Loaded{Backend: httpapi.Backend{
				Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules",
				MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, &mcpserver.Options{AskTimeout: c.limits.AskTimeout}), nil),
			}}, nil
		}, opts)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server.Run: %v", err)
		}
	})
	s := stack{addr: ln.Addr().String(), base: "http://" + ln.Addr().String()}
	for {
		if r := s.do(t, "GET", "/healthz", "", nil); r.status == http.StatusOK {
			return s
		}
		select {
		case <-t.Context().Done():
			t.Fatal("the stack never became ready")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

type reply struct {
	status int
	header http.Header
	body   string
}

// do sends one request on a fresh connection; header may set "Host".
func (s stack) do(t *testing.T, method, path, body string, header map[string]string) reply {
	t.Helper()
	return s.doFrom(t, "", method, path, body, header)
}

// doFrom is do from the loopback source address src ("" for any).
func (s stack) doFrom(t *testing.T, src, method, path, body string, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	d := &net.Dialer{}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read reply: %v", method, path, err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// errorCode is the code of a JSON error body, "" if it is not one.
func errorCode(body string) string {
	var e httpapi.ErrorBody
	if json.Unmarshal([]byte(body), &e) != nil {
		return ""
	}
	return e.Error.Code
}

// route is one request on one route of the stack.
type route struct{ method, path, body string }

// routes is a request on every route the stack serves, /healthz aside.
var routes = []route{
	{"POST", "/v1/ask", `{"question":"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}`},
	{"GET", "/v1/tools", ""},
	{"POST", "/v1/tools/get_price", `{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`},
	{"POST", "/v1/ground", `{"text":"13 stores","ledger":{"numerals":[{"value":13,"unit":"count"}]}}`},
	{"GET", "/openapi.json", ""},
	{"GET", "/v1/results/res-none/rows?page=1", ""},
	{"GET", "/metrics", ""},
	{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
	{"GET", "/no/such/path", ""},
}

const goodQuestion = `{"question":"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"}`
