// Package autonomytest is the contract every autonomy.Store passes:
// Sessions in memory, and a LedgerStore over each database ledger
// (autonomy/postgres, autonomy/duckdb). A shared backend also passes
// the checks of two processes on one database: each sees the other's
// grants, a reopened store keeps them, and a grant that lapses is
// reported expired once in all.
package autonomytest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/autonomy"
)

// Opener opens a store over tools under opts on the test's database;
// each call is another process on the same database (for a backend that
// is not shared, a fresh store).
type Opener func(tools []autonomy.Tool, opts *autonomy.GateOptions) (autonomy.Store, error)

// Backend is what the contract runs on.
type Backend struct {
	// New returns an Opener on a fresh database for the test.
	New func(t *testing.T) Opener
	// Shared: stores of one Opener share their state.
	Shared bool
}

// Tools are the declarations the contract's gates use.
var Tools = []autonomy.Tool{
	{Name: "read_sales", Tier: autonomy.L1, Effect: autonomy.None},
	{Name: "open_task", Tier: autonomy.L3, Effect: autonomy.Write},
}

func open(t *testing.T, o Opener, auth *autonomy.Authority) autonomy.Store {
	t.Helper()
	s, err := o(Tools, &autonomy.GateOptions{Authority: auth})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	return s
}

func grant(t *testing.T, s autonomy.Store, auth *autonomy.Authority, session, id string, q, age int64) {
	t.Helper()
	if _, _, err := auth.Grant(t.Context(), s, "alice", session, autonomy.GrantRequest{
		GrantID: id, Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: q, MaxAge: age,
	}); err != nil {
		t.Fatalf("grant %s: %v", id, err)
	}
}

func gate(t *testing.T, s autonomy.Store, session string) *autonomy.Gate {
	t.Helper()
	g, err := s.Gate(session)
	if err != nil {
		t.Fatalf("gate: %v", err)
	}
	return g
}

func tick(t *testing.T, s autonomy.Store) int64 {
	t.Helper()
	n, err := s.Tick(t.Context())
	if err != nil {
		t.Fatalf("tick: %v", err)
	}
	return n
}

func begin(t *testing.T, s autonomy.Store, session string) autonomy.Question {
	t.Helper()
	q, err := s.Begin(t.Context(), session)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	return q
}

func now(t *testing.T, s autonomy.Store) int64 {
	t.Helper()
	n, err := s.Now(t.Context())
	if err != nil {
		t.Fatalf("now: %v", err)
	}
	return n
}

