package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/metrics"
	"github.com/provenant/provenant/tool"
)

// Call lets an askerFunc (httpapi_test.go) stand in for a backend on the
// tool routes too: a direct call is answered by f, given the tool's name.
func (f askerFunc) Call(ctx context.Context, p tool.Proposal) answer.Answer { return f(ctx, p.Tool) }

func postJSON(t *testing.T, url string, body any) response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, http.MethodPost, url, "application/json", b)
}

// canonical returns the RFC 8785 form of v's JSON.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	c, err := jcs.Transform(b)
	if err != nil {
		t.Fatalf("canonicalise %s: %v", b, err)
	}
	return string(c)
}

// offered is the list every surface must offer, built here from the
// registry's parts rather than from tool.Offered, so that the tests check
// that function too.
func offered() []tool.Entry {
	var out []tool.Entry
	for _, d := range catalogstest.Retail().Menu() {
		out = append(out, tool.Entry{Name: d.Name, Description: d.Description, InputSchema: tool.InputSchema(d)})
	}
	return append(out, tool.Entry{Name: tool.AskName, Description: tool.AskDescription("the shelf-scan data"), InputSchema: tool.AskSchema()})
}

func TestTools_List(t *testing.T) {
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	check := func(t *testing.T) {
		r := do(t, http.MethodGet, ts.URL+"/v1/tools", "", nil)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET /v1/tools = %d %q: %s", r.status, r.header.Get("Content-Type"), r.body)
		}
		var got []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Annotations map[string]any  `json:"annotations"`
		}
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		want := offered()
		if len(got) != 7 || len(got) != len(want) {
			t.Fatalf("GET /v1/tools lists %d tools, want 7 (the six on the menu and ask)", len(got))
		}
		wantAnnotations := map[string]any{"read_only": true, "idempotent": true, "closed_world": true, "destructive": false}
		for i, w := range want {
			g := got[i]
			if g.Name != w.Name || g.Description != w.Description {
				t.Errorf("tool %d = %q %q, want %q %q", i, g.Name, g.Description, w.Name, w.Description)
			}
			if gs, ws := canonical(t, []byte(g.InputSchema)), canonical(t, w.InputSchema); gs != ws {
				t.Errorf("%s: input_schema differs from the registry's\n got %s\nwant %s", w.Name, gs, ws)
			}
			if !reflect.DeepEqual(g.Annotations, wantAnnotations) {
				t.Errorf("%s: annotations = %v, want %v", w.Name, g.Annotations, wantAnnotations)
			}
		}
	}
	// The list depends on the registry alone: it is served while loading.
	t.Run("loading", check)
	srv.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer {
		t.Error("listing the tools reached the backend")
		return answer.Abstain(answer.ReasonNoTool, "unreachable")
	})})
	t.Run("loaded", check)
}

func TestTool_Offered(t *testing.T) {
	if got, want := canonical(t, catalogstest.Retail().Offered()), canonical(t, offered()); got != want {
		t.Errorf("catalogstest.Retail().Offered() = %s\nwant %s", got, want)
	}
}

