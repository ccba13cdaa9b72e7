// Package autonomy decides what a session may do: every tool declares a
// tier and a side-effect class, and a per-session Gate lets a call
// through only at a tier the session holds. A session starts at its
// configured default (L1, advise) and never rises on its own: only a
// Grant carrying a human Approver raises it, for named tools, until the
// grant lapses after a number of questions or an age in logical time,
// whichever comes first.
//
// # Tiers and side effects
//
// L1 advises (reads and explains), L2 recommends and needs a human to
// approve each recommendation, L3 applies changes within guardrails.
// Side effects are none, simulate and write. CheckTool holds a tool's
// declaration to two invariants: a write tool is L3, and a tool without
// side effects is L1.
//
// # The trust boundary
//
// An Approver can be built only by an Authority (Authority.Approver), and
// a Gate accepts approvers only from the Authority it was given. The
// Authority is created once in main and handed only to the layers that
// authenticate an operator: the `approve` subcommand (the local operator
// at the terminal) and the authenticated HTTP approval endpoint (a bearer
// token whose principal may approve). Those layers name the approver
// from the authenticated identity, never from request content. The
// pipeline, the providers and the tools never receive the Authority, so
// nothing a model writes and nothing read from data or a client (question
// text, tool results, proposals) can become an Approver: the zero
// Approver and one from another Authority are refused. The gate emits
// elevation.requested (Request) for a refused call; that event asks, it
// never authorises.
//
// The package imports the standard library and package eventlog (whose
// payloads it returns).
package autonomy

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/provenant/provenant/eventlog"
)

// Tier is an autonomy tier.
type Tier int

// The tiers, in increasing autonomy.
const (
	L1 Tier = 1 // advise
	L2 Tier = 2 // recommend, with human approval
	L3 Tier = 3 // apply within guardrails
)

func (t Tier) String() string {
	switch t {
	case L1, L2, L3:
		return fmt.Sprintf("L%d", int(t))
	}
	return "invalid tier"
}

func (t Tier) valid() bool { return t >= L1 && t <= L3 }

// ParseTier reads "L1", "L2" or "L3".
func ParseTier(s string) (Tier, error) {
	for _, t := range []Tier{L1, L2, L3} {
		if s == t.String() {
			return t, nil
		}
	}
	return 0, fmt.Errorf("parse tier: %w", ErrUnknownTier)
}

// Effect is a tool's side-effect class.
type Effect int

// The side-effect classes.
const (
	None     Effect = 1 // reads only
	Simulate Effect = 2 // computes what a change would do, changes nothing
	Write    Effect = 3 // changes state
)

func (e Effect) String() string {
	switch e {
	case None:
		return "none"
	case Simulate:
		return "simulate"
	case Write:
		return "write"
	}
	return "invalid effect"
}

func (e Effect) valid() bool { return e >= None && e <= Write }

// ParseEffect reads "none", "simulate" or "write".
func ParseEffect(s string) (Effect, error) {
	for _, e := range []Effect{None, Simulate, Write} {
		if s == e.String() {
			return e, nil
		}
	}
	return 0, fmt.Errorf("parse effect: %w", ErrUnknownEffect)
}

// The sentinels.
var (
	// ErrUnknownTier and ErrUnknownEffect: a value outside the declared
	// ones.
	ErrUnknownTier   = errors.New("unknown tier")
	ErrUnknownEffect = errors.New("unknown side-effect class")
	// ErrInvariant: a tool declaration that breaks a tier invariant
	// (*InvariantError).
	ErrInvariant = errors.New("tier invariant broken")
	// ErrUnknownTool: a tool the gate has no declaration for. The name
	// is not repeated: it may be a model's invention.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrRefused: the session's tier is too low for the call (*Refusal).
	ErrRefused = errors.New("tier too low")
	// ErrNotRefused: Request on a call the gate allows.
	ErrNotRefused = errors.New("call is allowed")
	// ErrNoApprover: a grant without an approver from the gate's
	// Authority.
	ErrNoApprover = errors.New("no human approver")
	// ErrWildcard: a grant naming a pattern instead of a tool.
	ErrWildcard = errors.New("wildcard in grant")
	// ErrGrant: a grant that is otherwise invalid (limits, tier, tools).
	ErrGrant = errors.New("invalid grant")
	// ErrTime: a logical time before the gate's last one.
	ErrTime = errors.New("logical time goes back")
	// ErrNoGrant: Revoke of a grant id no live grant of the session has.
	ErrNoGrant = errors.New("no live grant has that id")
	// ErrNotPending: Deny of tools the session already holds at their
	// tier: no elevation of them is pending.
	ErrNotPending = errors.New("no elevation pending")
)

