package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/provenant/provenant/engine/enginetest"
	"log/slog"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/tool"
)

// fakeProvider proposes a fixed call (or none) and composes a fixed
// sentence; either job can fail or panic.
type fakeProvider struct {
	proposal    *tool.Proposal
	selectErr   error
	composeErr  error
	panicSelect bool
	sentence    string
}

func (f fakeProvider) Name() string { return "fake" }

func (f fakeProvider) Select(context.Context, string, []tool.Def) (*tool.Proposal, error) {
	if f.panicSelect {
		panic("model exploded")
	}
	return f.proposal, f.selectErr
}

func (f fakeProvider) Compose(context.Context, provider.ComposeInput) (string, error) {
	return f.sentence, f.composeErr
}

// lyingResolver fails every verdict's completeness clause.
type lyingResolver struct{}

func (lyingResolver) Resolve(context.Context, tool.Call, fact.Result) (fact.Verdict, error) {
	return fact.Verdict{ProvenanceValid: true, ValueMatches: true}, nil
}

type recorder struct{ recs []pipeline.Record }

func (r *recorder) Observe(rec pipeline.Record) { r.recs = append(r.recs, rec) }

func newPipeline(t *testing.T, p provider.Provider, res pipeline.Resolver, logs *bytes.Buffer, obs pipeline.Observer) *pipeline.Pipeline {
	t.Helper()
	wall, exec, own := enginetest.Parts(t, storetest.Fixture())
	if res == nil {
		res = own
	}
	return pipeline.New(p, wall, exec, res, &pipeline.Options{Logger: slog.New(slog.NewJSONHandler(logs, nil)), Observer: obs})
}

var stateCall = &tool.Proposal{Tool: "get_stock_state", Params: map[string]any{
	"store_id": "st-001", "product_id": "pr-001", "as_of": "2026-01-01T09:00:00Z"}}

