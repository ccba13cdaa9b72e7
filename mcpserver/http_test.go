package mcpserver_test

import (
	"encoding/json"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
)

func serveHTTP(t *testing.T) *httptest.Server {
	t.Helper()
	e := enginetest.OpenDemo(t, engine.Options{})
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules",
		MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, nil), nil)})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv
}

// TestHTTP_Streamable drives /mcp with the SDK's streamable HTTP client.
func TestHTTP_Streamable(t *testing.T) {
	srv := serveHTTP(t)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count_events_in_window", Arguments: map[string]any{
		"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"value":{"count":4}`) {
		t.Errorf("count_events_in_window over HTTP = %s", b)
	}
	ev, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "provenant://events/evt-000629"})
	if err != nil || !strings.Contains(ev.Contents[0].Text, `"tainted":true`) {
		t.Errorf("event resource over HTTP = %v, %v", ev, err)
	}
}

// TestHTTP_RefusesCrossOrigin: a browser page on another origin cannot
// post to /mcp.
func TestHTTP_RefusesCrossOrigin(t *testing.T) {
	srv := serveHTTP(t)
	req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin POST /mcp = %d, want 403", resp.StatusCode)
	}
}

// TestHTTP_BodyCap: a request body over the cap is refused before the
// protocol reads it.
func TestHTTP_BodyCap(t *testing.T) {
	srv := serveHTTP(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", mcpserver.MaxRequestBytes) + `"}}`
	req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/mcp", strings.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized POST /mcp = %d, want 413", resp.StatusCode)
	}
}
