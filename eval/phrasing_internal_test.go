package eval

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
)

func TestReasonMismatch(t *testing.T) {
	missing := Expect{Reason: ReasonMissingSlot, Slot: "store"}
	amb := Expect{Reason: ReasonAmbiguous, Slot: "product", Candidates: []string{"pr-001", "pr-007"}}
	tests := []struct {
		name string
		x    Expect
		r    answer.Reason
		want string // "" for a match, else a substring of the mismatch
	}{
		{"no_tool", Expect{Reason: ReasonNoTool}, answer.Reason{Kind: "no_tool", Detail: "no tool on the menu covers the question"}, ""},
		{"slot alone", missing, answer.Reason{Kind: "missing_slot", Detail: "store"}, ""},
		{"slot then prose", missing, answer.Reason{Kind: "missing_slot", Detail: "store (get_price needs it)"}, ""},
		{"slot in another case", missing, answer.Reason{Kind: "missing_slot", Detail: "Store"}, ""},
		{"wrong kind", missing, answer.Reason{Kind: "no_tool", Detail: "store"}, "reason: want missing_slot store, got no_tool"},
		{"no kind", missing, answer.Reason{}, "got none"},
		{"wrong slot", missing, answer.Reason{Kind: "missing_slot", Detail: "product"}, "another slot"},
		{"slot later", missing, answer.Reason{Kind: "missing_slot", Detail: "the store"}, "another slot"},
		{"no detail", missing, answer.Reason{Kind: "missing_slot"}, "another slot"},
		{"candidates", amb, answer.Reason{Kind: "ambiguous", Detail: "product: pr-001, pr-007"}, ""},
		{"candidates any order and case", amb, answer.Reason{Kind: "ambiguous", Detail: "product (PR-007 or pr-001)"}, ""},
		{"a candidate left out", amb, answer.Reason{Kind: "ambiguous", Detail: "product: pr-001"}, "candidate pr-007"},
		{"a candidate's prefix is not it", amb, answer.Reason{Kind: "ambiguous", Detail: "product: pr-001, pr-0071"}, "candidate pr-007"},
		{"candidates not judged when the gold has none", Expect{Reason: ReasonAmbiguous, Slot: "store"}, answer.Reason{Kind: "ambiguous", Detail: "store"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := reasonMismatch(tt.x, tt.r)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("mismatch = %q, want a match", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("mismatch = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestReasonMismatch_NeverEchoesDetail checks a mismatch never repeats
// what the answer's detail says (it may hold a rejected word); the kind
// is from a closed set and is named.
func TestReasonMismatch_NeverEchoesDetail(t *testing.T) {
	for _, x := range []Expect{{Reason: ReasonMissingSlot, Slot: "store"}, {Reason: ReasonAmbiguous, Slot: "product", Candidates: []string{"pr-001", "pr-002"}}} {
		for _, kind := range []answer.ReasonKind{"missing_slot", "ambiguous", "no_tool"} {
			got := reasonMismatch(x, answer.Reason{Kind: kind, Detail: "SECRET words"})
			if strings.Contains(got, "SECRET") {
				t.Errorf("mismatch %q repeats the answer", got)
			}
		}
	}
}
