package pipeline

// The pipeline's audit trail and budgets (issue 11): typed events for
// every request through a consumer-declared EventLog, and the per-session
// and per-question budgets a request spends from.
//
// One request's events, in the order they are written:
//
//	question.received                  (Ask only; a direct Call has no question)
//	budget.reserved  scope session     (the question's budget carved out of the session's)
//	plan.rejected    layer wall        (the wall refused the proposal)
//	budget.reserved  scope question    (before each tool call) or
//	budget.exceeded  + plan.rejected layer budget (the call did not fit)
//	tool.invoked, tool.returned        (around each executed call)
//	plan.rejected    layer sandbox     (a free SQL statement refused)
//	plan.rejected    layer resolver    (a result that did not verify)
//	grounding.checked                  (a composed sentence held to the ledger)
//	abstained                          (an abstention, with its reason kind)
//	answer.emitted                     (always last)
//
// Each event's correlation id is the request's id and its causation the
// request's previous event, so a request reads as one chain. The logical
// time is a counter of the pipeline's events: appends are serialised, so
// the producer's times and sequence numbers rise together, and two runs
// of the same questions in the same order write the same events. Wall-
// clock durations go only to the log's profile, keyed by event id.
//
// Over an *eventlog.Log (a Submitter) a request's events are queued as
// they happen and waited for once, after answer.emitted and before the
// answer is returned, so one commit (shared with concurrent requests)
// acknowledges them all; a call that writes also waits before it runs,
// so its tool.invoked is acknowledged first. If the wait fails the
// answer is error internal, and answer.emitted with outcome error is
// appended after the request's last acknowledged event.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/task"
	"github.com/provenant/provenant/tool"
)

// EventLog is where the pipeline writes its events (an *eventlog.Log).
// Append returning nil means the event is acknowledged.
type EventLog interface {
	Append(ctx context.Context, e eventlog.Entry) (eventlog.Event, error)
	Profile(eventID, name string, d time.Duration)
	Run() string
}

// Submitter is an EventLog that can take an event and acknowledge it
// later (an *eventlog.Log: Submit, then Pending.Wait). With one, the
// pipeline waits for its events once per request, before the answer
// leaves, and before a call that writes; concurrent requests then share
// the log's writes (group commit). after is the request's previous
// event: an event is never stored after its cause failed.
type Submitter interface {
	Submit(ctx context.Context, e eventlog.Entry, after *eventlog.Pending) (eventlog.Event, *eventlog.Pending, error)
}

// RowEstimator is implemented by an Executor that can bound, before it
// runs a call, how many rows the call may scan. Without it a call
// reserves what remains of its question's rows_scanned budget.
type RowEstimator interface {
	EstimateRows(c tool.Call) (int64, bool)
}

// The surfaces a question arrives by (eventlog's question.received).
const (
	SurfaceCLI  = "cli"
	SurfaceHTTP = "http"
	SurfaceMCP  = "mcp"
	SurfaceEval = "eval"
)

// Events configures the pipeline's event log. Pipelines given one *Events
// share its logical clock and request count (eval's two engines, say); an
// Events must not be copied once used.
type Events struct {
	// Log receives the events; required.
	Log EventLog
	// Producer names the pipeline in the log; "" means "pipeline".
	Producer string
	// Surface is the surface questions arrive by (SurfaceCLI, ...); ""
	// means SurfaceCLI.
	Surface string
	// Session names the session in question.received and the session
	// budget's events; "" means "session".
	Session string
	// Clock is the logical time the first event follows: 0 for a new
	// log, the run's last time when a log is resumed. Request ids
	// count on from it too, so a resumed run never repeats one.
	Clock int64

	mu       sync.Mutex // serialises appends, so logical time follows seq
	started  bool
	clock    int64
	requests int64
}

func (e *Events) producer() string { return cmp.Or(e.Producer, "pipeline") }
func (e *Events) surface() string  { return cmp.Or(e.Surface, SurfaceCLI) }
func (e *Events) session() string  { return cmp.Or(e.Session, "session") }

