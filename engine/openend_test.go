package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// TestCall_PastOpenEnd: an instant at or past the engines' open-end mark
// (9999-12-31 00:00:00, a series' latest row's validity end) is a typed
// rejection naming the parameter. Before, the executor read it against
// the mark and the re-derivation against the data: the answer failed
// verification, an internal error (HTTP 500) for the caller's input.
func TestCall_PastOpenEnd(t *testing.T) {
	e := enginetest.OpenWarehouse(t, 400, nil)
	tests := []struct {
		name  string
		call  tool.Proposal
		param string
	}{
		{"latest value as of the mark", tool.Proposal{Tool: "get_device_status",
			Params: map[string]any{"device_id": "dev-0001", "as_of": "9999-12-31T00:00:00Z"}}, "as_of"},
		{"entity count as of the last second", tool.Proposal{Tool: "count_devices_with_condition",
			Params: map[string]any{"condition": "FAULTED", "as_of": "9999-12-31T23:59:59Z"}}, "as_of"},
		{"metric window ending past the mark", tool.Proposal{Tool: "query_metric",
			Params: map[string]any{"metric": "observed_time", "start": "2026-01-01T00:00:00Z", "end": "9999-12-31T23:59:59Z"}}, "end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := e.Pipeline.Call(t.Context(), tt.call)
			if a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonInvalid ||
				!strings.HasPrefix(a.Reason().Detail, "parameter "+tt.param+" is after") {
				t.Errorf("outcome %s, reason %+v; want rejected invalid on %s", a.Outcome(), a.Reason(), tt.param)
			}
		})
	}
}

// TestLastInstant_OpenEnd: the wall's latest instant is the second before
// the open-end mark the shapes write, and import's time limit is the mark,
// so that neither an admitted instant nor a stored row reaches it.
func TestLastInstant_OpenEnd(t *testing.T) {
	last, err := time.Parse(tool.TimestampLayout, tool.LastInstant)
	if err != nil {
		t.Fatal(err)
	}
	mark, err := time.Parse(time.DateTime, shape.OpenEnd)
	if err != nil {
		t.Fatal(err)
	}
	if !last.Add(time.Second).Equal(mark) {
		t.Errorf("tool.LastInstant %s + 1s != shape.OpenEnd %s", tool.LastInstant, shape.OpenEnd)
	}
	if !ingest.TimeLimit.Equal(mark) {
		t.Errorf("ingest.TimeLimit %s != shape.OpenEnd %s", ingest.TimeLimit, shape.OpenEnd)
	}
}

// TestQueryMetric_CenturiesOfDuration: a duration metric over a window of
// centuries is answered, up to the last instant the wall admits. The
// re-derivation measured each row's time as a time.Duration, which stops
// at about 292 years: past 2318 a latest row's time was cut there, the
// values disagreed, and the answer failed verification (HTTP 500).
func TestQueryMetric_CenturiesOfDuration(t *testing.T) {
	e := enginetest.OpenWarehouse(t, 400, nil)
	windows := [][2]string{
		{"2026-01-01T00:00:00Z", "2400-01-01T00:00:00Z"},
		{"2026-01-01T00:00:00Z", tool.LastInstant},
		{tool.FirstInstant, tool.LastInstant},
	}
	for _, m := range []string{"observed_time", "availability", "utilisation", "fault_rate", "mean_time_to_repair", "mean_time_between_faults"} {
		for _, w := range windows {
			t.Run(m+" "+w[0]+" "+w[1], func(t *testing.T) {
				a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: "query_metric",
					Params: map[string]any{"metric": m, "dimensions": []any{"zone"}, "start": w[0], "end": w[1]}})
				if o := a.Outcome(); o != answer.Answered && o != answer.Absence {
					t.Errorf("outcome %s, reason %+v; want an answer", o, a.Reason())
				}
			})
		}
	}
}
