package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// serveEngine serves an engine's REST API and MCP (at /mcp) over HTTP, as
// `provenant serve` does, and returns the server and an MCP client.
func serveEngine(t *testing.T, e *engine.Engine) (*httptest.Server, *mcp.ClientSession) {
	t.Helper()
	api := httpapi.New(&httpapi.Options{Registry: e.Registry})
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules",
		MCP: mcpserver.HTTPHandler(mcpserver.New(e.Pipeline, e, nil), nil)})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "metric-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

// metricAnswer is the part of an answer object a metric test reads.
type metricAnswer struct {
	Outcome string `json:"outcome"`
	Tool    string `json:"tool"`
	Value   struct {
		Columns []struct {
			Name string `json:"name"`
			Type string `json:"type"`
			Unit string `json:"unit"`
		} `json:"columns"`
		Rows [][]any `json:"rows"`
	} `json:"value"`
	Verdict struct {
		ProvenanceValid bool `json:"provenance_valid"`
		ValueMatches    bool `json:"value_matches"`
		Complete        bool `json:"complete"`
	} `json:"verdict"`
	Text      *string `json:"text"`
	Grounding *struct {
		Verdict string `json:"verdict"`
	} `json:"grounding"`
	Reason *string `json:"reason"`
}

// callBoth calls query_metric with args over MCP tools/call and over REST
// POST /v1/tools/query_metric, and returns both answers' raw JSON.
func callBoth(t *testing.T, srv *httptest.Server, cs *mcp.ClientSession, args map[string]any) (mcpJSON, restJSON []byte) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: shape.QueryMetric, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	mcpJSON, err = json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(args)
	resp, err := http.Post(srv.URL+"/v1/tools/"+shape.QueryMetric, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	restJSON, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return mcpJSON, restJSON
}

func decodeAnswer(t *testing.T, b []byte) metricAnswer {
	t.Helper()
	var a metricAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("answer %s: %v", b, err)
	}
	return a
}

// TestQueryMetric_Surfaces_Fixture: availability by zone over the
// warehouse fixture, called over MCP and REST, is the fixture's
// hand-computed table (zone-01 37800/57600 s, zone-02 14400/25200 s),
// verified, with a grounded sentence.
func TestQueryMetric_Surfaces_Fixture(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := enginetest.OpenFixture(t, cat, cat.Metric("availability"))
	srv, cs := serveEngine(t, e)
	args := map[string]any{"metric": "availability", "dimensions": []any{"zone"},
		"start": "2026-01-05T08:00:00Z", "end": "2026-01-05T16:00:00Z"}
	mcpJSON, restJSON := callBoth(t, srv, cs, args)
	for name, b := range map[string][]byte{"mcp": mcpJSON, "rest": restJSON} {
		a := decodeAnswer(t, b)
		if a.Outcome != "answered" || !a.Verdict.ProvenanceValid || !a.Verdict.ValueMatches || !a.Verdict.Complete {
			t.Fatalf("%s: %s", name, b)
		}
		want := [][]any{{"zone-01", 37800.0 / 57600}, {"zone-02", 14400.0 / 25200}}
		got, _ := json.Marshal(a.Value.Rows)
		wantJSON, _ := json.Marshal(want)
		if !bytes.Equal(got, wantJSON) {
			t.Errorf("%s: rows %s, want %s", name, got, wantJSON)
		}
		if len(a.Value.Columns) != 2 || a.Value.Columns[1].Unit != "share" || a.Value.Columns[0].Type != "text" {
			t.Errorf("%s: columns %+v", name, a.Value.Columns)
		}
		if a.Text == nil || a.Grounding == nil || a.Grounding.Verdict != "PASS" {
			t.Errorf("%s: text %v, grounding %v", name, a.Text, a.Grounding)
		}
	}
}

// TestQueryMetric_Surfaces_Demo: over the warehouse demo (20,000 events)
// and the retail demo store, query_metric answers the same verified
// table over MCP, REST and a direct pipeline call; a bad call is the
// same rejection on every surface.
func TestQueryMetric_Surfaces_Demo(t *testing.T) {
	tests := []struct {
		name string
		e    func(t *testing.T) *engine.Engine
		args map[string]any
	}{
		{"warehouse fault_count per day", func(t *testing.T) *engine.Engine { return enginetest.OpenWarehouse(t, 20000, nil) },
			map[string]any{"metric": "fault_count", "dimensions": []any{"zone"}, "grain": "day",
				"start": "2026-01-05T00:00:00Z", "end": "2026-01-08T00:00:00Z"}},
		{"warehouse availability top zones", func(t *testing.T) *engine.Engine { return enginetest.OpenWarehouse(t, 20000, nil) },
			map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "order": map[string]any{"by": "value", "desc": true}, "limit": 3,
				"filters": []any{map[string]any{"dimension": "device_type", "op": "in", "values": []any{"AGV", "LIFT"}}},
				"start":   "2026-01-05T00:00:00Z", "end": "2026-01-08T00:00:00Z"}},
		{"retail out of stock share by category", func(t *testing.T) *engine.Engine { return enginetest.OpenDemo(t, engine.Options{}) },
			map[string]any{"metric": "out_of_stock_share", "dimensions": []any{"category"},
				"start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e(t)
			srv, cs := serveEngine(t, e)
			mcpJSON, restJSON := callBoth(t, srv, cs, tt.args)
			direct, err := json.Marshal(e.Pipeline.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: tt.args}))
			if err != nil {
				t.Fatal(err)
			}
			a := decodeAnswer(t, direct)
			if a.Outcome != "answered" || !a.Verdict.ValueMatches || !a.Verdict.ProvenanceValid || len(a.Value.Rows) == 0 {
				t.Fatalf("direct: %s", direct)
			}
			t.Logf("%s", *a.Text)
			for name, b := range map[string][]byte{"mcp": mcpJSON, "rest": restJSON} {
				got := decodeAnswer(t, b)
				g, _ := json.Marshal(got.Value)
				w, _ := json.Marshal(a.Value)
				if got.Outcome != a.Outcome || !bytes.Equal(g, w) || *got.Text != *a.Text {
					t.Errorf("%s: %s, direct %s", name, b, direct)
				}
			}
			// A rejection is the same everywhere, and names the field.
			bad := map[string]any{"metric": tt.args["metric"], "dimensions": []any{"no_such_dimension"}, "start": tt.args["start"], "end": tt.args["end"]}
			mcpBad, restBad := callBoth(t, srv, cs, bad)
			for name, b := range map[string][]byte{"mcp": mcpBad, "rest": restBad} {
				if r := decodeAnswer(t, b); r.Outcome != "rejected" || bytes.Contains(b, []byte("no_such_dimension")) {
					t.Errorf("%s: bad call answered %s", name, b)
				}
			}
		})
	}
}
