package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/pipeline/pipelinetest"
)

// repairBody is the part of an answer object a repair test reads.
type repairBody struct {
	Outcome string  `json:"outcome"`
	Reason  *string `json:"reason"`
	Repair  *struct {
		Class     string `json:"class"`
		Hint      string `json:"hint"`
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

// TestToolCall_RepairAdvice: a client's own query_metric call that fails
// execution verification is a 200 with a typed answer (never a 500) whose
// repair object holds the failure class, the selection by its declared
// names, the catalog snippet and the metric's definition, and repeats no
// rejected value, no undeclared name and no error text.
func TestToolCall_RepairAdvice(t *testing.T) {
	p, err := pipelinetest.RepairPipeline(2)
	if err != nil {
		t.Fatal(err)
	}
	srv := httpapi.New(&httpapi.Options{Registry: p.Registry()})
	srv.SetBackend(httpapi.Backend{Asker: p})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	filter := []any{map[string]any{"dimension": "store", "values": []any{pipelinetest.SecretFilter}}}
	tests := []struct {
		name        string
		args        map[string]any
		wantOutcome string
		wantClass   string
		wantMetric  string
		wantCatalog string
	}{
		{"empty_result", map[string]any{"metric": "share", "window": pipelinetest.WindowEmpty, "dimensions": []any{"store"}, "filters": filter}, "answered", "empty_result", "share", pipelinetest.ShareSnippet},
		{"implausible_magnitude", map[string]any{"metric": "share", "window": pipelinetest.WindowTooBig}, "rejected", "implausible_magnitude", "share", pipelinetest.ShareSnippet},
		{"permission_denied", map[string]any{"metric": "share", "window": pipelinetest.WindowDenied, "filters": filter}, "rejected", "permission_denied", "share", pipelinetest.ShareSnippet},
		{"budget_exceeded", map[string]any{"metric": "count", "window": pipelinetest.WindowBudget}, "rejected", "budget_exceeded", "count", pipelinetest.CountSnippet},
		{"schema_violation", map[string]any{"metric": "revenue_xyz", "window": pipelinetest.WindowGood, "dimensions": []any{"planet"}}, "rejected", "schema_violation", "", "declared metrics: share, count"},
	}
	t.Run("the engine's own query failing is our failure", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"metric": "count", "window": pipelinetest.WindowBoom})
		resp, err := http.Post(ts.URL+"/v1/tools/query_metric", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError || bytes.Contains(raw, []byte(`"repair"`)) || bytes.Contains(raw, []byte("connection reset")) {
			t.Fatalf("status %d, want 500 without advice or the database's text: %s", resp.StatusCode, raw)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(tt.args)
			resp, err := http.Post(ts.URL+"/v1/tools/query_metric", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", resp.StatusCode, raw)
			}
			var a repairBody
			if err := json.Unmarshal(raw, &a); err != nil {
				t.Fatal(err)
			}
			if a.Outcome != tt.wantOutcome || a.Repair == nil {
				t.Fatalf("outcome %s, repair %v: %s", a.Outcome, a.Repair != nil, raw)
			}
			r := a.Repair
			if r.Class != tt.wantClass || r.Hint == "" || r.Selection.Tool != "query_metric" || r.Selection.Metric != tt.wantMetric ||
				r.Catalog != tt.wantCatalog || !strings.Contains(r.Message, tt.wantClass) || !strings.Contains(r.Message, tt.wantCatalog) {
				t.Errorf("repair %+v", r)
			}
			if tt.wantMetric != "" && !strings.Contains(r.Definition+r.Message, map[string]string{"share": pipelinetest.ShareDefinition, "count": pipelinetest.CountDefinition}[tt.wantMetric]) {
				t.Errorf("repair lacks the definition: %+v", r)
			}
			if _, ok := tt.args["dimensions"]; ok && tt.wantMetric != "" && !slices.Equal(r.Selection.Dimensions, []string{"store"}) {
				t.Errorf("selection dimensions %v", r.Selection.Dimensions)
			}
			repairJSON, _ := json.Marshal(r)
			for _, never := range []string{pipelinetest.SecretFilter, "revenue_xyz", "planet", "connection reset", "1.7"} {
				if bytes.Contains(repairJSON, []byte(never)) || a.Outcome == "rejected" && never != pipelinetest.SecretFilter && bytes.Contains(raw, []byte(never)) {
					t.Errorf("%q repeated: %s", never, raw)
				}
			}
		})
	}
}
