// Package pipeline is the one path a question takes, whichever surface it
// came from (CLI, HTTP, eval): intake, select (model job 1), the wall,
// execute, re-derive, compose (model job 2), staple, log. Every request
// ends in a typed answer.Answer; no panic escapes.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/repair"
	"github.com/provenant/provenant/tool"
)

// MaxQuestionLength bounds the question after trimming, in characters
// (tool.MaxQuestionLength, what the ask schema's maxLength says).
const MaxQuestionLength = tool.MaxQuestionLength

// Executor answers validated calls (package executor).
type Executor interface {
	Execute(ctx context.Context, c tool.Call) (fact.Result, error)
}

// Resolver re-derives and judges results (package resolver).
type Resolver interface {
	Resolve(ctx context.Context, c tool.Call, r fact.Result) (fact.Verdict, error)
}

// Pinner is implemented by an Executor that reads data which can change
// while it serves (a database): Pin returns a context under which the
// executor's and the resolver's reads of one request see one consistent
// snapshot, taken at the first read, and the release the pipeline calls
// when the request is done. An in-memory executor needs none.
type Pinner interface {
	Pin(ctx context.Context) (context.Context, func())
}

// Keeper remembers the call behind a result whose provenance is listed in
// part (fact.Provenance.Complete is false), under its result id, so that a
// surface can page through every event id behind it.
type Keeper interface {
	Keep(resultID string, c tool.Call, r fact.Result)
}

// Observer receives one Record per request (package metrics).
type Observer interface {
	Observe(Record)
}

// ErrorKindPanic is the Record's error kind for a recovered panic (the
// answer's reason is internal).
const ErrorKindPanic answer.ReasonKind = "panic"

// Record describes one finished request: the fields of its log line.
type Record struct {
	Outcome    answer.Outcome
	Tool       string
	Validation string            // "passed", a rejection kind, or "skipped"
	Provenance string            // "verified", "failed", or "skipped"
	Grounding  string            // "pass", "refused", or "" (no sentence checked)
	ErrorKind  answer.ReasonKind // "", the error's reason kind, or ErrorKindPanic
	// ErrorDetail is the text of the error behind a failure (a provider's
	// "cassette miss ...", say), truncated; logged, never returned to a
	// client and never a metric label.
	ErrorDetail string
	Stage       answer.Stage
	// Deterministic is the latency of the deterministic span (wall,
	// execute, resolve, staple); model calls are excluded. Under a
	// self-consistency vote it includes every sample's wall and execution.
	Deterministic time.Duration
	// SCSamples is the number of proposals a self-consistency vote drew;
	// 0 when the question was not voted on. Validation is then the first
	// sample's, or "passed" when a sample won.
	SCSamples int
	// SCClusters are the sizes of the vote's clusters of equal executed
	// values, largest first; samples declined, rejected or failed are in
	// none, so the sizes may sum to less than SCSamples.
	SCClusters []int
	// SCAgreement is the largest cluster's size over SCSamples (0 when no
	// vote, or no sample executed).
	SCAgreement float64
	// FailureClass is, for a free SQL statement that did not give a
	// table, its failure class (answer.StatementRejectKinds: sql_error,
	// empty_result, budget_exceeded, permission_denied,
	// schema_violation); "" otherwise.
	FailureClass string
	// RepairAttempts are, per repair attempt, the failure class that
	// caused it, in order (see repair.go); nil when none was made.
	RepairAttempts []string
	// RepairSamples are, under a self-consistency vote, the sample index
	// of each repair attempt, parallel to RepairAttempts; nil otherwise.
	RepairSamples []int

	ev   *trace     // the request's events and budget; nil without either
	gate *gateState // the request's autonomy gate (autonomy.go)
}

