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
