package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/metrics"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/tool"
)

// marker is planted in rejected input; no response may contain it.
const marker = "ZQXMARKERQXZ"

type response struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, method, url, contentType string, body []byte) response {
	t.Helper()
	return doWith(t, method, url, body, map[string]string{"Content-Type": contentType})
}

// doWith sends one request with the given headers ("Host" sets the Host
// line; an empty value is left out).
func doWith(t *testing.T, method, url string, body []byte, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		switch {
		case v == "":
		case k == "Host":
			req.Host = v
		default:
			req.Header.Set(k, v)
		}
	}
	if len(body) > httpapi.DefaultMaxBodyBytes && req.Header.Get("Expect") == "" {
		// The server reads a body over the limit to its end only up to four
		// times the limit (limits.go); past that a client still writing
		// may see the connection reset before it reads the 413. Asking
		// first, as curl does for large bodies, reads the 413 every time.
		req.Header.Set("Expect", "100-continue")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

func ask(t *testing.T, base, question string) response {
	t.Helper()
	body, err := json.Marshal(map[string]string{"question": question})
	if err != nil {
		t.Fatal(err)
	}
	return do(t, http.MethodPost, base+"/v1/ask", "application/json", body)
}

func errorCode(t *testing.T, r response) string {
	t.Helper()
	var e httpapi.ErrorBody
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, r.body)
	}
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("error body lacks code or message: %s", r.body)
	}
	return e.Error.Code
}

// scrape reads /metrics into "name{labels}" -> value.
func scrape(t *testing.T, base string) map[string]float64 {
	t.Helper()
	r := do(t, http.MethodGet, base+"/metrics", "", nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /metrics: status %d", r.status)
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("parse metrics line %q: %v", line, err)
		}
		m[line[:i]] = v
	}
	return m
}

