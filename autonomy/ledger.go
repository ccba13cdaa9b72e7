package autonomy

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/provenant/provenant/eventlog"
)

// GrantRow is a live grant as a Ledger keeps it: the approver by name
// (the gate that reads it back vouches for it with its own Authority:
// only a holder of one writes a grant).
type GrantRow struct {
	ID           string
	Tools        []string
	Tier         Tier
	Approver     string
	Granted      int64 // logical time
	Questions    int64 // questions begun since the grant
	MaxQuestions int64
	MaxAge       int64
}

// SessionState is a session's gate state: its last logical time and its
// live grants, in the order granted.
type SessionState struct {
	Now    int64
	Grants []GrantRow
}

// Ledger keeps every session's gate state and the shared logical clock
// outside the process (autonomy/postgres, autonomy/duckdb), so that a
// restart keeps the live grants and several processes share them.
type Ledger interface {
	// Load returns the session's state (zero for a session never
	// updated).
	Load(ctx context.Context, session string) (SessionState, error)
	// Update runs fn on the session's state and stores what fn leaves,
	// atomically with respect to every other Update of the session, in
	// this process or another; an error from fn stores nothing and is
	// returned. fn may run more than once (a retried transaction).
	Update(ctx context.Context, session string, fn func(*SessionState) error) error
	// Tick advances the clock and returns the new time: after every
	// time a tick that completed before this one began returned, in any
	// process, so no time is given twice. Times need not be dense: a
	// transaction that ticked and then failed may leave its time unused
	// (autonomy/postgres, whose clock is a sequence). Now reads the
	// clock: at least every time a completed tick returned.
	Tick(ctx context.Context) (int64, error)
	Now(ctx context.Context) (int64, error)
	// TickUpdate is Tick and Update in one atomic step (one transaction):
	// it locks the session's state, advances the clock, runs fn on the
	// state with the new time, and stores what fn leaves; an error from
	// fn stores nothing of the session's state and is returned (its
	// tick is rolled back, or, on a sequence, left unused). No
	// other Update or TickUpdate of the session falls between the tick
	// and the store, so the new time is after every time an earlier
	// TickUpdate of the session stored. fn may run more than once (a
	// retried transaction); it returns the new time.
	TickUpdate(ctx context.Context, session string, fn func(now int64, st *SessionState) error) (int64, error)
}

// BareTicker is a Ledger that also begins a question of a session that
// holds no grant in one step (autonomy/postgres: one statement).
type BareTicker interface {
	// TickBare reads the session's state and, only when it holds no
	// grant, ticks the clock, as one step: ticked reports whether it
	// did, and then now is the new time (as Tick's) and st the state
	// read (its time, no grant). A session that holds a grant is not
	// ticked: ticked is false, and now and st are zero.
	TickBare(ctx context.Context, session string) (now int64, st SessionState, ticked bool, err error)
}

// LedgerStore is a Store over a Ledger: its gates read and write their
// grants in the ledger, on every call.
type LedgerStore struct {
	ledger Ledger
	tools  []Tool
	opts   GateOptions
	// onError, when set, hears the ledger's failures that a method
	// without an error result turns into a refusal.
	onError func(error)
}

var _ Store = (*LedgerStore)(nil)

// LedgerTimeout caps one ledger call: each runs under the caller's
// context, cut to at most this long.
const LedgerTimeout = 30 * time.Second

// NewLedgerStore returns a store whose gates declare tools (each held to
// CheckTool) under opts (nil: defaults, and no grant is ever accepted),
// and keep their state in l. onError, when not nil, hears the ledger
// failures the gates turn into refusals.
func NewLedgerStore(l Ledger, tools []Tool, opts *GateOptions, onError func(error)) (*LedgerStore, error) {
	var o GateOptions
	if opts != nil {
		o = *opts
	}
	if _, err := NewGate("check", tools, &o); err != nil {
		return nil, fmt.Errorf("new ledger store: %w", err)
	}
	return &LedgerStore{ledger: l, tools: slices.Clone(tools), opts: o, onError: onError}, nil
}

// Gate returns the session's gate: a handle on its state in the ledger.
func (s *LedgerStore) Gate(session string) (*Gate, error) {
	g, err := NewGate(session, s.tools, &s.opts)
	if err != nil {
		return nil, fmt.Errorf("open session gate: %w", err)
	}
	g.ledger = s.ledger
	g.onError = s.onError
	return g, nil
}

// Tick advances the ledger's clock, under ctx (capped at LedgerTimeout).
func (s *LedgerStore) Tick(ctx context.Context) (int64, error) {
	lctx, cancel := context.WithTimeout(ctx, LedgerTimeout)
	defer cancel()
	n, err := s.ledger.Tick(lctx)
	if err != nil {
		report(ctx, s.onError, err)
		return 0, fmt.Errorf("tick clock: %w", err)
	}
	return n, nil
}

