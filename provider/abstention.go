package provider

// AbstentionKind is why a provider that understood part of a question
// proposes no call. The pipeline turns each into the answer's reason kind
// of the same name.
type AbstentionKind string

// The abstention kinds a provider may give.
const (
	// AbstainNoTool: no tool's vocabulary matches the question (what a
	// nil proposal without an error also means).
	AbstainNoTool AbstentionKind = "no_tool"
	// AbstainMissingSlot: a tool matches, a slot it needs is absent.
	AbstainMissingSlot AbstentionKind = "missing_slot"
	// AbstainAmbiguous: a name matches several declared ids.
	AbstainAmbiguous AbstentionKind = "ambiguous"
	// AbstainUnknownName: a name matches no declared id.
	AbstainUnknownName AbstentionKind = "unknown_name"
	// AbstainNotUnderstood: a tool matches but some words are outside its
	// vocabulary, and answering would drop them.
	AbstainNotUnderstood AbstentionKind = "not_understood"
)

// Abstention is the error Select returns to abstain with a reason. Detail
// names the slot and declared ids at most, never a word of the question.
type Abstention struct {
	Kind   AbstentionKind
	Detail string
}

func (a *Abstention) Error() string {
	if a.Detail == "" {
		return "abstain: " + string(a.Kind)
	}
	return "abstain: " + string(a.Kind) + ": " + a.Detail
}
