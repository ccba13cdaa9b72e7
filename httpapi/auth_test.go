package httpapi_test

import (
	"encoding/json"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/principal"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

const (
	eastToken  = "east-ops-token-0123456789"
	adminToken = "admin-token-abcdefghijklm"
)

// authServer serves the demo engine the way `serve --principals` does:
// tokens required, an empty default scope, east-ops limited to st-003.
func authServer(t *testing.T) *httptest.Server {
	t.Helper()
	set, err := principal.Parse(strings.NewReader(`principals:
  - name: east-ops
    token_env: EAST
    stores: [st-003]
  - name: admin
    token_env: ADMIN
    stores: all
  - name: new-hire
    token_env: NEW
`), principal.Sources{LookupEnv: func(k string) (string, bool) {
		v, ok := map[string]string{"EAST": eastToken, "ADMIN": adminToken, "NEW": "new-hire-token-0123456789"}[k]
		return v, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	none := tool.StoresOnly()
	e := enginetest.OpenDemo(t, engine.Options{DefaultScope: &none})
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Auth: set})
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules",
		MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, nil), nil)})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv
}

func askWithAuth(t *testing.T, srv *httptest.Server, auth, question string) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"question": question})
	req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/v1/ask", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRequireToken(t *testing.T) {
	srv := authServer(t)
	const q = "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"
	// Every failure looks the same: no hint of what was wrong.
	var first string
	for _, auth := range []string{"", "Bearer", "Bearer wrong-token-0123456789", "Basic " + eastToken, "bearer " + eastToken + "x"} {
		code, body := askWithAuth(t, srv, auth, q)
		if code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, code)
		}
		if first == "" {
			first = body
		} else if body != first {
			t.Errorf("401 bodies differ: %q vs %q", body, first)
		}
	}
	// Open paths stay open.
	for _, path := range []string{"/healthz", "/openapi.json"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized {
			t.Errorf("%s needs a token", path)
		}
	}
	tests := []struct {
		name, token, question, wantOutcome, wantReason string
	}{
		{"in scope", eastToken, q, "answered", ""},
		{"case-insensitive scheme", "", q, "answered", ""},
		{"out of scope", eastToken, "What is the price of pr-007 at st-004 as of 2026-01-06T08:00:00Z?", "rejected", "out_of_scope"},
		{"nonexistent looks the same", eastToken, "What is the price of pr-007 at st-999 as of 2026-01-06T08:00:00Z?", "rejected", "out_of_scope"},
		{"admin sees all", adminToken, "What is the price of pr-007 at st-004 as of 2026-01-06T08:00:00Z?", "", ""},
		{"no stores sees nothing", "new-hire-token-0123456789", q, "rejected", "out_of_scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auth := "Bearer " + tt.token
			if tt.token == "" {
				auth = "bEaReR " + eastToken
			}
			code, body := askWithAuth(t, srv, auth, tt.question)
			var a struct {
				Outcome string `json:"outcome"`
				Reason  string `json:"reason"`
			}
			json.Unmarshal([]byte(body), &a)
			if code != http.StatusOK || tt.wantOutcome != "" && a.Outcome != tt.wantOutcome || !strings.HasPrefix(a.Reason, tt.wantReason) {
				t.Errorf("status %d, %s", code, body)
			}
			if tt.wantOutcome == "" && (a.Outcome == "rejected" || code != http.StatusOK) {
				t.Errorf("admin was refused: %s", body)
			}
		})
	}
}

