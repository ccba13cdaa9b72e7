package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memstore"
)

// fakeEngine answers re-run calls from a table keyed by tool name, and
// counts them.
type fakeEngine struct {
	answers map[string]memory.Rerun
	errs    map[string]error
	calls   int
}

func (f *fakeEngine) Rerun(_ context.Context, c memory.ToolCall) (memory.Rerun, error) {
	f.calls++
	if err := f.errs[c.Tool]; err != nil {
		return memory.Rerun{}, err
	}
	return f.answers[c.Tool], nil
}

func withProvenance(key, tool, value string, rows ...string) memory.Record {
	r := claim(key, "bot", 10, 0.9)
	r.Provenance = &memory.Provenance{RowKeys: rows, DataVersion: "seq:1"}
	if tool != "" {
		r.Provenance.ToolCall = &memory.ToolCall{Tool: tool, Arguments: json.RawMessage(`{"product_id":"pr-007"}`)}
	}
	if value != "" {
		r.Provenance.Value = json.RawMessage(value)
	}
	return r
}

// TestRecall: each claim carrying provenance is current, outdated (with
// the current value and the newer events) or unverifiable (with a
// reason); a claim without provenance carries no check.
func TestRecall(t *testing.T) {
	eng := &fakeEngine{
		answers: map[string]memory.Rerun{
			"same":  {Value: json.RawMessage(`{ "count" : 2, "ids": ["a","b"] }`), EventIDs: []string{"e1", "e2"}, DataVersion: "seq:9"},
			"moved": {Value: json.RawMessage(`"OUT_OF_STOCK"`), EventIDs: []string{"e9", "e1", "e9"}, DataVersion: "seq:9"},
		},
		errs: map[string]error{
			"refused": errors.Join(memory.ErrRefused, errors.New("out of scope")),
			"broken":  errors.New("database gone"),
		},
	}
	st := memstore.New()
	for _, r := range []memory.Record{
		withProvenance("a-same", "same", `{"ids":["a","b"],"count":2}`, "e1", "e2"),
		withProvenance("b-moved", "moved", `"IN_STOCK"`, "e1"),
		withProvenance("c-refused", "refused", `1`),
		withProvenance("d-broken", "broken", `1`),
		withProvenance("e-nocall", "", `1`),
		withProvenance("f-novalue", "same", ""),
		withProvenance("g-same-again", "same", `{"count":2,"ids":["a","b"]}`),
		claim("h-plain", "bot", 10, 0.9),
	} {
		mustAppend(t, st, r, memory.Visibility{})
	}
	q := stockQuery
	q.MaxItems = 10
	s, err := memory.Recall(t.Context(), st, &memory.Reader{Agent: "bot"}, q, memory.DefaultPolicy(), eng)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]memory.Check{
		"a-same":       {Status: memory.StatusCurrent, DataVersion: "seq:9"},
		"b-moved":      {Status: memory.StatusOutdated, Value: json.RawMessage(`"OUT_OF_STOCK"`), NewerEvents: []string{"e9"}, DataVersion: "seq:9"},
		"c-refused":    {Status: memory.StatusUnverifiable, Reason: memory.ReasonRefused},
		"d-broken":     {Status: memory.StatusUnverifiable, Reason: memory.ReasonFailed},
		"e-nocall":     {Status: memory.StatusUnverifiable, Reason: memory.ReasonNoToolCall},
		"f-novalue":    {Status: memory.StatusUnverifiable, Reason: memory.ReasonNoValue},
		"g-same-again": {Status: memory.StatusCurrent, DataVersion: "seq:9"},
	}
	if len(s.Claims) != 8 {
		t.Fatalf("%d claims, want 8", len(s.Claims))
	}
	for _, c := range s.Claims {
		t.Run(c.Key, func(t *testing.T) {
			w, ok := want[c.Key]
			if !ok {
				if c.Check != nil {
					t.Fatalf("a claim without provenance has a check %+v", c.Check)
				}
				return
			}
			if c.Check == nil || c.Check.Status != w.Status || c.Check.Reason != w.Reason ||
				string(c.Check.Value) != string(w.Value) || !slices.Equal(c.Check.NewerEvents, w.NewerEvents) ||
				c.Check.DataVersion != w.DataVersion {
				t.Fatalf("check %+v, want %+v", c.Check, w)
			}
		})
	}
	// a-same and g-same-again share one call (same tool and arguments).
	if eng.calls != 4 {
		t.Errorf("%d re-runs, want 4 (one per distinct call)", eng.calls)
	}
}

// TestRecall_CallerErrors: recall without a rerunner, or without a
// reader, reads nothing.
func TestRecall_CallerErrors(t *testing.T) {
	st := memstore.New()
	if _, err := memory.Recall(t.Context(), st, &memory.Reader{Agent: "bot"}, stockQuery, memory.DefaultPolicy(), nil); err == nil {
		t.Error("recall without a rerunner succeeded")
	}
	if _, err := memory.Recall(t.Context(), st, nil, stockQuery, memory.DefaultPolicy(), &fakeEngine{}); !errors.Is(err, memory.ErrNoReader) {
		t.Errorf("recall without a reader: %v, want ErrNoReader", err)
	}
}