// validCalls covers every menu tool, answered and as a grounded zero.
var validCalls = []struct {
	tool        string
	args        map[string]any
	wantOutcome answer.Outcome
}{
	{"get_stock_state", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}, answer.Answered},
	{"get_price", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}, answer.Answered},
	{"get_compliance_flag", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}, answer.Answered},
	{"count_stores_with_condition", map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-06T08:00:00Z"}, answer.Answered},
	{"list_products_in_state", map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": "2026-01-06T08:00:00Z"}, answer.Answered},
	{"count_events_in_window", map[string]any{"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}, answer.Answered},
	{"get_price", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2025-01-06T08:00:00Z"}, answer.Absence},
	{"count_stores_with_condition", map[string]any{"condition": "EXPIRED", "as_of": "2025-01-06T08:00:00Z"}, answer.Absence},
	{"list_products_in_state", map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": "2025-01-06T08:00:00Z"}, answer.Absence},
	{"count_events_in_window", map[string]any{"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2025-01-01T00:00:00Z", "end": "2025-01-07T00:00:00Z"}, answer.Absence},
}

func TestTools_CallEndToEnd(t *testing.T) {
	obs := metrics.New(nil)
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Metrics: obs.Handler()})
	e := openDemo(t, obs)
	srv.SetBackend(backend(e))
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc := openAPIDoc(t, ts.URL)

	covered := map[string]bool{}
	bodies := make([][]byte, len(validCalls))
	for i, tt := range validCalls {
		t.Run(fmt.Sprintf("%s/%s", tt.tool, tt.wantOutcome), func(t *testing.T) {
			if p := validate(doc, requestSchema(t, doc, httpapi.ToolPath(tt.tool)), jsonValue(t, tt.args), "args"); len(p) > 0 {
				t.Fatalf("the test's arguments break the documented schema: %v", p)
			}
			r := postJSON(t, ts.URL+httpapi.ToolPath(tt.tool), tt.args)
			if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d %q, want 200 JSON: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			var got struct {
				Outcome answer.Outcome `json:"outcome"`
				Tool    string         `json:"tool"`
			}
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Outcome != tt.wantOutcome || got.Tool != tt.tool {
				t.Errorf("outcome, tool = %s, %s; want %s, %s: %s", got.Outcome, got.Tool, tt.wantOutcome, tt.tool, r.body)
			}
			if p := validate(doc, ref("Answer"), jsonValue(t, r.body), "answer"); len(p) > 0 {
				t.Errorf("the answer breaks the documented Answer schema: %v\n%s", p, r.body)
			}
			covered[tt.tool] = true
			bodies[i] = r.body
		})
	}
	for _, d := range catalogstest.Retail().Menu() {
		if !covered[d.Name] {
			t.Errorf("tool %s was not called over REST", d.Name)
		}
	}

	question := "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"
	askBody := postJSON(t, ts.URL+httpapi.ToolPath(tool.AskName), map[string]string{"question": question})
	if askBody.status != http.StatusOK {
		t.Fatalf("POST /v1/tools/ask = %d: %s", askBody.status, askBody.body)
	}

	s, err := obs.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.RequestsTotal(), uint64(len(validCalls)+1); got != want {
		t.Errorf("requests_total = %d, want %d (one per call)", got, want)
	}

	// Each body is the answer Pipeline.Call gives for the same proposal
	// (result ids aside: they are never reused).
	for i, tt := range validCalls {
		want, err := json.Marshal(e.Pipeline.Call(t.Context(), tool.Proposal{Tool: tt.tool, Params: tt.args}))
		if err != nil {
			t.Fatal(err)
		}
		if len(resultIDs(t, bodies[i])) != 1 {
			t.Errorf("%s: result ids %s, want one", tt.tool, bodies[i])
		}
		if g, w := withoutResultIDs(t, bodies[i]), withoutResultIDs(t, want); g != w {
			t.Errorf("%s: REST body differs from Pipeline.Call:\n got %s\nwant %s", tt.tool, g, w)
		}
	}
	want, err := json.Marshal(e.Pipeline.Ask(t.Context(), question))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := withoutResultIDs(t, askBody.body), withoutResultIDs(t, want); g != w {
		t.Errorf("POST /v1/tools/ask differs from Pipeline.Ask:\n got %s\nwant %s", g, w)
	}
}

func TestTools_CallRejected(t *testing.T) {
	obs := metrics.New(nil)
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Metrics: obs.Handler()})
	srv.SetBackend(backend(openDemo(t, obs)))
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc := openAPIDoc(t, ts.URL)

	const asOf = `"as_of": "2026-01-06T08:00:00Z"`
	tests := []struct {
		name       string
		tool       string
		body       string
		wantReason string // the reason's kind
	}{
		{"raw query in an id", "get_price", `{"store_id": "st-003' OR 1=1 -- ` + marker + `", "product_id": "pr-007", ` + asOf + `}`, "raw_query"},
		{"sql words", "list_products_in_state", `{"store_id": "st-003", "state": "LOW_STOCK union select ` + marker + `", ` + asOf + `}`, "raw_query"},
		{"operator object", "get_stock_state", `{"store_id": {"$gt": "` + marker + `"}, "product_id": "pr-007", ` + asOf + `}`, "raw_query"},
		{"array value", "count_stores_with_condition", `{"condition": ["` + marker + `"], ` + asOf + `}`, "raw_query"},
		{"number value", "get_price", `{"store_id": 987654321, "product_id": "pr-007", ` + asOf + `}`, "invalid"},
		{"number out of float range", "get_price", `{"store_id": 9876543219e400, "product_id": "pr-007", ` + asOf + `}`, "invalid"},
		{"null value", "get_price", `{"store_id": null, "product_id": "pr-007", ` + asOf + `}`, "invalid"},
		{"boolean value", "get_price", `{"store_id": true, "product_id": "pr-007", ` + asOf + `}`, "invalid"},
		{"undeclared store", "get_price", `{"store_id": "st-999", "product_id": "pr-007", ` + asOf + `}`, "invalid"},
		{"bad timestamp", "get_price", `{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-13-45T08:00:00Z"}`, "invalid"},
		{"unknown enum", "count_stores_with_condition", `{"condition": "` + marker + `", ` + asOf + `}`, "invalid"},
		{"unknown parameter", "get_price", `{"store_id": "st-003", "product_id": "pr-007", ` + asOf + `, "` + marker + `": "x"}`, "invalid"},
		{"parameter name in another case", "get_price", `{"Store_ID": "st-003", "product_id": "pr-007", ` + asOf + `}`, "invalid"},
		{"missing parameter", "get_price", `{"product_id": "pr-007", ` + asOf + `}`, "invalid"},
		{"no arguments", "count_events_in_window", `{}`, "invalid"},
		{"reversed window", "count_events_in_window", `{"store_id": "st-003", "state": "OUT_OF_STOCK", "start": "2026-01-07T00:00:00Z", "end": "2026-01-01T00:00:00Z"}`, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, http.MethodPost, ts.URL+httpapi.ToolPath(tt.tool), "application/json", []byte(tt.body))
			if r.status != http.StatusOK {
				t.Fatalf("status %d, want 200 (a refused call is a typed answer): %s", r.status, r.body)
			}
			var got struct {
				Outcome answer.Outcome `json:"outcome"`
				Tool    string         `json:"tool"`
				Reason  string         `json:"reason"`
				Value   any            `json:"value"`
			}
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Outcome != answer.Rejected || got.Tool != tt.tool || !strings.HasPrefix(got.Reason, tt.wantReason+":") || got.Value != nil {
				t.Errorf("got %s, want outcome rejected, tool %s, reason %s: ..., no value", r.body, tt.tool, tt.wantReason)
			}
			if bytes.Contains(r.body, []byte(marker)) || bytes.Contains(r.body, []byte("987654321")) {
				t.Errorf("response echoes the input: %s", r.body)
			}
			if p := validate(doc, ref("Answer"), jsonValue(t, r.body), "answer"); len(p) > 0 {
				t.Errorf("the answer breaks the documented Answer schema: %v", p)
			}
		})
	}
	s, err := obs.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests["rejected"] != uint64(len(tests)) {
		t.Errorf("rejected requests = %d, want %d: every refused call is counted", s.Requests["rejected"], len(tests))
	}
}

