package answer_test

import (
	"fmt"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
)

// Staple is the only writer of an answer's value and provenance, and only
// after the resolver's verdict passed; the sentence is the one field a
// model wrote.
func ExampleStaple() {
	events, _ := fact.Events([]string{"evt-002357"})
	r, _ := fact.NewResult("get_price", map[string]string{"store_id": "st-003"}, fact.Integer(781, "cents"), events)
	sentence := "It costs $7.81."

	_, err := answer.Staple(r, fact.Verdict{ProvenanceValid: true, ValueMatches: false, Complete: true}, &sentence, "res-000001")
	fmt.Println(err)

	a, _ := answer.Staple(r, fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true, Enumerated: 1}, &sentence, "res-000001")
	v, _ := a.Value()
	fmt.Println(a.Outcome(), v.Int, a.Text(), a.ResultIDs())
	// Output:
	// staple answer: verdict did not pass
	// answered 781 It costs $7.81. [res-000001]
}
