package eventlog_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventschema"
)

// samples returns one valid payload of every type, with every optional
// field filled, so that the hash test reaches every field.
func samples() []eventlog.Payload {
	amount := eventlog.Amount{USDMicros: 1500, Tokens: 800, ToolCalls: 2, SimulatedMS: 40, RowsScanned: 1200}
	left := eventlog.Amount{USDMicros: 98500, Tokens: 9200, ToolCalls: 8, SimulatedMS: 960, RowsScanned: 98800}
	return []eventlog.Payload{
		eventlog.QuestionReceived{QuestionID: "q-1", Session: "s-1", Surface: "http", Question: "How many stores are out of stock?"},
		eventlog.ToolInvoked{QuestionID: "q-1", CallID: "c-1", Tool: "count_stores_with_condition",
			Arguments: json.RawMessage(`{"condition":"OUT_OF_STOCK","as_of":"2026-01-06T08:00:00Z"}`), ProposedBy: "model", Effect: "none"},
		eventlog.ToolReturned{QuestionID: "q-1", CallID: "c-1", Tool: "count_stores_with_condition", Outcome: "ok", ResultID: "res-1", RowsScanned: 1200},
		eventlog.PlanRejected{QuestionID: "q-1", Tool: "open_restock_task", Layer: "gate", Kind: "tier_too_low"},
		eventlog.GroundingChecked{QuestionID: "q-1", ResultIDs: []string{"res-1"}, Passed: true, Numerals: 3, Unbacked: 0},
		eventlog.Abstained{QuestionID: "q-2", Reason: "budget_exhausted"},
		eventlog.AnswerEmitted{QuestionID: "q-1", Outcome: "answered", ResultIDs: []string{"res-1"}, SentenceSHA256: strings.Repeat("ab", 32)},
		eventlog.BudgetReserved{Scope: "question", ScopeID: "q-1", QuestionID: "q-1", ReservationID: "r-1", Amount: amount, Remaining: left},
		eventlog.BudgetExceeded{Scope: "session", ScopeID: "s-1", QuestionID: "q-2", Requested: amount, Remaining: eventlog.Amount{Tokens: 3}, Short: []string{"usd_micros", "tokens"}},
		eventlog.ElevationRequested{Session: "s-1", QuestionID: "q-3", Tool: "open_restock_task", TierNeeded: "L3", TierCurrent: "L1"},
		eventlog.ElevationDecided{Session: "s-1", Decision: "granted", GrantID: "g-1", Tools: []string{"open_restock_task"}, Tier: "L3",
			Approver: "alice", MaxQuestions: 3, MaxAge: 100, DecisionID: "d-1"},
		eventlog.ElevationExpired{Session: "s-1", GrantID: "g-1", Tools: []string{"open_restock_task"}, Reason: "questions", TierRestored: "L1"},
		eventlog.DecisionRecorded{DecisionID: "d-1", Index: 0, RecordHash: strings.Repeat("0f", 32), Subject: "q-3", Actor: "alice", Tier: "L3"},
		eventlog.DecisionOutcome{DecisionID: "d-1", OutcomeID: "d-2", Index: 1, RecordHash: strings.Repeat("1e", 32), Result: "met"},
	}
}

// fixedNow is a wall clock that never moves.
func fixedNow() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }

// sampleLog appends every sample once to a fresh memory store through a
// deterministic Log and returns the events.
func sampleLog(t testing.TB) []eventlog.Event {
	t.Helper()
	store := &eventlog.MemStore{}
	l, err := eventlog.NewLog(t.Context(), store, &eventlog.Options{Seed: 7, Deterministic: true, Now: fixedNow, Host: "host-a", PID: 41})
	if err != nil {
		t.Fatal(err)
	}
	var prev string
	for i, p := range samples() {
		e, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: int64(i / 3), Causation: prev, Correlation: "q-1", Payload: p})
		if err != nil {
			t.Fatalf("append %s: %v", p.EventType(), err)
		}
		prev = e.ID
	}
	events, err := eventlog.ReadAll(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func validator(t testing.TB) *eventschema.Validator {
	t.Helper()
	v, err := eventschema.Load()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// line is e's JSON line without its newline.
func line(t fataler, e eventlog.Event) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fataler is what testing.TB and *rapid.T share that helpers need.
type fataler interface {
	Helper()
	Fatal(args ...any)
}