func TestTools_MalformedRequests(t *testing.T) {
	obs := metrics.New(nil)
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Metrics: obs.Handler()})
	srv.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer {
		t.Error("a malformed request reached the pipeline")
		return answer.Abstain(answer.ReasonNoTool, "unreachable")
	}), DatasetVersion: "v", Provider: "p"})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	const (
		js    = "application/json"
		price = "/v1/tools/get_price"
		ask   = "/v1/tools/ask"
		args  = `{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`
	)
	nested := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		wantStatus  int
		wantCode    string
	}{
		{"unknown tool", "POST", "/v1/tools/" + marker, js, args, 404, httpapi.CodeUnknownTool},
		{"tool name in another case", "POST", "/v1/tools/GET_PRICE", js, args, 404, httpapi.CodeUnknownTool},
		{"escaped slash in the name", "POST", "/v1/tools/get_price%2F" + marker, js, args, 404, httpapi.CodeUnknownTool},
		{"unknown tool, bad body", "POST", "/v1/tools/" + marker, "text/plain", marker, 404, httpapi.CodeUnknownTool},
		{"no tool name", "POST", "/v1/tools/", js, args, 404, httpapi.CodeNotFound},
		{"extra segment", "POST", "/v1/tools/get_price/" + marker, js, args, 404, httpapi.CodeNotFound},
		{"duplicate argument", "POST", price, js, `{"store_id": "st-003", "store_id": "` + marker + `", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`, 400, httpapi.CodeDuplicateField},
		{"duplicate argument, escaped", "POST", price, js, `{"store_id": "st-003", "\u0073tore_id": "` + marker + `", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`, 400, httpapi.CodeDuplicateField},
		{"duplicate null argument", "POST", price, js, `{"store_id": null, "store_id": "` + marker + `"}`, 400, httpapi.CodeDuplicateField},
		{"truncated JSON", "POST", price, js, `{"store_id": "` + marker, 400, httpapi.CodeInvalidJSON},
		{"not JSON", "POST", price, js, marker, 400, httpapi.CodeInvalidJSON},
		{"two objects", "POST", price, js, args + ` {"` + marker + `": 1}`, 400, httpapi.CodeInvalidJSON},
		{"trailing garbage", "POST", price, js, args + marker, 400, httpapi.CodeInvalidJSON},
		{"deep nesting", "POST", price, js, `{"store_id": ` + nested + `}`, 400, httpapi.CodeInvalidJSON},
		{"empty body", "POST", price, js, ``, 400, httpapi.CodeEmptyBody},
		{"blank body", "POST", price, js, " \n\t ", 400, httpapi.CodeEmptyBody},
		{"body is an array", "POST", price, js, `["` + marker + `"]`, 400, httpapi.CodeNotAnObject},
		{"body is a string", "POST", price, js, `"` + marker + `"`, 400, httpapi.CodeNotAnObject},
		{"body is a number", "POST", price, js, `987654321`, 400, httpapi.CodeNotAnObject},
		{"body is null", "POST", price, js, `null`, 400, httpapi.CodeNotAnObject},
		{"too large", "POST", price, js, `{"store_id": "` + strings.Repeat(marker, 70<<10/len(marker)) + `"}`, 413, httpapi.CodeBodyTooLarge},
		{"too large after a valid object", "POST", price, js, args + strings.Repeat(" ", 70<<10), 413, httpapi.CodeBodyTooLarge},
		{"text/plain", "POST", price, "text/plain", args, 415, httpapi.CodeUnsupportedMediaType},
		{"no content type", "POST", price, "", args, 415, httpapi.CodeUnsupportedMediaType},
		{"malformed content type", "POST", price, "application/json; " + marker, args, 415, httpapi.CodeUnsupportedMediaType},
		{"ask: unknown field", "POST", ask, js, `{"question": "hi", "` + marker + `": 1}`, 400, httpapi.CodeUnknownField},
		{"ask: question twice", "POST", ask, js, `{"question": "hi", "question": "` + marker + `"}`, 400, httpapi.CodeDuplicateField},
		{"ask: question is a number", "POST", ask, js, `{"question": 987654321}`, 400, httpapi.CodeInvalidQuestion},
		{"ask: missing question", "POST", ask, js, `{}`, 400, httpapi.CodeMissingQuestion},
		{"ask: blank question", "POST", ask, js, `{"question": " "}`, 400, httpapi.CodeEmptyQuestion},
		{"ask: too large", "POST", ask, js, `{"question": "` + strings.Repeat(marker, 70<<10/len(marker)) + `"}`, 413, httpapi.CodeBodyTooLarge},
		{"ask: text/plain", "POST", ask, "text/plain", `{"question": "hi"}`, 415, httpapi.CodeUnsupportedMediaType},
		{"GET a tool", "GET", price, "", ``, 405, httpapi.CodeMethodNotAllowed},
		{"DELETE a tool", "DELETE", ask, "", ``, 405, httpapi.CodeMethodNotAllowed},
		{"POST the tool list", "POST", "/v1/tools", js, `{}`, 405, httpapi.CodeMethodNotAllowed},
		{"PUT the document", "PUT", "/openapi.json", js, `{}`, 405, httpapi.CodeMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, tt.method, ts.URL+tt.path, tt.contentType, []byte(tt.body))
			checkClientError(t, r, tt.wantStatus, tt.wantCode, marker, "987654321", "GET_PRICE")
		})
	}
	if s, err := obs.Snapshot(); err != nil || s.RequestsTotal() != 0 {
		t.Errorf("malformed requests reached the pipeline: %+v %v", s.Requests, err)
	}
}

