package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/provider/internal/toolcall"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/cassette"
	"github.com/provenant/provenant/tool"
)

var update = flag.Bool("update", false, "re-record testdata/cassettes from the scripted server")

const (
	scriptedModel = "scripted-model"
	cassetteDir   = "testdata/cassettes"
	asOf          = "2026-01-06T08:00:00Z"
)

// questionCase is a question, the proposal the scripted model makes for it
// and, for an in-coverage question, a value to compose a sentence from.
type questionCase struct {
	name     string
	question string
	want     *tool.Proposal
	value    fact.Value
}

func scalarCall(name string) *tool.Proposal {
	return &tool.Proposal{Tool: name, Params: map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": asOf}}
}

// templateCases are the six documented question templates and one
// out-of-coverage question.
var templateCases = []questionCase{
	{"stock state", "What is the stock state of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
		scalarCall("get_stock_state"), fact.Text("LOW_STOCK")},
	{"price", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
		scalarCall("get_price"), fact.Integer(299, "cents")},
	{"compliance flag", "What is the compliance flag of pr-007 at st-003 as of 2026-01-06T08:00:00Z?",
		scalarCall("get_compliance_flag"), fact.Text("PRICE_MISMATCH")},
	{"stores with condition", "How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?",
		&tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": asOf}},
		fact.EntityCount("store_ids", []string{"st-003", "st-001"})},
	{"products in state", "Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?",
		&tool.Proposal{Tool: "list_products_in_state", Params: map[string]any{"state": "LOW_STOCK", "store_id": "st-003", "as_of": asOf}},
		fact.EntityList("product_ids", []string{"pr-007", "pr-002"})},
	{"events in window", "How many OUT_OF_STOCK events were recorded for st-003 in [2026-01-01T00:00:00Z, 2026-01-07T00:00:00Z)?",
		&tool.Proposal{Tool: "count_events_in_window", Params: map[string]any{"state": "OUT_OF_STOCK", "store_id": "st-003",
			"start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}},
		fact.RowCount(4)},
	{"out of coverage", "How many employees work at st-003?", nil, fact.Value{}},
}

// composeInput is the compose input for an in-coverage case.
func (c questionCase) composeInput() provider.ComposeInput {
	args := map[string]string{}
	for k, v := range c.want.Params {
		args[k] = v.(string)
	}
	def, _ := catalogstest.Retail().Lookup(c.want.Tool)
	return provider.ComposeInput{Question: c.question, Def: def, Tool: c.want.Tool, Args: args, Value: c.value}
}

func newProvider(t testing.TB, opts Options) *Provider {
	t.Helper()
	if opts.Model == "" {
		opts.Model = scriptedModel
	}
	p, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func TestNew_Options(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr bool
	}{
		{"ollama", Options{BaseURL: "http://localhost:11434/v1", Model: "llama3.2"}, false},
		{"openai with key", Options{BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini", APIKey: "sk-x", Temperature: 0.2, Timeout: time.Second}, false},
		{"no base URL", Options{Model: "m"}, true},
		{"relative base URL", Options{BaseURL: "/v1", Model: "m"}, true},
		{"ftp base URL", Options{BaseURL: "ftp://host/v1", Model: "m"}, true},
		{"credentials in URL", Options{BaseURL: "http://user:pw@host/v1", Model: "m"}, true},
		{"no model", Options{BaseURL: "http://localhost/v1", Model: " "}, true},
		{"model with newline", Options{BaseURL: "http://localhost/v1", Model: "m\n"}, true},
		{"negative timeout", Options{BaseURL: "http://localhost/v1", Model: "m", Timeout: -1}, true},
		{"temperature too high", Options{BaseURL: "http://localhost/v1", Model: "m", Temperature: 2.5}, true},
		{"temperature NaN", Options{BaseURL: "http://localhost/v1", Model: "m", Temperature: math.NaN()}, true},
		{"key with newline", Options{BaseURL: "http://localhost/v1", Model: "m", APIKey: "sk\nX-Evil: 1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.opts)
			if tt.wantErr {
				if !errors.Is(err, ErrOptions) {
					t.Fatalf("New error = %v, want ErrOptions", err)
				}
				if strings.Contains(err.Error(), "pw") {
					t.Errorf("error %q echoes credentials", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got, want := p.Name(), "openai:"+tt.opts.Model; got != want {
				t.Errorf("Name() = %q, want %q", got, want)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	srv := newScriptedServer(t)
	p := newProvider(t, Options{BaseURL: srv.baseURL()})
	wall := tool.NewWall(catalogstest.Retail(), map[string]map[string]bool{"store": {"st-003": true}, "product": {"pr-007": true}})
	type rejectCase struct {
		questionCase
		reject tool.RejectKind // "" means the wall accepts the proposal
	}
	var tests []rejectCase
	for _, c := range templateCases {
		tests = append(tests, rejectCase{questionCase: c})
	}
	tests = append(tests,
		rejectCase{questionCase{name: "two calls: first wins", question: "script: two calls", want: scalarCall("get_price")}, ""},
		rejectCase{questionCase{name: "truncated arguments", question: "script: truncated arguments",
			want: &tool.Proposal{Tool: "get_price", Params: map[string]any{}}}, tool.Invalid},
		rejectCase{questionCase{name: "array arguments", question: "script: array arguments",
			want: &tool.Proposal{Tool: "get_price", Params: map[string]any{}}}, tool.Invalid},
		rejectCase{questionCase{name: "number argument", question: "script: number argument",
			want: &tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": json.Number("3"), "product_id": "pr-007", "as_of": asOf}}}, tool.Invalid},
		rejectCase{questionCase{name: "hallucinated tool", question: "script: hallucinated tool",
			want: &tool.Proposal{Tool: "get_weather", Params: map[string]any{"city": "Paris"}}}, tool.Unregistered},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Select(t.Context(), tt.question, catalogstest.Retail().Menu())
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Select = %+v, want %+v", got, tt.want)
			}
			if got == nil {
				return
			}
			_, err = wall.Check(*got)
			r, rejected := tool.IsRejection(err)
			switch {
			case tt.reject == "" && err != nil:
				t.Errorf("wall rejected the proposal: %v", err)
			case tt.reject != "" && (!rejected || r.Kind != tt.reject):
				t.Errorf("wall error = %v, want a %s rejection", err, tt.reject)
			}
		})
	}
}

func TestSelect_EmptyMenuAbstainsWithoutCall(t *testing.T) {
	p := newProvider(t, Options{BaseURL: "http://127.0.0.1:1/v1", Transport: &cassette.Replayer{Dir: t.TempDir()}})
	got, err := p.Select(t.Context(), templateCases[0].question, nil)
	if got != nil || err != nil {
		t.Errorf("Select with no menu = %+v, %v; want nil, nil", got, err)
	}
}

// TestSelect_Request checks what is sent: the model, temperature 0,
// tool_choice auto, the menu's schemas from tool.InputSchema in strict mode, the prompt
// and the question, and the API key only as a bearer token.
func TestSelect_Request(t *testing.T) {
	srv := newScriptedServer(t)
	// Ambient OpenAI configuration must not leak into requests.
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: 1")
	t.Setenv("OPENAI_API_KEY", "sk-from-environment")

	for _, key := range []string{"sk-test-key", ""} {
		t.Run("key="+key, func(t *testing.T) {
			p := newProvider(t, Options{BaseURL: srv.baseURL(), APIKey: key})
			q := templateCases[0].question
			if _, err := p.Select(t.Context(), q, catalogstest.Retail().Menu()); err != nil {
				t.Fatalf("Select: %v", err)
			}
			req := srv.last(t)
			wantAuth := ""
			if key != "" {
				wantAuth = "Bearer " + key
			}
			if req.Auth != wantAuth {
				t.Errorf("Authorization = %q, want %q", req.Auth, wantAuth)
			}
			var body struct {
				Model       string   `json:"model"`
				Temperature *float64 `json:"temperature"`
				ToolChoice  string   `json:"tool_choice"`
				Messages    []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
				Tools []struct {
					Type     string `json:"type"`
					Function struct {
						Name        string          `json:"name"`
						Description string          `json:"description"`
						Strict      *bool           `json:"strict"`
						Parameters  json.RawMessage `json:"parameters"`
					} `json:"function"`
				} `json:"tools"`
			}
			dec := json.NewDecoder(bytes.NewReader(req.Body))
			dec.DisallowUnknownFields() // no parameter we did not choose
			if err := dec.Decode(&body); err != nil {
				t.Fatalf("decode request %s: %v", req.Body, err)
			}
			if body.Model != scriptedModel || body.Temperature == nil || *body.Temperature != 0 || body.ToolChoice != "auto" {
				t.Errorf("model %q, temperature %v, tool_choice %q; want %q, 0, auto", body.Model, body.Temperature, body.ToolChoice, scriptedModel)
			}
			if len(body.Messages) != 2 || body.Messages[0].Content != toolcall.SelectPrompt || body.Messages[1].Content != q {
				t.Errorf("messages = %+v, want the select prompt and the question", body.Messages)
			}
			menu := catalogstest.Retail().Menu()
			if len(body.Tools) != len(menu) {
				t.Fatalf("sent %d tools, want %d", len(body.Tools), len(menu))
			}
			for i, d := range menu {
				got := body.Tools[i]
				want, _ := json.Marshal(tool.InputSchema(d))
				if got.Type != "function" || got.Function.Name != d.Name || got.Function.Description != d.Description {
					t.Errorf("tool %d = %s %q, want function %q", i, got.Type, got.Function.Name, d.Name)
				}
				if got.Function.Strict == nil || !*got.Function.Strict {
					t.Errorf("tool %s: strict = %v, want true", d.Name, got.Function.Strict)
				}
				if !jsonEqual(t, got.Function.Parameters, want) {
					t.Errorf("tool %s parameters = %s, want %s", d.Name, got.Function.Parameters, want)
				}
			}
			if bytes.Contains(req.Body, []byte("sk-")) {
				t.Errorf("request body carries an API key: %s", req.Body)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("unmarshal %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestUnavailable(t *testing.T) {
	srv := newScriptedServer(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/v1"
	closed.Close()

	tests := []struct {
		name    string
		baseURL string
		script  string
	}{
		{"connection refused", closedURL, "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"},
		{"status 500", srv.baseURL(), "script: status 500"},
		{"status 401", srv.baseURL(), "script: status 401"},
		{"garbage body", srv.baseURL(), "script: garbage"},
		{"truncated json", srv.baseURL(), "script: truncated json"},
		{"no choices", srv.baseURL(), "script: no choices"},
		{"wrong shape", srv.baseURL(), "script: wrong shape"},
		{"oversized body", srv.baseURL(), "script: huge"},
		{"timeout", srv.baseURL(), "script: slow"},
		{"wrong path", srv.URL + "/nope", "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"},
	}
	for _, tt := range tests {
		for _, job := range []string{"select", "compose"} {
			t.Run(tt.name+"/"+job, func(t *testing.T) {
				p := newProvider(t, Options{BaseURL: tt.baseURL, Timeout: 300 * time.Millisecond})
				var err error
				if job == "select" {
					var got *tool.Proposal
					got, err = p.Select(t.Context(), tt.script, catalogstest.Retail().Menu())
					if got != nil {
						t.Errorf("Select proposed %+v alongside an error", got)
					}
				} else {
					var s string
					in := templateCases[1].composeInput()
					in.Question = tt.script
					s, err = p.Compose(t.Context(), in)
					if s != "" {
						t.Errorf("Compose returned %q alongside an error", s)
					}
				}
				if !errors.Is(err, provider.ErrUnavailable) {
					t.Fatalf("error = %v, want provider.ErrUnavailable", err)
				}
			})
		}
	}

	t.Run("cancelled context", func(t *testing.T) {
		p := newProvider(t, Options{BaseURL: srv.baseURL()})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := p.Select(ctx, templateCases[0].question, catalogstest.Retail().Menu())
		if !errors.Is(err, provider.ErrUnavailable) || !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want ErrUnavailable and context.Canceled", err)
		}
	})
}

func TestCompose(t *testing.T) {
	srv := newScriptedServer(t)
	p := newProvider(t, Options{BaseURL: srv.baseURL()})
	for _, c := range templateCases {
		if c.want == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			in := c.composeInput()
			got, err := p.Compose(t.Context(), in)
			if err != nil {
				t.Fatalf("Compose: %v", err)
			}
			if want := tool.Sentence(in.Def, in.Args, in.Value); got != want {
				t.Errorf("Compose = %q, want %q", got, want)
			}
			req := srv.last(t)
			for _, leak := range []string{"event_ids", "evt-", "absence", "provenance"} {
				if bytes.Contains(req.Body, []byte(leak)) {
					t.Errorf("compose request mentions %q: %s", leak, req.Body)
				}
			}
			value, _ := json.Marshal(in.Value)
			var body struct {
				Tools    []any `json:"tools"`
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(req.Body, &body); err != nil || len(body.Messages) != 2 {
				t.Fatalf("decode compose request %s: %v", req.Body, err)
			}
			if len(body.Tools) != 0 {
				t.Errorf("compose request offers %d tools, want none", len(body.Tools))
			}
			if user := body.Messages[1].Content; !strings.Contains(user, `"value":`+string(value)) || !strings.Contains(user, in.Question) {
				t.Errorf("compose user message %s lacks the question or the value %s", user, value)
			}
		})
	}

	tests := []struct {
		script  string
		want    string
		wantErr bool
	}{
		{"script: messy sentence", "The price is $2.99[31m now.\uFFFD", false},
		{"script: empty sentence", "", true},
		{"script: long sentence", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			in := templateCases[1].composeInput()
			in.Question = tt.script
			got, err := p.Compose(t.Context(), in)
			if tt.wantErr {
				if !errors.Is(err, provider.ErrUnavailable) {
					t.Errorf("Compose = %q, %v; want ErrUnavailable", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Compose = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// runCases selects (and, in coverage, composes) every case, returning the
// proposals and sentences in order.
func runCases(t *testing.T, p *Provider, cases []questionCase) ([]*tool.Proposal, []string) {
	t.Helper()
	var props []*tool.Proposal
	var sentences []string
	for _, c := range cases {
		got, err := p.Select(t.Context(), c.question, catalogstest.Retail().Menu())
		if err != nil {
			t.Fatalf("Select(%q): %v", c.question, err)
		}
		props = append(props, got)
		if c.want == nil {
			continue
		}
		s, err := p.Compose(t.Context(), c.composeInput())
		if err != nil {
			t.Fatalf("Compose(%q): %v", c.question, err)
		}
		sentences = append(sentences, s)
	}
	return props, sentences
}

func TestRecordReplay(t *testing.T) {
	srv := newScriptedServer(t)
	dir := t.TempDir()
	const key = "sk-record-SECRET"
	rec := newProvider(t, Options{BaseURL: srv.baseURL(), APIKey: key, Transport: &cassette.Recorder{Dir: dir}})
	recProps, recSentences := runCases(t, rec, templateCases)
	srv.Close()

	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if want := 2*len(templateCases) - 1; len(files) != want {
		t.Errorf("recorded %d cassettes, want %d", len(files), want)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(key)) || bytes.Contains(bytes.ToLower(b), []byte("authorization")) {
			t.Errorf("%s holds credentials", filepath.Base(f))
		}
	}

	// A different host and key: neither is part of the cassette key.
	rep := newProvider(t, Options{BaseURL: "http://127.0.0.1:1/v1", APIKey: "other", Transport: &cassette.Replayer{Dir: dir}})
	repProps, repSentences := runCases(t, rep, templateCases)
	if !reflect.DeepEqual(recProps, repProps) {
		t.Errorf("replayed proposals differ:\nrecord %+v\nreplay %+v", recProps, repProps)
	}
	if !reflect.DeepEqual(recSentences, repSentences) {
		t.Errorf("replayed sentences differ:\nrecord %q\nreplay %q", recSentences, repSentences)
	}
	for i, c := range templateCases {
		if !reflect.DeepEqual(repProps[i], c.want) {
			t.Errorf("%s: replayed proposal %+v, want %+v", c.name, repProps[i], c.want)
		}
	}
}

// TestCassettes_Update re-records testdata/cassettes from the scripted
// server when run with -update. TestCassettes_Replay then replays them.
func TestCassettes_Update(t *testing.T) {
	if !*update {
		t.Skip("run with -update to re-record testdata/cassettes")
	}
	old, _ := filepath.Glob(filepath.Join(cassetteDir, "*.json"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	srv := newScriptedServer(t)
	p := newProvider(t, Options{BaseURL: srv.baseURL(), Transport: &cassette.Recorder{Dir: cassetteDir}})
	runCases(t, p, templateCases)
}

// TestCassettes_Replay replays the committed cassettes with no server: the
// six question templates and one out-of-coverage question, each selected,
// and each in-coverage one composed.
func TestCassettes_Replay(t *testing.T) {
	p := newProvider(t, Options{BaseURL: "http://127.0.0.1:1/v1", Transport: &cassette.Replayer{Dir: cassetteDir}})
	for _, c := range templateCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.Select(t.Context(), c.question, catalogstest.Retail().Menu())
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Select = %+v, want %+v", got, c.want)
			}
			if c.want == nil {
				return
			}
			in := c.composeInput()
			s, err := p.Compose(t.Context(), in)
			if err != nil {
				t.Fatalf("Compose: %v", err)
			}
			if want := tool.Sentence(in.Def, in.Args, in.Value); s != want {
				t.Errorf("Compose = %q, want %q", s, want)
			}
		})
	}
	files, err := filepath.Glob(filepath.Join(cassetteDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*len(templateCases) - 1; len(files) != want {
		t.Errorf("%s holds %d files, want %d: stale cassettes? re-run with -update", cassetteDir, len(files), want)
	}
	for _, f := range files {
		if _, err := cassette.ReadFile(f); err != nil {
			t.Errorf("committed cassette: %v", err)
		}
	}
}

func TestReplay_Miss(t *testing.T) {
	p := newProvider(t, Options{BaseURL: "http://127.0.0.1:1/v1", Transport: &cassette.Replayer{Dir: cassetteDir}})
	tests := []struct {
		name string
		call func() error
	}{
		{"unrecorded question", func() error {
			_, err := p.Select(t.Context(), "What is the price of pr-008 at st-003 as of 2026-01-06T08:00:00Z?", catalogstest.Retail().Menu())
			return err
		}},
		{"smaller menu", func() error {
			_, err := p.Select(t.Context(), templateCases[1].question, catalogstest.Retail().Menu()[:1])
			return err
		}},
		{"other model", func() error {
			other := newProvider(t, Options{BaseURL: "http://127.0.0.1:1/v1", Model: "other-model", Transport: &cassette.Replayer{Dir: cassetteDir}})
			_, err := other.Select(t.Context(), templateCases[1].question, catalogstest.Retail().Menu())
			return err
		}},
		{"unrecorded value", func() error {
			in := templateCases[1].composeInput()
			in.Value = fact.Integer(300, "cents")
			_, err := p.Compose(t.Context(), in)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var miss *cassette.MissError
			if !errors.As(err, &miss) || !errors.Is(err, cassette.ErrCassetteMiss) {
				t.Fatalf("error = %v, want a *cassette.MissError", err)
			}
			if !errors.Is(err, provider.ErrUnavailable) {
				t.Errorf("error = %v, want it to wrap provider.ErrUnavailable", err)
			}
			for _, want := range []string{miss.Key, "--provider record", "/v1/chat/completions"} {
				if want == "" || !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

// roundTripFunc is a fake transport.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzSelectResponse feeds arbitrary response bodies to Select and Compose:
// neither may panic, and each either succeeds or wraps ErrUnavailable. A
// proposal always has a non-nil parameter map, and a proposal that fails
// its schema is retried once and no more.
func FuzzSelectResponse(f *testing.F) {
	f.Add(200, []byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"get_price","arguments":"{\"store_id\":\"st-003\"}"}}]}}]}`))
	f.Add(200, []byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"no tool"}}]}`))
	f.Add(200, []byte(`{"choices":[{"message":{"tool_calls":[{"type":"custom","custom":{"name":"x","input":"y"}}]}}]}`))
	f.Add(200, []byte(`{"choices":[{"message":{"tool_calls":[{"function":{"name":7,"arguments":{"a":1}}}]}}]}`))
	f.Add(200, []byte(`{"choices":[null]}`))
	f.Add(200, []byte(`null`))
	f.Add(500, []byte(`{"error":{"message":"x"}}`))
	f.Add(302, []byte(``))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			return
		}
		requests := 0
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			requests++
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		})
		p := newProvider(t, Options{BaseURL: "http://127.0.0.1:1/v1", Transport: rt})
		got, err := p.Select(t.Context(), "q", catalogstest.Retail().Menu())
		if err != nil && !errors.Is(err, provider.ErrUnavailable) {
			t.Fatalf("Select error %v does not wrap ErrUnavailable", err)
		}
		if got != nil && (err != nil || got.Params == nil) {
			t.Fatalf("Select = %+v, %v", got, err)
		}
		if requests > 2 { // the same body answers the retry: one retry at most
			t.Fatalf("Select sent %d requests, want at most 2", requests)
		}
		s, err := p.Compose(t.Context(), templateCases[1].composeInput())
		if err != nil && !errors.Is(err, provider.ErrUnavailable) {
			t.Fatalf("Compose error %v does not wrap ErrUnavailable", err)
		}
		if err == nil && (s == "" || len(s) > MaxSentence || strings.ContainsAny(s, "\n\r\t\x00")) {
			t.Fatalf("Compose = %q", s)
		}
	})
}
