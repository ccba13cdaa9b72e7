package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestServe_FreeSQLOnEverySurface: serve --free-sql offers query_sql on
// REST (GET /v1/tools, POST /v1/tools/query_sql, /openapi.json) as on
// MCP, for the retail demo store too. Without --catalog the REST menu was
// described from the demo catalog without free SQL: MCP offered
// query_sql, REST answered 404 unknown_tool.
func TestServe_FreeSQLOnEverySurface(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes with sandbox workers")
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"the demo store", nil},
		{"--catalog retail", []string{"--catalog", "retail"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := startServe(t, append([]string{"--free-sql"}, tt.args...)...)
			base := r.ready(t, time.After(replicaStartTimeout))

			var tools []struct {
				Name string `json:"name"`
			}
			getJSON(t, base+"/v1/tools", &tools)
			var rest []string
			for _, tl := range tools {
				rest = append(rest, tl.Name)
			}
			if !slices.Contains(rest, "query_sql") {
				t.Errorf("GET /v1/tools = %v, want query_sql among them", rest)
			}
			var doc struct {
				Paths map[string]any `json:"paths"`
			}
			getJSON(t, base+"/openapi.json", &doc)
			if _, ok := doc.Paths["/v1/tools/query_sql"]; !ok {
				t.Errorf("/openapi.json has no /v1/tools/query_sql")
			}

			resp, err := http.Post(base+"/v1/tools/query_sql", "application/json",
				strings.NewReader(`{"sql": "SELECT count(*) AS n FROM events"}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var a struct {
				Outcome    string `json:"outcome"`
				Governance string `json:"governance"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK || a.Outcome != "answered" || a.Governance != "ungoverned" {
				t.Errorf("POST /v1/tools/query_sql = %d %+v, want 200, answered, ungoverned", resp.StatusCode, a)
			}

			// MCP lists the same menu tools (its own memory and grounding tools aside).
			req, _ := http.NewRequestWithContext(t.Context(), "POST", base+"/mcp",
				bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			mresp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer mresp.Body.Close()
			var list struct {
				Result struct {
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				} `json:"result"`
			}
			if err := json.NewDecoder(mresp.Body).Decode(&list); err != nil {
				t.Fatal(err)
			}
			var mcp []string
			for _, tl := range list.Result.Tools {
				if tl.Name != "check_grounding" {
					mcp = append(mcp, tl.Name)
				}
			}
			slices.Sort(mcp)
			slices.Sort(rest)
			if !slices.Equal(mcp, rest) {
				t.Errorf("MCP tools %v, REST tools %v: want the same", mcp, rest)
			}
		})
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