func TestTools_Loading(t *testing.T) {
	ts := httptest.NewServer(httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()}))
	defer ts.Close()
	for _, tt := range validCalls[:1] {
		r := postJSON(t, ts.URL+httpapi.ToolPath(tt.tool), tt.args)
		if r.status != http.StatusServiceUnavailable || errorCode(t, r) != httpapi.CodeLoading || r.header.Get("Retry-After") == "" {
			t.Errorf("call before load = %d %s, want 503 loading with Retry-After", r.status, r.body)
		}
	}
	r := postJSON(t, ts.URL+httpapi.ToolPath(tool.AskName), map[string]string{"question": "anything"})
	if r.status != http.StatusServiceUnavailable || errorCode(t, r) != httpapi.CodeLoading {
		t.Errorf("ask before load = %d %s, want 503 loading", r.status, r.body)
	}
	for _, path := range []string{"/v1/tools", "/openapi.json"} {
		if r := do(t, http.MethodGet, ts.URL+path, "", nil); r.status != http.StatusOK {
			t.Errorf("GET %s before load = %d, want 200: it depends on the registry alone", path, r.status)
		}
	}
}

func TestTools_StatusOfOutcome(t *testing.T) {
	tests := []struct {
		name       string
		answer     answer.Answer
		wantStatus int
	}{
		{"rejected", answer.Reject("get_price", &tool.Rejection{Kind: tool.Invalid, Param: "store_id", Reason: "is not a declared store"}), 200},
		{"model unavailable at compose", answer.Fail(answer.StageCompose, answer.ReasonModelUnavailable, "get_price", map[string]string{"store_id": "st-001"}), 503},
		{"internal at execute", answer.Fail(answer.StageExecute, answer.ReasonInternal, "get_price", nil), 500},
		{"verification failed", answer.Fail(answer.StageResolve, answer.ReasonVerificationFailed, "get_price", nil), 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
			srv.SetBackend(httpapi.Backend{Asker: askerFunc(func(_ context.Context, name string) answer.Answer {
				if name != "get_price" {
					t.Errorf("backend called with tool %q, want %q", name, "get_price")
				}
				return tt.answer
			})})
			ts := httptest.NewServer(srv)
			defer ts.Close()
			r := postJSON(t, ts.URL+httpapi.ToolPath("get_price"), validCalls[1].args)
			if r.status != tt.wantStatus {
				t.Errorf("status = %d, want %d", r.status, tt.wantStatus)
			}
			want, err := json.Marshal(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.TrimSpace(r.body); !bytes.Equal(got, want) {
				t.Errorf("body = %s, want the answer object %s", got, want)
			}
		})
	}
}