// start sets the clock and the request count from Clock on first use;
// e.mu is held.
func (e *Events) start() {
	if !e.started {
		e.started, e.clock, e.requests = true, e.Clock, e.Clock
	}
}

// ErrEventLog wraps a failed append: the request it belonged to does not
// ship (an answer the log could not record ends in error internal).
var ErrEventLog = errors.New("event log append failed")

// SessionBudget is the account of the session's budget that each
// question's budget is reserved from and settled back to: a
// *budget.Session, over a state database's budget.Store when processes
// share it (budget/postgres) or a restart must find it (budget/duckdb).
type SessionBudget interface {
	Reserve(ctx context.Context, a budget.Amount) (budget.Amount, error)
	Settle(ctx context.Context, reserved, used budget.Amount) (budget.Amount, error)
}

// audit is a pipeline's event and budget state.
type audit struct {
	events   *Events // nil: no log
	budgets  *budget.Config
	session  SessionBudget // nil: no budgets
	requests atomic.Int64  // without events
}

// newAudit validates and fills the event and budget options. It panics on
// a programming error (a surface validates user input first).
func newAudit(ev *Events, cfg *budget.Config, shared SessionBudget) *audit {
	a := &audit{budgets: cfg}
	if ev != nil {
		if ev.Log == nil {
			panic("pipeline: Events needs a Log")
		}
		a.events = ev
	}
	if cfg != nil {
		if err := cfg.Validate(); err != nil {
			panic("pipeline: " + err.Error())
		}
		if shared != nil {
			a.session = shared
			return a
		}
		name := "session"
		if a.events != nil {
			name = a.events.session()
		}
		// The session's own account, in this process's memory: a
		// MemStore neither fails nor waits.
		s, err := budget.OpenSession(context.Background(), &budget.MemStore{}, name, cfg.Session)
		if err != nil {
			panic("pipeline: " + err.Error())
		}
		a.session = s
	}
	return a
}

// trace is one request's audit state, carried on its Record.
type trace struct {
	id        string // the request's (question's) id: the correlation id
	last      string // the request's last event id: the next one's causation
	proposer  string // who proposed its calls: model, rules or client
	start     time.Time
	bud       *budget.Budget // the question's budget, nil without budgets
	calls     int
	resultIDs []string
	exhausted *budget.DeniedError // the first denial
	err       error               // the first failed append
	// With a Submitter (async): pend is the last event submitted (nil once it
	// failed and none before it stood), sent the events submitted since
	// the last wait, acked the last event known acknowledged.
	async   bool
	pend    *eventlog.Pending
	sent    []sentEvent
	acked   sentEvent
	meter   *provider.Meter // the model's tokens, with budgets
	charged budget.Amount   // of the meter's tokens and their cost, what was charged
}

// begin starts a request's trace.
func (p *Pipeline) begin(proposer string) *trace {
	ev := p.audit.events
	if ev == nil {
		n := p.audit.requests.Add(1)
		return &trace{id: "q" + strconv.FormatInt(n, 10), proposer: proposer, start: time.Now()}
	}
	ev.mu.Lock()
	ev.start()
	ev.requests++
	id := ev.Log.Run() + ":q" + strconv.FormatInt(ev.requests, 10)
	ev.mu.Unlock()
	return &trace{id: id, proposer: proposer, start: time.Now()}
}

// sentEvent is a submitted event of a request.
type sentEvent struct {
	id   string
	pend *eventlog.Pending
}

