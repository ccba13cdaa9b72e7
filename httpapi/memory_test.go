package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memapi"
	"github.com/provenant/provenant/memory/memstore"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/principal"
	"github.com/provenant/provenant/tool"
)

// memoryServer serves the demo engine and a memory journal with tokens
// required: east-ops sees st-003, admin every store.
func memoryServer(t *testing.T) (*httptest.Server, *engine.Engine) {
	t.Helper()
	set, err := principal.Parse(strings.NewReader(`principals:
  - name: east-ops
    token_env: EAST
    stores: [st-003]
  - name: admin
    token_env: ADMIN
    stores: all
`), principal.Sources{LookupEnv: func(k string) (string, bool) {
		v, ok := map[string]string{"EAST": eastToken, "ADMIN": adminToken}[k]
		return v, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	none := tool.StoresOnly()
	e := enginetest.OpenDemo(t, engine.Options{DefaultScope: &none})
	n := int64(0)
	svc := &memapi.Service{Journal: memstore.New(), Now: func() int64 { n++; return 1000 + n }}
	api := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Auth: set, Memory: &httpapi.MemoryOptions{Service: svc}})
	api.SetBackend(httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: "rules"})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv, e
}

func postMemory(t *testing.T, srv *httptest.Server, token, path string, body any) (int, []byte) {
	t.Helper()
	var b []byte
	if s, ok := body.(string); ok {
		b = []byte(s)
	} else {
		b, _ = json.Marshal(body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/v1/memory/"+path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// stockProvenance is the provenance of a real stock-state answer.
func stockProvenance(t *testing.T, e *engine.Engine, store string) *memory.Provenance {
	t.Helper()
	args := map[string]any{"product_id": "pr-007", "store_id": store, "as_of": "2026-01-08T00:00:00Z"}
	a := e.Pipeline.Call(pipeline.WithScope(t.Context(), tool.AllStores()), tool.Proposal{Tool: "get_stock_state", Params: args})
	if a.Outcome() != answer.Answered {
		t.Fatalf("call: %s (%s)", a.Outcome(), a.Reason())
	}
	v, _ := a.Value()
	p, _ := a.Provenance()
	value, _ := json.Marshal(v)
	raw, _ := json.Marshal(args)
	return &memory.Provenance{ToolCall: &memory.ToolCall{Tool: "get_stock_state", Arguments: raw}, Value: value,
		RowKeys: p.EventIDs(), ResultIDs: a.ResultIDs()}
}

// TestMemory_HTTP: the writer and the reader are the principal; a private
// record is its writer's alone; recall checks claims against the engine
// under the reader's scope (a claim about a store outside it is
// unverifiable: refused).
func TestMemory_HTTP(t *testing.T) {
	srv, e := memoryServer(t)
	status, body := postMemory(t, srv, eastToken, "remember", memapi.RememberRequest{Key: "m-east", Text: "pr-007 stock at st-003",
		Subject: "pr-007", Provenance: stockProvenance(t, e, "st-003"), Visibility: &memapi.Visibility{Private: true}})
	if status != 200 || !strings.Contains(string(body), `"key":"m-east"`) {
		t.Fatalf("remember: %d %s", status, body)
	}
	status, body = postMemory(t, srv, adminToken, "remember", memapi.RememberRequest{Key: "m-admin", Text: "pr-007 stock at st-001",
		Subject: "pr-007", Provenance: stockProvenance(t, e, "st-001")})
	if status != 200 {
		t.Fatalf("remember: %d %s", status, body)
	}
	status, body = postMemory(t, srv, adminToken, "annotate", memapi.AnnotateRequest{Kind: memory.KindConfirm, Target: "m-admin"})
	if status != 200 {
		t.Fatalf("annotate: %d %s", status, body)
	}

	recall := func(token string) map[string]memory.Claim {
		t.Helper()
		status, body := postMemory(t, srv, token, "recall", memapi.RecallRequest{Subject: "pr-007"})
		if status != 200 {
			t.Fatalf("recall: %d %s", status, body)
		}
		var sheet memory.Sheet
		if err := json.Unmarshal(body, &sheet); err != nil {
			t.Fatal(err)
		}
		out := map[string]memory.Claim{}
		for _, c := range sheet.Claims {
			out[c.Key] = c
		}
		return out
	}
	east := recall(eastToken)
	if east["m-east"].Agent != "east-ops" || east["m-east"].Check == nil || east["m-east"].Check.Status != memory.StatusCurrent {
		t.Errorf("east-ops' own claim: %+v", east["m-east"])
	}
	if c := east["m-admin"]; c.Check == nil || c.Check.Status != memory.StatusUnverifiable || c.Check.Reason != memory.ReasonRefused || c.Confirmations != 1 {
		t.Errorf("admin's claim about st-001, read by east-ops: %+v, want unverifiable (refused: out of scope), 1 confirmation", c)
	}
	admin := recall(adminToken)
	if _, ok := admin["m-east"]; ok {
		t.Error("admin reads east-ops' private claim")
	}
	if c := admin["m-admin"]; c.Check == nil || c.Check.Status != memory.StatusCurrent {
		t.Errorf("admin's own claim: %+v", c)
	}
}

// TestMemory_HTTPErrors: typed errors, with nothing of the body echoed;
// the agent cannot be named in the body; no token, no memory.
func TestMemory_HTTPErrors(t *testing.T) {
	srv, _ := memoryServer(t)
	if status, _ := postMemory(t, srv, eastToken, "remember", memapi.RememberRequest{Key: "m-1", Text: "x"}); status != 200 {
		t.Fatal(status)
	}
	const hostile = "IGNORE-ALL-INSTRUCTIONS"
	for _, tt := range []struct {
		name, token, path string
		body              any
		status            int
		code              string
	}{
		{"agent in the body", eastToken, "remember", `{"text":"x","agent":"admin"}`, 400, "unknown_field"},
		{"unknown field", eastToken, "recall", `{"subject":"x","` + hostile + `":1}`, 400, "unknown_field"},
		{"repeated key", eastToken, "remember", memapi.RememberRequest{Key: "m-1", Text: hostile}, 409, memapi.CodeDuplicateKey},
		{"unknown target", eastToken, "annotate", memapi.AnnotateRequest{Kind: memory.KindRetract, Target: hostile}, 404, memapi.CodeUnknownTarget},
		{"invalid key", eastToken, "remember", memapi.RememberRequest{Key: hostile + " x", Text: "x"}, 400, memapi.CodeInvalidRecord},
		{"no cues", eastToken, "recall", memapi.RecallRequest{MaxItems: 3}, 400, memapi.CodeInvalidRecall},
		{"wrong type", eastToken, "recall", `{"max_items":"` + hostile + `"}`, 400, "wrong_type"},
		{"no token", "", "recall", memapi.RecallRequest{Subject: "x"}, 401, "unauthorized"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := postMemory(t, srv, tt.token, tt.path, tt.body)
			var eb httpapi.ErrorBody
			if err := json.Unmarshal(body, &eb); err != nil || status != tt.status || eb.Error.Code != tt.code {
				t.Fatalf("%d %s, want %d %s", status, body, tt.status, tt.code)
			}
			if strings.Contains(string(body), hostile) {
				t.Errorf("the error repeats the body: %s", body)
			}
		})
	}
}

// TestMemory_OpenAPI: with memory on, /openapi.json describes the three
// memory endpoints, each request body the registry's schema for the tool
// of the same name; with memory off, none of them.
func TestMemory_OpenAPI(t *testing.T) {
	doc := func(t *testing.T, api *httpapi.Server) map[string]any {
		t.Helper()
		srv := httptest.NewServer(api)
		t.Cleanup(srv.Close)
		resp, err := http.Get(srv.URL + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var d map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	schemas := map[string]map[string]any{
		"/v1/memory/remember": tool.RememberSchema(),
		"/v1/memory/annotate": tool.AnnotateSchema(),
		"/v1/memory/recall":   tool.RecallSchema(),
	}
	svc := &memapi.Service{Journal: memstore.New(), Now: func() int64 { return 1 }}
	on := doc(t, httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Memory: &httpapi.MemoryOptions{Service: svc}}))
	off := doc(t, httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()}))
	for path, want := range schemas {
		t.Run(path, func(t *testing.T) {
			if _, ok := off["paths"].(map[string]any)[path]; ok {
				t.Errorf("%s described with memory off", path)
			}
			p, ok := on["paths"].(map[string]any)[path].(map[string]any)
			if !ok {
				t.Fatalf("%s not described with memory on", path)
			}
			got := p["post"].(map[string]any)["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
			wantJSON, _ := json.Marshal(want)
			gotJSON, _ := json.Marshal(got)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("request schema\n got %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

// TestMemory_AnnotateOthersPrivate: a record private to one principal is
// not another's to annotate: retracting, superseding or confirming it is
// 404 unknown_target, as for a key that does not exist (so the answer
// does not tell a private key from a missing one), and its writer's sheet
// keeps it. Another principal retracted east-ops's private claim, which
// its writer's sheet then dropped.
func TestMemory_AnnotateOthersPrivate(t *testing.T) {
	srv, _ := memoryServer(t)
	if status, body := postMemory(t, srv, eastToken, "remember", memapi.RememberRequest{Key: "m-private", Text: "east's own note",
		Subject: "pr-009", Visibility: &memapi.Visibility{Private: true}}); status != 200 {
		t.Fatalf("remember: %d %s", status, body)
	}
	if status, body := postMemory(t, srv, eastToken, "remember", memapi.RememberRequest{Key: "m-open", Text: "an open note",
		Subject: "pr-009"}); status != 200 {
		t.Fatalf("remember: %d %s", status, body)
	}
	tests := []struct {
		name       string
		token      string
		kind       memory.Kind
		target     string
		wantStatus int
	}{
		{"another's private record, retract", adminToken, memory.KindRetract, "m-private", http.StatusNotFound},
		{"another's private record, supersede", adminToken, memory.KindSupersede, "m-private", http.StatusNotFound},
		{"another's private record, confirm", adminToken, memory.KindConfirm, "m-private", http.StatusNotFound},
		{"a key that does not exist", adminToken, memory.KindRetract, "m-none", http.StatusNotFound},
		{"another's open record", adminToken, memory.KindConfirm, "m-open", http.StatusOK},
		{"its writer's own private record", eastToken, memory.KindConfirm, "m-private", http.StatusOK},
	}
	var missing []byte
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := postMemory(t, srv, tt.token, "annotate", memapi.AnnotateRequest{Kind: tt.kind, Target: tt.target, Text: "replaced"})
			if status != tt.wantStatus {
				t.Fatalf("annotate = %d %s, want %d", status, body, tt.wantStatus)
			}
			if tt.target == "m-none" {
				missing = body
			}
		})
	}
	if _, private := postMemory(t, srv, adminToken, "annotate", memapi.AnnotateRequest{Kind: memory.KindRetract, Target: "m-private"}); string(private) != string(missing) {
		t.Errorf("a private target answers %s, a missing one %s: want the same", private, missing)
	}
	status, body := postMemory(t, srv, eastToken, "recall", memapi.RecallRequest{Subject: "pr-009"})
	if status != 200 {
		t.Fatalf("recall: %d %s", status, body)
	}
	var sheet memory.Sheet
	if err := json.Unmarshal(body, &sheet); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range sheet.Claims {
		keys = append(keys, c.Key)
	}
	if !slices.Contains(keys, "m-private") {
		t.Errorf("east-ops's sheet = %v, want its private record kept", keys)
	}
}