// openAPIDoc fetches and decodes GET /openapi.json.
func openAPIDoc(t *testing.T, base string) map[string]any {
	t.Helper()
	r := do(t, http.MethodGet, base+"/openapi.json", "", nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /openapi.json = %d %q: %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	doc, ok := jsonValue(t, r.body).(map[string]any)
	if !ok {
		t.Fatalf("the document is not a JSON object: %.200s", r.body)
	}
	return doc
}

func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode %.200s: %v", b, err)
	}
	return out
}

// lookup follows keys from a decoded JSON object; nil when one is missing.
func lookup(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func requestSchema(t *testing.T, doc map[string]any, path string) any {
	t.Helper()
	s := lookup(doc, "paths", path, "post", "requestBody", "content", "application/json", "schema")
	if s == nil {
		t.Fatalf("the document has no JSON request body schema for POST %s", path)
	}
	return s
}

func ref(schema string) any { return map[string]any{"$ref": "#/components/schemas/" + schema} }

func TestOpenAPI_Document(t *testing.T) {
	ts := httptest.NewServer(httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()}))
	defer ts.Close()
	doc := openAPIDoc(t, ts.URL)

	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", doc["openapi"])
	}
	if lookup(doc, "info", "title") != "provenant" || lookup(doc, "info", "version") == nil {
		t.Errorf("info = %v, want title provenant and a version", doc["info"])
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, p := range []string{"/v1/ask", "/v1/tools", "/healthz", "/openapi.json"} {
		if paths[p] == nil {
			t.Errorf("no path %s", p)
		}
	}
	if s := requestSchema(t, doc, "/v1/ask"); canonical(t, s) != canonical(t, tool.AskSchema()) {
		t.Errorf("POST /v1/ask body schema = %s, want tool.AskSchema()", canonical(t, s))
	}

	// One path per offered tool, whose body schema is the registry's,
	// byte for byte once canonical; a tool without a path fails here.
	want := map[string]bool{}
	for _, e := range offered() {
		path := httpapi.ToolPath(e.Name)
		want[path] = true
		if paths[path] == nil {
			t.Errorf("tool %s has no path %s", e.Name, path)
			continue
		}
		if got, w := canonical(t, requestSchema(t, doc, path)), canonical(t, e.InputSchema); got != w {
			t.Errorf("POST %s body schema differs from the registry's\n got %s\nwant %s", path, got, w)
		}
		if lookup(doc, "paths", path, "post", "description") != e.Description {
			t.Errorf("POST %s description is not the registry's", path)
		}
		for _, status := range []string{"200", "400", "404", "413", "415", "500", "503"} {
			if lookup(doc, "paths", path, "post", "responses", status) == nil {
				t.Errorf("POST %s documents no %s response", path, status)
			}
		}
	}
	for p := range paths {
		if strings.HasPrefix(p, "/v1/tools/") && !want[p] {
			t.Errorf("path %s names no offered tool", p)
		}
	}
	if n := len(paths); n != len(want)+6 {
		t.Errorf("%d paths, want %d (one per tool, plus /v1/ask, /v1/tools, /v1/ground, /v1/results/{id}/rows, /healthz, /openapi.json)", n, len(want)+6)
	}
	// The rows route the answer's provenance names is in the document,
	// with each status it answers.
	for _, status := range []string{"200", "400", "404", "410", "500", "503", "504"} {
		if lookup(doc, "paths", "/v1/results/{id}/rows", "get", "responses", status) == nil {
			t.Errorf("GET /v1/results/{id}/rows documents no %s response", status)
		}
	}
	for _, name := range []string{"Answer", "Error"} {
		if lookup(doc, "components", "schemas", name) == nil {
			t.Errorf("no components.schemas.%s", name)
		}
	}

	// operationIds are unique.
	ids := map[string]string{}
	for p, item := range paths {
		for method, op := range item.(map[string]any) {
			id, _ := lookup(op, "operationId").(string)
			if id == "" {
				t.Errorf("%s %s has no operationId", method, p)
			} else if prev, dup := ids[id]; dup {
				t.Errorf("operationId %s on both %s and %s %s", id, prev, method, p)
			}
			ids[id] = method + " " + p
		}
	}

	// Every $ref resolves within the document.
	refs := 0
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"]; ok {
				refs++
				s, _ := r.(string)
				if _, err := resolvePointer(doc, s); err != nil {
					t.Errorf("%s: $ref %v: %v", at, r, err)
				}
			}
			for k, c := range v {
				walk(c, at+"/"+k)
			}
		case []any:
			for i, c := range v {
				walk(c, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(doc, "#")
	if refs == 0 {
		t.Error("the document has no $ref: the walk found nothing to check")
	}

	// The document is the same on every request.
	if again := openAPIDoc(t, ts.URL); canonical(t, again) != canonical(t, doc) {
		t.Error("two requests returned different documents")
	}
}

func TestOpenAPI_RoutesServed(t *testing.T) {
	ts := httptest.NewServer(httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()}))
	defer ts.Close()
	doc := openAPIDoc(t, ts.URL)
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		for method := range item.(map[string]any) {
			// No body: a POST route answers 415, a GET 200 or 503; a path
			// or method the server does not route answers 404 or 405.
			r := do(t, strings.ToUpper(method), ts.URL+p, "", nil)
			if r.status == http.StatusNotFound || r.status == http.StatusMethodNotAllowed {
				t.Errorf("documented %s %s is not served: %d %s", strings.ToUpper(method), p, r.status, r.body)
			}
		}
	}
}