// openDemo builds the real engine over the demo store with the rules
// provider, reporting to obs.
func openDemo(t *testing.T, obs *metrics.Observer) *engine.Engine {
	t.Helper()
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Provider: rules.Provider{}}
	if obs != nil {
		opts.Observer = obs
	}
	e, err := engine.Open(t.Context(), d, enginetest.OpenDuckDB, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func backend(e *engine.Engine) httpapi.Backend {
	return httpapi.Backend{Asker: e.Pipeline, DatasetVersion: e.DatasetVersion, Provider: e.Pipeline.ProviderName()}
}

func TestServer_EndToEnd(t *testing.T) {
	obs := metrics.New(nil)
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Metrics: obs.Handler()})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	// Listening before the engine is loaded: healthz and ask say so.
	if r := do(t, http.MethodGet, ts.URL+"/healthz", "", nil); r.status != http.StatusServiceUnavailable ||
		strings.TrimSpace(string(r.body)) != `{"status":"loading"}` {
		t.Fatalf("healthz before load = %d %s, want 503 loading", r.status, r.body)
	}
	if r := ask(t, ts.URL, "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"); r.status != http.StatusServiceUnavailable ||
		errorCode(t, r) != httpapi.CodeLoading || r.header.Get("Retry-After") == "" {
		t.Fatalf("ask before load = %d %s, want 503 loading with Retry-After", r.status, r.body)
	}

	e := openDemo(t, obs)
	srv.SetBackend(backend(e))

	r := do(t, http.MethodGet, ts.URL+"/healthz", "", nil)
	var h httpapi.Health
	if err := json.Unmarshal(r.body, &h); err != nil || r.status != http.StatusOK {
		t.Fatalf("healthz after load = %d %s (%v)", r.status, r.body, err)
	}
	if want := (httpapi.Health{Status: "ok", DatasetVersion: "retail-demo-v1", Provider: "rules"}); h != want {
		t.Fatalf("healthz = %+v, want %+v", h, want)
	}

	tests := []struct {
		question    string
		wantOutcome answer.Outcome
		wantTool    string
	}{
		{"What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", answer.Answered, "get_stock_state"},
		{"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", answer.Answered, "get_price"},
		{"What is the compliance flag of pr-007 at st-003 as of 2026-01-06T08:00:00Z?", answer.Answered, "get_compliance_flag"},
		{"How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?", answer.Answered, "count_stores_with_condition"},
		{"Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?", answer.Answered, "list_products_in_state"},
		{"How many OUT_OF_STOCK events were recorded for st-003 in [2026-01-01T00:00:00Z, 2026-01-07T00:00:00Z)?", answer.Answered, "count_events_in_window"},
		{"What is the price of pr-007 at st-003 as of 2025-01-06T08:00:00Z?", answer.Absence, "get_price"},
		{"How many employees work at st-003?", answer.Abstained, ""},
		{"What is the price of pr-007 at st-003' OR 1=1 -- as of 2026-01-06T08:00:00Z?", answer.Rejected, "get_price"},
	}
	bodies := map[string][]byte{}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			r := ask(t, ts.URL, tt.question)
			if r.status != http.StatusOK {
				t.Fatalf("status %d, want 200: %s", r.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			var got struct {
				Outcome answer.Outcome `json:"outcome"`
				Tool    *string        `json:"tool"`
			}
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			tool := ""
			if got.Tool != nil {
				tool = *got.Tool
			}
			if got.Outcome != tt.wantOutcome || tool != tt.wantTool {
				t.Errorf("outcome, tool = %s, %q; want %s, %q", got.Outcome, tool, tt.wantOutcome, tt.wantTool)
			}
			bodies[tt.question] = r.body
		})
	}

	m := scrape(t, ts.URL)
	wantMetrics := map[string]float64{
		`provenant_requests_total{outcome="answered"}`:                    6,
		`provenant_requests_total{outcome="absence"}`:                     1,
		`provenant_requests_total{outcome="abstained"}`:                   1,
		`provenant_requests_total{outcome="rejected"}`:                    1,
		`provenant_requests_total{outcome="error"}`:                       0,
		`provenant_rejections_total{kind="raw_query"}`:                    1,
		`provenant_rejections_total{kind="invalid"}`:                      0,
		`provenant_provenance_resolutions_total{result="verified"}`:       7,
		`provenant_provenance_resolutions_total{result="failed"}`:         0,
		`provenant_abstentions_total`:                                     1,
		`provenant_deterministic_seconds_count`:                           8, // all but the abstention reached the wall
		`provenant_errors_total{kind="internal",stage="resolve"}`:         0,
		`provenant_errors_total{kind="model_unavailable",stage="select"}`: 0,
	}
	for k, want := range wantMetrics {
		if got, ok := m[k]; !ok || got != want {
			t.Errorf("%s = %v (present %t), want %v", k, got, ok, want)
		}
	}
	var sum float64
	for k, v := range m {
		if strings.HasPrefix(k, "provenant_requests_total{") {
			sum += v
		}
	}
	if sum != float64(len(tests)) {
		t.Errorf("requests_total sums to %v, want %d (requests that reached the pipeline)", sum, len(tests))
	}

	// The HTTP body is the object `ask --json` prints: the answer's JSON,
	// but for the result ids, which are never reused and so differ from a
	// second asking.
	seen := map[string]bool{}
	for _, tt := range tests {
		want, err := json.Marshal(e.Pipeline.Ask(t.Context(), tt.question))
		if err != nil {
			t.Fatal(err)
		}
		got := bytes.TrimSpace(bodies[tt.question])
		gotIDs, wantIDs := resultIDs(t, got), resultIDs(t, want)
		if len(gotIDs) != len(wantIDs) {
			t.Errorf("%q: result ids %v, a second asking has %v", tt.question, gotIDs, wantIDs)
		}
		for _, id := range gotIDs {
			if seen[id] {
				t.Errorf("result id %s reused", id)
			}
			seen[id] = true
		}
		if g, w := withoutResultIDs(t, got), withoutResultIDs(t, want); g != w {
			t.Errorf("HTTP body differs from the answer JSON for %q:\n got %s\nwant %s", tt.question, g, w)
		}
	}
}

func TestServer_Concurrent(t *testing.T) {
	obs := metrics.New(nil)
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Metrics: obs.Handler()})
	srv.SetBackend(backend(openDemo(t, obs)))
	ts := httptest.NewServer(srv)
	defer ts.Close()

	const clients, each = 8, 25
	questions := []string{
		"What is the stock state of pr-001 at st-002 as of 2026-01-03T12:00:00Z?",
		"How many stores have condition EXPIRED as of 2026-01-05T00:00:00Z?",
		"Who supplies oat milk?",
		"What is the price of pr-999 at st-001 as of 2026-01-03T12:00:00Z?",
	}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				body, _ := json.Marshal(map[string]string{"question": questions[(c+i)%len(questions)]})
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/v1/ask", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d", resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	s, err := obs.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.RequestsTotal(); got != clients*each {
		t.Errorf("requests_total = %d, want %d", got, clients*each)
	}
	if s.Requests["rejected"] != clients*each/4 || s.Rejections["invalid"] != clients*each/4 {
		t.Errorf("rejected = %d, invalid = %d, want %d each", s.Requests["rejected"], s.Rejections["invalid"], clients*each/4)
	}
}