// Run runs the contract.
func Run(t *testing.T, b Backend) {
	t.Run("GrantRaisesOneSession", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		if err := gate(t, s, "s1").Check(t.Context(), "open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Fatalf("check before grant: got %v, want ErrRefused", err)
		}
		grant(t, s, auth, "s1", "g1", 5, 100)
		g := gate(t, s, "s1")
		if err := g.Check(t.Context(), "open_task"); err != nil {
			t.Fatalf("check after grant: %v", err)
		}
		if got := g.Grantor(t.Context(), "open_task"); got != "alice" {
			t.Errorf("grantor: got %q, want alice", got)
		}
		if got := g.Active(t.Context()); !slices.Equal(got, []string{"g1"}) {
			t.Errorf("active: got %v, want [g1]", got)
		}
		if err := gate(t, s, "s2").Check(t.Context(), "open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("other session: got %v, want ErrRefused", err)
		}
		if _, _, err := auth.Grant(t.Context(), s, "alice", "s1", autonomy.GrantRequest{
			GrantID: "g1", Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 1, MaxAge: 1,
		}); !errors.Is(err, autonomy.ErrGrant) {
			t.Errorf("grant id reused: got %v, want ErrGrant", err)
		}
	})
	t.Run("ClockTicks", func(t *testing.T) {
		s := open(t, b.New(t), autonomy.NewAuthority())
		a := tick(t, s)
		if b, now := tick(t, s), now(t, s); b != a+1 || now != b {
			t.Errorf("ticks %d then %d, now %d: want consecutive, now the last", a, b, now)
		}
	})
	t.Run("QuestionsExpireOnce", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 2, 1000)
		var expired []string
		for range 4 {
			exp, err := gate(t, s, "s1").BeginQuestion(t.Context(), tick(t, s))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range exp {
				expired = append(expired, e.GrantID+":"+e.Reason)
			}
		}
		if !slices.Equal(expired, []string{"g1:questions"}) {
			t.Errorf("expired: got %v, want [g1:questions]", expired)
		}
		if err := gate(t, s, "s1").Check(t.Context(), "open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("check after expiry: got %v, want ErrRefused", err)
		}
	})
	t.Run("AgeExpiresAndTimeNeverGoesBack", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 100, 3)
		g := gate(t, s, "s1")
		now := now(t, s)
		if exp, err := g.Advance(t.Context(), now+2); err != nil || len(exp) != 0 {
			t.Fatalf("advance within age: %v %v", exp, err)
		}
		if _, err := g.Advance(t.Context(), now+1); !errors.Is(err, autonomy.ErrTime) {
			t.Errorf("advance back: got %v, want ErrTime", err)
		}
		exp, err := g.Advance(t.Context(), now+3)
		if err != nil || len(exp) != 1 || exp[0].Reason != "age" {
			t.Fatalf("advance to age: got %v %v, want one age expiry", exp, err)
		}
		if exp, err := g.Advance(t.Context(), now+4); err != nil || len(exp) != 0 {
			t.Errorf("advance again: got %v %v, want nothing", exp, err)
		}
	})
	t.Run("RevokeOnce", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 5, 100)
		ap, _ := auth.Approver("bob")
		if e, err := gate(t, s, "s1").Revoke(t.Context(), ap, "g1"); err != nil || e.Reason != "revoked" {
			t.Fatalf("revoke: %v %v", e, err)
		}
		if _, err := gate(t, s, "s1").Revoke(t.Context(), ap, "g1"); !errors.Is(err, autonomy.ErrNoGrant) {
			t.Errorf("revoke again: got %v, want ErrNoGrant", err)
		}
		if err := gate(t, s, "s1").Check(t.Context(), "open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("check after revoke: got %v, want ErrRefused", err)
		}
	})
	t.Run("BeginTicksAndCounts", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 2, 1000)
		var expired []string
		last := now(t, s)
		for i := range 4 {
			q := begin(t, s, "s1")
			if q.Now != last+1 {
				t.Errorf("question %d began at %d, want the tick after %d", i+1, q.Now, last)
			}
			if q.Gate == nil || q.Gate.Session() != "s1" {
				t.Fatalf("question %d: gate %v, want s1's", i+1, q.Gate)
			}
			last = q.Now
			for _, e := range q.Expired {
				expired = append(expired, e.GrantID+":"+e.Reason)
			}
			if i == 1 {
				// Two questions begun: g1 is still live, for this gate
				// and another of the session.
				if err := q.Gate.Check(t.Context(), "open_task"); err != nil {
					t.Errorf("check after 2 questions: %v", err)
				}
			}
		}
		if !slices.Equal(expired, []string{"g1:questions"}) {
			t.Errorf("expired: got %v, want [g1:questions]", expired)
		}
		if got := now(t, s); got != last {
			t.Errorf("clock %d after questions that began up to %d: want equal", got, last)
		}
		if got := tick(t, s); got != last+1 {
			t.Errorf("tick after questions: got %d, want %d (one clock)", got, last+1)
		}
		if err := gate(t, s, "s1").Check(t.Context(), "open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("check after expiry: got %v, want ErrRefused", err)
		}
	})
	t.Run("BeginNeverGoesBack", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 100, 12)
		ahead := now(t, s) + 10
		if _, err := gate(t, s, "s1").Advance(t.Context(), ahead); err != nil {
			t.Fatal(err)
		}
		// The session's time is past the clock: the question begins
		// there, not before it.
		q := begin(t, s, "s1")
		if q.Now != ahead || len(q.Expired) != 0 {
			t.Errorf("begin: at %d expired %v, want at %d, nothing expired", q.Now, q.Expired, ahead)
		}
		if _, err := q.Gate.Advance(t.Context(), ahead-1); !errors.Is(err, autonomy.ErrTime) {
			t.Errorf("advance back after begin: got %v, want ErrTime", err)
		}
		// Until the clock passes it, questions begin at the session's
		// time; then at the clock's, which reaches the grant's age.
		if q := begin(t, s, "s1"); q.Now != ahead || len(q.Expired) != 0 {
			t.Errorf("begin again: at %d expired %v, want at %d, nothing expired", q.Now, q.Expired, ahead)
		}
		for tick(t, s) < ahead+1 {
		}
		if q := begin(t, s, "s1"); q.Now != ahead+2 || len(q.Expired) != 1 || q.Expired[0].Reason != "age" {
			t.Errorf("begin at the grant's age: at %d expired %v, want at %d one age expiry", q.Now, q.Expired, ahead+2)
		}
	})
	t.Run("ConcurrentBeginsExpireOnce", func(t *testing.T) { concurrentBegins(t, b) })
	t.Run("CancelledContextRefuses", func(t *testing.T) { cancelledRefuses(t, b) })
	if !b.Shared {
		return
	}
	t.Run("TwoProcessesShare", func(t *testing.T) {
		o := b.New(t)
		authA, authB := autonomy.NewAuthority(), autonomy.NewAuthority()
		a, bs := open(t, o, authA), open(t, o, authB)
		grant(t, a, authA, "s1", "g1", 3, 1000)
		g := gate(t, bs, "s1")
		if err := g.Check(t.Context(), "open_task"); err != nil {
			t.Fatalf("the other process's check: %v", err)
		}
		if got := g.Grantor(t.Context(), "open_task"); got != "alice" {
			t.Errorf("grantor seen by the other process: got %q", got)
		}
		t1 := tick(t, a)
		if t2 := tick(t, bs); t2 != t1+1 {
			t.Errorf("clock: a ticked %d, b then %d: want one shared clock", t1, t2)
		}
		// A third process, opened later (a restart), sees the grant too.
		c := open(t, o, autonomy.NewAuthority())
		if err := gate(t, c, "s1").Check(t.Context(), "open_task"); err != nil {
			t.Errorf("check after a restart: %v", err)
		}
	})
	t.Run("ConcurrentQuestionsExpireOnce", func(t *testing.T) {
		o := b.New(t)
		auth := autonomy.NewAuthority()
		stores := []autonomy.Store{open(t, o, auth), open(t, o, autonomy.NewAuthority())}
		grant(t, stores[0], auth, "s1", "g1", 3, 1_000_000)
		var (
			mu      sync.Mutex
			expired int
			begun   int
			wg      sync.WaitGroup
		)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := stores[w%2]
				for range 3 {
					g, err := s.Gate("s1")
					if err != nil {
						t.Error(err)
						return
					}
					now, err := s.Tick(t.Context())
					if err != nil {
						t.Error(err)
						return
					}
					// Another question may begin at a later time between
					// the tick and this one: count this one at the clock's
					// time, as the pipeline does.
					exp, err := g.BeginQuestion(t.Context(), now)
					for try := 0; errors.Is(err, autonomy.ErrTime) && try < 100; try++ {
						later, nerr := s.Now(t.Context())
						if nerr != nil {
							t.Error(nerr)
							return
						}
						exp, err = g.BeginQuestion(t.Context(), max(now, later))
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					begun++
					expired += len(exp)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if begun != 12 || expired != 1 {
			t.Errorf("%d questions begun, %d expiries reported: want 12 and exactly 1", begun, expired)
		}
	})
}

// cancelledRefuses: a request whose context is done (its client left,
// its deadline passed) is refused by every gate method and the clock,
// and writes nothing: no grant, no revocation, no question counted, no
// tick. Another process on the database (a fresh store, for a backend
// that is not shared: the same one) sees the state unchanged.
func cancelledRefuses(t *testing.T, b Backend) {
	o := b.New(t)
	auth := autonomy.NewAuthority()
	s := open(t, o, auth)
	other := s
	if b.Shared {
		other = open(t, o, autonomy.NewAuthority())
	}
	grant(t, s, auth, "s1", "g1", 2, 1000)
	done, cancel := context.WithCancel(t.Context())
	cancel()
	expired, stop := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer stop()
	before := now(t, s)
	ap, _ := auth.Approver("bob")
	for name, ctx := range map[string]context.Context{"cancelled": done, "expired": expired} {
		g := gate(t, s, "s1")
		if _, _, err := auth.Grant(ctx, s, "alice", "s2", autonomy.GrantRequest{
			GrantID: "g-" + name, Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 5, MaxAge: 100,
		}); err == nil {
			t.Errorf("%s: grant succeeded", name)
		}
		if _, err := gate(t, s, "s2").Grant(ctx, ap, autonomy.GrantRequest{
			GrantID: "g-" + name, Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 5, MaxAge: 100,
		}, before); err == nil {
			t.Errorf("%s: gate grant succeeded", name)
		}
		if err := g.Check(ctx, "open_task"); err == nil {
			t.Errorf("%s: check allowed the call", name)
		}
		if got := g.Effective(ctx); got != autonomy.L1 {
			t.Errorf("%s: effective tier %s, want L1", name, got)
		}
		if got := g.TierFor(ctx, "open_task"); got != autonomy.L1 {
			t.Errorf("%s: tier for open_task %s, want L1", name, got)
		}
		if got := g.Grantor(ctx, "open_task"); got != "" {
			t.Errorf("%s: grantor %q, want none", name, got)
		}
		if got := g.Active(ctx); len(got) != 0 {
			t.Errorf("%s: active %v, want none", name, got)
		}
		if _, err := s.Tick(ctx); err == nil {
			t.Errorf("%s: tick succeeded", name)
		}
		if _, err := s.Now(ctx); err == nil {
			t.Errorf("%s: now succeeded", name)
		}
		if _, err := g.BeginQuestion(ctx, before+1); err == nil {
			t.Errorf("%s: begin question succeeded", name)
		}
		if _, err := s.Begin(ctx, "s1"); err == nil {
			t.Errorf("%s: store begin succeeded", name)
		}
		if _, err := g.Advance(ctx, before+1000); err == nil {
			t.Errorf("%s: advance succeeded", name)
		}
		if _, err := g.Revoke(ctx, ap, "g1"); err == nil {
			t.Errorf("%s: revoke succeeded", name)
		}
		if _, err := gate(t, s, "s2").Deny(ctx, ap, autonomy.GrantRequest{Tools: []string{"open_task"}, Tier: autonomy.L3}); err == nil {
			t.Errorf("%s: deny succeeded", name)
		}
	}
	// Nothing was written: the clock, the grants, the question count.
	if got := now(t, other); got != before {
		t.Errorf("clock moved to %d from %d", got, before)
	}
	if got := gate(t, other, "s1").Active(t.Context()); !slices.Equal(got, []string{"g1"}) {
		t.Errorf("s1's grants: got %v, want [g1]", got)
	}
	if err := gate(t, other, "s2").Check(t.Context(), "open_task"); !errors.Is(err, autonomy.ErrRefused) {
		t.Errorf("s2 after the refused grants: got %v, want ErrRefused", err)
	}
	// g1 allows two questions: had a refused one been counted, the
	// second would expire it.
	for q := range 2 {
		exp, err := gate(t, other, "s1").BeginQuestion(t.Context(), tick(t, other))
		if err != nil || len(exp) != 0 {
			t.Errorf("question %d: expired %v, %v; want none", q+1, exp, err)
		}
	}
}

// concurrentBegins: goroutines on several stores (for a shared backend,
// several processes on one database) begin questions at once on one
// session that holds a grant for a few questions, and on others, while
// others tick: every question has its own time, after the start and at
// most the clock, which ends at least at the count of ticks and
// questions, and the grant is reported expired exactly once, by the
// question that began right after its last counted one.
func concurrentBegins(t *testing.T, b Backend) {
	const (
		workers = 8
		each    = 5
		maxQ    = 7
	)
	o := b.New(t)
	auth := autonomy.NewAuthority()
	stores := []autonomy.Store{open(t, o, auth)}
	if b.Shared {
		stores = append(stores, open(t, o, autonomy.NewAuthority()), open(t, o, autonomy.NewAuthority()))
	}
	grant(t, stores[0], auth, "s1", "g1", maxQ, 1_000_000)
	start := now(t, stores[0])
	type begun struct {
		at      int64
		expired int
	}
	var (
		mu    sync.Mutex
		s1    []begun
		times = map[int64]bool{}
		ticks int
		wg    sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%len(stores)]
			for i := range each {
				if w%4 == 3 && i%2 == 0 {
					// A bare tick among the questions.
					n, err := s.Tick(t.Context())
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					ticks++
					if times[n] {
						t.Errorf("time %d given twice", n)
					}
					times[n] = true
					mu.Unlock()
					continue
				}
				session := "s1"
				if w%4 == 2 {
					session = "s2"
				}
				q, err := s.Begin(t.Context(), session)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if times[q.Now] {
					t.Errorf("time %d given twice", q.Now)
				}
				times[q.Now] = true
				if session == "s1" {
					s1 = append(s1, begun{at: q.Now, expired: len(q.Expired)})
				} else if len(q.Expired) != 0 {
					t.Errorf("s2 expired %v: it holds no grant", q.Expired)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Every time given is distinct (above) and at most the clock; a
	// retried transaction may have left a gap, so the clock is at least,
	// not exactly, the count on from start.
	got := now(t, stores[len(stores)-1])
	if want := start + int64(len(times)); got < want {
		t.Errorf("clock at %d after %d ticks and questions from %d: want at least %d", got, len(times), start, want)
	}
	for at := range times {
		if at <= start || at > got {
			t.Errorf("time %d given: want after %d and at most the clock, %d", at, start, got)
		}
	}
	slices.SortFunc(s1, func(a, b begun) int { return int(a.at - b.at) })
	var at []int
	for i, q := range s1 {
		for range q.expired {
			at = append(at, i)
		}
	}
	if len(s1) <= maxQ || !slices.Equal(at, []int{maxQ}) {
		t.Errorf("%d questions of s1, expiries reported by the questions at %v in time order: want exactly one, at %d", len(s1), at, maxQ)
	}
	if err := gate(t, stores[0], "s1").Check(t.Context(), "open_task"); !errors.Is(err, autonomy.ErrRefused) {
		t.Errorf("check after the concurrent questions: got %v, want ErrRefused", err)
	}
}

// LedgerOptions says what RunLedger expects of a ledger. nil means the
// zero options.
type LedgerOptions struct {
	// Gaps: a transaction that ticked and then failed leaves its time
	// unused (the clock is a sequence, autonomy/postgres); without it
	// the tick is rolled back with the transaction (autonomy/duckdb).
	Gaps bool
}

// RunLedger runs the checks of a Ledger's TickUpdate itself (the Store
// contract reaches it only through Begin, whose fn never fails): an
// error from fn stores nothing of the session's state (the clock moves
// by one, a gap, for a ledger with opts.Gaps, else not at all); what fn
// leaves is stored with the tick; and gaps are harmless
// (GapsAreHarmless). open returns a ledger on a fresh database.
func RunLedger(t *testing.T, open func(t *testing.T) autonomy.Ledger, opts *LedgerOptions) {
	var o LedgerOptions
	if opts != nil {
		o = *opts
	}
	gap := int64(0)
	if o.Gaps {
		gap = 1
	}
	t.Run("TickUpdateErrorStoresNothing", func(t *testing.T) {
		l := open(t)
		ctx := t.Context()
		if _, err := l.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		before, err := l.Now(ctx)
		if err != nil {
			t.Fatal(err)
		}
		errStop := errors.New("stop")
		_, err = l.TickUpdate(ctx, "s1", func(now int64, st *autonomy.SessionState) error {
			st.Now = now
			st.Grants = append(st.Grants, autonomy.GrantRow{ID: "g1", Tools: []string{"open_task"}, Tier: autonomy.L3,
				Approver: "alice", Granted: now, MaxQuestions: 1, MaxAge: 1})
			return errStop
		})
		if !errors.Is(err, errStop) {
			t.Errorf("tick update whose fn failed: got %v, want fn's error", err)
		}
		if now, err := l.Now(ctx); err != nil || now != before+gap {
			t.Errorf("clock after a failed tick update: %d, %v; want %d", now, err, before+gap)
		}
		if st, err := l.Load(ctx, "s1"); err != nil || len(st.Grants) != 0 || st.Now > before {
			t.Errorf("state after a failed tick update: %+v, %v; want no grant, time at most %d", st, err, before)
		}
		var heard int64
		now, err := l.TickUpdate(ctx, "s1", func(now int64, st *autonomy.SessionState) error {
			heard = now
			st.Now = now
			st.Grants = append(st.Grants, autonomy.GrantRow{ID: "g1", Tools: []string{"open_task"}, Tier: autonomy.L3,
				Approver: "alice", Granted: now, MaxQuestions: 1, MaxAge: 1})
			return nil
		})
		if want := before + gap + 1; err != nil || now != want || heard != now {
			t.Fatalf("tick update: returned %d (fn heard %d), %v; want %d", now, heard, err, want)
		}
		st, err := l.Load(ctx, "s1")
		if err != nil || st.Now != now || len(st.Grants) != 1 || st.Grants[0].ID != "g1" || st.Grants[0].Granted != now {
			t.Errorf("state after a tick update: %+v, %v; want time %d and grant g1 granted then", st, err, now)
		}
		if got, err := l.Now(ctx); err != nil || got != now {
			t.Errorf("clock after a tick update: %d, %v; want %d", got, err, now)
		}
	})
	t.Run("GapsAreHarmless", func(t *testing.T) { gapsAreHarmless(t, open(t), gap) })
	t.Run("TickBare", func(t *testing.T) {
		l := open(t)
		bt, ok := l.(autonomy.BareTicker)
		if !ok {
			t.Skip("not a BareTicker")
		}
		ctx := t.Context()
		clock := func() int64 {
			t.Helper()
			n, err := l.Now(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		// A session never seen: ticked, at time 0.
		before := clock()
		now, st, ticked, err := bt.TickBare(ctx, "s1")
		if err != nil || !ticked || now != before+1 || st.Now != 0 || len(st.Grants) != 0 || clock() != now {
			t.Errorf("tick bare, new session: %d %+v %v %v; want ticked at %d, the clock there", now, st, ticked, err, before+1)
		}
		// s2 ahead of the clock, no grant: ticked, its time read.
		ahead := clock() + 10
		if err := l.Update(ctx, "s2", func(st *autonomy.SessionState) error { st.Now = ahead; return nil }); err != nil {
			t.Fatal(err)
		}
		before = clock()
		if now, st, ticked, err := bt.TickBare(ctx, "s2"); err != nil || !ticked || now != before+1 || st.Now != ahead {
			t.Errorf("tick bare, session ahead: %d %+v %v %v; want ticked at %d, the session at %d", now, st, ticked, err, before+1, ahead)
		}
		// s3 holds a grant: nothing ticked, nothing returned.
		if err := l.Update(ctx, "s3", func(st *autonomy.SessionState) error {
			st.Grants = append(st.Grants, autonomy.GrantRow{ID: "g1", Tools: []string{"open_task"}, Tier: autonomy.L3,
				Approver: "alice", Granted: 1, MaxQuestions: 5, MaxAge: 100})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		before = clock()
		if now, st, ticked, err := bt.TickBare(ctx, "s3"); err != nil || ticked || now != 0 || st.Now != 0 || len(st.Grants) != 0 {
			t.Errorf("tick bare, session with a grant: %d %+v %v %v; want not ticked, nothing returned", now, st, ticked, err)
		}
		if got := clock(); got != before {
			t.Errorf("clock after tick bare of a session with a grant: %d, want %d", got, before)
		}
	})
}

// gapsAreHarmless: transactions that tick and then fail (each leaving
// gap unused times) among the questions of two sessions, one holding a
// grant for 3 questions, the other a grant 4 units of logical time old
// at most. Every guarantee holds: each failure leaves exactly gap times
// unused and stores nothing; question times are distinct and increase,
// the clock is at least each; the questions grant lapses at the 4th
// question, whatever the failures between (they count no question); the
// age grant lapses at the first question at least 4 units after it,
// never before (a gap ages it, fail closed); each lapse is reported
// exactly once; every failure, and every question, is seen by a second
// store on the ledger (another process) too.
func gapsAreHarmless(t *testing.T, l autonomy.Ledger, gap int64) {
	ctx := t.Context()
	auth := autonomy.NewAuthority()
	s, err := autonomy.NewLedgerStore(l, Tools, &autonomy.GateOptions{Authority: auth}, func(err error) { t.Errorf("ledger: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	grant(t, s, auth, "s1", "g1", 3, 1_000_000)
	tick(t, s)
	_, granted, err := auth.Grant(ctx, s, "alice", "s2", autonomy.GrantRequest{
		GrantID: "g2", Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 100, MaxAge: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	errStop := errors.New("stop")
	gaps := 0
	fail := func(session string) {
		t.Helper()
		before := now(t, s)
		_, err := l.TickUpdate(ctx, session, func(_ int64, st *autonomy.SessionState) error {
			st.Grants = nil // what a failed transaction wrote is not stored
			return errStop
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("failed tick update: got %v, want fn's error", err)
		}
		if after := now(t, s); after != before+gap {
			t.Fatalf("clock after a failed transaction: %d from %d, want %d", after, before, before+gap)
		}
		gaps++
	}
	last := int64(0)
	var expired []string
	ask := func(session string) autonomy.Question {
		t.Helper()
		q := begin(t, s, session)
		if q.Now <= last {
			t.Errorf("question of %s at %d after one at %d: want later", session, q.Now, last)
		}
		if c := now(t, s); c < q.Now {
			t.Errorf("clock %d behind a question at %d", c, q.Now)
		}
		last = q.Now
		for _, e := range q.Expired {
			expired = append(expired, e.GrantID+":"+e.Reason)
		}
		return q
	}
	// s1: three questions counted across failures; the fourth ends g1.
	for i, step := range []string{"q", "fail", "q", "fail", "fail", "q", "fail", "q", "q"} {
		if step == "fail" {
			fail("s1")
			continue
		}
		q := ask("s1")
		want := 0
		if i == 7 {
			want = 1 // the fourth question
		}
		if len(q.Expired) != want {
			t.Errorf("step %d (question at %d): %d expiries, want %d", i, q.Now, len(q.Expired), want)
		}
	}
	if !slices.Equal(expired, []string{"g1:questions"}) {
		t.Errorf("s1's expiries: %v, want [g1:questions]", expired)
	}
	// s2: a failure before each question; g2 ends at the first question
	// at least 4 units after its grant, and not before.
	expired = nil
	for range 6 {
		fail("s2")
		already := len(expired)
		q := ask("s2") // appends q's expiries to expired
		lapsed := q.Now-granted >= 4
		if (len(q.Expired) == 1) != (lapsed && already == 0) {
			t.Errorf("question of s2 at %d (granted at %d, max age 4): expiries %v after %v", q.Now, granted, q.Expired, expired[:already])
		}
	}
	if !slices.Equal(expired, []string{"g2:age"}) {
		t.Errorf("s2's expiries: %v, want [g2:age]", expired)
	}
	// Another process sees the same: both grants gone, the clock past
	// every question.
	other, err := autonomy.NewLedgerStore(l, Tools, &autonomy.GateOptions{Authority: autonomy.NewAuthority()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"s1", "s2"} {
		if err := gate(t, other, session).Check(ctx, "open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("%s after its grant lapsed: got %v, want ErrRefused", session, err)
		}
	}
	if c := now(t, other); c < last {
		t.Errorf("clock %d behind the last question at %d", c, last)
	}
	t.Logf("%d failed transactions, %d times unused", gaps, int64(gaps)*gap)
}