// TestOpenAPI_SchemasDescribeResponses checks the documented schemas
// against what the server returns, and that the checker itself bites.
func TestOpenAPI_SchemasDescribeResponses(t *testing.T) {
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.RetailMenu()})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	doc := openAPIDoc(t, ts.URL)

	loading := do(t, http.MethodGet, ts.URL+"/healthz", "", nil)
	srv.SetBackend(backend(openDemo(t, nil)))
	bodies := []struct {
		name   string
		schema string
		body   []byte
	}{
		{"tools", "", do(t, http.MethodGet, ts.URL+"/v1/tools", "", nil).body},
		{"health loading", "Health", loading.body},
		{"health ok", "Health", do(t, http.MethodGet, ts.URL+"/healthz", "", nil).body},
		{"error", "Error", do(t, http.MethodPost, ts.URL+"/v1/tools/"+marker, "application/json", []byte("{}")).body},
		{"abstained", "Answer", postJSON(t, ts.URL+"/v1/ask", map[string]string{"question": "Who supplies oat milk?"}).body},
		{"asked", "Answer", postJSON(t, ts.URL+"/v1/tools/ask", map[string]string{"question": "Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?"}).body},
		{"metric table", "Answer", postJSON(t, ts.URL+"/v1/tools/query_metric", map[string]any{"metric": "scan_count", "dimensions": []string{"category"}, "grain": "day",
			"start": "2026-01-05T00:00:00Z", "end": "2026-01-07T00:00:00Z"}).body},
		{"unregistered tool proposed", "Answer", mustJSON(t, answer.Reject("", &tool.Rejection{Kind: tool.Unregistered, Reason: "tool is not on the menu"}))},
		{"compose failed", "Answer", mustJSON(t, answer.Fail(answer.StageCompose, answer.ReasonModelUnavailable, "get_price", map[string]string{"store_id": "st-001"}))},
		{"verification failed", "Answer", mustJSON(t, answer.Fail(answer.StageResolve, answer.ReasonVerificationFailed, "get_price", nil))},
	}
	for _, b := range bodies {
		var schema any = ref(b.schema)
		if b.schema == "" {
			schema = lookup(doc, "paths", "/v1/tools", "get", "responses", "200", "content", "application/json", "schema")
		}
		if p := validate(doc, schema, jsonValue(t, b.body), "$"); len(p) > 0 {
			t.Errorf("%s: the body breaks its documented schema: %v\n%s", b.name, p, b.body)
		}
	}

	bad := []struct {
		name   string
		schema any
		body   string
	}{
		{"unknown outcome", ref("Answer"), `{"outcome":"maybe","tool":null,"params":null,"value":null,"provenance":null,"text":null,"verdict":null,"reason":null,"stage":null,"result_ids":[]}`},
		{"missing key", ref("Answer"), `{"outcome":"abstained","tool":null,"params":null,"value":null,"provenance":null,"text":null,"verdict":null,"reason":null,"result_ids":[]}`},
		{"value of two shapes", ref("Answer"), `{"outcome":"answered","tool":"get_price","params":{},"value":{"count":1,"product_ids":[]},"provenance":{"event_ids":["evt-000001"]},"text":"t","verdict":null,"reason":null,"stage":null,"result_ids":[]}`},
		{"empty provenance", ref("Answer"), `{"outcome":"answered","tool":"get_price","params":{},"value":1,"provenance":{"event_ids":[]},"text":"t","verdict":null,"reason":null,"stage":null,"result_ids":[]}`},
		{"unlisted tool", ref("Answer"), `{"outcome":"rejected","tool":"drop_table","params":null,"value":null,"provenance":null,"text":null,"verdict":null,"reason":"x","stage":null,"result_ids":[]}`},
		{"error without message", ref("Error"), `{"error":{"code":"x"}}`},
		{"price argument as a number", requestSchema(t, doc, httpapi.ToolPath("get_price")), `{"store_id": 3, "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`},
		{"raw query argument", requestSchema(t, doc, httpapi.ToolPath("get_price")), `{"store_id": "st-003' OR 1=1", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}`},
	}
	for _, b := range bad {
		if p := validate(doc, b.schema, jsonValue(t, []byte(b.body)), "$"); len(p) == 0 {
			t.Errorf("%s: the checker accepted %s", b.name, b.body)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resolvePointer resolves a local reference ("#/a/b") in doc.
func resolvePointer(doc map[string]any, ref string) (any, error) {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("not a local reference")
	}
	var v any = doc
	if rest == "" {
		return v, nil
	}
	if !strings.HasPrefix(rest, "/") {
		return nil, fmt.Errorf("not a JSON pointer")
	}
	for _, tok := range strings.Split(rest[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not inside an object", tok)
		}
		if v, ok = m[tok]; !ok {
			return nil, fmt.Errorf("no %q", tok)
		}
	}
	return v, nil
}

// validate reports where v (decoded JSON) breaks schema. It knows the
// subset of JSON Schema 2020-12 the document uses, and reports any other
// keyword as a problem, so the document cannot drift past it unnoticed.
func validate(doc map[string]any, schema any, v any, at string) []string {
	s, ok := schema.(map[string]any)
	if !ok {
		return []string{at + ": schema is not an object"}
	}
	var probs []string
	fail := func(format string, args ...any) { probs = append(probs, at+": "+fmt.Sprintf(format, args...)) }
	obj, isObj := v.(map[string]any)
	arr, isArr := v.([]any)
	str, isStr := v.(string)
	num, isNum := v.(float64)
	for k, kv := range s {
		switch k {
		case "description", "title":
		case "$ref":
			target, err := resolvePointer(doc, fmt.Sprint(kv))
			if err != nil {
				fail("$ref %v: %v", kv, err)
				continue
			}
			probs = append(probs, validate(doc, target, v, at)...)
		case "type":
			types, _ := kv.([]any)
			if t, ok := kv.(string); ok {
				types = []any{t}
			}
			if !slices.ContainsFunc(types, func(t any) bool { return t == jsonType(v) || t == "number" && jsonType(v) == "integer" }) {
				fail("type %s, want %v", jsonType(v), kv)
			}
		case "enum":
			if !slices.ContainsFunc(kv.([]any), func(e any) bool { return reflect.DeepEqual(e, v) }) {
				fail("%v is not in the enum", v)
			}
		case "const":
			if !reflect.DeepEqual(kv, v) {
				fail("%v is not %v", v, kv)
			}
		case "properties":
			if isObj {
				for name, ps := range kv.(map[string]any) {
					if pv, ok := obj[name]; ok {
						probs = append(probs, validate(doc, ps, pv, at+"."+name)...)
					}
				}
			}
		case "required":
			if isObj {
				for _, name := range kv.([]any) {
					if _, ok := obj[name.(string)]; !ok {
						fail("missing %v", name)
					}
				}
			}
		case "additionalProperties":
			props, _ := s["properties"].(map[string]any)
			if isObj {
				for name, pv := range obj {
					if _, declared := props[name]; declared {
						continue
					}
					if kv == false {
						fail("unexpected property %s", name)
					} else if ks, ok := kv.(map[string]any); ok {
						probs = append(probs, validate(doc, ks, pv, at+"."+name)...)
					}
				}
			}
		case "items":
			for i, e := range arr {
				probs = append(probs, validate(doc, kv, e, fmt.Sprintf("%s[%d]", at, i))...)
			}
		case "minItems", "maxItems":
			if n := float64(len(arr)); isArr && (k == "minItems" && n < kv.(float64) || k == "maxItems" && n > kv.(float64)) {
				fail("%d items break %s %v", len(arr), k, kv)
			}
		case "minLength", "maxLength":
			if n := float64(utf8.RuneCountInString(str)); isStr && (k == "minLength" && n < kv.(float64) || k == "maxLength" && n > kv.(float64)) {
				fail("length %v breaks %s %v", n, k, kv)
			}
		case "pattern":
			if isStr && !regexp.MustCompile(kv.(string)).MatchString(str) {
				fail("does not match %s", kv)
			}
		case "minimum":
			if isNum && num < kv.(float64) {
				fail("%v below %v", num, kv)
			}
		case "oneOf":
			n := 0
			for _, alt := range kv.([]any) {
				if len(validate(doc, alt, v, at)) == 0 {
					n++
				}
			}
			if n != 1 {
				fail("%d oneOf alternatives match, want exactly 1", n)
			}
		default:
			fail("keyword %s is outside the checker's subset", k)
		}
	}
	return probs
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