// Begin ticks the ledger's clock and begins a question on the session's
// gate at the new time (or the session's, if later), under ctx (capped
// at LedgerTimeout). A session that holds no grant has nothing to
// count: Begin reads its state and ticks the clock (a BareTicker's
// TickBare, one step; otherwise Load, then Tick), and writes none of its
// state, so that questions of one session do not
// queue on its state's lock; the question is before any grant the read
// did not see. A session that holds a grant begins it in one TickUpdate:
// the count and the expiry happen under the session's lock, once.
func (s *LedgerStore) Begin(ctx context.Context, session string) (Question, error) {
	g, err := s.Gate(session)
	if err != nil {
		return Question{}, err
	}
	if err := ctx.Err(); err != nil {
		return Question{}, fmt.Errorf("begin question: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	lctx, cancel := context.WithTimeout(ctx, LedgerTimeout)
	defer cancel()
	var (
		st     SessionState
		now    int64
		ticked bool
	)
	if bt, ok := s.ledger.(BareTicker); ok {
		now, st, ticked, err = bt.TickBare(lctx, session)
	} else if st, err = s.ledger.Load(lctx, session); err == nil && len(st.Grants) == 0 {
		now, err = s.ledger.Tick(lctx)
		ticked = err == nil
	}
	if err != nil {
		report(ctx, s.onError, err)
		return Question{}, fmt.Errorf("begin question: %w", err)
	}
	if ticked {
		g.setState(st)
		g.now = max(now, st.Now)
		return Question{Gate: g, Now: g.now}, nil
	}
	var out []eventlog.ElevationExpired
	var at int64
	_, err = s.ledger.TickUpdate(lctx, session, func(now int64, st *SessionState) error {
		g.setState(*st)
		at = max(now, g.now)
		out, _ = g.advanceLocked(at, true)
		*st = g.state()
		return nil
	})
	if err != nil {
		g.grants = nil // fail closed: the default tier only
		report(ctx, s.onError, err)
		return Question{}, fmt.Errorf("begin question: %w", err)
	}
	return Question{Gate: g, Now: at, Expired: out}, nil
}

// Now reads the ledger's clock, under ctx (capped at LedgerTimeout).
func (s *LedgerStore) Now(ctx context.Context) (int64, error) {
	lctx, cancel := context.WithTimeout(ctx, LedgerTimeout)
	defer cancel()
	n, err := s.ledger.Now(lctx)
	if err != nil {
		report(ctx, s.onError, err)
		return 0, fmt.Errorf("read clock: %w", err)
	}
	return n, nil
}

// report passes a ledger failure to onError, unless the caller's ctx is
// done: a client that left or a deadline that passed is the request's
// end, not the ledger's failure (the call is refused either way).
func report(ctx context.Context, onError func(error), err error) {
	if onError != nil && ctx.Err() == nil {
		onError(err)
	}
}

// load reads the gate's state from its ledger into g.now and g.grants;
// g.mu is held. Without a ledger it only checks ctx. A failure (ctx done
// included) leaves no grant in g: the default tier only.
func (g *Gate) load(ctx context.Context) error {
	if g.ledger == nil {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("load gate: %w", err)
		}
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, LedgerTimeout)
	defer cancel()
	st, err := g.ledger.Load(lctx, g.session)
	if err != nil {
		g.grants = nil // fail closed: the default tier only
		report(ctx, g.onError, err)
		return fmt.Errorf("load gate: %w", err)
	}
	g.setState(st)
	return nil
}

// update runs fn on the gate's state, in the ledger's Update when there
// is one, under ctx (capped at LedgerTimeout); g.mu is held. A done ctx
// stores nothing.
func (g *Gate) update(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("update gate: %w", err)
	}
	if g.ledger == nil {
		return fn()
	}
	ctx, cancel := context.WithTimeout(ctx, LedgerTimeout)
	defer cancel()
	err := g.ledger.Update(ctx, g.session, func(st *SessionState) error {
		g.setState(*st)
		if err := fn(); err != nil {
			return err
		}
		*st = g.state()
		return nil
	})
	if err != nil {
		g.grants = nil
	}
	return err
}

func (g *Gate) setState(st SessionState) {
	g.now = st.Now
	g.grants = make([]*grant, len(st.Grants))
	for i, r := range st.Grants {
		g.grants[i] = &grant{
			id: r.ID, tools: slices.Clone(r.Tools), tier: r.Tier,
			approver: Approver{name: r.Approver, authority: g.opts.Authority},
			granted:  r.Granted, questions: r.Questions, maxQ: r.MaxQuestions, maxAge: r.MaxAge,
		}
	}
}

func (g *Gate) state() SessionState {
	st := SessionState{Now: g.now, Grants: make([]GrantRow, len(g.grants))}
	for i, gr := range g.grants {
		st.Grants[i] = GrantRow{
			ID: gr.id, Tools: slices.Clone(gr.tools), Tier: gr.tier, Approver: gr.approver.name,
			Granted: gr.granted, Questions: gr.questions, MaxQuestions: gr.maxQ, MaxAge: gr.maxAge,
		}
	}
	return st
}
