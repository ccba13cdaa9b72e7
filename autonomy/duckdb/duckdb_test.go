package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/autonomy"
	"github.com/provenant/provenant/autonomy/autonomytest"
	"github.com/provenant/provenant/autonomy/duckdb"
	"github.com/provenant/provenant/internal/sqlstore/duckdialect"
)

// TestStore_Contract runs the contract with every store on one database
// file (DuckDB's one process): each store has its own state and lock,
// so they meet only in the database.
func TestStore_Contract(t *testing.T) {
	autonomytest.Run(t, autonomytest.Backend{Shared: true, New: func(t *testing.T) autonomytest.Opener {
		db, err := duckdialect.Open(t.Context(), filepath.Join(t.TempDir(), "state.duckdb"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return func(tools []autonomy.Tool, opts *autonomy.GateOptions) (autonomy.Store, error) {
			l, err := duckdb.New(t.Context(), db, &duckdb.Options{Schema: "audit"})
			if err != nil {
				return nil, err
			}
			return autonomy.NewLedgerStore(l, tools, opts, func(err error) { t.Errorf("ledger: %v", err) })
		}
	}})
}

// TestStore_Ledger runs the ledger's own checks on an in-memory database.
func TestStore_Ledger(t *testing.T) {
	autonomytest.RunLedger(t, func(t *testing.T) autonomy.Ledger {
		l, err := duckdb.Open(t.Context(), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}, nil)
}

// TestStore_Reopen: a closed and reopened file keeps the live grants and
// the clock.
func TestStore_Reopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.duckdb")
	auth := autonomy.NewAuthority()
	tools := autonomytest.Tools
	l, err := duckdb.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := autonomy.NewLedgerStore(l, tools, &autonomy.GateOptions{Authority: auth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := auth.Grant(t.Context(), s, "alice", "s1", autonomy.GrantRequest{GrantID: "g1", Tools: []string{"open_task"},
		Tier: autonomy.L3, MaxQuestions: 2, MaxAge: 10}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2, err := duckdb.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	s2, err := autonomy.NewLedgerStore(l2, tools, &autonomy.GateOptions{Authority: autonomy.NewAuthority()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if now, err := s2.Now(t.Context()); err != nil || now != 1 {
		t.Errorf("clock after reopen: got %d, %v; want 1", now, err)
	}
	g, err := s2.Gate("s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Check(t.Context(), "open_task"); err != nil {
		t.Errorf("check after reopen: %v", err)
	}
}

// TestStore_FailsClosed: a ledger that cannot be read refuses: the
// gate's check fails (not a pass), nobody is the grantor, the clock
// cannot be read, and onError hears each failure.
func TestStore_FailsClosed(t *testing.T) {
	auth := autonomy.NewAuthority()
	l, err := duckdb.Open(t.Context(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var failures int
	s, err := autonomy.NewLedgerStore(l, autonomytest.Tools, &autonomy.GateOptions{Authority: auth}, func(error) { failures++ })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := auth.Grant(t.Context(), s, "alice", "s1", autonomy.GrantRequest{GrantID: "g1", Tools: []string{"open_task"},
		Tier: autonomy.L3, MaxQuestions: 2, MaxAge: 10}); err != nil {
		t.Fatal(err)
	}
	g, err := s.Gate("s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Check(t.Context(), "open_task"); err != nil {
		t.Fatalf("check while open: %v", err)
	}
	l.Close()
	if err := g.Check(t.Context(), "open_task"); err == nil {
		t.Error("check on a closed ledger passed; want an error")
	}
	if got := g.Grantor(t.Context(), "open_task"); got != "" {
		t.Errorf("grantor on a closed ledger: %q, want none", got)
	}
	if got, err := s.Tick(t.Context()); err == nil {
		t.Errorf("tick on a closed ledger: %d, want an error", got)
	}
	if _, err := g.BeginQuestion(t.Context(), 1); err == nil {
		t.Error("begin question on a closed ledger: want an error")
	}
	if _, err := s.Begin(t.Context(), "s1"); err == nil {
		t.Error("store begin on a closed ledger: want an error")
	}
	if failures < 4 {
		t.Errorf("onError heard %d failures, want at least 4", failures)
	}
}
