package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventschema"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/retail/storetest"
	"github.com/provenant/provenant/tool"
)

const countQuestion = "How many stores have condition OUT_OF_STOCK as of 2026-01-01T10:00:00Z?"

var injected = tool.Proposal{Tool: "get_price", Params: map[string]any{
	"store_id": "st-001; DROP TABLE events", "product_id": "pr-001", "as_of": "2026-01-01T09:00:00Z"}}

// amounts is a budget of n tool calls and plenty of everything else.
func amounts(calls int64) budget.Amount {
	return budget.Amount{USD: budget.Dollar, Tokens: 1000, ToolCalls: calls, SimSeconds: 60, RowsScanned: 1_000_000}
}

// auditFixture is a pipeline over the store fixture writing to a
// deterministic in-memory log.
type auditFixture struct {
	p     *pipeline.Pipeline
	store *eventlog.MemStore
}

func newAuditFixture(t *testing.T, prov provider.Provider, res pipeline.Resolver, cfg *budget.Config, withLog bool) auditFixture {
	t.Helper()
	wall, exec, own := enginetest.Parts(t, storetest.Fixture())
	if res == nil {
		res = own
	}
	opts := &pipeline.Options{Logger: slog.New(slog.DiscardHandler), ResultIDs: &ledger.Sequence{}, Budget: cfg}
	f := auditFixture{store: &eventlog.MemStore{}}
	if withLog {
		l, err := eventlog.NewLog(t.Context(), f.store, &eventlog.Options{Seed: 7, Deterministic: true, Anonymous: true})
		if err != nil {
			t.Fatal(err)
		}
		opts.Events = &pipeline.Events{Log: l, Surface: pipeline.SurfaceCLI}
	}
	f.p = pipeline.New(prov, wall, exec, res, opts)
	return f
}

// events returns the log's events, each checked against its committed
// JSON Schema.
func (f auditFixture) events(t *testing.T) []eventlog.Event {
	t.Helper()
	evs, err := eventlog.ReadAll(t.Context(), f.store)
	if err != nil {
		t.Fatal(err)
	}
	v, err := eventschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.ValidateEvent(line); err != nil {
			t.Errorf("event %s breaks its schema: %v", e.Type, err)
		}
	}
	if _, err := eventlog.VerifyEvents(t.Context(), evs, nil); err != nil {
		t.Errorf("verify: %v", err)
	}
	return evs
}

