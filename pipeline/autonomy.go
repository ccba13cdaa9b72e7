package pipeline

// The autonomy gate and the write path (issue 11).
//
// Every request runs in a session (WithSession; the pipeline's default
// session otherwise), and every session has an autonomy.Gate that starts
// at the default tier, L1. A request begins a question at the gates'
// next logical time (expiring the grants it exhausts: elevation.expired);
// a call the wall admitted is then held to the tool's tier: a tool above
// what the session holds is refused with needs_approval and an
// elevation.requested event, before anything runs. Nothing in this file
// can raise a tier: the pipeline never holds the autonomy.Authority that
// mints approvers, so neither a model's proposal, nor a question, nor a
// tool's result can grant anything.
//
// A write call (a tool with effect write, which the gate lets through
// only under a human's L3 grant) is run by the Writer, never by the
// Executor; every write that changes state is recorded as a decision in
// the register (alternatives: the write, and doing nothing), with
// decision.recorded in the event log.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/task"
	"github.com/provenant/provenant/tool"
)

// Writer runs the write calls (tools with effect write): Write appends
// what the call asks for and reports whether it changed state (false
// when its request key had already done so); Resolve re-reads what a
// write result claims. An error wrapping task.ErrKeyReused is the
// client's, answered request_key_reused.
type Writer interface {
	Write(ctx context.Context, c tool.Call, w WriteInfo) (r fact.Result, created bool, err error)
	Resolve(ctx context.Context, c tool.Call, r fact.Result) (fact.Verdict, error)
}

// WriteInfo is who a write is done for: the session and the human who
// approved the grant that lets it through.
type WriteInfo struct {
	Session  string
	Approver string
}

// DecisionRegister is where the pipeline records its decisions (a
// *register.Register).
type DecisionRegister interface {
	Append(ctx context.Context, r register.Record) (register.Record, error)
	Head() register.Head
}

// Autonomy configures the gate and the write path.
type Autonomy struct {
	// Gates holds every session's gate and the logical clock they share;
	// nil: a store of the pipeline's own that accepts no grant, so every
	// session stays at L1. main builds the store (autonomy.NewSessions
	// with its Authority) and hands the Authority only to the approving
	// layers.
	Gates autonomy.Store
	// Session names the session of a request that carries none; ""
	// means "local".
	Session string
	// Writer runs the write calls; nil: a write call fails (internal).
	Writer Writer
	// Register records every write as a decision; required with a
	// Writer (a write nothing records is never made).
	Register DecisionRegister
	// PolicyVersion names the policy in decision records; "" means
	// DefaultPolicyVersion.
	PolicyVersion string
	// OnEvent, when set, receives every autonomy event as it is
	// recorded (elevation.requested, elevation.expired,
	// decision.recorded), besides the event log.
	OnEvent func(context.Context, eventlog.Payload)
}

// DefaultPolicyVersion is the policy decision records name by default.
const DefaultPolicyVersion = "autonomy-v1"

// DefaultSession is the session of a request that names none.
const DefaultSession = "local"

type sessionKey struct{}

// WithSession returns ctx carrying the request's session: an
// authenticating surface names it from the authenticated identity
// (SessionOf), never from the request's content.
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// SessionOf returns the session name of an authenticated principal: its
// name when it is spelt as a session name (letters, digits and _.:-, at
// most 128), else "principal-" and a digest of it.
func SessionOf(principal string) string {
	if sessionName(principal) {
		return principal
	}
	return "principal-" + fact.Digest([]string{principal})[:16]
}

func sessionName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '.' || c == ':' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// gating is a pipeline's autonomy state.
type gating struct {
	gates         autonomy.Store
	session       string
	writer        Writer
	reg           DecisionRegister
	policyVersion string
	onEvent       func(context.Context, eventlog.Payload)

	regMu sync.Mutex // an append and the head that names its index
}

