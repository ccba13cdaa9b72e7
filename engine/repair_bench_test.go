package engine_test

import (
	"testing"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/tool"
)

// BenchmarkDirectMetricCall: a client's own query_metric call over the
// warehouse demo (20,000 events), unverified (no repair loop configured)
// and verified (the loop configured: the domain and empty-table checks;
// a client's call is not judged against its history's band), the price
// of verifying a direct call, for an unbounded metric (fault_count) and a
// bounded one (availability, 0..1).
func BenchmarkDirectMetricCall(b *testing.B) {
	for _, metric := range []string{"fault_count", "availability"} {
		for _, name := range []string{"unverified", "verified"} {
			var r *pipeline.Repair
			if name == "verified" {
				r = &pipeline.Repair{Retries: 2}
			}
			e := enginetest.OpenWarehouse(b, 20000, &engine.Options{Repair: r})
			p := tool.Proposal{Tool: "query_metric", Params: map[string]any{"metric": metric, "dimensions": []any{"zone"},
				"start": "2026-01-06T00:00:00Z", "end": "2026-01-07T00:00:00Z"}}
			b.Run(metric+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if a := e.Pipeline.Call(b.Context(), p); a.Outcome() != "answered" {
						b.Fatal(a.Outcome(), a.Reason())
					}
				}
			})
		}
	}
}