func types(evs []eventlog.Event) []eventlog.Type {
	out := make([]eventlog.Type, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// TestEvents_PerRequest: each kind of request writes its events in order,
// every one valid against its schema, linked by correlation (the request)
// and causation (the request's previous event).
func TestEvents_PerRequest(t *testing.T) {
	const (
		qr  = eventlog.TypeQuestionReceived
		ti  = eventlog.TypeToolInvoked
		tr  = eventlog.TypeToolReturned
		pr  = eventlog.TypePlanRejected
		gc  = eventlog.TypeGroundingChecked
		ab  = eventlog.TypeAbstained
		ae  = eventlog.TypeAnswerEmitted
		br  = eventlog.TypeBudgetReserved
		bex = eventlog.TypeBudgetExceeded
	)
	tests := []struct {
		name     string
		prov     provider.Provider
		res      pipeline.Resolver
		cfg      *budget.Config
		call     *tool.Proposal // a direct call instead of a question
		question string
		want     []eventlog.Type
		outcome  answer.Outcome
		kind     answer.ReasonKind
	}{
		{name: "answered", prov: rules.Provider{}, question: countQuestion,
			want: []eventlog.Type{qr, ti, tr, gc, ae}, outcome: answer.Answered},
		{name: "answered within budgets", prov: rules.Provider{}, question: countQuestion,
			cfg:  &budget.Config{Session: amounts(10), Question: amounts(1)},
			want: []eventlog.Type{qr, br, br, ti, tr, gc, ae}, outcome: answer.Answered},
		{name: "no tool", prov: fakeProvider{}, question: "q",
			want: []eventlog.Type{qr, ab, ae}, outcome: answer.Abstained, kind: answer.ReasonNoTool},
		{name: "wall rejection", prov: rules.Provider{}, call: &injected,
			want: []eventlog.Type{pr, ae}, outcome: answer.Rejected, kind: answer.ReasonRawQuery},
		{name: "unverified", prov: rules.Provider{}, res: lyingResolver{}, question: countQuestion,
			want: []eventlog.Type{qr, ti, tr, pr, ae}, outcome: answer.Error, kind: answer.ReasonVerificationFailed},
		{name: "question budget has no rows to scan", prov: rules.Provider{}, question: countQuestion,
			cfg:  &budget.Config{Session: amounts(10), Question: amounts(1).With(budget.RowsScanned, 0)},
			want: []eventlog.Type{qr, br, bex, pr, ab, ae}, outcome: answer.Abstained, kind: answer.ReasonBudgetExhausted},
		{name: "question budget has no tool call", prov: rules.Provider{}, question: countQuestion,
			cfg:  &budget.Config{Session: amounts(10), Question: amounts(0)},
			want: []eventlog.Type{qr, br, bex, pr, ab, ae}, outcome: answer.Abstained, kind: answer.ReasonBudgetExhausted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAuditFixture(t, tt.prov, tt.res, tt.cfg, true)
			var a answer.Answer
			if tt.call != nil {
				a = f.p.Call(t.Context(), *tt.call)
			} else {
				a = f.p.Ask(t.Context(), tt.question)
			}
			if a.Outcome() != tt.outcome || a.Reason().Kind != tt.kind {
				t.Fatalf("answer %s %q, want %s %s", a.Outcome(), a.Reason(), tt.outcome, tt.kind)
			}
			evs := f.events(t)
			if got := types(evs); !slices.Equal(got, tt.want) {
				t.Fatalf("events %v, want %v", got, tt.want)
			}
			for i, e := range evs {
				if e.Correlation != evs[0].Correlation || e.Correlation == "" {
					t.Errorf("event %d (%s): correlation %q, want the request's %q", i, e.Type, e.Correlation, evs[0].Correlation)
				}
				want := ""
				if i > 0 {
					want = evs[i-1].ID
				}
				if e.Causation != want {
					t.Errorf("event %d (%s): causation %q, want %q", i, e.Type, e.Causation, want)
				}
				if e.Time != int64(i+1) {
					t.Errorf("event %d (%s): logical time %d, want %d", i, e.Type, e.Time, i+1)
				}
			}
			last, err := evs[len(evs)-1].Decoded()
			if err != nil {
				t.Fatal(err)
			}
			em := last.(eventlog.AnswerEmitted)
			if em.Outcome != string(a.Outcome()) || !slices.Equal(em.ResultIDs, a.ResultIDs()) {
				t.Errorf("answer.emitted %+v, want outcome %s result ids %v", em, a.Outcome(), a.ResultIDs())
			}
			if (em.SentenceSHA256 != "") != (a.Text() != "") {
				t.Errorf("answer.emitted sentence hash %q for sentence %q", em.SentenceSHA256, a.Text())
			}
		})
	}
}

// TestEvents_NilLogChangesNothing: with no log (and no budgets) the
// pipeline answers byte for byte as with one.
func TestEvents_NilLogChangesNothing(t *testing.T) {
	questions := []string{countQuestion, "q", "", "How many stores are out of stock?"}
	with := newAuditFixture(t, rules.Provider{}, nil, nil, true)
	without := newAuditFixture(t, rules.Provider{}, nil, nil, false)
	for _, q := range questions {
		a, _ := json.Marshal(with.p.Ask(t.Context(), q))
		b, _ := json.Marshal(without.p.Ask(t.Context(), q))
		if !bytes.Equal(a, b) {
			t.Errorf("question %q: with a log %s, without %s", q, a, b)
		}
	}
	if evs := with.events(t); len(evs) < 2*len(questions) {
		t.Errorf("%d events for %d questions, want at least 2 each", len(evs), len(questions))
	}
}

// TestEvents_BudgetSettles: a question's unused budget returns to the
// session: a session of four tool calls, each question carving out two,
// answers three one-call questions (without the return, only two) and
// abstains on the fourth. (The rows a question scans are
// spent: the session holds ten times a question's.)
func TestEvents_BudgetSettles(t *testing.T) {
	session := amounts(4).With(budget.RowsScanned, 10_000_000)
	f := newAuditFixture(t, rules.Provider{}, nil, &budget.Config{Session: session, Question: amounts(2)}, true)
	var got []answer.ReasonKind
	for range 4 {
		got = append(got, f.p.Ask(t.Context(), countQuestion).Reason().Kind)
	}
	want := []answer.ReasonKind{"", "", "", answer.ReasonBudgetExhausted}
	if !slices.Equal(got, want) {
		t.Fatalf("reasons %q, want %q", got, want)
	}
	var exceeded []eventlog.BudgetExceeded
	for _, e := range f.events(t) {
		if e.Type == eventlog.TypeBudgetExceeded {
			p, _ := e.Decoded()
			exceeded = append(exceeded, p.(eventlog.BudgetExceeded))
		}
	}
	// The fourth question's budget (two calls) does not fit the one call
	// left, at the session's scope.
	if len(exceeded) != 1 || exceeded[0].Scope != "session" || !slices.Equal(exceeded[0].Short, []string{"tool_calls"}) ||
		exceeded[0].Remaining.ToolCalls != 1 || exceeded[0].Requested.ToolCalls != 2 {
		t.Errorf("budget.exceeded %+v, want one at session scope short of tool_calls, 2 requested, 1 remaining", exceeded)
	}
}

// failingLog refuses every append after the first n. It is an EventLog
// without Submit: every event is waited for as it is appended.
type failingLog struct {
	log *eventlog.Log
	n   int
}

func (f *failingLog) Append(ctx context.Context, e eventlog.Entry) (eventlog.Event, error) {
	if f.n == 0 {
		return eventlog.Event{}, errors.New("disk full")
	}
	f.n--
	return f.log.Append(ctx, e)
}

func (f *failingLog) Profile(id, name string, d time.Duration) { f.log.Profile(id, name, d) }
func (f *failingLog) Run() string                              { return f.log.Run() }

// failingStore is a BatchStore that refuses the writes fail names
// (counting from 1) and records the size of each write.
type failingStore struct {
	eventlog.MemStore
	fail   map[int]bool
	writes []int
}

func (f *failingStore) AppendBatch(ctx context.Context, events []eventlog.Event) error {
	f.writes = append(f.writes, len(events))
	if f.fail[len(f.writes)] {
		return errors.New("disk full")
	}
	return f.MemStore.AppendBatch(ctx, events)
}

// TestEvents_OneWritePerRequest: over an *eventlog.Log, a request's
// events are written together, once, before its answer returns; when
// that write fails the answer is error internal, the log records
// answer.emitted with outcome error (its causation naming no lost
// event), and the next request goes on with the seqs the failure did
// not use up.
func TestEvents_OneWritePerRequest(t *testing.T) {
	wall, exec, res := enginetest.Parts(t, storetest.Fixture())
	store := &failingStore{fail: map[int]bool{2: true}}
	l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Seed: 1, Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(rules.Provider{}, wall, exec, res, &pipeline.Options{Events: &pipeline.Events{Log: l}})
	if a := p.Ask(t.Context(), countQuestion); a.Outcome() != answer.Answered {
		t.Fatalf("first request: %s %v; want answered", a.Outcome(), a.Reason())
	}
	if !slices.Equal(store.writes, []int{5}) {
		t.Fatalf("writes of %v events; want one of 5 (question.received to answer.emitted)", store.writes)
	}
	a := p.Ask(t.Context(), countQuestion)
	if a.Outcome() != answer.Error || a.Reason().Kind != answer.ReasonInternal {
		t.Errorf("second request, its write failing: %s %v; want error internal", a.Outcome(), a.Reason())
	}
	if a := p.Ask(t.Context(), countQuestion); a.Outcome() != answer.Answered {
		t.Fatalf("third request: %s %v; want answered", a.Outcome(), a.Reason())
	}
	if !slices.Equal(store.writes, []int{5, 5, 1, 5}) {
		t.Errorf("writes of %v events; want [5 5 1 5]", store.writes)
	}
	evs, err := eventlog.ReadAll(t.Context(), store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eventlog.VerifyEvents(t.Context(), evs, nil); err != nil {
		t.Errorf("verify: %v", err)
	}
	if len(evs) != 11 {
		t.Fatalf("%d events stored; want 11", len(evs))
	}
	var em eventlog.AnswerEmitted
	if err := json.Unmarshal(evs[5].Payload, &em); err != nil || evs[5].Type != eventlog.TypeAnswerEmitted || em.Outcome != "error" || evs[5].Causation != "" || evs[5].Seq != 6 {
		t.Errorf("event 6: %s seq %d caused by %q, %+v; want the second request's answer.emitted, outcome error, seq 6, no cause", evs[5].Type, evs[5].Seq, evs[5].Causation, em)
	}
}

// TestEvents_UnrecordedAnswerDoesNotShip: an answer whose events the log
// refused ends in error internal, whichever event failed.
func TestEvents_UnrecordedAnswerDoesNotShip(t *testing.T) {
	for n := range 5 { // question.received, tool.invoked, tool.returned, grounding.checked, answer.emitted
		wall, exec, res := enginetest.Parts(t, storetest.Fixture())
		l, err := eventlog.NewLog(t.Context(), &eventlog.MemStore{}, &eventlog.Options{Seed: 1, Deterministic: true})
		if err != nil {
			t.Fatal(err)
		}
		p := pipeline.New(rules.Provider{}, wall, exec, res, &pipeline.Options{Events: &pipeline.Events{Log: &failingLog{l, n}}})
		a := p.Ask(t.Context(), countQuestion)
		if a.Outcome() != answer.Error || a.Reason().Kind != answer.ReasonInternal {
			t.Errorf("append %d fails: answer %s %q, want error internal", n, a.Outcome(), a.Reason())
		}
	}
}

// profileSink keeps timings.
type profileSink struct{ timings []eventlog.Timing }

func (p *profileSink) Record(t eventlog.Timing) { p.timings = append(p.timings, t) }

// TestEvents_TimingsGoToTheProfile: wall-clock durations are keyed by
// event id in the profile and appear in no event.
func TestEvents_TimingsGoToTheProfile(t *testing.T) {
	wall, exec, res := enginetest.Parts(t, storetest.Fixture())
	store := &eventlog.MemStore{}
	sink := &profileSink{}
	l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Seed: 1, Deterministic: true, Profile: sink,
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.New(rules.Provider{}, wall, exec, res, &pipeline.Options{Events: &pipeline.Events{Log: l}})
	p.Ask(t.Context(), countQuestion)
	evs, err := eventlog.ReadAll(t.Context(), store)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]eventlog.Type{}
	for _, e := range evs {
		ids[e.ID] = e.Type
	}
	names := map[string]eventlog.Type{}
	for _, tm := range sink.timings {
		if _, ok := ids[tm.Event]; !ok {
			t.Errorf("timing %s keyed by %q, no event of the log", tm.Name, tm.Event)
		}
		names[tm.Name] = ids[tm.Event]
	}
	if names["tool.execute"] != eventlog.TypeToolInvoked || names["request"] != eventlog.TypeAnswerEmitted {
		t.Errorf("profile names %v, want tool.execute on tool.invoked and request on answer.emitted", names)
	}
}

// estimating is an executor that bounds every call's rows in advance.
type estimating struct {
	pipeline.Executor
	rows int64
}

func (e estimating) EstimateRows(tool.Call) (int64, bool) { return e.rows, true }

// TestEvents_RowEstimate: a call reserves the executor's row estimate when
// it gives one, and is denied, short of rows_scanned, when the estimate
// exceeds what the question has left.
func TestEvents_RowEstimate(t *testing.T) {
	tests := []struct {
		name     string
		estimate int64
		want     eventlog.Type // the event after the session's reservation
		kind     answer.ReasonKind
	}{
		{"within", 500, eventlog.TypeBudgetReserved, ""},
		{"beyond", 2_000_000, eventlog.TypeBudgetExceeded, answer.ReasonBudgetExhausted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wall, exec, res := enginetest.Parts(t, storetest.Fixture())
			store := &eventlog.MemStore{}
			l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Seed: 1, Deterministic: true})
			if err != nil {
				t.Fatal(err)
			}
			p := pipeline.New(rules.Provider{}, wall, estimating{exec, tt.estimate}, res, &pipeline.Options{
				Events: &pipeline.Events{Log: l},
				Budget: &budget.Config{Session: amounts(10), Question: amounts(1)},
			})
			if a := p.Ask(t.Context(), countQuestion); a.Reason().Kind != tt.kind {
				t.Fatalf("answer %s %q, want reason %q", a.Outcome(), a.Reason(), tt.kind)
			}
			evs, err := eventlog.ReadAll(t.Context(), store)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) < 3 || evs[2].Type != tt.want {
				t.Fatalf("events %v, want %s third", types(evs), tt.want)
			}
			pl, _ := evs[2].Decoded()
			switch pl := pl.(type) {
			case eventlog.BudgetReserved:
				if pl.Amount.RowsScanned != tt.estimate || pl.Amount.ToolCalls != 1 {
					t.Errorf("reserved %+v, want the estimate %d and one tool call", pl.Amount, tt.estimate)
				}
			case eventlog.BudgetExceeded:
				if pl.Requested.RowsScanned != tt.estimate || len(pl.Short) != 1 || pl.Short[0] != "rows_scanned" {
					t.Errorf("exceeded %+v, want rows_scanned short of the estimate %d", pl, tt.estimate)
				}
			}
		})
	}
}