// emit appends one event of the request. The append is detached from the
// request's cancellation: a request that timed out is still recorded.
// Over a Submitter the event is only queued: await, before the answer
// leaves, learns whether it was acknowledged.
func (p *Pipeline) emit(ctx context.Context, tr *trace, pl eventlog.Payload) string {
	ev := p.audit.events
	if ev == nil || tr == nil {
		return ""
	}
	ctx = context.WithoutCancel(ctx)
	ev.mu.Lock()
	ev.start()
	ev.clock++
	entry := eventlog.Entry{
		Producer: ev.producer(), Time: ev.clock,
		Causation: tr.last, Correlation: tr.id, Payload: pl,
	}
	var (
		e    eventlog.Event
		pend *eventlog.Pending
		err  error
	)
	sub, async := ev.Log.(Submitter)
	if async {
		e, pend, err = sub.Submit(ctx, entry, tr.pend)
	} else {
		e, err = ev.Log.Append(ctx, entry)
	}
	ev.mu.Unlock()
	if err != nil {
		tr.fail(fmt.Errorf("%w: %s: %w", ErrEventLog, pl.EventType(), err))
		return ""
	}
	tr.last = e.ID
	if async {
		tr.async, tr.pend = true, pend
		tr.sent = append(tr.sent, sentEvent{e.ID, pend})
	}
	return e.ID
}

// fail records a failed append. Over a Submitter an event fails with
// every event submitted after it, so the request's acknowledged events
// are a prefix of those it sent: fail finds the last (once an event is
// known to have failed, those before it are known too; after a refusal
// of Submit's own, it waits for them), and the request's next event is
// caused by it.
func (tr *trace) fail(err error) {
	if tr.err == nil {
		tr.err = err
	}
	if tr.pend == nil && len(tr.sent) == 0 {
		return
	}
	for _, s := range tr.sent {
		if s.pend.Wait(context.Background()) != nil {
			break
		}
		tr.acked = s
	}
	tr.sent = nil
	tr.last, tr.pend = tr.acked.id, tr.acked.pend
}

// await waits until the request's events so far are acknowledged, and
// reports whether they are; a failure is recorded in tr.err.
func (p *Pipeline) await(ctx context.Context, tr *trace) bool {
	if tr == nil || tr.pend == nil || len(tr.sent) == 0 {
		return tr == nil || tr.err == nil
	}
	if err := tr.pend.Wait(context.WithoutCancel(ctx)); err != nil {
		tr.fail(fmt.Errorf("%w: %w", ErrEventLog, err))
		return false
	}
	tr.acked, tr.sent = tr.sent[len(tr.sent)-1], nil
	return tr.err == nil
}

// profile records a wall-clock duration against an event, never in it.
func (p *Pipeline) profile(id, name string, d time.Duration) {
	if ev := p.audit.events; ev != nil && id != "" {
		ev.Log.Profile(id, name, d)
	}
}

// admit records a question's arrival and carves its budget out of the
// session's. It returns the abstention to give when the session has no
// room for another question.
func (p *Pipeline) admit(ctx context.Context, rec *Record, question *string) (answer.Answer, bool) {
	tr := rec.ev
	if tr == nil {
		return answer.Answer{}, true
	}
	if question != nil && *question != "" {
		p.emit(ctx, tr, eventlog.QuestionReceived{
			QuestionID: tr.id, Session: p.session(), Surface: p.surface(),
			Question: boundQuestion(*question),
		})
	}
	s := p.audit.session
	if s == nil {
		return answer.Answer{}, true
	}
	q := p.audit.budgets.Question
	remaining, err := s.Reserve(ctx, q)
	if err != nil {
		if d, ok := errors.AsType[*budget.DeniedError](err); ok {
			tr.exhausted = d
			p.emit(ctx, tr, eventlog.BudgetExceeded{
				Scope: "session", ScopeID: p.session(), QuestionID: tr.id,
				Requested: amount(d.Requested), Remaining: amount(d.Remaining), Short: short(d.Components),
			})
			return exhausted("session", d), false
		}
		rec.ErrorDetail = detail(err)
		return answer.Fail(answer.StageSelect, answer.ReasonInternal, "", nil), false
	}
	// The question spends from a budget of its own, in this process;
	// end settles what it did not use back to the session.
	tr.bud, err = budget.New(tr.id, q, nil)
	if err != nil {
		panic("pipeline: " + err.Error()) // q was validated with the config
	}
	p.emit(ctx, tr, eventlog.BudgetReserved{
		Scope: "session", ScopeID: p.session(), QuestionID: tr.id, ReservationID: tr.id,
		Amount: amount(q), Remaining: amount(remaining),
	})
	return answer.Answer{}, true
}