// Options configures a Pipeline; nil means defaults.
type Options struct {
	Observer Observer     // nil: none
	Logger   *slog.Logger // nil: discard
	// Grounding is the policy the composed sentence is checked under; nil
	// means grounding.DefaultPolicy().
	Grounding *grounding.Policy
	// Abstention, when set, is a calibrated policy: an answer whose
	// confidence score is below its class's threshold is not shipped; the
	// engine abstains with reason below_threshold.
	Abstention *calibration.Policy
	// RefuseUngrounded, when set, abstains on a sentence the checker
	// refuses instead of shipping the fact with a sentence rendered by code.
	RefuseUngrounded bool
	// DefaultScope is the scope of a request that carries none (see
	// WithScope). nil means every store: the single local user. A surface
	// that authenticates sets an empty scope here, so an unauthenticated
	// path sees nothing.
	DefaultScope *tool.Scope
	// SelfConsistency, when set, votes over independent proposals for
	// questions of the hard classes (see SelfConsistency); nil means off.
	// It applies to Ask only: Call has no model to sample.
	SelfConsistency *SelfConsistency
	// ResultIDs hands out the ids of executed results; nil means a
	// ledger.Allocator (time-ordered, unique across processes). Tests
	// and golden files pass a *ledger.Sequence.
	ResultIDs ledger.IDSource
	// Keeper, when set, remembers the calls behind results listed in part.
	Keeper Keeper
	// Now is the request's clock, read once as a question arrives and
	// given to the provider (provider.WithNow) to resolve relative time
	// ("today", "last week", a question naming no time) against; a
	// request whose context already carries a clock keeps it. nil: no
	// clock, and the rules provider abstains on a question that needs
	// one. A command passes its --now, or the wall clock.
	Now func() time.Time
	// FreeSQL, when set, runs the calls of its tool in the sandbox (see
	// freesql.go); nil: no free SQL.
	FreeSQL *FreeSQL
	// Events, when set, receives typed events for every request (see
	// events.go); nil: no event log.
	Events *Events
	// Budget, when set, gives the pipeline one session budget and each
	// request a question budget carved out of it (see events.go); nil:
	// no budgets.
	Budget *budget.Config
	// SessionBudget, with Budget, is where the session's budget is kept
	// (a *budget.Session over a state database's store: shared by every
	// process on it, found again after a restart); nil: an account in
	// this pipeline's memory holding Budget.Session.
	SessionBudget SessionBudget
	// Repair, when set, runs the repair loop (see repair.go); nil: off.
	Repair *Repair
	// Autonomy configures the autonomy gate and the write path (see
	// autonomy.go); nil: every session at L1, and no writes.
	Autonomy *Autonomy
}

// Pipeline answers questions. Safe for concurrent use.
type Pipeline struct {
	prov provider.Provider
	wall *tool.Wall
	exec Executor
	res  Resolver
	opts Options
	menu []tool.Def

	audit  *audit
	gating *gating // the autonomy gate and the write path (autonomy.go)
}