// metered is the rules provider reporting model tokens for each job.
type metered struct {
	rules.Provider
	selectTokens, composeTokens int64
}

func (m metered) Name() string { return "metered" }

func (m metered) Select(ctx context.Context, q string, menu []tool.Def) (*tool.Proposal, error) {
	provider.Report(ctx, provider.Usage{Model: "metered", Input: m.selectTokens})
	return m.Provider.Select(ctx, q, menu)
}

func (m metered) Compose(ctx context.Context, in provider.ComposeInput) (string, error) {
	provider.Report(ctx, provider.Usage{Model: "metered", Output: m.composeTokens})
	return m.Provider.Compose(ctx, in)
}

// meteredPrice is the price of the metered provider's model: $1000 per
// million input tokens, $2000 per million output tokens, so its 30
// selection tokens cost 30000 micro-dollars and its 40 composition
// tokens 80000.
var meteredPrice = map[string]budget.Price{"metered": {Input: 1000 * budget.Dollar, Output: 2000 * budget.Dollar}}

// TestEvents_ModelTokens: the tokens a provider reports, and their usd
// at the model's price, are charged to the question's budget: the
// selection's with the tool call, the composition's at the end; either
// not fitting, in tokens or in usd, abstains budget_exhausted naming the
// component.
func TestEvents_ModelTokens(t *testing.T) {
	tests := []struct {
		name     string
		tokens   int64         // the question's budget
		usd      budget.Micros // the question's budget
		kind     answer.ReasonKind
		reserved []eventlog.Amount // tokens and usd of each question-scope budget.reserved
		short    string            // the component a budget.exceeded is short of
	}{
		{"both fit", 100, budget.Dollar, "", []eventlog.Amount{{Tokens: 30, USDMicros: 30000}, {Tokens: 40, USDMicros: 80000}}, ""},
		{"the sentence does not fit", 50, budget.Dollar, answer.ReasonBudgetExhausted, []eventlog.Amount{{Tokens: 30, USDMicros: 30000}}, "tokens"},
		{"the selection does not fit", 20, budget.Dollar, answer.ReasonBudgetExhausted, nil, "tokens"},
		{"the sentence's usd does not fit", 100, 100_000, answer.ReasonBudgetExhausted, []eventlog.Amount{{Tokens: 30, USDMicros: 30000}}, "usd_micros"},
		{"the selection's usd does not fit", 100, 29_999, answer.ReasonBudgetExhausted, nil, "usd_micros"},
		{"usd exactly enough", 100, 110_000, "", []eventlog.Amount{{Tokens: 30, USDMicros: 30000}, {Tokens: 40, USDMicros: 80000}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &budget.Config{Session: amounts(10), Question: amounts(1).With(budget.Tokens, tt.tokens).With(budget.USD, int64(tt.usd)), Prices: meteredPrice}
			f := newAuditFixture(t, metered{selectTokens: 30, composeTokens: 40}, nil, cfg, true)
			a := f.p.Ask(t.Context(), countQuestion)
			if a.Reason().Kind != tt.kind {
				t.Fatalf("answer %s %q, want reason %q", a.Outcome(), a.Reason(), tt.kind)
			}
			if tt.short == "usd_micros" && !strings.Contains(a.Reason().Detail, "usd") {
				t.Errorf("abstention %q does not name usd", a.Reason().Detail)
			}
			var reserved []eventlog.Amount
			var short []string
			for _, e := range f.events(t) {
				pl, _ := e.Decoded()
				switch pl := pl.(type) {
				case eventlog.BudgetReserved:
					if pl.Scope == "question" {
						reserved = append(reserved, eventlog.Amount{Tokens: pl.Amount.Tokens, USDMicros: pl.Amount.USDMicros})
					}
				case eventlog.BudgetExceeded:
					short = append(short, pl.Short...)
				}
			}
			slices.Sort(short)
			short = slices.Compact(short) // a denied selection is asked again at the end
			wantShort := []string(nil)
			if tt.short != "" {
				wantShort = []string{tt.short}
			}
			if !slices.Equal(reserved, tt.reserved) || !slices.Equal(short, wantShort) {
				t.Errorf("question reservations %+v, short of %v; want %+v, %v", reserved, short, tt.reserved, wantShort)
			}
		})
	}
}

