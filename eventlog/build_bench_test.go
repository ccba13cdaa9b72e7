package eventlog_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/provenant/provenant/eventlog"
)

// BenchmarkNewEvent is what the audited path does with each event a
// request writes: build it (NewEvent: the envelope and payload checked,
// the payload canonicalised) and check it again as a store does before
// appending it (Event.Validate: the envelope, and the payload decoded
// strictly). A tool.invoked event, as a point call writes. cpu_us/op is
// the process's CPU time per event (getrusage), which the machine's other
// load moves less than the wall time.
//
//	go test -run XXX -bench NewEvent -benchtime 20000x -count 6 ./eventlog/
func BenchmarkNewEvent(b *testing.B) {
	env := eventlog.Envelope{ID: "evt-" + strings.Repeat("1", 32), Run: "run-1", Producer: "pipeline", Seq: 3, Seed: 42, Time: 3,
		Causation: "evt-" + strings.Repeat("2", 32), Correlation: "req-000001", WallTime: "2026-12-02T07:00:00.123456Z", Host: "host-1", PID: 4242}
	p := eventlog.ToolInvoked{QuestionID: "req-000001", CallID: "call-1", Tool: "get_device_status",
		Arguments: json.RawMessage(`{"as_of":"2026-01-09T12:00:00Z","device_id":"dev-0001"}`), ProposedBy: "client", Effect: "none"}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		e, err := eventlog.NewEvent(env, p)
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Validate(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu_us/op")
}

// BenchmarkStoreEvents is the event log's CPU for one audited point call
// with budgets: six events (question.received, two budget.reserved,
// tool.invoked, tool.returned, answer.emitted), each built (NewEvent),
// checked again and encoded as a database store does before its insert
// (Event.Validate, then the JSON line). One op is the six events.
//
//	go test -run XXX -bench StoreEvents -count 8 ./eventlog/
func BenchmarkStoreEvents(b *testing.B) {
	env := eventlog.Envelope{ID: "evt-" + strings.Repeat("1", 32), Run: "run-1", Producer: "pipeline", Seq: 3, Seed: 42, Time: 3,
		Causation: "evt-" + strings.Repeat("2", 32), Correlation: "req-000001", WallTime: "2026-12-02T07:00:00.123456Z", Host: "host-1", PID: 4242}
	amount := eventlog.Amount{USDMicros: 1500, Tokens: 800, ToolCalls: 1, SimulatedMS: 40, RowsScanned: 1200}
	left := eventlog.Amount{USDMicros: 98500, Tokens: 9200, ToolCalls: 8, SimulatedMS: 960, RowsScanned: 98800}
	payloads := []eventlog.Payload{
		eventlog.QuestionReceived{QuestionID: "req-000001", Session: "mcp-session-1", Surface: "mcp", Question: "get_device_status(as_of=2026-01-09T12:00:00Z, device_id=dev-0001)"},
		eventlog.BudgetReserved{Scope: "session", ScopeID: "mcp-session-1", QuestionID: "req-000001", ReservationID: "res-1", Amount: amount, Remaining: left},
		eventlog.BudgetReserved{Scope: "question", ScopeID: "req-000001", QuestionID: "req-000001", ReservationID: "res-2", Amount: amount, Remaining: left},
		eventlog.ToolInvoked{QuestionID: "req-000001", CallID: "call-1", Tool: "get_device_status",
			Arguments: json.RawMessage(`{"as_of":"2026-01-09T12:00:00Z","device_id":"dev-0001"}`), ProposedBy: "client", Effect: "none"},
		eventlog.ToolReturned{QuestionID: "req-000001", CallID: "call-1", Tool: "get_device_status", Outcome: "ok", ResultID: "result-1", RowsScanned: 2},
		eventlog.AnswerEmitted{QuestionID: "req-000001", Outcome: "answered", ResultIDs: []string{"result-1"}, SentenceSHA256: strings.Repeat("ab", 32)},
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		for _, p := range payloads {
			e, err := eventlog.NewEvent(env, p)
			if err != nil {
				b.Fatal(err)
			}
			if err := e.Validate(); err != nil {
				b.Fatal(err)
			}
			if _, err := eventlog.Encode(e); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1e3/float64(b.N), "cpu_us/op")
}