func TestAsk_Terminals(t *testing.T) {
	unavailable := fmt.Errorf("call model: %w", provider.ErrUnavailable)
	tests := []struct {
		name       string
		provider   provider.Provider
		resolver   pipeline.Resolver
		question   string
		outcome    answer.Outcome
		stage      answer.Stage
		kind       answer.ReasonKind
		wantValue  bool
		wantText   string
		validation string
	}{
		{"answered", fakeProvider{proposal: stateCall, sentence: " It is out of stock. "}, nil, "q",
			answer.Answered, "", "", true, "It is out of stock.", "passed"},
		{"abstained", fakeProvider{}, nil, "q", answer.Abstained, "", "no_tool", false, "", "skipped"},
		{"empty question", fakeProvider{proposal: stateCall}, nil, "  \n\t ", answer.Abstained, "", "empty_question", false, "", "skipped"},
		{"too long", fakeProvider{proposal: stateCall}, nil, strings.Repeat("x", pipeline.MaxQuestionLength+1), answer.Abstained, "", "question_too_long", false, "", "skipped"},
		{"the limit counts characters, not bytes", fakeProvider{proposal: stateCall, sentence: "It is out of stock."}, nil, strings.Repeat("é", pipeline.MaxQuestionLength),
			answer.Answered, "", "", true, "It is out of stock.", "passed"},
		{"select unavailable", fakeProvider{selectErr: unavailable}, nil, "q", answer.Error, answer.StageSelect, answer.ReasonModelUnavailable, false, "", "skipped"},
		{"compose unavailable keeps the fact", fakeProvider{proposal: stateCall, composeErr: unavailable}, nil, "q",
			answer.Error, answer.StageCompose, answer.ReasonModelUnavailable, true, "", "passed"},
		{"empty sentence is no sentence", fakeProvider{proposal: stateCall, sentence: "   "}, nil, "q",
			answer.Error, answer.StageCompose, answer.ReasonModelUnavailable, true, "", "passed"},
		{"hallucinated tool", fakeProvider{proposal: &tool.Proposal{Tool: "drop_tables", Params: map[string]any{}}}, nil, "q",
			answer.Rejected, "", "unregistered", false, "", "unregistered"},
		{"raw query", fakeProvider{proposal: &tool.Proposal{Tool: "get_price", Params: map[string]any{
			"store_id": "st-001' OR '1'='1", "product_id": "pr-001", "as_of": "2026-01-01T09:00:00Z"}}}, nil, "q",
			answer.Rejected, "", "raw_query", false, "", "raw_query"},
		{"failed verdict never ships", fakeProvider{proposal: stateCall, sentence: "s"}, lyingResolver{}, "q",
			answer.Error, answer.StageResolve, answer.ReasonVerificationFailed, false, "", "passed"},
		{"panic is contained", fakeProvider{panicSelect: true}, nil, "q", answer.Error, answer.StageSelect, answer.ReasonInternal, false, "", "skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			rec := &recorder{}
			p := newPipeline(t, tt.provider, tt.resolver, &logs, rec)
			a := p.Ask(t.Context(), tt.question)
			if a.Outcome() != tt.outcome || a.Stage() != tt.stage || a.Reason().Kind != tt.kind {
				t.Errorf("Ask() = (%s, %q, %q), want (%s, %q, %q)", a.Outcome(), a.Stage(), a.Reason(), tt.outcome, tt.stage, tt.kind)
			}
			if _, ok := a.Value(); ok != tt.wantValue {
				t.Errorf("Value() present = %t, want %t", ok, tt.wantValue)
			}
			if a.Text() != tt.wantText {
				t.Errorf("Text() = %q, want %q", a.Text(), tt.wantText)
			}
			// Exactly one log line and one observation per request.
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			var askLines []map[string]any
			for _, l := range lines {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("log line is not JSON: %q", l)
				}
				if m["msg"] == "ask" {
					askLines = append(askLines, m)
				}
			}
			if len(askLines) != 1 || len(rec.recs) != 1 {
				t.Fatalf("got %d ask log lines and %d records, want 1 and 1", len(askLines), len(rec.recs))
			}
			line := askLines[0]
			for _, k := range []string{pipeline.KeyOutcome, pipeline.KeyTool, pipeline.KeyValidation, pipeline.KeyProvenance, pipeline.KeyErrorKind, pipeline.KeyDeterministicMicros} {
				if _, ok := line[k]; !ok {
					t.Errorf("log line lacks %q: %v", k, line)
				}
			}
			if line[pipeline.KeyOutcome] != string(tt.outcome) || line[pipeline.KeyValidation] != tt.validation {
				t.Errorf("log line = %v", line)
			}
			// A failure says why on its log line.
			if tt.outcome == answer.Error && line[pipeline.KeyErrorDetail] == "" {
				t.Errorf("error without %s: %v", pipeline.KeyErrorDetail, line)
			}
			if tt.stage == answer.StageSelect && tt.kind == answer.ReasonModelUnavailable &&
				!strings.Contains(line[pipeline.KeyErrorDetail].(string), "call model: model unavailable") {
				t.Errorf("%s = %q, want the provider's error", pipeline.KeyErrorDetail, line[pipeline.KeyErrorDetail])
			}
			// A rejected value never reaches the log or the answer.
			out, _ := json.Marshal(a)
			if strings.Contains(logs.String(), "'1'='1") || strings.Contains(string(out), "'1'='1") || strings.Contains(string(out), "drop_tables") {
				t.Errorf("rejected value echoed: %s / %s", out, logs.String())
			}
		})
	}
}

// TestAsk_ValueComesFromTheTool checks that the stapled value is the
// executor's, whatever the model says in its sentence.
func TestAsk_ValueComesFromTheTool(t *testing.T) {
	var logs bytes.Buffer
	p := newPipeline(t, fakeProvider{proposal: stateCall, sentence: "It is IN_STOCK with 99 units."}, nil, &logs, nil)
	a := p.Ask(t.Context(), "q")
	v, ok := a.Value()
	if !ok || v.Text != string(retail.OutOfStock) {
		t.Fatalf("Value() = %+v, want OUT_OF_STOCK (the tie-winning evt-000004)", v)
	}
	prov, _ := a.Provenance()
	if ids := prov.EventIDs(); len(ids) != 1 || ids[0] != "evt-000004" {
		t.Errorf("provenance = %v, want [evt-000004]", ids)
	}
}

func TestAsk_RulesProviderEndToEnd(t *testing.T) {
	var logs bytes.Buffer
	p := newPipeline(t, rules.Provider{}, nil, &logs, nil)
	a := p.Ask(t.Context(), "How many stores have condition OUT_OF_STOCK as of 2026-01-01T10:00:00Z?")
	v, _ := a.Value()
	if a.Outcome() != answer.Answered || v.Count != 2 {
		t.Fatalf("Ask() = %s %+v", a.Outcome(), v)
	}
	if !strings.HasPrefix(a.Text(), "2 stores have condition OUT_OF_STOCK") {
		t.Errorf("Text() = %q", a.Text())
	}
}

