package httpapi_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/memory/memapi"
	"github.com/provenant/provenant/memory/memstore"
	"github.com/provenant/provenant/principal"
)

// bodyRoutes is every route that reads a JSON body, with a body it
// serves.
var bodyRoutes = []struct{ path, body string }{
	{"/v1/ask", `{"question":"q"}`},
	{"/v1/tools/ask", `{"question":"q"}`},
	{"/v1/tools/get_price", `{}`},
	{"/v1/ground", `{"text":"1","ledger":{"numerals":[]}}`},
	{"/v1/memory/remember", `{"text":"t","subject":"s"}`},
	{"/v1/memory/annotate", `{"kind":"confirm","target":"m-1"}`},
	{"/v1/memory/recall", `{"subject":"s"}`},
	{"/v1/approvals", `{"session":"s","tools":["t"],"tier":"L3","questions":1}`},
	{"/v1/denials", `{"session":"s","tools":["t"]}`},
	{"/v1/revocations", `{"session":"s","grant":"g"}`},
}

// bodyServer serves every body route: a stub engine, a memory journal,
// approvals, and /mcp as a stub that reads its body; alice (aliceToken)
// is an authenticated approver. Its read timeout is an hour.
func bodyServer(t *testing.T, limits *httpapi.LimitOptions) *httptest.Server {
	t.Helper()
	set, err := principal.Parse(strings.NewReader(`principals:
  - name: alice
    token_env: ALICE
    stores: all
    approver: true
`), principal.Sources{LookupEnv: func(k string) (string, bool) {
		return aliceToken, k == "ALICE"
	}})
	if err != nil {
		t.Fatal(err)
	}
	readAll := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	})
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Auth: set, Approvals: true, Limits: limits,
		Memory: &httpapi.MemoryOptions{Service: &memapi.Service{Journal: memstore.New()}}})
	api.SetBackend(httpapi.Backend{MCP: readAll, Approvals: &fakeApprovals{},
		Asker: askerFunc(func(context.Context, string) answer.Answer { return answer.Abstain(answer.ReasonNoTool, "stub") })})
	srv := httptest.NewUnstartedServer(api)
	srv.Config.ReadTimeout = time.Hour // a wait for a body shows as the client's timeout
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestBody_NotAnObject: on every JSON body route a body that is one JSON
// value but not an object (null included) is 400 not_an_object, as on
// /v1/ask; a memory route once took null for {} and answered
// invalid_record or invalid_recall.
func TestBody_NotAnObject(t *testing.T) {
	srv := bodyServer(t, nil)
	for _, rt := range bodyRoutes {
		for _, tc := range []struct{ name, body string }{
			{"null", `null`}, {"null in white space", " \n null\t "}, {"empty array", `[]`}, {"array of an object", `[{"text":"t"}]`},
			{"string", `"s"`}, {"number", `1`}, {"true", `true`}, {"false", `false`},
		} {
			body := tc.body
			t.Run(rt.path+"/"+tc.name, func(t *testing.T) {
				r := doWith(t, "POST", srv.URL+rt.path, []byte(body), map[string]string{
					"Content-Type": "application/json", "Authorization": "Bearer " + aliceToken})
				checkClientError(t, r, http.StatusBadRequest, httpapi.CodeNotAnObject)
			})
		}
	}
}

// TestBody_ContentEncoding: a body with a Content-Encoding other than
// identity is 415 unsupported_content_encoding, with Accept-Encoding:
// identity, on every route that reads a body, /mcp included, without
// repeating the header; the server once read the bytes as if unencoded.
func TestBody_ContentEncoding(t *testing.T) {
	srv := bodyServer(t, nil)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"question":"q"}`))
	zw.Close()
	routes := append(bodyRoutes, struct{ path, body string }{"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`})
	for _, rt := range routes {
		for _, tc := range []struct {
			name, encoding string
			body           []byte
			refused        bool
		}{
			{"gzip header on plain bytes", "gzip", []byte(rt.body), true},
			{"gzip", "gzip", gz.Bytes(), true},
			{"upper case", "GZIP", []byte(rt.body), true},
			{"br", "br", []byte(rt.body), true},
			{"identity then gzip", "identity, gzip", []byte(rt.body), true},
			{"unknown coding", "x-zqxmarker", []byte(rt.body), true},
			{"identity", "identity", []byte(rt.body), false},
			{"identity in capitals", " IDENTITY ", []byte(rt.body), false},
		} {
			t.Run(rt.path+"/"+tc.name, func(t *testing.T) {
				r := doWith(t, "POST", srv.URL+rt.path, tc.body, map[string]string{
					"Content-Type": "application/json", "Authorization": "Bearer " + aliceToken, "Content-Encoding": tc.encoding})
				if !tc.refused {
					if r.status == http.StatusUnsupportedMediaType {
						t.Fatalf("status 415 for Content-Encoding %q: %s", tc.encoding, r.body)
					}
					return
				}
				checkClientError(t, r, http.StatusUnsupportedMediaType, httpapi.CodeUnsupportedContentEncoding, "zqxmarker", "gzip", "br")
				if got := r.header.Get("Accept-Encoding"); got != "identity" {
					t.Errorf("Accept-Encoding = %q, want identity", got)
				}
			})
		}
	}
}