// newGating fills the autonomy options. It panics on a programming
// error: a Writer without a Register, or a menu the gate refuses.
func newGating(o *Autonomy, menu []tool.Def) *gating {
	var a Autonomy
	if o != nil {
		a = *o
	}
	g := &gating{gates: a.Gates, session: cmp.Or(a.Session, DefaultSession), writer: a.Writer, reg: a.Register,
		policyVersion: cmp.Or(a.PolicyVersion, DefaultPolicyVersion), onEvent: a.OnEvent}
	if g.writer != nil && g.reg == nil {
		panic("pipeline: a Writer needs a Register")
	}
	if !sessionName(g.session) {
		panic("pipeline: invalid default session name")
	}
	if g.gates == nil {
		decls := Declarations(menu)
		if !slices.ContainsFunc(decls, func(t autonomy.Tool) bool { return t.Tier > autonomy.L1 }) {
			// Every tool is L1 and no grant can be taken: no gate to
			// keep (gateCheck admits an L1 tool without one, and
			// refuses any other).
			return g
		}
		s, err := autonomy.NewSessions(decls, nil)
		if err != nil {
			panic("pipeline: " + err.Error())
		}
		g.gates = s
	}
	return g
}

// Declarations returns the autonomy declarations of a menu's tools: each
// tool's tier and effect, L1 and none when it declares neither.
func Declarations(menu []tool.Def) []autonomy.Tool {
	out := make([]autonomy.Tool, 0, len(menu))
	for _, d := range menu {
		t := autonomy.Tool{Name: d.Name, Tier: autonomy.L1, Effect: autonomy.None}
		if d.Tier != "" {
			t.Tier, _ = autonomy.ParseTier(d.Tier)
		}
		if d.Effect != "" {
			t.Effect, _ = autonomy.ParseEffect(d.Effect)
		}
		out = append(out, t)
	}
	return out
}

// gateState is one request's gate: its session's, at the logical time
// its question began.
type gateState struct {
	gate *autonomy.Gate
	now  int64
	err  error // the gate could not be opened: every call above L1 is refused
}

// maxBeginTries bounds how often a question's beginning tries a later
// logical time after meeting ErrTime.
const maxBeginTries = 10

// beginGate begins the request's question on its session's gate,
// recording the grants that lapse.
func (p *Pipeline) beginGate(ctx context.Context, rec *Record) {
	if p.gating.gates == nil {
		return // every tool is L1: nothing to gate
	}
	session := p.gating.session
	if s, ok := ctx.Value(sessionKey{}).(string); ok {
		session = s
	}
	gs := &gateState{}
	rec.gate = gs
	gs.gate, gs.err = p.gating.gates.Gate(session)
	if gs.err != nil {
		return
	}
	// The request's ctx reaches the gate store: a request whose client
	// left or whose deadline passed begins no question and is refused
	// every call above L1 (gs.err).
	gs.now, gs.err = p.gating.gates.Tick(ctx)
	if gs.err != nil {
		return
	}
	expired, err := gs.gate.BeginQuestion(ctx, gs.now)
	for try := 0; errors.Is(err, autonomy.ErrTime) && try < maxBeginTries; try++ {
		// Another request (in this process or, with a shared gate
		// store, another) took a later time first: its question has
		// begun; this one counts at the clock's time.
		later, nerr := p.gating.gates.Now(ctx)
		if nerr != nil {
			err = nerr
			break
		}
		expired, err = gs.gate.BeginQuestion(ctx, max(gs.now, later))
	}
	if err != nil {
		gs.err = err
		return
	}
	for _, e := range expired {
		p.govEvent(ctx, rec, e)
	}
}