// metered returns the context an Ask's model calls run under: with
// budgets, one carrying a meter the providers report their tokens to.
func (p *Pipeline) metered(ctx context.Context, rec *Record) context.Context {
	if rec.ev == nil || rec.ev.bud == nil {
		return ctx
	}
	rec.ev.meter = &provider.Meter{}
	return provider.WithMeter(ctx, rec.ev.meter)
}

// ErrNoPrice: a model's tokens were reported and the budget has no price
// for the model, so their cost cannot be charged to usd. The request
// ends in error (commands refuse to start without the price: see
// budget.Config.NeedPrice).
var ErrNoPrice = errors.New("no price for the model")

// pending returns the model tokens reported and not yet charged, and
// their usd: the cost of all the tokens so far at each model's price
// (rounded up once per model, so charging in parts never rounds twice),
// less what was charged already.
func (p *Pipeline) pending(tr *trace) (budget.Amount, error) {
	if tr.meter == nil {
		return budget.Amount{}, nil
	}
	var (
		tokens int64
		usd    budget.Micros
	)
	for _, u := range tr.meter.Usage() {
		tokens += u.Tokens()
		price, ok := p.audit.budgets.Price(u.Model)
		if !ok {
			return budget.Amount{}, fmt.Errorf("charge model: %w", ErrNoPrice)
		}
		if c := price.Cost(u.Input, u.Output); c > math.MaxInt64-usd {
			usd = math.MaxInt64 // more than any budget: denied, never wrapped
		} else {
			usd += c
		}
	}
	return budget.Amount{Tokens: max(tokens-tr.charged.Tokens, 0), USD: max(usd-tr.charged.USD, 0)}, nil
}

// callAudit is one tool call's reservation and event ids.
type callAudit struct {
	res     *budget.Reservation
	invoked string
	start   time.Time
}

// beforeCall reserves a validated call's budget and records the call.
// It returns the abstention to give when the reservation is denied.
func (p *Pipeline) beforeCall(ctx context.Context, rec *Record, c tool.Call) (callAudit, *answer.Answer) {
	tr := rec.ev
	if tr == nil {
		return callAudit{start: time.Now()}, nil
	}
	tr.calls++
	callID := tr.id + ":c" + strconv.Itoa(tr.calls)
	var out callAudit
	if tr.bud != nil {
		// Without an estimate a call may scan whatever the question has
		// left (at least one row: a question with none left makes no call).
		// The model's tokens so far (the selection's) are charged with it.
		model, err := p.pending(tr)
		if err != nil {
			rec.ErrorDetail = detail(err)
			a := answer.Fail(answer.StageExecute, answer.ReasonInternal, c.Tool(), c.Args())
			return out, &a
		}
		want := budget.Amount{ToolCalls: 1, RowsScanned: max(tr.bud.Remaining().RowsScanned, 1), Tokens: model.Tokens, USD: model.USD}
		if re, ok := p.exec.(RowEstimator); ok {
			if n, ok := re.EstimateRows(c); ok && n >= 0 {
				want.RowsScanned = n
			}
		}
		r, err := tr.bud.Reserve(want)
		if err != nil {
			d, ok := errors.AsType[*budget.DeniedError](err)
			if !ok {
				rec.ErrorDetail = detail(err)
				a := answer.Fail(answer.StageExecute, answer.ReasonInternal, c.Tool(), c.Args())
				return out, &a
			}
			if tr.exhausted == nil {
				tr.exhausted = d
			}
			p.emit(ctx, tr, eventlog.BudgetExceeded{
				Scope: "question", ScopeID: tr.id, QuestionID: tr.id,
				Requested: amount(d.Requested), Remaining: amount(d.Remaining), Short: short(d.Components),
			})
			p.emit(ctx, tr, eventlog.PlanRejected{QuestionID: tr.id, Tool: c.Tool(), Layer: "budget", Kind: string(answer.ReasonBudgetExhausted)})
			rec.Validation = string(answer.ReasonBudgetExhausted)
			a := exhausted("question", d)
			return out, &a
		}
		out.res = r
		p.emit(ctx, tr, eventlog.BudgetReserved{
			Scope: "question", ScopeID: tr.id, QuestionID: tr.id,
			ReservationID: callID, Amount: amount(want), Remaining: amount(tr.bud.Remaining()),
		})
	}
	args, err := json.Marshal(c.Args())
	if err != nil || c.Args() == nil {
		args = []byte("{}")
	}
	out.invoked = p.emit(ctx, tr, eventlog.ToolInvoked{
		QuestionID: tr.id, CallID: callID, Tool: c.Tool(), Arguments: args,
		ProposedBy: tr.proposer, Effect: cmp.Or(c.Def().Effect, "none"),
	})
	if c.Def().Writes() && !p.await(ctx, tr) {
		// A write runs only once its tool.invoked is acknowledged.
		rec.ErrorDetail = detail(tr.err)
		a := answer.Fail(answer.StageExecute, answer.ReasonInternal, c.Tool(), c.Args())
		if out.res != nil {
			// The call never ran: nothing of its reservation was used.
			// The request fails already, so a failed settle adds nothing.
			_, _ = tr.bud.Settle(out.res, budget.Amount{})
		}
		return out, &a
	}
	out.start = time.Now()
	return out, nil
}

