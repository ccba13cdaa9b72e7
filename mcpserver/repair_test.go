package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/pipeline/pipelinetest"
)

// advised is the part of an answer object a repair test reads.
type advised struct {
	Outcome string `json:"outcome"`
	Repair  *struct {
		Class     string `json:"class"`
		Hint      string `json:"hint"`
		Detail    string `json:"detail"`
		Selection struct {
			Tool       string   `json:"tool"`
			Metric     string   `json:"metric"`
			Dimensions []string `json:"dimensions"`
			Filters    []string `json:"filters"`
		} `json:"selection"`
		Catalog    string `json:"catalog"`
		Definition string `json:"definition"`
		Message    string `json:"message"`
	} `json:"repair"`
}

// serveBoth serves p's REST API with MCP at /mcp, and returns the server
// and the official SDK's client session to it.
func serveBoth(t *testing.T, p mcpserver.Pipeline, asker httpapi.Asker) (*httptest.Server, *mcp.ClientSession) {
	t.Helper()
	api := httpapi.New(&httpapi.Options{Registry: p.Registry()})
	api.SetBackend(httpapi.Backend{Asker: asker, MCP: mcpserver.HTTPHandler(mcpserver.New(p, nil, nil), nil)})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "repair-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

// callMetric calls query_metric with args over MCP and over REST, and
// returns MCP's result, its answer object and REST's status and body.
func callMetric(t *testing.T, srv *httptest.Server, cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, []byte, int, []byte) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "query_metric", Arguments: args})
	if err != nil {
		t.Fatalf("tools/call: protocol error %v", err)
	}
	mcpJSON, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(args)
	resp, err := http.Post(srv.URL+"/v1/tools/query_metric", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, mcpJSON, resp.StatusCode, rest
}

