package answer_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
)

// TestStaple_Governance: a value resting on a statement is tagged
// ungoverned; a governed one has no governance key at all, so its JSON
// is what it always was.
func TestStaple_Governance(t *testing.T) {
	tab, err := fact.NewTable([]fact.Column{{Name: "n", Type: fact.CellNumber}}, [][]fact.Cell{{fact.NumberCell(7)}})
	if err != nil {
		t.Fatal(err)
	}
	ran, err := fact.Ran(fact.Statement{SQLHash: strings.Repeat("0", 64), Tables: []string{"events"}, ReExecuted: true})
	if err != nil {
		t.Fatal(err)
	}
	events, err := fact.Events([]string{"ev-1"})
	if err != nil {
		t.Fatal(err)
	}
	ok := fact.Verdict{ProvenanceValid: true, ValueMatches: true, Complete: true}
	text := "n is 7."
	for _, tt := range []struct {
		name string
		prov fact.Provenance
		want answer.Governance
	}{
		{"statement", ran, answer.Ungoverned},
		{"events", events, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := fact.NewResult("q", nil, fact.TableValue(tab), tt.prov)
			if err != nil {
				t.Fatal(err)
			}
			a, err := answer.Staple(r, ok, &text, "res-1")
			if err != nil {
				t.Fatal(err)
			}
			if a.Governance() != tt.want {
				t.Errorf("Governance = %q, want %q", a.Governance(), tt.want)
			}
			b, _ := json.Marshal(a)
			has := strings.Contains(string(b), `"governance":"ungoverned"`)
			if has != (tt.want == answer.Ungoverned) || (tt.want == "" && strings.Contains(string(b), "governance")) {
				t.Errorf("JSON %s: governance key present = %t, want %t", b, has, tt.want != "")
			}
		})
	}
}

func TestRejectStatement(t *testing.T) {
	a := answer.RejectStatement("query_sql", answer.ReasonPermissionDenied, "table at layer allowlist")
	if a.Outcome() != answer.Rejected || a.Reason().Kind != answer.ReasonPermissionDenied {
		t.Errorf("RejectStatement = %s %s", a.Outcome(), a.Reason())
	}
	defer func() {
		if recover() == nil {
			t.Error("RejectStatement accepted a wall kind")
		}
	}()
	answer.RejectStatement("query_sql", answer.ReasonInvalid, "")
}