// New returns a pipeline over the provider, the wall, the executor and
// the resolver; nil opts means defaults. It panics if a required argument
// is nil or opts.SelfConsistency fails its Validate: that is a
// programming error (a surface validates user input first).
func New(prov provider.Provider, wall *tool.Wall, exec Executor, res Resolver, opts *Options) *Pipeline {
	if prov == nil || wall == nil || exec == nil || res == nil {
		panic("pipeline: provider, wall, executor and resolver are required")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	opts = &o
	if sc := opts.SelfConsistency; sc != nil {
		if err := sc.Validate(); err != nil {
			panic("pipeline: " + err.Error())
		}
		opts.SelfConsistency = sc.withDefaults(wall.Registry())
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Grounding == nil {
		pol := grounding.DefaultPolicy()
		opts.Grounding = &pol
	}
	if opts.DefaultScope == nil {
		all := tool.AllStores()
		opts.DefaultScope = &all
	}
	if opts.ResultIDs == nil {
		opts.ResultIDs = ledger.NewAllocator(nil)
	}
	if r := opts.Repair; r != nil && (r.Retries < 0 || r.Retries > repair.MaxRetries) {
		panic("pipeline: repair retries must be within 0..3")
	}
	if fs := opts.FreeSQL; fs != nil {
		if fs.Tool == "" || fs.Runner == nil {
			panic("pipeline: free SQL needs its tool and a runner")
		}
		f := withFreeSQL(*fs, exec, res)
		exec, res = f, f
	}
	p := &Pipeline{prov: prov, wall: wall, opts: o, menu: wall.Registry().Menu(), audit: newAudit(o.Events, o.Budget, o.SessionBudget)}
	p.gating = newGating(o.Autonomy, p.menu)
	w := &writes{p: p, exec: exec, res: res}
	p.exec, p.res = w, w
	return p
}

// pin pins one snapshot for a request's reads, when the executor reads a
// database.
func (p *Pipeline) pin(ctx context.Context) (context.Context, func()) {
	if pn, ok := p.exec.(Pinner); ok {
		return pn.Pin(ctx)
	}
	return ctx, func() {}
}

// sentence renders a result's sentence by code, from its tool's templates.
func (p *Pipeline) sentence(r fact.Result) string {
	if s, ok := p.wall.Registry().Sentence(r.Tool, r.Args, r.Value); ok {
		return s
	}
	return tool.Sentence(tool.Def{}, r.Args, r.Value)
}

// Registry returns the tool registry of the pipeline's wall.
func (p *Pipeline) Registry() *tool.Registry { return p.wall.Registry() }

// ProviderName names the configured provider.
func (p *Pipeline) ProviderName() string { return p.prov.Name() }

// Ask answers one question: the model selects a call and composes the
// sentence.
func (p *Pipeline) Ask(ctx context.Context, question string) answer.Answer {
	return p.serve(ctx, len(question), p.proposer(), func(rec *Record) answer.Answer {
		if a, ok := p.admit(ctx, rec, &question); !ok {
			return a
		}
		return p.ask(p.metered(ctx, rec), question, rec)
	})
}

// Call answers a tool call a client proposed directly (the MCP and REST
// surfaces): the same wall, execution, re-derivation and stapling as Ask,
// with no model; the sentence is rendered from the value by code. With
// Options.Repair set the executed call is verified as a model's proposal
// is, and a failure carries the repair advice (see runClient).
func (p *Pipeline) Call(ctx context.Context, proposal tool.Proposal) answer.Answer {
	return p.serve(ctx, 0, "client", func(rec *Record) answer.Answer {
		if a, ok := p.admit(ctx, rec, nil); !ok {
			return a
		}
		return p.runClient(ctx, proposal, rec, func(r fact.Result) (string, error) {
			return p.sentence(r), nil
		})
	})
}

// serve runs one request: it contains panics, and writes the one log line
// and the one observation.
func (p *Pipeline) serve(ctx context.Context, questionLen int, proposer string, handle func(*Record) answer.Answer) answer.Answer {
	var (
		rec = Record{Validation: "skipped", Provenance: "skipped"}
		a   answer.Answer
	)
	if p.audit.events != nil || p.audit.session != nil {
		rec.ev = p.begin(proposer)
	}
	p.beginGate(ctx, &rec)
	func() {
		defer func() {
			if r := recover(); r != nil {
				a = answer.Fail(rec.Stage, answer.ReasonInternal, "", nil)
				rec.ErrorKind = ErrorKindPanic
				rec.ErrorDetail = detail(fmt.Errorf("%v", r))
			}
		}()
		a = handle(&rec)
	}()
	a = p.end(ctx, &rec, a)
	rec.Outcome, rec.Tool, rec.Stage = a.Outcome(), a.Tool(), a.Stage()
	if rec.ErrorKind == "" && a.Outcome() == answer.Error {
		rec.ErrorKind = a.Reason().Kind
	}
	p.log(ctx, rec, questionLen)
	if p.opts.Observer != nil {
		p.opts.Observer.Observe(rec)
	}
	return a
}

func (p *Pipeline) ask(ctx context.Context, question string, rec *Record) answer.Answer {
	q := strings.TrimSpace(question)
	switch {
	case q == "":
		return answer.Abstain(answer.ReasonEmptyQuestion, "the question is empty")
	case tool.QuestionTooLong(q):
		return answer.Abstain(answer.ReasonQuestionTooLong, fmt.Sprintf("the question exceeds %d characters", MaxQuestionLength))
	}

	rec.Stage = answer.StageSelect
	if a, done := timedOut(ctx, rec, nil, answer.StageSelect, nil); done {
		return a
	}
	if _, ok := provider.NowFrom(ctx); !ok && p.opts.Now != nil {
		ctx = provider.WithNow(ctx, p.opts.Now())
	}
	selectCtx := ctx
	if p.opts.SelfConsistency != nil {
		selectCtx = provider.WithSample(ctx, 0)
	}
	proposal, err := p.prov.Select(selectCtx, q, p.menu)
	if a, done := timedOut(ctx, rec, err, answer.StageSelect, nil); done {
		return a
	}
	if a, ok := abstention(err); ok {
		return a
	}
	if err != nil {
		rec.ErrorDetail = detail(err)
		return answer.Fail(answer.StageSelect, answer.ReasonModelUnavailable, "", nil)
	}
	if proposal == nil {
		return answer.Abstain(answer.ReasonNoTool, "no tool on the menu covers the question")
	}
	asked := proposal.Asked
	compose := func(r fact.Result) (string, error) {
		def, _ := p.wall.Registry().Lookup(r.Tool)
		in := provider.ComposeInput{Question: q, Def: def, Tool: r.Tool, Args: r.Args, Value: r.Value}
		if r.Tool == proposal.Tool && slices.Contains(def.Values, asked) {
			in.Asked = asked
		}
		return p.prov.Compose(ctx, in)
	}
	if p.votes(*proposal) {
		return p.vote(ctx, q, *proposal, rec, compose)
	}
	return p.askRepair(ctx, q, *proposal, rec, compose)
}

// abstention maps a provider's reasoned abstention to the answer's
// reason of the same kind; a kind outside the closed set is no_tool.
func abstention(err error) (answer.Answer, bool) {
	a, ok := errors.AsType[*provider.Abstention](err)
	if !ok {
		return answer.Answer{}, false
	}
	var kind answer.ReasonKind
	switch a.Kind {
	case provider.AbstainMissingSlot:
		kind = answer.ReasonMissingSlot
	case provider.AbstainAmbiguous:
		kind = answer.ReasonAmbiguous
	case provider.AbstainUnknownName:
		kind = answer.ReasonUnknownName
	case provider.AbstainNotUnderstood:
		kind = answer.ReasonNotUnderstood
	default:
		return answer.Abstain(answer.ReasonNoTool, "no tool on the menu covers the question"), true
	}
	return answer.Abstain(kind, a.Detail), true
}

// run takes a proposal through the wall, execution, re-derivation,
// composition and stapling.
func (p *Pipeline) run(ctx context.Context, question string, proposal tool.Proposal, rec *Record, compose func(fact.Result) (string, error)) answer.Answer {
	ctx, release := p.pin(ctx)
	defer release()
	start := time.Now()
	call, result, failed := p.execute(ctx, proposal, rec)
	rec.Deterministic = time.Since(start)
	if failed != nil {
		return *failed
	}
	return p.finish(ctx, question, call, result, rec, compose)
}

// execute takes a proposal through the wall and the executor. When either
// refuses or fails, it returns the answer to give.
func (p *Pipeline) execute(ctx context.Context, proposal tool.Proposal, rec *Record) (tool.Call, fact.Result, *answer.Answer) {
	fail := func(a answer.Answer) (tool.Call, fact.Result, *answer.Answer) { return tool.Call{}, fact.Result{}, &a }
	call, err := p.wall.CheckScoped(proposal, p.scope(ctx))
	if err != nil {
		rej, ok := tool.IsRejection(err)
		if !ok {
			return fail(answer.Fail(answer.StageSelect, answer.ReasonInternal, "", nil))
		}
		rec.Validation = string(rej.Kind)
		name := ""
		if rej.Kind != tool.Unregistered {
			name = proposal.Tool
		}
		p.rejected(ctx, rec, name, "wall", string(rej.Kind))
		return fail(answer.Reject(name, rej))
	}
	rec.Validation = "passed"
	if a, refused := p.gateCheck(ctx, rec, call); refused {
		return fail(a)
	}
	ctx = withRecord(ctx, rec)

	rec.Stage = answer.StageExecute
	if a, done := timedOut(ctx, rec, nil, answer.StageExecute, &call); done {
		return fail(a)
	}
	audited, denied := p.beforeCall(ctx, rec, call)
	if denied != nil {
		return fail(*denied)
	}
	result, err := p.exec.Execute(ctx, call)
	p.afterCall(ctx, rec, call, audited, result, err)
	if a, done := timedOut(ctx, rec, err, answer.StageExecute, &call); done {
		return fail(a)
	}
	if a, ok := statementRejection(err, call, rec); ok {
		p.rejected(ctx, rec, call.Tool(), "sandbox", rec.FailureClass)
		return fail(a)
	}
	if a, ok := writeRejection(err, call, rec); ok {
		return fail(a)
	}
	if tl, ok := errors.AsType[*ResultTooLarge](err); ok {
		rec.FailureClass = string(answer.ReasonBudgetExceeded)
		return fail(answer.RejectStatement(call.Tool(), answer.ReasonBudgetExceeded, tl.Detail))
	}
	if err != nil {
		rec.ErrorDetail = detail(err)
		return fail(answer.Fail(answer.StageExecute, answer.ReasonInternal, call.Tool(), call.Args()))
	}
	return call, result, nil
}

// ResultTooLarge is an executor's error for a call whose result would
// pass a bound on its size (a query_metric table of more groups than
// metric.MaxRows): the call's arguments asked for it, so the answer is a
// rejection (budget_exceeded) with Detail, not our failure.
type ResultTooLarge struct {
	// Detail says what bound was passed and how to ask within it; it
	// names no argument's value.
	Detail string
}

func (e *ResultTooLarge) Error() string { return "execute: result too large: " + e.Detail }

// finish takes an executed call through re-derivation, composition,
// grounding and stapling, adding its deterministic time to the record.
func (p *Pipeline) finish(ctx context.Context, question string, call tool.Call, result fact.Result, rec *Record, compose func(fact.Result) (string, error)) answer.Answer {
	start := time.Now()
	rec.Stage = answer.StageResolve
	if a, done := timedOut(ctx, rec, nil, answer.StageResolve, &call); done {
		return a
	}
	verdict, err := p.res.Resolve(ctx, call, result)
	rec.Deterministic += time.Since(start)
	if a, done := timedOut(ctx, rec, err, answer.StageResolve, &call); done {
		return a
	}
	if err != nil {
		rec.ErrorDetail = detail(err)
		return answer.Fail(answer.StageResolve, answer.ReasonInternal, call.Tool(), call.Args())
	}
	if !verdict.OK() {
		rec.Provenance = "failed"
		p.rejected(ctx, rec, call.Tool(), "resolver", string(answer.ReasonVerificationFailed))
		rec.ErrorDetail = fmt.Sprintf("verdict: provenance_valid=%t value_matches=%t complete=%t",
			verdict.ProvenanceValid, verdict.ValueMatches, verdict.Complete)
		return answer.Unverified(call.Tool(), call.Args(), verdict)
	}
	rec.Provenance = "verified"

	led := ledger.New(p.opts.ResultIDs)
	entry := led.Record(result, call.Def())
	if k := p.opts.Keeper; k != nil && !result.Provenance.Complete() {
		k.Keep(entry.ID, call, result)
	}

	rec.Stage = answer.StageCompose
	var text *string
	sentence, err := compose(result)
	// A sentence composed after the deadline does not ship, even when the
	// model ignored the context: the request's bound holds.
	if a, done := timedOut(ctx, rec, err, answer.StageCompose, &call); done {
		return a
	}
	switch s := strings.TrimSpace(sentence); {
	case err != nil:
		rec.ErrorDetail = detail(err)
	case s == "":
		rec.ErrorDetail = "compose: empty sentence"
	default:
		text = &s
	}

	// The sentence is tainted prose: every numeral in it must be backed by
	// this request's ledger. A refused sentence never ships; the fact does,
	// with a sentence rendered by code (or, if so configured, nothing).
	groundStart := time.Now()
	var report *grounding.Report
	if text != nil {
		r := grounding.Check(*text, led.Grounding(), question, *p.opts.Grounding)
		report = &r
		p.grounded(ctx, rec, entry.ID, r)
		rec.Grounding = "pass"
		if r.Verdict == grounding.Refuse {
			rec.Grounding = "refused"
			rec.ErrorDetail = fmt.Sprintf("grounding: %d unmatched numeral(s)", len(r.Unmatched))
			if p.opts.RefuseUngrounded {
				rec.Deterministic += time.Since(groundStart)
				return answer.Abstain(answer.ReasonGroundingRefused, "the composed sentence cites numbers no result backs")
			}
			fallback := p.sentence(result)
			text = &fallback
		}
	}
	a, err := answer.Staple(result, verdict, text, entry.ID)
	rec.Deterministic += time.Since(groundStart)
	if err != nil {
		return answer.Fail(answer.StageResolve, answer.ReasonInternal, call.Tool(), call.Args())
	}
	if report != nil {
		a = a.WithGrounding(*report)
	}
	conf := confidence(rec, report)
	if pol := p.opts.Abstention; pol != nil {
		class := calibration.ClassOfKind(call.Def().Value)
		if t := pol.ThresholdFor(class); conf.Score < t {
			rec.ErrorDetail = fmt.Sprintf("confidence %.4f below the %s threshold %.4f", conf.Score, class, t)
			return answer.Abstain(answer.ReasonBelowThreshold, fmt.Sprintf("confidence %.2f is below the calibrated threshold %.2f for %s questions", conf.Score, t, class))
		}
	}
	return a.WithConfidence(conf)
}

// timedOut reports whether ctx is done (its deadline passed, or the client
// left) and, if so, returns the timeout answer for stage and records it.
// err is the error the stage returned, if any, kept for the log line.
// Whether ctx is done is the only test: a stage's error while ctx is live
// is that stage's own failure. A deadline thus aborts a request; it never
// changes an answer. call is the validated call the answer names, nil
// before there is one; its arguments are copied only on a timeout (this
// runs at every stage of every request).
func timedOut(ctx context.Context, rec *Record, err error, stage answer.Stage, call *tool.Call) (answer.Answer, bool) {
	cerr := ctx.Err()
	if cerr == nil {
		return answer.Answer{}, false
	}
	if err == nil {
		err = cerr
	}
	rec.ErrorDetail = detail(err)
	if call == nil {
		return answer.Fail(stage, answer.ReasonTimeout, "", nil), true
	}
	return answer.Fail(stage, answer.ReasonTimeout, call.Tool(), call.Args()), true
}

// confidence gathers the signals a shipped answer has and combines them.
// Signals: verified (the resolver's verdict, 1 for anything that ships),
// agreement (the self-consistency vote's largest share, when the question
// was voted on), grounding (1 when the model's sentence passed the check,
// 0 when it was refused). No provider reports a tool-choice margin yet.
//
// The score is their product, with a refused sentence counting 0.5 rather
// than 0 (the fact itself was verified; the refusal says the model was
// unreliable): a monotone combination whose only use is ordering answers,
// since calibration (eval --calibrate) picks the threshold on it.
func confidence(rec *Record, report *grounding.Report) answer.Confidence {
	c := answer.Confidence{Score: 1, Signals: map[string]float64{"verified": 1}}
	if rec.SCSamples > 0 {
		c.Signals["agreement"] = rec.SCAgreement
		c.Score *= rec.SCAgreement
	}
	if report != nil {
		c.Signals["grounding"] = 1
		if report.Verdict == grounding.Refuse {
			c.Signals["grounding"] = 0
			c.Score *= 0.5
		}
	}
	c.Score = math.Round(c.Score*1e4) / 1e4
	return c
}

func (p *Pipeline) log(ctx context.Context, rec Record, questionLen int) {
	attrs := []slog.Attr{
		slog.String(KeyOutcome, string(rec.Outcome)),
		slog.String(KeyTool, rec.Tool),
		slog.String(KeyValidation, rec.Validation),
		slog.String(KeyProvenance, rec.Provenance),
		slog.String(KeyGrounding, rec.Grounding),
		slog.String(KeyErrorKind, string(rec.ErrorKind)),
		slog.String(KeyErrorDetail, rec.ErrorDetail),
		slog.String(KeyStage, string(rec.Stage)),
		slog.Int64(KeyDeterministicMicros, rec.Deterministic.Microseconds()),
		slog.Int(KeyQuestionBytes, questionLen),
		slog.Int(KeySCSamples, rec.SCSamples),
		slog.Float64(KeySCAgreement, rec.SCAgreement),
		slog.Any(KeySCClusters, rec.SCClusters),
	}
	if rec.FailureClass != "" {
		attrs = append(attrs, slog.String(KeyFailureClass, rec.FailureClass))
	}
	if len(rec.RepairAttempts) > 0 {
		attrs = append(attrs, slog.Any(KeyRepairAttempts, rec.RepairAttempts))
	}
	if len(rec.RepairSamples) > 0 {
		attrs = append(attrs, slog.Any(KeyRepairSamples, rec.RepairSamples))
	}
	p.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "ask", attrs...)
}

// detail bounds an error's text for the log line.
func detail(err error) string {
	const max = 600
	s := err.Error()
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "…"
	}
	return s
}