// TestCall_DirectToolCall: a client's own tool call takes the same wall,
// execution, re-derivation and stapling, with a sentence rendered by code;
// result ids are never reused.
func TestCall_DirectToolCall(t *testing.T) {
	var logs bytes.Buffer
	// A provider that must not be asked: Call needs no model.
	p := newPipeline(t, fakeProvider{panicSelect: true, composeErr: provider.ErrUnavailable}, nil, &logs, nil)
	a := p.Call(t.Context(), *stateCall)
	if a.Outcome() != answer.Answered || a.Text() != "The stock state of pr-001 at st-001 as of 2026-01-01T09:00:00Z is OUT_OF_STOCK." {
		t.Fatalf("Call() = %s %q", a.Outcome(), a.Text())
	}
	b := p.Call(t.Context(), *stateCall)
	if ids := append(a.ResultIDs(), b.ResultIDs()...); len(ids) != 2 || ids[0] >= ids[1] {
		t.Errorf("result ids %v, want two increasing ids", ids)
	}
	rej := p.Call(t.Context(), tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": "st-001; DROP TABLE events", "product_id": "pr-001", "as_of": "2026-01-01T09:00:00Z"}})
	if rej.Outcome() != answer.Rejected || rej.Reason().Kind != answer.ReasonRawQuery || len(rej.ResultIDs()) != 0 {
		t.Errorf("Call(raw query) = %s %q %v", rej.Outcome(), rej.Reason(), rej.ResultIDs())
	}
	if n := strings.Count(logs.String(), `"msg":"ask"`); n != 3 {
		t.Errorf("%d log lines for 3 calls", n)
	}
}

func TestCall_Scope(t *testing.T) {
	var logs bytes.Buffer
	p := newPipeline(t, fakeProvider{}, nil, &logs, nil)
	east := pipeline.WithScope(t.Context(), tool.StoresOnly("st-001"))
	price := func(store string) tool.Proposal {
		return tool.Proposal{Tool: "get_price", Params: map[string]any{"store_id": store, "product_id": "pr-001", "as_of": "2026-01-02T00:00:00Z"}}
	}
	count := tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-01T10:00:00Z"}}

	if a := p.Call(east, price("st-001")); a.Outcome() != answer.Answered {
		t.Errorf("in scope: %s %s", a.Outcome(), a.Reason())
	}
	// A store outside the scope and a store that does not exist are
	// rejected alike: the caller learns nothing about which exists.
	out, missing := p.Call(east, price("st-002")), p.Call(east, price("st-999"))
	if out.Outcome() != answer.Rejected || out.Reason().Kind != answer.ReasonOutOfScope || out.Reason() != missing.Reason() {
		t.Errorf("out of scope %q, missing %q: want the same out_of_scope rejection", out.Reason(), missing.Reason())
	}
	// Without a scope the same missing store is an ordinary invalid value.
	if a := p.Call(t.Context(), price("st-999")); a.Reason().Kind != answer.ReasonInvalid {
		t.Errorf("local user, missing store: %q", a.Reason())
	}
	// A global question counts only the stores in scope.
	a := p.Call(east, count)
	if v, _ := a.Value(); a.Outcome() != answer.Answered || v.Count != 1 || v.IDs[0] != "st-001" {
		t.Errorf("scoped count = %s %+v, want st-001 only", a.Outcome(), v)
	}
	if v, _ := p.Call(t.Context(), count).Value(); v.Count != 2 {
		t.Errorf("unscoped count = %+v, want 2 stores", v)
	}
}

// TestCall_FailsClosed: a pipeline whose default scope is empty (a surface
// that authenticates) shows a request without a scope nothing.
func TestCall_FailsClosed(t *testing.T) {
	wall, exec, res := enginetest.Parts(t, storetest.Fixture())
	none := tool.StoresOnly()
	p := pipeline.New(fakeProvider{}, wall, exec, res, &pipeline.Options{DefaultScope: &none})
	if a := p.Call(t.Context(), *stateCall); a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonOutOfScope {
		t.Errorf("store tool = %s %q, want out_of_scope", a.Outcome(), a.Reason())
	}
	a := p.Call(t.Context(), tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-01T10:00:00Z"}})
	if v, _ := a.Value(); a.Outcome() != answer.Absence || v.Count != 0 {
		t.Errorf("global count = %s %+v, want a grounded zero", a.Outcome(), v)
	}
}

// TestAsk_RefusesUngroundedSentence: a composed sentence with a numeral no
// result backs never ships. By default the fact ships with a sentence
// rendered by code; configured to refuse, the pipeline abstains.
func TestAsk_RefusesUngroundedSentence(t *testing.T) {
	count := &tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-01T10:00:00Z"}}
	tests := []struct {
		name     string
		sentence string
		refuse   bool
		outcome  answer.Outcome
		text     string
		verdict  grounding.Verdict
	}{
		{"grounded", "2 stores have condition OUT_OF_STOCK.", false, answer.Answered, "2 stores have condition OUT_OF_STOCK.", grounding.Pass},
		{"fabricated count falls back", "5 stores have condition OUT_OF_STOCK.", false, answer.Answered,
			"2 stores have condition OUT_OF_STOCK as of 2026-01-01T10:00:00Z: st-001, st-002.", grounding.Refuse},
		{"fabricated count refused", "5 stores have condition OUT_OF_STOCK.", true, answer.Abstained, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			d := storetest.Fixture()
			wall, exec, res := enginetest.Parts(t, d)
			p := pipeline.New(fakeProvider{proposal: count, sentence: tt.sentence}, wall, exec, res, &pipeline.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), RefuseUngrounded: tt.refuse})
			a := p.Ask(t.Context(), "How many stores are out of stock?")
			if a.Outcome() != tt.outcome || a.Text() != tt.text {
				t.Fatalf("Ask() = %s %q, want %s %q", a.Outcome(), a.Text(), tt.outcome, tt.text)
			}
			if tt.verdict != "" {
				rep, ok := a.Grounding()
				if !ok || rep.Verdict != tt.verdict {
					t.Errorf("grounding = %+v", rep)
				}
			}
			if tt.refuse && a.Reason().Kind != answer.ReasonGroundingRefused {
				t.Errorf("reason %q", a.Reason())
			}
			if strings.Contains(logs.String(), `"grounding":"refused"`) != (tt.verdict == grounding.Refuse || tt.refuse) {
				t.Errorf("log line: %s", logs.String())
			}
		})
	}
}