// TestCallTool_RepairAdvice: over MCP (the official SDK's client) and
// REST alike, a client's own query_metric call that fails execution
// verification is a typed tool result (a tool error for a rejection,
// never a protocol error or a 500) carrying the same repair object: the
// failure class, the selection by its declared names, the catalog
// snippet and the definition; nothing refused is repeated.
func TestCallTool_RepairAdvice(t *testing.T) {
	p, err := pipelinetest.RepairPipeline(2)
	if err != nil {
		t.Fatal(err)
	}
	srv, cs := serveBoth(t, p, p)
	filter := []any{map[string]any{"dimension": "store", "values": []any{pipelinetest.SecretFilter}}}
	tests := []struct {
		name        string
		args        map[string]any
		wantOutcome string
		wantClass   string
		wantMetric  string
		wantCatalog string
		wantDef     string
	}{
		{"empty_result", map[string]any{"metric": "share", "window": pipelinetest.WindowEmpty, "dimensions": []any{"store"}, "filters": filter},
			"answered", "empty_result", "share", pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"implausible_magnitude", map[string]any{"metric": "share", "window": pipelinetest.WindowTooBig}, "rejected", "implausible_magnitude", "share", pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"permission_denied", map[string]any{"metric": "share", "window": pipelinetest.WindowDenied, "dimensions": []any{"store"}, "filters": filter},
			"rejected", "permission_denied", "share", pipelinetest.ShareSnippet, pipelinetest.ShareDefinition},
		{"budget_exceeded", map[string]any{"metric": "count", "window": pipelinetest.WindowBudget}, "rejected", "budget_exceeded", "count", pipelinetest.CountSnippet, pipelinetest.CountDefinition},
		{"schema_violation", map[string]any{"metric": "revenue_xyz", "window": pipelinetest.WindowGood}, "rejected", "schema_violation", "", "declared metrics: share, count", ""},
	}
	t.Run("the engine's own query failing is our failure", func(t *testing.T) {
		res, mcpJSON, status, rest := callMetric(t, srv, cs, map[string]any{"metric": "count", "window": pipelinetest.WindowBoom})
		if status != http.StatusInternalServerError || !res.IsError || bytes.Contains(mcpJSON, []byte(`"repair"`)) {
			t.Fatalf("REST status %d, IsError %t, want 500 and an error without advice: %s", status, res.IsError, mcpJSON)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if strings.Contains(text, "connection reset") || bytes.Contains(rest, []byte("connection reset")) {
			t.Errorf("the database's error text reached the client: %s / %s", text, rest)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, mcpJSON, status, rest := callMetric(t, srv, cs, tt.args)
			if status != http.StatusOK {
				t.Fatalf("REST status %d: %s", status, rest)
			}
			if !sameAnswer(t, mcpJSON, rest) {
				t.Errorf("surfaces differ:\nmcp  %s\nrest %s", mcpJSON, rest)
			}
			if res.IsError != (tt.wantOutcome == "rejected") {
				t.Errorf("IsError %t for outcome %s", res.IsError, tt.wantOutcome)
			}
			var a advised
			if err := json.Unmarshal(mcpJSON, &a); err != nil {
				t.Fatal(err)
			}
			if a.Outcome != tt.wantOutcome || a.Repair == nil {
				t.Fatalf("answer %s", mcpJSON)
			}
			r := a.Repair
			if r.Class != tt.wantClass || r.Hint == "" || r.Selection.Tool != "query_metric" || r.Selection.Metric != tt.wantMetric ||
				r.Catalog != tt.wantCatalog || r.Definition != tt.wantDef {
				t.Errorf("repair %+v", r)
			}
			if _, ok := tt.args["dimensions"]; ok && (!slices.Equal(r.Selection.Dimensions, []string{"store"}) || !slices.Equal(r.Selection.Filters, []string{"store"})) {
				t.Errorf("selection %+v, want dimensions and filters [store]", r.Selection)
			}
			for _, want := range []string{tt.wantClass, tt.wantCatalog, tt.wantDef} {
				if !strings.Contains(r.Message, want) {
					t.Errorf("message lacks %q: %s", want, r.Message)
				}
			}
			repairJSON, _ := json.Marshal(r)
			text := res.Content[0].(*mcp.TextContent).Text
			if !strings.HasSuffix(text, r.Message) {
				t.Errorf("the text does not end with the repair message: %s", text)
			}
			for _, never := range []string{pipelinetest.SecretFilter, "revenue_xyz", "connection reset", "1.7"} {
				if bytes.Contains(repairJSON, []byte(never)) || a.Outcome == "rejected" && strings.Contains(text, never) {
					t.Errorf("%q repeated: %s / %s", never, repairJSON, text)
				}
			}
		})
	}
}

// TestCallTool_RepairAdviceDemo: on the retail demo's catalog engine with
// the loop configured, a client's query_metric call over a window with no
// data gets the catalog's own declaration and definition of the metric.
func TestCallTool_RepairAdviceDemo(t *testing.T) {
	e := enginetest.OpenDemo(t, engine.Options{Repair: &pipeline.Repair{Retries: 2}})
	srv, cs := serveBoth(t, e.Pipeline, e.Pipeline)
	_, mcpJSON, status, rest := callMetric(t, srv, cs, map[string]any{"metric": "price_mismatch_share", "start": "2020-01-06T00:00:00Z", "end": "2020-01-07T00:00:00Z"})
	if status != http.StatusOK || !sameAnswer(t, mcpJSON, rest) {
		t.Fatalf("status %d, surfaces:\nmcp  %s\nrest %s", status, mcpJSON, rest)
	}
	var a advised
	if err := json.Unmarshal(mcpJSON, &a); err != nil {
		t.Fatal(err)
	}
	if a.Repair == nil || a.Repair.Class != "empty_result" || !strings.HasPrefix(a.Repair.Catalog, "metric price_mismatch_share: type ratio") ||
		!strings.Contains(a.Repair.Definition, "PRICE_MISMATCH") {
		t.Fatalf("answer %s", mcpJSON)
	}
}

// sameAnswer reports whether two answer objects are equal but for their
// result ids (each call is a new result).
func sameAnswer(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y map[string]any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	delete(x, "result_ids")
	delete(y, "result_ids")
	return reflect.DeepEqual(x, y)
}