// gateCheck holds a validated call to its tool's tier. It returns the
// rejection to give when the session's tier is too low, after recording
// elevation.requested.
func (p *Pipeline) gateCheck(ctx context.Context, rec *Record, c tool.Call) (answer.Answer, bool) {
	gs := rec.gate
	def := c.Def()
	if def.Tier == "" || def.Tier == autonomy.L1.String() {
		// Every session holds L1: a tool at L1 needs no gate.
		return answer.Answer{}, false
	}
	if gs == nil {
		rec.Validation = string(answer.ReasonNeedsApproval)
		p.rejected(ctx, rec, c.Tool(), "gate", string(answer.ReasonNeedsApproval))
		return answer.RejectAction(c.Tool(), answer.ReasonNeedsApproval, "the session has no autonomy gate"), true
	}
	if gs.err != nil {
		return p.gateUnavailable(ctx, rec, c, gs.err), true
	}
	err := gs.gate.Check(ctx, c.Tool())
	if err == nil {
		return answer.Answer{}, false
	}
	var r *autonomy.Refusal
	switch {
	case errors.Is(err, autonomy.ErrUnknownTool):
		// A tool the gate has no declaration for: refused, fail closed.
		rec.Validation = string(answer.ReasonNeedsApproval)
		p.rejected(ctx, rec, c.Tool(), "gate", string(answer.ReasonNeedsApproval))
		return answer.RejectAction(c.Tool(), answer.ReasonNeedsApproval, "the tool has no autonomy declaration"), true
	case !errors.As(err, &r):
		return p.gateUnavailable(ctx, rec, c, err), true
	}
	rec.Validation = string(answer.ReasonNeedsApproval)
	if req, err := gs.gate.Request(ctx, c.Tool(), p.questionID(rec)); err == nil {
		p.govEvent(ctx, rec, req)
	}
	p.rejected(ctx, rec, c.Tool(), "gate", string(answer.ReasonNeedsApproval))
	return answer.RejectAction(c.Tool(), answer.ReasonNeedsApproval,
		fmt.Sprintf("%s needs %s and the session holds %s: a human approver must grant it (provenant approve, or POST /v1/approvals)", c.Tool(), r.Needed, r.Current)), true
}

// gateUnavailable refuses a call above L1 whose session's gate state
// could not be read (err): the request's timeout when its ctx is done
// (its deadline passed or its client left), else needs_approval. The
// call never runs.
func (p *Pipeline) gateUnavailable(ctx context.Context, rec *Record, c tool.Call, err error) answer.Answer {
	if a, done := timedOut(ctx, rec, err, rec.Stage, &c); done {
		return a
	}
	rec.Validation = string(answer.ReasonNeedsApproval)
	rec.ErrorDetail = detail(err)
	p.rejected(ctx, rec, c.Tool(), "gate", string(answer.ReasonNeedsApproval))
	return answer.RejectAction(c.Tool(), answer.ReasonNeedsApproval, "the session's autonomy gate is unavailable")
}

// questionID names the request's question for the gate's events.
func (p *Pipeline) questionID(rec *Record) string {
	if id := rec.questionID(); id != "" {
		return id
	}
	if rec.gate != nil {
		return "q" + strconv.FormatInt(rec.gate.now, 10)
	}
	return "q0"
}

type recordKey struct{}

