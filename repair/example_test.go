package repair_test

import (
	"fmt"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/repair"
)

// A share outside 0..1 is rejected outright; an unbounded metric's value
// far outside its own history is out of band; the repair message names
// the class and the failing call and never carries a secret.
func ExampleCheck() {
	zero, one := 0.0, 1.0
	share := repair.Domain{Min: &zero, Max: &one}
	fmt.Println(repair.Check([]float64{1.4}, share, nil, repair.DefaultPolicy()).Finding)

	history := []float64{100, 104, 98, 101, 97, 103, 99, 102, 100, 101}
	fmt.Println(repair.Check([]float64{102}, repair.Domain{Min: &zero}, history, repair.DefaultPolicy()).Finding)
	fmt.Println(repair.Check([]float64{1020}, repair.Domain{Min: &zero}, history, repair.DefaultPolicy()).Finding)

	msg, _ := repair.Message(repair.Failure{
		Class:     answer.ReasonEmptyResult,
		Selection: `{"tool":"query_metric","params":{"metric":"orders","start":"2025-01-01T00:00:00Z","end":"2025-01-08T00:00:00Z"}}`,
		Detail:    "the metric has no value in the window (token=abc123secret)",
	})
	fmt.Println(msg)
	// Output:
	// out_of_domain
	// plausible
	// out_of_band
	// Your previous proposal failed verification with failure class empty_result: the query returned no row or no value; check the window, the filters and the dimensions.
	// What failed:
	// the metric has no value in the window ([redacted])
	// Failing selection:
	// {"tool":"query_metric","params":{"metric":"orders","start":"2025-01-01T00:00:00Z","end":"2025-01-08T00:00:00Z"}}
	// Propose a corrected call from the same menu, or abstain if the question cannot be answered.
}
