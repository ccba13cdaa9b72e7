package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	budduckdb "github.com/provenant/provenant/budget/duckdb"
	budpostgres "github.com/provenant/provenant/budget/postgres"
	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// sessionBudgetYAML is a budget of sessionCalls tool calls a session and
// one a question.
func sessionBudgetYAML(sessionCalls string) string {
	return "session:\n  usd: 5.00\n  tokens: 200000\n  tool_calls: " + sessionCalls + "\n  sim_seconds: 3600\n  rows_scanned: 100000000\n" +
		"question:\n  usd: 0.50\n  tokens: 20000\n  tool_calls: 1\n  sim_seconds: 600\n  rows_scanned: 1000000\n"
}

// askOutcome runs ask --json with args and returns the answer's outcome
// and reason kind.
func askOutcome(t *testing.T, args ...string) (answer.Outcome, answer.ReasonKind) {
	t.Helper()
	out, stderr, err := runCLI(t, append(append([]string{"ask", "--json", "--log-level", "error"}, args...), budgetQuestion)...)
	if err != nil {
		t.Errorf("ask %v: %v\n%s", args, err, stderr)
		return "", ""
	}
	var a struct{ Outcome, Reason string }
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Errorf("ask: %v", err)
		return "", ""
	}
	kind, _, _ := strings.Cut(a.Reason, ":")
	return answer.Outcome(a.Outcome), answer.ReasonKind(kind)
}

// TestStateDB_SessionBudgetPersists: with --state-db, the session budget
// is kept in the state database: each `ask` (a process of its own) draws
// on what the last left, so a session of two tool calls answers two asks
// and the third abstains budget_exhausted; raising the session's total in
// the file gives the difference back. Without a state database each ask
// has a whole session of its own.
func TestStateDB_SessionBudgetPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.duckdb")
	two := writeTemp(t, "b.yaml", sessionBudgetYAML("2"))
	state := []string{"--state-db", "duckdb:" + path, "--budget", two}
	for i, want := range []answer.Outcome{answer.Answered, answer.Answered, answer.Abstained} {
		got, kind := askOutcome(t, state...)
		if got != want || (want == answer.Abstained && kind != answer.ReasonBudgetExhausted) {
			t.Fatalf("ask %d: %s %s, want %s", i+1, got, kind, want)
		}
	}
	if got, _ := askOutcome(t, "--budget", two); got != answer.Answered {
		t.Errorf("without a state database: %s, want answered (a session of its own)", got)
	}
	three := writeTemp(t, "b.yaml", sessionBudgetYAML("3"))
	if got, _ := askOutcome(t, "--state-db", "duckdb:"+path, "--budget", three); got != answer.Answered {
		t.Errorf("after raising the session to 3 calls: %s, want answered", got)
	}
	s, err := budduckdb.Open(t.Context(), path, nil)
	checkSessionAccount(t, s, err, 3)
}

// TestStateDB_SessionBudgetShared: asks run at once against one
// PostgreSQL state database, each with its own connection pool as
// separate processes would have, draw from one session budget: of ten
// asks on a session of four tool calls exactly four answer, and the
// account shows four spent, nothing reserved and nothing left.
func TestStateDB_SessionBudgetShared(t *testing.T) {
	dsn, schema := pgtest.SchemaNamed(t)
	b := writeTemp(t, "b.yaml", sessionBudgetYAML("4"))
	const asks = 10
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		outcomes = map[answer.Outcome]int{}
	)
	for range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, kind := askOutcome(t, "--state-db", dsn, "--state-schema", schema, "--budget", b)
			if got == answer.Abstained && kind != answer.ReasonBudgetExhausted {
				t.Errorf("abstained %s, want budget_exhausted", kind)
			}
			mu.Lock()
			outcomes[got]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if outcomes[answer.Answered] != 4 || outcomes[answer.Abstained] != asks-4 {
		t.Errorf("outcomes %v, want 4 answered and %d abstained", outcomes, asks-4)
	}
	s, err := budpostgres.Open(t.Context(), dsn, &budpostgres.Options{Schema: schema})
	checkSessionAccount(t, s, err, 4)
}

// checkSessionAccount checks, on a budget store just opened (err its
// error), that the session's account has spent all of its calls tool
// calls and holds nothing reserved; it closes the store.
func checkSessionAccount(t *testing.T, s *sqlstore.BudgetStore, err error, calls int64) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acct, err := s.Account(t.Context(), budgetScope)
	if err != nil {
		t.Fatal(err)
	}
	if acct.Total.ToolCalls != calls || acct.Spent.ToolCalls != calls || acct.Remaining.ToolCalls != 0 || !acct.Reserved.IsZero() {
		t.Errorf("account %+v: want %d of %d tool calls spent, none left, nothing reserved", acct, calls, calls)
	}
}