// afterCall settles a call's reservation with what it used and records
// its return.
func (p *Pipeline) afterCall(ctx context.Context, rec *Record, c tool.Call, cl callAudit, r fact.Result, err error) {
	tr := rec.ev
	if tr == nil {
		return
	}
	p.profile(cl.invoked, "tool.execute", time.Since(cl.start))
	outcome, rows := "ok", int64(0)
	switch {
	case ctx.Err() != nil:
		outcome = "timeout"
	case err != nil:
		outcome = "error"
		if _, ok := errors.AsType[*StatementFailure](err); ok || errors.Is(err, task.ErrKeyReused) {
			outcome = "refused"
		}
	default:
		rows = rowsScanned(r)
	}
	if cl.res != nil {
		used := budget.Amount{ToolCalls: 1, RowsScanned: min(rows, cl.res.Amount().RowsScanned), Tokens: cl.res.Amount().Tokens, USD: cl.res.Amount().USD}
		tr.charged = tr.charged.Add(budget.Amount{Tokens: used.Tokens, USD: used.USD})
		if rows > used.RowsScanned {
			// The call read more than its bound said: it is charged its
			// whole reservation, and the overrun is logged, never hidden.
			p.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "budget overrun", slog.String(KeyTool, c.Tool()), slog.Int64("rows_scanned", rows))
		}
		if _, serr := tr.bud.Settle(cl.res, used); serr != nil && tr.err == nil {
			tr.err = fmt.Errorf("settle budget: %w", serr)
		}
	}
	p.emit(ctx, tr, eventlog.ToolReturned{
		QuestionID: tr.id, CallID: tr.id + ":c" + strconv.Itoa(tr.calls), Tool: c.Tool(),
		Outcome: outcome, RowsScanned: rows,
	})
}

// rejected records a proposal a layer refused, by its code.
func (p *Pipeline) rejected(ctx context.Context, rec *Record, toolName, layer, kind string) {
	if rec.ev == nil {
		return
	}
	if !logToolName(toolName) {
		toolName = ""
	}
	p.emit(ctx, rec.ev, eventlog.PlanRejected{QuestionID: rec.ev.id, Tool: toolName, Layer: layer, Kind: kind})
}