// withRecord returns ctx carrying the request's record, for the write
// path behind the Executor interface.
func withRecord(ctx context.Context, rec *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

// writes is the executor and resolver of a pipeline: write calls go to
// the Writer, every other call to the wrapped executor and resolver.
type writes struct {
	p    *Pipeline
	exec Executor
	res  Resolver
}

var (
	_ Executor = (*writes)(nil)
	_ Resolver = (*writes)(nil)
	_ Pinner   = (*writes)(nil)
)

// ErrNoWriter is a write call on a pipeline without a Writer.
var ErrNoWriter = errors.New("no writer configured")

// errUngated is a write call that did not pass the gate.
var errUngated = errors.New("write call without a gated request")

func (w *writes) Pin(ctx context.Context) (context.Context, func()) {
	if pn, ok := w.exec.(Pinner); ok {
		return pn.Pin(ctx)
	}
	return ctx, func() {}
}

// Execute runs a read call on the executor, and a write call on the
// Writer, recording the decision of a write that changed state.
func (w *writes) Execute(ctx context.Context, c tool.Call) (fact.Result, error) {
	if !c.Def().Writes() {
		return w.exec.Execute(ctx, c)
	}
	g := w.p.gating
	if g.writer == nil {
		return fact.Result{}, ErrNoWriter
	}
	rec, _ := ctx.Value(recordKey{}).(*Record)
	if rec == nil || rec.gate == nil || rec.gate.gate == nil || rec.gate.gate.Check(ctx, c.Tool()) != nil {
		// Defence in depth: execute checks the gate first.
		return fact.Result{}, errUngated
	}
	gs := rec.gate
	info := WriteInfo{Session: gs.gate.Session(), Approver: gs.gate.Grantor(ctx, c.Tool())}
	if info.Approver == "" {
		// The tool is at the session's default tier: only an L1 write
		// could be, and CheckTool refuses those.
		return fact.Result{}, errUngated
	}
	r, created, err := g.writer.Write(ctx, c, info)
	if err != nil || !created {
		return r, err
	}
	if err := w.p.recordWrite(ctx, rec, c, r, info); err != nil {
		return fact.Result{}, err
	}
	return r, nil
}

// Resolve re-derives a read result with the resolver, and re-reads a
// write's with the Writer.
func (w *writes) Resolve(ctx context.Context, c tool.Call, r fact.Result) (fact.Verdict, error) {
	if !c.Def().Writes() {
		return w.res.Resolve(ctx, c, r)
	}
	if w.p.gating.writer == nil {
		return fact.Verdict{}, ErrNoWriter
	}
	return w.p.gating.writer.Resolve(ctx, c, r)
}

// writeRejection turns a Writer's refusal of a reused request key into
// the answer to give; ok is false for any other error.
func writeRejection(err error, c tool.Call, rec *Record) (answer.Answer, bool) {
	if !errors.Is(err, task.ErrKeyReused) {
		return answer.Answer{}, false
	}
	rec.Validation = string(answer.ReasonKeyReused)
	return answer.RejectAction(c.Tool(), answer.ReasonKeyReused,
		"the request key already opened a task with other arguments; send a new key for a new task"), true
}

// recordWrite appends the decision record of a write that changed state:
// the alternatives were the write and doing nothing, and the write was
// chosen under the human approver's grant.
func (p *Pipeline) recordWrite(ctx context.Context, rec *Record, c tool.Call, r fact.Result, info WriteInfo) error {
	ids := r.Value.IDs
	if len(ids) != 1 {
		return fmt.Errorf("record write: want one task id, got %d", len(ids))
	}
	args := c.Args()
	keys := make([]string, 0, len(args))
	for _, prm := range c.Def().Params {
		if prm.Name != "request_key" {
			if v, ok := args[prm.Name]; ok {
				keys = append(keys, prm.Name+"="+v)
			}
		}
	}
	change := c.Tool() + "(" + strings.Join(keys, ", ") + ")"
	qty, _ := strconv.ParseFloat(args["quantity"], 64)
	rc := register.Record{
		ID:    "dec-" + ids[0],
		Kind:  register.KindDecision,
		Time:  uint64(max(rec.gate.now, 0)),
		Task:  ids[0],
		Actor: "session:" + info.Session,
		Tier:  register.L3,
		Decision: &register.Decision{
			Alternatives: []register.Alternative{
				{ID: "write", Description: c.Def().Description, Change: "append one task row: " + change,
					Effect: register.Effect{Estimate: qty, Low: qty, High: qty, Unit: "quantity"}, Cost: 0, Score: 1},
				{ID: "do_nothing", Description: "Leave the tasks table as it is.", Change: "none",
					Effect: register.Effect{Unit: "quantity"}, Cost: 0, Score: 0},
			},
			Chosen:      "write",
			Expected:    "task " + ids[0] + " is open: " + change,
			Constraints: []string{"tier L3 granted to session " + info.Session + " by " + info.Approver, "within the caller's scope", "idempotent under the request key"},
		},
		Approver:      info.Approver,
		ModelVersion:  cmp.Or(p.prov.Name(), "none"),
		PolicyVersion: p.gating.policyVersion,
	}
	stored, index, err := p.gating.appendDecision(ctx, rc)
	if err != nil {
		return fmt.Errorf("record write: %w", err)
	}
	p.govEvent(ctx, rec, eventlog.DecisionRecorded{
		DecisionID: stored.ID, Index: index, RecordHash: stored.Hash,
		Subject: ids[0], Actor: stored.Actor, Tier: string(stored.Tier),
	})
	return nil
}

// govEvent records one autonomy event of the request: in the event log
// (events.go), and to OnEvent.
func (p *Pipeline) govEvent(ctx context.Context, rec *Record, pl eventlog.Payload) {
	p.emit(ctx, rec.ev, pl)
	if f := p.gating.onEvent; f != nil {
		f(ctx, pl)
	}
}

// questionID is the request's question id in the event log, "" without
// one.
func (rec *Record) questionID() string {
	if rec.ev == nil {
		return ""
	}
	return rec.ev.id
}

// EstimateRows passes the wrapped executor's estimate on; a write reads
// and writes one row.
func (w *writes) EstimateRows(c tool.Call) (int64, bool) {
	if c.Def().Writes() {
		return 1, true
	}
	if re, ok := w.exec.(RowEstimator); ok {
		return re.EstimateRows(c)
	}
	return 0, false
}

// Approval is a human's decision on an elevation, made by an approving
// layer (the approve command's inbox, the HTTP approvals endpoint) that
// has already applied it to the session's gate: what the pipeline
// records of it.
type Approval struct {
	Decided eventlog.ElevationDecided
	// Now is the gates' logical time the decision took effect at.
	Now int64
}

// RecordApproval records an approval: a decision record in the register
// (when the pipeline has one; alternatives: grant and deny), then
// elevation.decided and decision.recorded in the event log. It grants
// nothing: the grant is the approving layer's, on the gate, with an
// Approver only it could mint.
func (p *Pipeline) RecordApproval(ctx context.Context, a Approval) error {
	d := a.Decided
	if err := d.Validate(); err != nil {
		return fmt.Errorf("record approval: %w", err)
	}
	tr := &trace{id: "approval:" + d.GrantID, proposer: "operator", start: time.Now()}
	var (
		stored register.Record
		index  int64
	)
	if g := p.gating; g.reg != nil {
		chosen, other := "grant", "deny"
		if d.Decision != "granted" {
			chosen, other = "deny", "grant"
		}
		change := d.Tier + " for " + strings.Join(d.Tools, ", ") + " in session " + d.Session
		if d.Decision == "granted" {
			// A denial names no limits: the request it refuses asked
			// for none.
			change += fmt.Sprintf(" for %d questions or %d units of logical time", d.MaxQuestions, d.MaxAge)
		}
		alt := map[string]register.Alternative{
			"grant": {ID: "grant", Description: "Raise the session's tier for the named tools.", Change: change,
				Effect: register.Effect{Estimate: float64(d.MaxQuestions), Low: 0, High: float64(d.MaxQuestions), Unit: "questions"}, Score: 1},
			"deny": {ID: "deny", Description: "Leave the session at its tier.", Change: "none",
				Effect: register.Effect{Unit: "questions"}, Score: 0},
		}
		rc := register.Record{
			ID: "dec-" + d.GrantID, Kind: register.KindDecision, Time: uint64(max(a.Now, 0)),
			Task: d.GrantID, Actor: "operator:" + d.Approver, Tier: register.Tier(d.Tier),
			Decision: &register.Decision{
				Alternatives: []register.Alternative{alt[chosen], alt[other]},
				Chosen:       chosen,
				Expected:     "session " + d.Session + " holds " + change,
				Constraints:  []string{"tools named one by one", "expires after the first of its limits"},
			},
			Approver: d.Approver, ModelVersion: "none", PolicyVersion: g.policyVersion,
		}
		if d.Decision != "granted" {
			rc.Decision.Expected = "session " + d.Session + " stays at its tier"
		}
		var err error
		if stored, index, err = g.appendDecision(ctx, rc); err != nil {
			return fmt.Errorf("record approval: %w", err)
		}
		d.DecisionID = stored.ID
	}
	p.emitApproval(ctx, tr, d)
	if stored.ID != "" {
		p.emitApproval(ctx, tr, eventlog.DecisionRecorded{DecisionID: stored.ID, Index: index, RecordHash: stored.Hash,
			Subject: d.GrantID, Actor: stored.Actor, Tier: string(stored.Tier)})
	}
	p.await(ctx, tr)
	return tr.err
}

// Revocation is a human's revocation of a live grant, made by an
// approving layer that has already ended it on the session's gate.
type Revocation struct {
	Expired eventlog.ElevationExpired // reason "revoked"
	// Approver names the human who revoked it.
	Approver string
	// Now is the gates' logical time the revocation took effect at.
	Now int64
}

// RecordRevocation records a revocation: a decision record in the
// register (when the pipeline has one; alternatives: revoke and keep,
// the approver named), then elevation.expired with reason revoked and
// decision.recorded in the event log.
func (p *Pipeline) RecordRevocation(ctx context.Context, r Revocation) error {
	e := r.Expired
	if err := e.Validate(); err != nil {
		return fmt.Errorf("record revocation: %w", err)
	}
	if !sessionName(r.Approver) {
		return fmt.Errorf("record revocation: %w: approver", eventlog.ErrInvalid)
	}
	tr := &trace{id: "revocation:" + e.GrantID, proposer: "operator", start: time.Now()}
	var (
		stored register.Record
		index  int64
	)
	if g := p.gating; g.reg != nil {
		tools := strings.Join(e.Tools, ", ")
		rc := register.Record{
			ID: "dec-rev-" + e.GrantID, Kind: register.KindDecision, Time: uint64(max(r.Now, 0)),
			Task: e.GrantID, Actor: "operator:" + r.Approver, Tier: register.Tier(e.TierRestored),
			Decision: &register.Decision{
				Alternatives: []register.Alternative{
					{ID: "revoke", Description: "End the grant before it lapses.", Change: "revoke grant " + e.GrantID + " (" + tools + ") of session " + e.Session,
						Effect: register.Effect{Unit: "questions"}, Score: 1},
					{ID: "keep", Description: "Let the grant run until it lapses.", Change: "none",
						Effect: register.Effect{Unit: "questions"}, Score: 0},
				},
				Chosen:      "revoke",
				Expected:    "session " + e.Session + " is back at " + e.TierRestored + " for " + tools,
				Constraints: []string{"a live grant of the session", "revoked on a human approver's word"},
			},
			Approver: r.Approver, ModelVersion: "none", PolicyVersion: g.policyVersion,
		}
		var err error
		if stored, index, err = g.appendDecision(ctx, rc); err != nil {
			return fmt.Errorf("record revocation: %w", err)
		}
	}
	p.emitApproval(ctx, tr, e)
	if stored.ID != "" {
		p.emitApproval(ctx, tr, eventlog.DecisionRecorded{DecisionID: stored.ID, Index: index, RecordHash: stored.Hash,
			Subject: e.GrantID, Actor: stored.Actor, Tier: string(stored.Tier)})
	}
	p.await(ctx, tr)
	return tr.err
}

// appendDecision appends a human's decision to the register, detached
// from ctx's cancellation (the decision took effect on the gate: its
// record must be written even if the client left), and returns it with
// its index.
func (g *gating) appendDecision(ctx context.Context, rc register.Record) (register.Record, int64, error) {
	g.regMu.Lock()
	defer g.regMu.Unlock()
	stored, err := g.reg.Append(context.WithoutCancel(ctx), rc)
	if err != nil {
		return register.Record{}, 0, err
	}
	return stored, int64(g.reg.Head().Len - 1), nil
}

func (p *Pipeline) emitApproval(ctx context.Context, tr *trace, pl eventlog.Payload) {
	if p.audit.events != nil {
		p.emit(ctx, tr, pl)
	}
	if f := p.gating.onEvent; f != nil {
		f(ctx, pl)
	}
}

// Gates returns the pipeline's gate store (to look a session's gate up;
// it grants nothing without an Approver); nil when every tool is L1 and
// none was configured.
func (p *Pipeline) Gates() autonomy.Store { return p.gating.gates }
