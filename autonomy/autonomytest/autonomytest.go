// Package autonomytest is the contract every autonomy.Store passes:
// Sessions in memory, and a LedgerStore over each database ledger
// (autonomy/postgres, autonomy/duckdb). A shared backend also passes
// the checks of two processes on one database: each sees the other's
// grants, a reopened store keeps them, and a grant that lapses is
// reported expired once in all.
package autonomytest

import (
	"errors"
	"slices"
	"sync"
	"testing"

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
	if _, _, err := auth.Grant(s, "alice", session, autonomy.GrantRequest{
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

// Run runs the contract.
func Run(t *testing.T, b Backend) {
	t.Run("GrantRaisesOneSession", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		if err := gate(t, s, "s1").Check("open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Fatalf("check before grant: got %v, want ErrRefused", err)
		}
		grant(t, s, auth, "s1", "g1", 5, 100)
		g := gate(t, s, "s1")
		if err := g.Check("open_task"); err != nil {
			t.Fatalf("check after grant: %v", err)
		}
		if got := g.Grantor("open_task"); got != "alice" {
			t.Errorf("grantor: got %q, want alice", got)
		}
		if got := g.Active(); !slices.Equal(got, []string{"g1"}) {
			t.Errorf("active: got %v, want [g1]", got)
		}
		if err := gate(t, s, "s2").Check("open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("other session: got %v, want ErrRefused", err)
		}
		if _, _, err := auth.Grant(s, "alice", "s1", autonomy.GrantRequest{
			GrantID: "g1", Tools: []string{"open_task"}, Tier: autonomy.L3, MaxQuestions: 1, MaxAge: 1,
		}); !errors.Is(err, autonomy.ErrGrant) {
			t.Errorf("grant id reused: got %v, want ErrGrant", err)
		}
	})
	t.Run("ClockTicks", func(t *testing.T) {
		s := open(t, b.New(t), autonomy.NewAuthority())
		a := s.Tick()
		if b := s.Tick(); b != a+1 || s.Now() != b {
			t.Errorf("ticks %d then %d, now %d: want consecutive, now the last", a, b, s.Now())
		}
	})
	t.Run("QuestionsExpireOnce", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 2, 1000)
		var expired []string
		for range 4 {
			exp, err := gate(t, s, "s1").BeginQuestion(s.Tick())
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
		if err := gate(t, s, "s1").Check("open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("check after expiry: got %v, want ErrRefused", err)
		}
	})
	t.Run("AgeExpiresAndTimeNeverGoesBack", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 100, 3)
		g := gate(t, s, "s1")
		now := s.Now()
		if exp, err := g.Advance(now + 2); err != nil || len(exp) != 0 {
			t.Fatalf("advance within age: %v %v", exp, err)
		}
		if _, err := g.Advance(now + 1); !errors.Is(err, autonomy.ErrTime) {
			t.Errorf("advance back: got %v, want ErrTime", err)
		}
		exp, err := g.Advance(now + 3)
		if err != nil || len(exp) != 1 || exp[0].Reason != "age" {
			t.Fatalf("advance to age: got %v %v, want one age expiry", exp, err)
		}
		if exp, err := g.Advance(now + 4); err != nil || len(exp) != 0 {
			t.Errorf("advance again: got %v %v, want nothing", exp, err)
		}
	})
	t.Run("RevokeOnce", func(t *testing.T) {
		auth := autonomy.NewAuthority()
		s := open(t, b.New(t), auth)
		grant(t, s, auth, "s1", "g1", 5, 100)
		ap, _ := auth.Approver("bob")
		if e, err := gate(t, s, "s1").Revoke(ap, "g1"); err != nil || e.Reason != "revoked" {
			t.Fatalf("revoke: %v %v", e, err)
		}
		if _, err := gate(t, s, "s1").Revoke(ap, "g1"); !errors.Is(err, autonomy.ErrGrant) {
			t.Errorf("revoke again: got %v, want ErrGrant", err)
		}
		if err := gate(t, s, "s1").Check("open_task"); !errors.Is(err, autonomy.ErrRefused) {
			t.Errorf("check after revoke: got %v, want ErrRefused", err)
		}
	})
	if !b.Shared {
		return
	}
	t.Run("TwoProcessesShare", func(t *testing.T) {
		o := b.New(t)
		authA, authB := autonomy.NewAuthority(), autonomy.NewAuthority()
		a, bs := open(t, o, authA), open(t, o, authB)
		grant(t, a, authA, "s1", "g1", 3, 1000)
		g := gate(t, bs, "s1")
		if err := g.Check("open_task"); err != nil {
			t.Fatalf("the other process's check: %v", err)
		}
		if got := g.Grantor("open_task"); got != "alice" {
			t.Errorf("grantor seen by the other process: got %q", got)
		}
		t1 := a.Tick()
		if t2 := bs.Tick(); t2 != t1+1 {
			t.Errorf("clock: a ticked %d, b then %d: want one shared clock", t1, t2)
		}
		// A third process, opened later (a restart), sees the grant too.
		c := open(t, o, autonomy.NewAuthority())
		if err := gate(t, c, "s1").Check("open_task"); err != nil {
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
					now := s.Tick()
					// Another question may begin at a later time between
					// the tick and this one: count this one at the clock's
					// time, as the pipeline does.
					exp, err := g.BeginQuestion(now)
					for try := 0; errors.Is(err, autonomy.ErrTime) && try < 100; try++ {
						exp, err = g.BeginQuestion(max(now, s.Now()))
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