// grounded records a grounding check of a composed sentence.
func (p *Pipeline) grounded(ctx context.Context, rec *Record, resultID string, r grounding.Report) {
	if rec.ev == nil {
		return
	}
	rec.ev.resultIDs = appendNew(rec.ev.resultIDs, resultID)
	p.emit(ctx, rec.ev, eventlog.GroundingChecked{
		QuestionID: rec.ev.id, ResultIDs: []string{resultID}, Passed: r.Verdict != grounding.Refuse,
		Numerals: int64(r.NumeralsTotal), Unbacked: int64(len(r.Unmatched)),
	})
}

// end records how a request ended, closes its budget and returns the
// answer to give: an answer whose events the log could not take does not
// ship.
func (p *Pipeline) end(ctx context.Context, rec *Record, a answer.Answer) answer.Answer {
	tr := rec.ev
	if tr == nil {
		return a
	}
	if tr.exhausted != nil && a.Outcome() == answer.Abstained && a.Reason().Kind == answer.ReasonNoMajority {
		// A vote whose samples the budget denied abstains for the budget.
		a = exhausted("question", tr.exhausted)
	}
	if tr.bud != nil {
		a = p.chargeModel(ctx, tr, a)
		// What the question did not use goes back to the session (a live
		// reservation, which cannot happen, counts as used). Detached: a
		// request that timed out still gives its remainder back.
		st := tr.bud.Snapshot()
		q := p.audit.budgets.Question
		if _, err := p.audit.session.Settle(context.WithoutCancel(ctx), q, q.Sub(st.Remaining)); err != nil && tr.err == nil {
			tr.err = fmt.Errorf("settle session budget: %w", err)
		}
		if st.Live > 0 && tr.err == nil {
			tr.err = fmt.Errorf("close budget: %w", budget.ErrBusy)
		}
	}
	if tr.err != nil {
		rec.ErrorDetail = detail(tr.err)
		a = answer.Fail(rec.Stage, answer.ReasonInternal, "", nil)
	}
	if a.Outcome() == answer.Abstained {
		p.emit(ctx, tr, eventlog.Abstained{QuestionID: tr.id, Reason: string(a.Reason().Kind)})
	}
	em := eventlog.AnswerEmitted{QuestionID: tr.id, Outcome: string(a.Outcome())}
	for _, id := range a.ResultIDs() {
		em.ResultIDs = appendNew(em.ResultIDs, id)
	}
	if s := a.Text(); s != "" {
		sum := sha256.Sum256([]byte(s))
		em.SentenceSHA256 = hex.EncodeToString(sum[:])
	}
	id := p.emit(ctx, tr, em)
	if !p.await(ctx, tr) && a.Outcome() != answer.Error {
		// An event of the request, answer.emitted included, was not
		// acknowledged: nothing ships, and the log is told so if it can.
		rec.ErrorDetail = detail(tr.err)
		a = answer.Fail(rec.Stage, answer.ReasonInternal, "", nil)
		if tr.async {
			id = p.emit(ctx, tr, eventlog.AnswerEmitted{QuestionID: tr.id, Outcome: string(a.Outcome())})
			p.await(ctx, tr)
		}
	}
	p.profile(id, "request", time.Since(tr.start))
	return a
}