func TestServer_MalformedRequests(t *testing.T) {
	obs := metrics.New(nil)
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail(), Metrics: obs.Handler()})
	// A backend that must never be reached by a malformed request.
	srv.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer {
		t.Error("a malformed request reached the pipeline")
		return answer.Abstain(answer.ReasonNoTool, "unreachable")
	}), DatasetVersion: "v", Provider: "p"})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	const js = "application/json"
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
		{"truncated JSON", "POST", "/v1/ask", js, `{"question": "` + marker, 400, httpapi.CodeInvalidJSON},
		{"not JSON", "POST", "/v1/ask", js, marker, 400, httpapi.CodeInvalidJSON},
		{"unknown field", "POST", "/v1/ask", js, `{"question": "hi", "` + marker + `": 1}`, 400, httpapi.CodeUnknownField},
		{"field name in another case", "POST", "/v1/ask", js, `{"Question": "` + marker + `"}`, 400, httpapi.CodeUnknownField},
		{"question twice", "POST", "/v1/ask", js, `{"question": "hi", "question": "` + marker + `"}`, 400, httpapi.CodeDuplicateField},
		{"question is a number", "POST", "/v1/ask", js, `{"question": 987654321}`, 400, httpapi.CodeInvalidQuestion},
		{"question is an object", "POST", "/v1/ask", js, `{"question": {"` + marker + `": 1}}`, 400, httpapi.CodeInvalidQuestion},
		{"question is an array", "POST", "/v1/ask", js, `{"question": ["` + marker + `"]}`, 400, httpapi.CodeInvalidQuestion},
		{"missing question", "POST", "/v1/ask", js, `{}`, 400, httpapi.CodeMissingQuestion},
		{"null question", "POST", "/v1/ask", js, `{"question": null}`, 400, httpapi.CodeMissingQuestion},
		{"empty question", "POST", "/v1/ask", js, `{"question": ""}`, 400, httpapi.CodeEmptyQuestion},
		{"blank question", "POST", "/v1/ask", js, `{"question": " \t\n "}`, 400, httpapi.CodeEmptyQuestion},
		{"body is an array", "POST", "/v1/ask", js, `["` + marker + `"]`, 400, httpapi.CodeNotAnObject},
		{"body is a string", "POST", "/v1/ask", js, `"` + marker + `"`, 400, httpapi.CodeNotAnObject},
		{"body is null", "POST", "/v1/ask", js, `null`, 400, httpapi.CodeNotAnObject},
		{"two objects", "POST", "/v1/ask", js, `{"question": "hi"} {"` + marker + `": 1}`, 400, httpapi.CodeInvalidJSON},
		{"trailing garbage", "POST", "/v1/ask", js, `{"question": "hi"}` + marker, 400, httpapi.CodeInvalidJSON},
		{"trailing brace", "POST", "/v1/ask", js, `{"question": "hi"}}`, 400, httpapi.CodeInvalidJSON},
		{"empty body", "POST", "/v1/ask", js, ``, 400, httpapi.CodeEmptyBody},
		{"deep nesting", "POST", "/v1/ask", js, `{"question": ` + nested + `}`, 400, httpapi.CodeInvalidJSON},
		{"too large", "POST", "/v1/ask", js, `{"question": "` + strings.Repeat(marker, 70<<10/len(marker)) + `"}`, 413, httpapi.CodeBodyTooLarge},
		{"too large after a valid object", "POST", "/v1/ask", js, `{"question": "hi"}` + strings.Repeat(" ", 70<<10), 413, httpapi.CodeBodyTooLarge},
		{"text/plain", "POST", "/v1/ask", "text/plain", `{"question": "hi"}`, 415, httpapi.CodeUnsupportedMediaType},
		{"form", "POST", "/v1/ask", "application/x-www-form-urlencoded", `question=` + marker, 415, httpapi.CodeUnsupportedMediaType},
		{"no content type", "POST", "/v1/ask", "", `{"question": "hi"}`, 415, httpapi.CodeUnsupportedMediaType},
		{"latin-1 charset", "POST", "/v1/ask", "application/json; charset=latin1", `{"question": "hi"}`, 415, httpapi.CodeUnsupportedMediaType},
		{"malformed content type", "POST", "/v1/ask", "application/json; " + marker, `{"question": "hi"}`, 415, httpapi.CodeUnsupportedMediaType},
		{"GET ask", "GET", "/v1/ask", "", ``, 405, httpapi.CodeMethodNotAllowed},
		{"DELETE healthz", "DELETE", "/healthz", "", ``, 405, httpapi.CodeMethodNotAllowed},
		{"unknown path", "GET", "/v1/" + marker, "", ``, 404, httpapi.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, tt.method, ts.URL+tt.path, tt.contentType, []byte(tt.body))
			checkClientError(t, r, tt.wantStatus, tt.wantCode, marker, "987654321")
		})
	}
	if s, err := obs.Snapshot(); err != nil || s.RequestsTotal() != 0 {
		t.Errorf("malformed requests reached the pipeline: %+v %v", s.Requests, err)
	}
}