// TestAsk_BelowThreshold: with a calibrated policy, an answer whose
// confidence is below its class's threshold is not shipped.
func TestAsk_BelowThreshold(t *testing.T) {
	pol := &calibration.Policy{Target: 0.98, Confidence: 0.95, MinSupport: 30,
		Global:  calibration.Threshold{Threshold: 0.9},
		Classes: map[string]calibration.Threshold{calibration.ClassAggregate: {Threshold: 0.4}}}
	tests := []struct {
		name     string
		proposal *tool.Proposal
		sentence string
		outcome  answer.Outcome
	}{
		{"grounded scalar passes", stateCall, "It is out of stock.", answer.Answered},
		{"refused sentence halves the score below 0.9", stateCall, "It is out of stock, 7 times over.", answer.Abstained},
		{"the aggregate class has its own, lower threshold", &tool.Proposal{Tool: "count_stores_with_condition",
			Params: map[string]any{"condition": "OUT_OF_STOCK", "as_of": "2026-01-01T10:00:00Z"}}, "9 stores.", answer.Answered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := storetest.Fixture()
			wall, exec, res := enginetest.Parts(t, d)
			p := pipeline.New(fakeProvider{proposal: tt.proposal, sentence: tt.sentence}, wall, exec, res, &pipeline.Options{Abstention: pol})
			a := p.Ask(t.Context(), "q")
			if a.Outcome() != tt.outcome {
				t.Fatalf("Ask() = %s %q, want %s", a.Outcome(), a.Reason(), tt.outcome)
			}
			if tt.outcome == answer.Abstained && a.Reason().Kind != answer.ReasonBelowThreshold {
				t.Errorf("reason %q", a.Reason())
			}
			if c, ok := a.Confidence(); tt.outcome == answer.Answered && (!ok || c.Score < 0.4) {
				t.Errorf("confidence %+v", c)
			}
		})
	}
}