// chargeModel charges the model tokens no tool call carried (the
// composition's, or a selection that led to no call), and their usd.
// When they do not fit, the answer does not ship: the request abstains
// budget_exhausted.
func (p *Pipeline) chargeModel(ctx context.Context, tr *trace, a answer.Answer) answer.Answer {
	want, err := p.pending(tr)
	if err != nil {
		if tr.err == nil {
			tr.err = err
		}
		return a
	}
	if want.IsZero() {
		return a
	}
	r, err := tr.bud.Reserve(want)
	if err != nil {
		d, ok := errors.AsType[*budget.DeniedError](err)
		if !ok {
			if tr.err == nil {
				tr.err = fmt.Errorf("charge model: %w", err)
			}
			return a
		}
		p.emit(ctx, tr, eventlog.BudgetExceeded{
			Scope: "question", ScopeID: tr.id, QuestionID: tr.id,
			Requested: amount(d.Requested), Remaining: amount(d.Remaining), Short: short(d.Components),
		})
		if tr.exhausted == nil {
			tr.exhausted = d
		}
		if a.Outcome() == answer.Answered || a.Outcome() == answer.Absence {
			return exhausted("question", d)
		}
		return a
	}
	p.emit(ctx, tr, eventlog.BudgetReserved{
		Scope: "question", ScopeID: tr.id, QuestionID: tr.id,
		ReservationID: tr.id + ":model", Amount: amount(want), Remaining: amount(tr.bud.Remaining()),
	})
	if _, err := tr.bud.Settle(r, want); err != nil && tr.err == nil {
		tr.err = fmt.Errorf("settle budget: %w", err)
	}
	tr.charged = tr.charged.Add(want)
	return a
}

// exhausted is the abstention for a denied reservation: the detail names
// the scope and the components, never an amount a client sent.
func exhausted(scope string, d *budget.DeniedError) answer.Answer {
	names := make([]string, len(d.Components))
	for i, c := range d.Components {
		names[i] = c.String()
	}
	return answer.Abstain(answer.ReasonBudgetExhausted,
		fmt.Sprintf("the %s budget has no room for %s", scope, strings.Join(names, ", ")))
}

func (p *Pipeline) session() string {
	if ev := p.audit.events; ev != nil {
		return ev.session()
	}
	return "session"
}

func (p *Pipeline) surface() string {
	if ev := p.audit.events; ev != nil {
		return ev.surface()
	}
	return SurfaceCLI
}

// proposer says who proposes an Ask's calls.
func (p *Pipeline) proposer() string {
	if p.prov.Name() == "rules" {
		return "rules"
	}
	return "model"
}

// rowsScanned counts the rows a result stands on: its events, or the rows
// an absence re-enumerated.
func rowsScanned(r fact.Result) int64 {
	if abs, ok := r.Provenance.Absence(); ok {
		return int64(max(abs.EnumeratedCount, 0))
	}
	return int64(max(r.Provenance.NumEvents(), 0))
}

// boundQuestion returns the question as the log records it: valid UTF-8,
// at most eventlog.MaxQuestion characters.
func boundQuestion(q string) string {
	q = strings.ToValidUTF8(q, "\uFFFD")
	if utf8.RuneCountInString(q) <= eventlog.MaxQuestion {
		return q
	}
	r := []rune(q)
	return string(r[:eventlog.MaxQuestion])
}

// amount converts a budget amount to the log's: seconds become
// milliseconds, and every component is capped at 2^53-1 (the log's
// integers must stay exact in JSON).
func amount(a budget.Amount) eventlog.Amount {
	c := func(v int64) int64 { return min(max(v, 0), eventlog.MaxSafeInteger) }
	ms := a.SimSeconds
	if ms > eventlog.MaxSafeInteger/1000 {
		ms = eventlog.MaxSafeInteger
	} else {
		ms *= 1000
	}
	return eventlog.Amount{
		USDMicros: c(int64(a.USD)), Tokens: c(a.Tokens), ToolCalls: c(a.ToolCalls),
		SimulatedMS: c(ms), RowsScanned: c(a.RowsScanned),
	}
}

// short names the components that did not fit as the log spells them.
func short(cs []budget.Component) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		var n string
		switch c {
		case budget.USD:
			n = "usd_micros"
		case budget.Tokens:
			n = "tokens"
		case budget.ToolCalls:
			n = "tool_calls"
		case budget.SimSeconds:
			n = "simulated_ms"
		default:
			n = "rows_scanned"
		}
		out = appendNew(out, n)
	}
	return out
}

func appendNew(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// logToolName reports whether name is spelt as the log's tool names are
// (a registered tool's always is).
func logToolName(name string) bool {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}