type askerFunc func(ctx context.Context, q string) answer.Answer

func (f askerFunc) Ask(ctx context.Context, q string) answer.Answer { return f(ctx, q) }

func TestServer_StatusOfOutcome(t *testing.T) {
	tests := []struct {
		name       string
		answer     answer.Answer
		wantStatus int
	}{
		{"abstained", answer.Abstain(answer.ReasonNoTool, "nothing covers it"), 200},
		{"rejected", answer.Reject("get_price", &tool.Rejection{Kind: tool.Invalid, Param: "store_id", Reason: "is not a declared store"}), 200},
		{"model unavailable at select", answer.Fail(answer.StageSelect, answer.ReasonModelUnavailable, "", nil), 503},
		{"model unavailable at compose", answer.Fail(answer.StageCompose, answer.ReasonModelUnavailable, "get_price", map[string]string{"store_id": "st-001"}), 503},
		{"internal at execute", answer.Fail(answer.StageExecute, answer.ReasonInternal, "get_price", nil), 500},
		{"verification failed", answer.Fail(answer.StageResolve, answer.ReasonVerificationFailed, "get_price", nil), 500},
		{"timeout", answer.Fail(answer.StageResolve, answer.ReasonTimeout, "get_price", nil), 504},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
			srv.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer { return tt.answer })})
			ts := httptest.NewServer(srv)
			defer ts.Close()
			r := ask(t, ts.URL, "anything")
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

func TestServer_RecoversPanic(t *testing.T) {
	srv := httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()})
	srv.SetBackend(httpapi.Backend{Asker: askerFunc(func(context.Context, string) answer.Answer {
		panic("boom " + marker)
	})})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	r := ask(t, ts.URL, "anything")
	if r.status != http.StatusInternalServerError || errorCode(t, r) != httpapi.CodeInternal {
		t.Fatalf("panic gave %d %s, want 500 internal", r.status, r.body)
	}
	if bytes.Contains(r.body, []byte(marker)) {
		t.Errorf("500 body echoes the panic value: %s", r.body)
	}
	// The server still serves after a panic.
	if r := do(t, http.MethodGet, ts.URL+"/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("healthz after panic = %d", r.status)
	}
}

func TestServer_NoMetricsHandler(t *testing.T) {
	ts := httptest.NewServer(httpapi.New(&httpapi.Options{Registry: catalogstest.Retail()}))
	defer ts.Close()
	if r := do(t, http.MethodGet, ts.URL+"/metrics", "", nil); r.status != http.StatusNotFound {
		t.Errorf("GET /metrics without a handler = %d, want 404", r.status)
	}
}

func resultIDs(t *testing.T, body []byte) []string {
	t.Helper()
	var a struct {
		ResultIDs []string `json:"result_ids"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	return a.ResultIDs
}

// withoutResultIDs re-encodes an answer object without its result ids.
func withoutResultIDs(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "result_ids")
	b, _ := json.Marshal(m)
	return string(b)
}

// checkClientError asserts the contract of a client error: never a 5xx,
// the status and JSON error code wanted, an Allow header on a 405, and no
// trace of the request's distinctive parts in the body.
func checkClientError(t *testing.T, r response, wantStatus int, wantCode string, forbidden ...string) {
	t.Helper()
	if r.status >= 500 {
		t.Fatalf("status %d: a malformed request must never be a 5xx", r.status)
	}
	if r.status != wantStatus {
		t.Errorf("status = %d, want %d (%s)", r.status, wantStatus, r.body)
	}
	if code := errorCode(t, r); code != wantCode {
		t.Errorf("code = %q, want %q", code, wantCode)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	for _, f := range forbidden {
		if bytes.Contains(r.body, []byte(f)) {
			t.Errorf("response echoes the input: %s", r.body)
		}
	}
	if wantStatus == 405 && r.header.Get("Allow") == "" {
		t.Error("405 without an Allow header")
	}
}