// TestBody_ContentEncodingBeforeReading: the encoding is refused before
// the body is read: a client that declares an encoded body and sends none
// is answered at once (the body-read budget is set far longer than the
// client waits).
func TestBody_ContentEncodingBeforeReading(t *testing.T) {
	srv := bodyServer(t, &httpapi.LimitOptions{BodyReadTimeout: time.Hour})
	for _, path := range []string{"/v1/ask", "/v1/memory/remember", "/mcp"} {
		for _, framing := range []string{"Content-Length: 100", "Transfer-Encoding: chunked"} {
			t.Run(path+"/"+framing, func(t *testing.T) {
				resp := declareBodySendNone(t, srv.Listener.Addr().String(), "POST", path,
					"Content-Type: application/json\r\nContent-Encoding: gzip\r\nAuthorization: Bearer "+aliceToken+"\r\n"+framing+"\r\n")
				if resp.StatusCode != http.StatusUnsupportedMediaType {
					t.Fatalf("status = %d, want 415", resp.StatusCode)
				}
			})
		}
	}
}

// declareBodySendNone sends a request whose headers (each line ending in
// CRLF; Host: localhost unless they name one) declare a body, sends no
// body, and returns the answer read within
// a few seconds: a server that waits for the body fails the test rather
// than hanging it.
func declareBodySendNone(t *testing.T, addr, method, path, header string) *http.Response {
	t.Helper()
	resp, _ := declareBodySendNoneConn(t, addr, method, path, header)
	return resp
}

// declareBodySendNoneConn is declareBodySendNone that also returns what
// follows the answer on the connection, within the same few seconds.
func declareBodySendNoneConn(t *testing.T, addr, method, path, header string) (*http.Response, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(3 * time.Second))
	if !strings.Contains(header, "Host: ") {
		header = "Host: localhost\r\n" + header
	}
	if _, err := io.WriteString(conn, method+" "+path+" HTTP/1.1\r\n"+header+"\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer while the declared body is outstanding: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, br
}

// TestBody_BodilessRoutesDoNotWait: GET /healthz and /metrics read no
// body; a client that declares one (Content-Length or chunked) and sends
// none is answered at once, and the connection closed after the answer
// rather than waiting for the body, as net/http's discard of an unread
// body did, until the read timeout (set to an hour here).
func TestBody_BodilessRoutesDoNotWait(t *testing.T) {
	metricsHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "provenant_up 1\n") })
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Metrics: metricsHandler})
	api.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer { return answer.Abstain(answer.ReasonNoTool, "stub") })})
	srv := httptest.NewUnstartedServer(api)
	srv.Config.ReadTimeout = time.Hour
	srv.Start()
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name, path, header string
	}{
		{"healthz content length", "/healthz", "Content-Length: 100\r\n"},
		{"healthz chunked", "/healthz", "Transfer-Encoding: chunked\r\n"},
		{"metrics content length", "/metrics", "Content-Length: 100\r\n"},
		{"metrics chunked", "/metrics", "Transfer-Encoding: chunked\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, rest := declareBodySendNoneConn(t, srv.Listener.Addr().String(), "GET", tc.path, tc.header)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", resp.StatusCode)
			}
			checkClosedAfter(t, resp, rest)
		})
	}
}

// checkClosedAfter: the answer says Connection: close and the server
// ends the connection after it, so that a body's bytes sent later are
// never read as a next request.
func checkClosedAfter(t *testing.T, resp *http.Response, rest *bufio.Reader) {
	t.Helper()
	if !resp.Close {
		t.Error("the answer does not say Connection: close")
	}
	if b, err := rest.ReadByte(); err != io.EOF {
		t.Errorf("after the answer: byte %q, %v; want the connection closed (EOF)", b, err)
	}
}

// TestBody_RefusalsDoNotWait: a request refused before its body is read
// (403 for a foreign Host, 401 without a token) is answered at once when
// it declares a body and sends none, and the connection closed, rather
// than waiting for the body until the read timeout (an hour here).
func TestBody_RefusalsDoNotWait(t *testing.T) {
	srv := bodyServer(t, nil)
	for _, tc := range []struct {
		name, method, path, header string
		want                       int
	}{
		{"foreign host", "POST", "/v1/ask", "Host: rebind.example\r\nContent-Type: application/json\r\nContent-Length: 100\r\n", http.StatusForbidden},
		{"cross origin", "POST", "/v1/ask", "Origin: http://rebind.example\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n", http.StatusForbidden},
		{"no token", "POST", "/v1/ask", "Content-Type: application/json\r\nContent-Length: 100\r\n", http.StatusUnauthorized},
		{"no token on mcp", "POST", "/mcp", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n", http.StatusUnauthorized},
		{"no token on metrics", "GET", "/metrics", "Content-Length: 100\r\n", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, rest := declareBodySendNoneConn(t, srv.Listener.Addr().String(), tc.method, tc.path, tc.header)
			if resp.StatusCode != tc.want {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.want)
			}
			checkClosedAfter(t, resp, rest)
		})
	}
}

// TestBody_ContentEncodingDocumented: /openapi.json gives every operation
// with a request body a 415 that names both codes.
func TestBody_ContentEncodingDocumented(t *testing.T) {
	srv := bodyServer(t, nil)
	doc := openAPIDoc(t, srv.URL)
	paths, _ := doc["paths"].(map[string]any)
	var n int
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			if _, ok := op.(map[string]any)["requestBody"]; !ok {
				continue
			}
			n++
			t.Run(method+" "+path, func(t *testing.T) {
				r := lookup(op, "responses", "415")
				if m, ok := r.(map[string]any); ok && m["$ref"] != nil {
					var err error
					if r, err = resolvePointer(doc, m["$ref"].(string)); err != nil {
						t.Fatal(err)
					}
				}
				desc, _ := lookup(r, "description").(string)
				for _, code := range []string{httpapi.CodeUnsupportedMediaType, httpapi.CodeUnsupportedContentEncoding} {
					if !strings.Contains(desc, code) {
						t.Errorf("415 description %q does not name %s", desc, code)
					}
				}
			})
		}
	}
	if n < len(bodyRoutes) {
		t.Fatalf("%d operations with a body documented, want at least %d", n, len(bodyRoutes))
	}
}