// InvariantError is a tool declaration that breaks an invariant.
type InvariantError struct {
	Tier   Tier
	Effect Effect
	// Rule is the broken invariant: "write implies L3" or "none
	// implies L1".
	Rule string
}

func (e *InvariantError) Error() string {
	return fmt.Sprintf("check tool: %v: %s tool declared %s (%s)", ErrInvariant, e.Effect, e.Tier, e.Rule)
}

func (e *InvariantError) Unwrap() error { return ErrInvariant }

// The invariants' names.
const (
	RuleWriteL3 = "write implies L3"
	RuleNoneL1  = "none implies L1"
)

// CheckTool holds a tool's declared tier and side-effect class to the
// invariants: write implies L3, none implies L1.
func CheckTool(tier Tier, effect Effect) error {
	switch {
	case !tier.valid():
		return fmt.Errorf("check tool: %w", ErrUnknownTier)
	case !effect.valid():
		return fmt.Errorf("check tool: %w", ErrUnknownEffect)
	case effect == Write && tier != L3:
		return &InvariantError{Tier: tier, Effect: effect, Rule: RuleWriteL3}
	case effect == None && tier != L1:
		return &InvariantError{Tier: tier, Effect: effect, Rule: RuleNoneL1}
	}
	return nil
}

// Tool is a tool's declaration.
type Tool struct {
	Name   string
	Tier   Tier
	Effect Effect
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Authority mints Approvers. Create one in main and hand it only to the
// layers that authenticate operators (see the package doc).
type Authority struct{ _ byte }

// NewAuthority returns a new Authority. A Gate trusts approvers of the
// one Authority its options name.
func NewAuthority() *Authority { return &Authority{} }

// Approver is a human operator whose identity an authenticating layer
// established. Its fields are unexported: only Authority.Approver builds
// one, and the zero Approver approves nothing.
type Approver struct {
	name      string
	authority *Authority
}

// Approver returns the approver named name (as the authenticated
// principal or operator account names it). The caller vouches that the
// operator was authenticated; name must match eventlog's id pattern.
func (a *Authority) Approver(name string) (Approver, error) {
	if a == nil {
		return Approver{}, fmt.Errorf("make approver: %w", ErrNoApprover)
	}
	if !approverName.MatchString(name) {
		return Approver{}, fmt.Errorf("make approver: %w: name: want a value matching %s", ErrNoApprover, approverName)
	}
	return Approver{name: name, authority: a}, nil
}

var approverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`)

// Name returns the approver's name ("" for the zero Approver).
func (a Approver) Name() string { return a.name }

// GateOptions configures a Gate. nil means defaults.
type GateOptions struct {
	// Default is the session's tier; 0 means L1.
	Default Tier
	// Authority is the one whose approvers the gate accepts; nil means
	// no grant is ever accepted.
	Authority *Authority
	// MaxQuestions and MaxAge cap a grant's limits; 0 means 100
	// questions and 1,000,000 units of logical time.
	MaxQuestions int64
	MaxAge       int64
}

// Gate is one session's autonomy state. It is safe for concurrent use.
type Gate struct {
	session string
	tools   map[string]Tool
	opts    GateOptions

	// ledger, when set, holds the state (LedgerStore): every call
	// loads it, and every change is an Update of it.
	ledger  Ledger
	onError func(error)

	mu     sync.Mutex
	now    int64
	grants []*grant
}

type grant struct {
	id        string
	tools     []string
	tier      Tier
	approver  Approver
	granted   int64 // logical time
	questions int64 // questions begun since the grant
	maxQ      int64
	maxAge    int64
}

// NewGate returns the gate of session over the declared tools, each held
// to CheckTool. The session starts at opts.Default.
func NewGate(session string, tools []Tool, opts *GateOptions) (*Gate, error) {
	var o GateOptions
	if opts != nil {
		o = *opts
	}
	if o.Default == 0 {
		o.Default = L1
	}
	if !o.Default.valid() {
		return nil, fmt.Errorf("new gate: default: %w", ErrUnknownTier)
	}
	if o.MaxQuestions <= 0 {
		o.MaxQuestions = 100
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 1_000_000
	}
	if !approverName.MatchString(session) {
		return nil, fmt.Errorf("new gate: %w: session: want a value matching %s", eventlog.ErrInvalid, approverName)
	}
	g := &Gate{session: session, tools: map[string]Tool{}, opts: o}
	for i, t := range tools {
		if !toolName.MatchString(t.Name) {
			return nil, fmt.Errorf("new gate: tool %d: %w: name", i, ErrGrant)
		}
		if _, dup := g.tools[t.Name]; dup {
			return nil, fmt.Errorf("new gate: tool %s declared twice", t.Name)
		}
		if err := CheckTool(t.Tier, t.Effect); err != nil {
			return nil, fmt.Errorf("new gate: tool %s: %w", t.Name, err)
		}
		g.tools[t.Name] = t
	}
	return g, nil
}

// Default returns the session's configured tier.
func (g *Gate) Default() Tier { return g.opts.Default }

// Effective returns the highest tier the session holds for any tool: its
// default, or an active grant's tier. A state it cannot read (a ledger
// failure, ctx done) counts as no grant: the default.
func (g *Gate) Effective(ctx context.Context) Tier {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.opts.Default
	if g.load(ctx) != nil {
		return t
	}
	for _, gr := range g.grants {
		t = max(t, gr.tier)
	}
	return t
}

// TierFor returns the tier the session holds for tool (the default when
// its state cannot be read).
func (g *Gate) TierFor(ctx context.Context, tool string) Tier {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.load(ctx) != nil {
		return g.opts.Default
	}
	return g.tierFor(tool)
}

func (g *Gate) tierFor(tool string) Tier {
	t := g.opts.Default
	for _, gr := range g.grants {
		if slices.Contains(gr.tools, tool) {
			t = max(t, gr.tier)
		}
	}
	return t
}

// Refusal is a call the session's tier does not allow. Tool is a
// declared tool's name.
type Refusal struct {
	Tool    string
	Needed  Tier
	Current Tier
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("check call: %v: %s needs %s, the session holds %s", ErrRefused, r.Tool, r.Needed, r.Current)
}

func (r *Refusal) Unwrap() error { return ErrRefused }

// Check allows a call of tool or refuses it: ErrUnknownTool for an
// undeclared name (not repeated), a *Refusal when the session's tier for
// the tool is below the tool's, and ctx's error (or the ledger's) when
// ctx is done or the state cannot be read: a call is never allowed on
// state the gate did not read.
func (g *Gate) Check(ctx context.Context, tool string) error {
	t, ok := g.tools[tool]
	if !ok {
		return fmt.Errorf("check call: %w", ErrUnknownTool)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.load(ctx); err != nil {
		return fmt.Errorf("check call: %w", err)
	}
	if cur := g.tierFor(tool); cur < t.Tier {
		return &Refusal{Tool: tool, Needed: t.Tier, Current: cur}
	}
	return nil
}

// Request returns the elevation.requested payload for a call of tool the
// gate refuses, during question questionID. It changes nothing: a
// request asks a human, it never authorises.
func (g *Gate) Request(ctx context.Context, tool, questionID string) (eventlog.ElevationRequested, error) {
	err := g.Check(ctx, tool)
	var r *Refusal
	if !errors.As(err, &r) {
		if err == nil {
			err = ErrNotRefused
		}
		return eventlog.ElevationRequested{}, fmt.Errorf("request elevation: %w", err)
	}
	p := eventlog.ElevationRequested{
		Session: g.session, QuestionID: questionID, Tool: tool,
		TierNeeded: r.Needed.String(), TierCurrent: r.Current.String(),
	}
	if err := p.Validate(); err != nil {
		return eventlog.ElevationRequested{}, fmt.Errorf("request elevation: %w", err)
	}
	return p, nil
}

// GrantRequest is what a human approves: named tools (never a pattern),
// a tier, and the grant's limits.
type GrantRequest struct {
	GrantID      string
	Tools        []string
	Tier         Tier
	MaxQuestions int64
	MaxAge       int64
	// DecisionID names the decision record the approval writes, if any.
	DecisionID string
}

// Grant raises the session to req.Tier for req.Tools, on the word of a
// human approver, at logical time now. The grant lapses when
// MaxQuestions further questions have begun, or when now reaches the
// grant's time plus MaxAge, whichever comes first. It returns the
// elevation.decided payload to record. A done ctx grants nothing.
func (g *Gate) Grant(ctx context.Context, a Approver, req GrantRequest, now int64) (eventlog.ElevationDecided, error) {
	if a.authority == nil || a.authority != g.opts.Authority {
		return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w", ErrNoApprover)
	}
	if err := ctx.Err(); err != nil {
		return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w", err)
	}
	if len(req.Tools) == 0 {
		return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w: no tools named", ErrGrant)
	}
	for _, name := range req.Tools {
		if !toolName.MatchString(name) {
			return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w: name tools one by one", ErrWildcard)
		}
		t, ok := g.tools[name]
		if !ok {
			return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w", ErrUnknownTool)
		}
		if t.Tier > req.Tier {
			return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w: %s needs %s", ErrGrant, name, t.Tier)
		}
	}
	switch {
	case !req.Tier.valid() || req.Tier <= g.opts.Default:
		return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w: tier must be above the session's default", ErrGrant)
	case req.MaxQuestions < 1 || req.MaxQuestions > g.opts.MaxQuestions:
		return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w: max questions from 1 to %d", ErrGrant, g.opts.MaxQuestions)
	case req.MaxAge < 1 || req.MaxAge > g.opts.MaxAge:
		return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w: max age from 1 to %d", ErrGrant, g.opts.MaxAge)
	}
	p := eventlog.ElevationDecided{
		Session: g.session, Decision: "granted", GrantID: req.GrantID, Tools: slices.Clone(req.Tools),
		Tier: req.Tier.String(), Approver: a.name, MaxQuestions: req.MaxQuestions, MaxAge: req.MaxAge,
		DecisionID: req.DecisionID,
	}
	if err := p.Validate(); err != nil {
		return eventlog.ElevationDecided{}, fmt.Errorf("grant elevation: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	err := g.update(ctx, func() error {
		if now < g.now {
			return fmt.Errorf("grant elevation: %w", ErrTime)
		}
		for _, gr := range g.grants {
			if gr.id == req.GrantID {
				return fmt.Errorf("grant elevation: %w: grant id in use", ErrGrant)
			}
		}
		g.now = now
		g.grants = append(g.grants, &grant{
			id: req.GrantID, tools: slices.Clone(req.Tools), tier: req.Tier, approver: a,
			granted: now, maxQ: req.MaxQuestions, maxAge: req.MaxAge,
		})
		return nil
	})
	if err != nil {
		return eventlog.ElevationDecided{}, err
	}
	return p, nil
}

// BeginQuestion counts a new question against every active grant at
// logical time now, and expires the grants it exhausts or that have
// aged out. A request begins its question with Store.Begin instead,
// which ticks the clock and does this in one step. It returns the elevation.expired payloads to record; with no
// grant left the session is back at its default. A done ctx changes
// nothing and returns its error.
func (g *Gate) BeginQuestion(ctx context.Context, now int64) ([]eventlog.ElevationExpired, error) {
	return g.advance(ctx, now, true)
}

// Advance moves logical time to now and expires the grants that have
// aged out.
func (g *Gate) Advance(ctx context.Context, now int64) ([]eventlog.ElevationExpired, error) {
	return g.advance(ctx, now, false)
}

func (g *Gate) advance(ctx context.Context, now int64, question bool) ([]eventlog.ElevationExpired, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("advance gate: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []eventlog.ElevationExpired
	err := g.update(ctx, func() error {
		var ok bool
		if out, ok = g.advanceLocked(now, question); !ok {
			return fmt.Errorf("advance gate: %w", ErrTime)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// advanceLocked is advance on the loaded state; g.mu is held. It changes
// nothing and returns false when now is before the gate's time.
func (g *Gate) advanceLocked(now int64, question bool) ([]eventlog.ElevationExpired, bool) {
	if now < g.now {
		return nil, false
	}
	g.now = now
	var out []eventlog.ElevationExpired
	keep := g.grants[:0]
	for _, gr := range g.grants {
		reason := ""
		switch {
		case now-gr.granted >= gr.maxAge:
			reason = "age"
		case question && gr.questions >= gr.maxQ:
			reason = "questions"
		}
		if reason == "" {
			if question {
				gr.questions++
			}
			keep = append(keep, gr)
			continue
		}
		out = append(out, eventlog.ElevationExpired{
			Session: g.session, GrantID: gr.id, Tools: slices.Clone(gr.tools),
			Reason: reason, TierRestored: g.opts.Default.String(),
		})
	}
	clear(g.grants[len(keep):])
	g.grants = keep
	return out, true
}

// Active returns the ids of the active grants, in the order granted
// (none when the state cannot be read).
func (g *Gate) Active(ctx context.Context) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.load(ctx) != nil {
		return nil
	}
	out := make([]string, len(g.grants))
	for i, gr := range g.grants {
		out[i] = gr.id
	}
	return out
}

// Deny records a human's refusal of req, a pending elevation: every
// tool req names is declared and the session's tier for it is below the
// tool's (a call of it is refused and asks for elevation). It returns
// the elevation.decided payload with decision "denied"; the session does
// not change. A tool the session already holds is ErrNotPending; a done
// ctx or an unreadable state refuses.
func (g *Gate) Deny(ctx context.Context, a Approver, req GrantRequest) (eventlog.ElevationDecided, error) {
	if a.authority == nil || a.authority != g.opts.Authority {
		return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w", ErrNoApprover)
	}
	if len(req.Tools) == 0 {
		return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w: no tools named", ErrGrant)
	}
	for _, name := range req.Tools {
		if !toolName.MatchString(name) {
			return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w: name tools one by one", ErrWildcard)
		}
		if _, ok := g.tools[name]; !ok {
			return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w", ErrUnknownTool)
		}
	}
	if !req.Tier.valid() || req.Tier <= g.opts.Default {
		return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w: tier must be above the session's default", ErrGrant)
	}
	p := eventlog.ElevationDecided{
		Session: g.session, Decision: "denied", GrantID: req.GrantID, Tools: slices.Clone(req.Tools),
		Tier: req.Tier.String(), Approver: a.name, MaxQuestions: max(req.MaxQuestions, 1), MaxAge: max(req.MaxAge, 1),
		DecisionID: req.DecisionID,
	}
	if err := p.Validate(); err != nil {
		return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.load(ctx); err != nil {
		return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w", err)
	}
	for _, name := range req.Tools {
		if g.tierFor(name) >= g.tools[name].Tier {
			return eventlog.ElevationDecided{}, fmt.Errorf("deny elevation: %w", ErrNotPending)
		}
	}
	return p, nil
}

// Revoke ends an active grant on a human's word before it lapses, and
// returns the elevation.expired payload with reason "revoked": ErrNoGrant
// when no live grant of the session has the id. A done ctx ends nothing.
func (g *Gate) Revoke(ctx context.Context, a Approver, grantID string) (eventlog.ElevationExpired, error) {
	if a.authority == nil || a.authority != g.opts.Authority {
		return eventlog.ElevationExpired{}, fmt.Errorf("revoke elevation: %w", ErrNoApprover)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out eventlog.ElevationExpired
	err := g.update(ctx, func() error {
		for i, gr := range g.grants {
			if gr.id == grantID {
				g.grants = slices.Delete(g.grants, i, i+1)
				out = eventlog.ElevationExpired{
					Session: g.session, GrantID: gr.id, Tools: slices.Clone(gr.tools),
					Reason: "revoked", TierRestored: g.opts.Default.String(),
				}
				return nil
			}
		}
		return fmt.Errorf("revoke elevation: %w", ErrNoGrant)
	})
	if err != nil {
		return eventlog.ElevationExpired{}, err
	}
	return out, nil
}