// bearer adds a token to every request of an MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestRequireToken_MCP(t *testing.T) {
	srv := authServer(t)
	connect := func(token string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}
		return mcp.NewClient(&mcp.Implementation{Name: "scoped", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	}
	if cs, err := connect("not-a-valid-token-0123"); err == nil {
		cs.Close()
		t.Fatal("connected with an unknown token")
	}
	cs, err := connect(eastToken)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	outcome := func(store string) string {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_price",
			Arguments: map[string]any{"store_id": store, "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var a struct{ Outcome, Reason string }
		json.Unmarshal(b, &a)
		return a.Outcome + " " + a.Reason
	}
	if got := outcome("st-003"); !strings.HasPrefix(got, "answered") {
		t.Errorf("in scope: %s", got)
	}
	if got := outcome("st-004"); !strings.HasPrefix(got, "rejected out_of_scope") {
		t.Errorf("out of scope: %s", got)
	}
	// An event of a store outside the scope does not exist for this caller;
	// one inside it does.
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "provenant://events/evt-002357"}); err != nil {
		t.Errorf("event in scope: %v", err)
	}
	outside := eventOf(t, "st-004")
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "provenant://events/" + outside}); err == nil {
		t.Errorf("read %s of st-004 outside the scope", outside)
	}
	ds, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: mcpserver.DatasetURI})
	if err != nil || !strings.Contains(ds.Contents[0].Text, `"scope":["st-003"]`) || !strings.Contains(ds.Contents[0].Text, `"store":1}`) {
		t.Errorf("dataset for a scoped caller = %v, %v", ds, err)
	}
}

func eventOf(t *testing.T, store string) string {
	t.Helper()
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.Events {
		if e.StoreID == store {
			return e.ID
		}
	}
	t.Fatalf("no event at %s", store)
	return ""
}

// TestRequireToken_REST: a direct tool call obeys the principal's scope.
func TestRequireToken_REST(t *testing.T) {
	srv := authServer(t)
	call := func(token, store string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/v1/tools/get_price",
			strings.NewReader(`{"store_id": "`+store+`", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := call("", "st-003"); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, body := call(eastToken, "st-003"); code != http.StatusOK || !strings.Contains(body, `"outcome":"answered"`) {
		t.Errorf("in scope: %d %s", code, body)
	}
	if code, body := call(eastToken, "st-004"); code != http.StatusOK || !strings.Contains(body, `"reason":"out_of_scope`) {
		t.Errorf("out of scope: %d %s", code, body)
	}
}

// TestAuth_OneParser: every surface reads the Authorization header with
// the same parser and refuses with the same JSON 401, /mcp included.
func TestAuth_OneParser(t *testing.T) {
	srv := authServer(t)
	post := func(path, auth, body string) (int, string, string) {
		r := doWith(t, "POST", srv.URL+path, []byte(body), map[string]string{
			"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Authorization": auth})
		return r.status, string(r.body), r.header.Get("WWW-Authenticate")
	}
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	want := `{"error":{"code":"unauthorized","message":"authentication required"}}` + "\n"
	for _, auth := range []string{
		"", "Bearer", "Bearer ", "Bearer wrong-token-0123456789", "Basic " + eastToken,
		"Bearer " + eastToken[:8] + " " + eastToken[8:], // an inner space
		"Bearer " + eastToken + " x", "Bearer\t" + eastToken, "Bearer " + eastToken + "é", "Bearer " + eastToken + ",x",
	} {
		for _, path := range []string{"/v1/ask", "/mcp"} {
			code, body, challenge := post(path, auth, ping)
			if code != http.StatusUnauthorized || body != want || challenge == "" {
				t.Errorf("%s with Authorization %q: %d %q (WWW-Authenticate %q), want 401 %q", path, auth, code, body, challenge, want)
			}
		}
	}
	for _, auth := range []string{"Bearer " + eastToken, "bearer   " + eastToken} {
		if code, body, _ := post("/mcp", auth, ping); code != http.StatusOK {
			t.Errorf("/mcp with Authorization %q: %d %s", auth, code, body)
		}
	}
}

// spaceyAuth accepts one token with an inner space: a token no bearer
// header can carry, which principal refuses at start-up; the parser
// must refuse it on every path alike.
type spaceyAuth struct{}

const spaceyToken = "spacey token-0123456789"

func (spaceyAuth) Authenticate(token string) (principal.Principal, bool) {
	return principal.Principal{Name: "spacey", Scope: tool.AllStores()}, token == spaceyToken
}

func TestAuth_InnerSpaceRefusedEverywhere(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{})
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Auth: spaceyAuth{}})
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, nil), nil)})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	want := `{"error":{"code":"unauthorized","message":"authentication required"}}` + "\n"
	for _, path := range []string{"/v1/ask", "/mcp"} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+spaceyToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || string(b) != want {
			t.Errorf("%s: %d %q, want 401 %q", path, resp.StatusCode, b, want)
		}
	}
}
