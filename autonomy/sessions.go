package autonomy

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/provenant/provenant/eventlog"
)

// Store is where the gates of every session live, with the one logical
// clock they share. Sessions keeps them in memory; a LedgerStore keeps
// them in a Ledger (autonomy/postgres, autonomy/duckdb: the state
// database), so that grants survive a restart and several processes
// share them.
type Store interface {
	// Gate returns the session's gate, created at the default tier on
	// first use.
	Gate(session string) (*Gate, error)
	// Tick advances the logical clock and returns the new time (after
	// every time given before; not always the next integer: see
	// Ledger.Tick): a question begins at that time.
	Tick(ctx context.Context) (int64, error)
	// Now returns the logical time without advancing it.
	Now(ctx context.Context) (int64, error)
	// Begin is Tick and the session gate's BeginQuestion at the new time
	// in one atomic step (for a LedgerStore, one transaction; for a
	// session that holds no grant, a read and a tick: it has nothing to
	// count): no other question that counts against the session's grants
	// begins between them, so the question begins at the time its tick
	// returned (or, when Advance moved the session's time past the
	// clock, at the session's time: time never goes back), and each
	// grant it ends is reported by it alone. A done ctx ticks nothing and
	// counts nothing; any other error counts nothing (its tick may be
	// left unused: a gap, see Ledger.Tick).
	Begin(ctx context.Context, session string) (Question, error)
}

// Question is a question begun on a session's gate (Store.Begin): the
// gate, the logical time the question began at, and the elevation.expired
// payloads of the grants its beginning ended, to record.
type Question struct {
	Gate    *Gate
	Now     int64
	Expired []eventlog.ElevationExpired
}

// Sessions is an in-memory Store: one Gate per session over one set of
// declared tools, with one GateOptions (its Authority included). Safe
// for concurrent use.
type Sessions struct {
	tools []Tool
	opts  GateOptions

	mu    sync.Mutex
	gates map[string]*Gate
	clock int64
}

var _ Store = (*Sessions)(nil)

// MaxSessions bounds how many sessions a Sessions holds: a session name
// comes from an authenticated identity, but the bound keeps memory
// finite whatever calls it.
const MaxSessions = 100_000

// NewSessions returns a store whose gates declare tools (each held to
// CheckTool) under opts (nil: defaults, and no grant is ever accepted).
func NewSessions(tools []Tool, opts *GateOptions) (*Sessions, error) {
	var o GateOptions
	if opts != nil {
		o = *opts
	}
	// Check the declarations once, here.
	if _, err := NewGate("check", tools, &o); err != nil {
		return nil, fmt.Errorf("new sessions: %w", err)
	}
	return &Sessions{tools: slices.Clone(tools), opts: o, gates: map[string]*Gate{}}, nil
}

// Gate returns the session's gate.
func (s *Sessions) Gate(session string) (*Gate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g, ok := s.gates[session]; ok {
		return g, nil
	}
	if len(s.gates) >= MaxSessions {
		return nil, fmt.Errorf("open session gate: more than %d sessions", MaxSessions)
	}
	g, err := NewGate(session, s.tools, &s.opts)
	if err != nil {
		return nil, fmt.Errorf("open session gate: %w", err)
	}
	g.now = s.clock
	s.gates[session] = g
	return g, nil
}

// Tick advances the clock; a done ctx leaves it and returns its error.
func (s *Sessions) Tick(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("tick clock: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock++
	return s.clock, nil
}

// Begin ticks the clock and begins a question on the session's gate at
// the new time, holding the gate's lock throughout.
func (s *Sessions) Begin(ctx context.Context, session string) (Question, error) {
	g, err := s.Gate(session)
	if err != nil {
		return Question{}, err
	}
	if err := ctx.Err(); err != nil {
		return Question{}, fmt.Errorf("begin question: %w", err)
	}
	// The gate's lock, then the clock's: no other question of the
	// session begins between the tick and this one.
	g.mu.Lock()
	defer g.mu.Unlock()
	s.mu.Lock()
	s.clock++
	now := max(s.clock, g.now)
	s.mu.Unlock()
	out, _ := g.advanceLocked(now, true)
	return Question{Gate: g, Now: now, Expired: out}, nil
}

// Now returns the clock.
func (s *Sessions) Now(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("read clock: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock, nil
}

// Grantor returns the approver's name behind the session's tier for
// tool: the human who approved the live grant that raises it the most,
// "" when the session holds the tool at its default (or its state cannot
// be read).
func (g *Gate) Grantor(ctx context.Context, tool string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	best, name := g.opts.Default, ""
	if g.load(ctx) != nil {
		return name
	}
	for _, gr := range g.grants {
		if slices.Contains(gr.tools, tool) && gr.tier > best {
			best, name = gr.tier, gr.approver.name
		}
	}
	return name
}

// Session returns the gate's session name.
func (g *Gate) Session() string { return g.session }

// Tools returns the declared tools, sorted by name.
func (g *Gate) Tools() []Tool {
	out := make([]Tool, 0, len(g.tools))
	for _, t := range g.tools {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tool) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// Grant applies a human's grant to session's gate in store, at the
// store's logical time, on the word of the operator named approver
// (whom the caller authenticated). Only a holder of the Authority can
// call it. It returns the elevation.decided payload and the time.
func (a *Authority) Grant(ctx context.Context, store Store, approver, session string, req GrantRequest) (eventlog.ElevationDecided, int64, error) {
	ap, err := a.Approver(approver)
	if err != nil {
		return eventlog.ElevationDecided{}, 0, err
	}
	g, err := store.Gate(session)
	if err != nil {
		return eventlog.ElevationDecided{}, 0, err
	}
	now, err := store.Now(ctx)
	if err != nil {
		return eventlog.ElevationDecided{}, 0, fmt.Errorf("grant elevation: %w", err)
	}
	d, err := g.Grant(ctx, ap, req, now)
	return d, now, err
}
