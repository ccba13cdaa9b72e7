package engine_test

import (
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// TestQueryMetric_Concurrency: however many query_metric calls arrive at
// once, at most Options.MetricConcurrency metric reads run at a time, and
// every call still answers (the others wait their turn).
func TestQueryMetric_Concurrency(t *testing.T) {
	for _, limit := range []int{1, 2} {
		t.Run("", func(t *testing.T) {
			e := enginetest.OpenWarehouse(t, 2000, &engine.Options{MetricConcurrency: limit})
			var wg sync.WaitGroup
			outcomes := make([]answer.Outcome, 8)
			for i := range outcomes {
				wg.Go(func() {
					a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: shape.QueryMetric, Params: map[string]any{
						"metric": "observed_time", "dimensions": []any{"zone"}, "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}})
					outcomes[i] = a.Outcome()
				})
			}
			wg.Wait()
			for i, o := range outcomes {
				if o != answer.Answered {
					t.Errorf("call %d: %s, want answered", i, o)
				}
			}
			if hw := engine.MetricHighWater(e); hw < 1 || hw > limit {
				t.Errorf("at most %d metric reads ran at once; want between 1 and %d", hw, limit)
			}
		})
	}
}