// TestEvents_ModelWithoutPrice: tokens of a model the budget has no
// price for are never charged as free: the request ends in error.
func TestEvents_ModelWithoutPrice(t *testing.T) {
	cfg := &budget.Config{Session: amounts(10), Question: amounts(1)}
	f := newAuditFixture(t, metered{selectTokens: 30, composeTokens: 40}, nil, cfg, true)
	if a := f.p.Ask(t.Context(), countQuestion); a.Outcome() != answer.Error || a.Reason().Kind != answer.ReasonInternal {
		t.Fatalf("answer %s %q, want error internal", a.Outcome(), a.Reason())
	}
}

// TestEvents_SharedSessionBudget: pipelines given one SessionBudget (as
// two processes on one state database are) draw from one session
// budget: a session of two calls answers one question on each and
// abstains on the third, wherever it is asked, and the account shows the
// two calls spent.
func TestEvents_SharedSessionBudget(t *testing.T) {
	cfg := &budget.Config{Session: amounts(2).With(budget.RowsScanned, 10_000_000).With(budget.Tokens, 10_000), Question: amounts(1)}
	store := &budget.MemStore{}
	sess, err := budget.OpenSession(t.Context(), store, "shared", cfg.Session)
	if err != nil {
		t.Fatal(err)
	}
	newPipeline := func() *pipeline.Pipeline {
		wall, exec, res := enginetest.Parts(t, storetest.Fixture())
		return pipeline.New(rules.Provider{}, wall, exec, res, &pipeline.Options{
			Logger: slog.New(slog.DiscardHandler), ResultIDs: &ledger.Sequence{}, Budget: cfg, SessionBudget: sess})
	}
	p1, p2 := newPipeline(), newPipeline()
	for i, tt := range []struct {
		p    *pipeline.Pipeline
		want answer.Outcome
	}{{p1, answer.Answered}, {p2, answer.Answered}, {p1, answer.Abstained}} {
		if a := tt.p.Ask(t.Context(), countQuestion); a.Outcome() != tt.want {
			t.Fatalf("question %d: %s %q, want %s", i+1, a.Outcome(), a.Reason(), tt.want)
		}
	}
	acct, err := store.Account(t.Context(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	if acct.Spent.ToolCalls != 2 || acct.Remaining.ToolCalls != 0 || !acct.Reserved.IsZero() {
		t.Errorf("account %+v: want 2 tool calls spent, none left, nothing reserved", acct)
	}
}
