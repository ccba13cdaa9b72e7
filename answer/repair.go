package answer

import (
	"maps"
	"slices"
)

// ReasonImplausibleMagnitude is the rejection of a metric value outside
// the metric's declared domain (a share outside 0..1): the call ran and
// was re-derived, but the number cannot be what the metric measures.
// With StatementRejectKinds it makes the closed set of failure classes
// the repair loop (package repair) acts on.
const ReasonImplausibleMagnitude ReasonKind = "implausible_magnitude"

// FailureClasses are the failure classes of an executed call: the free
// SQL statement's rejections and an implausible magnitude.
var FailureClasses = append(slices.Clone(StatementRejectKinds), ReasonImplausibleMagnitude)

// Attempt is one repair attempt the engine made before this answer: the
// failure class of the proposal it asked the model to repair. The first
// is the first proposal's failure; an answer after n attempts came from
// the n-th repaired proposal (or is the failure the loop gave up on).
//
// Under a self-consistency vote each sample is repaired on its own:
// Sample is then the index of the sample the attempt belongs to, and the
// attempts are listed sample by sample. A question that was not voted on
// has no sample key.
type Attempt struct {
	Class  ReasonKind `json:"class"`
	Sample *int       `json:"sample,omitempty"`
}

// Advice is the repair information a client that proposed a call itself
// (an MCP or REST client: the agent is the model) receives when the
// executed call failed verification: what a provider is told in the
// repair loop (package repair builds both), with the failing selection by
// its declared names only. It never holds a rejected value, a statement's
// text or a secret.
type Advice struct {
	// Class is the failure class (FailureClasses).
	Class ReasonKind `json:"class"`
	// Hint says what the class usually means; Detail what failed (a
	// bound, a layer), never a value.
	Hint   string `json:"hint"`
	Detail string `json:"detail,omitempty"`
	// Selection names the failing call by its declared names.
	Selection Selection `json:"selection"`
	// Catalog is the catalog's declaration of the metric (for free SQL,
	// the allowlisted tables); Definition the metric's one-sentence
	// definition.
	Catalog    string `json:"catalog,omitempty"`
	Definition string `json:"definition,omitempty"`
	// Message is the whole repair message, as a provider would be shown
	// it.
	Message string `json:"message"`
}

// Selection is a failing call by its declared names: the tool, and, for
// a metric call, the metric, dimensions, filtered dimensions and grain
// among the catalog's (a name the catalog does not declare is left out).
type Selection struct {
	Tool       string   `json:"tool,omitempty"`
	Metric     string   `json:"metric,omitempty"`
	Dimensions []string `json:"dimensions,omitempty"`
	Filters    []string `json:"filters,omitempty"`
	Grain      string   `json:"grain,omitempty"`
}

// WithAdvice returns a with the repair advice for a client; nil removes
// it. An answer without advice has no repair key in its JSON.
func (a Answer) WithAdvice(adv *Advice) Answer {
	if adv == nil {
		a.advice = nil
		return a
	}
	c := *adv
	c.Selection.Dimensions = slices.Clone(c.Selection.Dimensions)
	c.Selection.Filters = slices.Clone(c.Selection.Filters)
	a.advice = &c
	return a
}

// Advice returns the answer's repair advice, false when none.
func (a Answer) Advice() (Advice, bool) {
	if a.advice == nil {
		return Advice{}, false
	}
	c := *a.advice
	c.Selection.Dimensions = slices.Clone(c.Selection.Dimensions)
	c.Selection.Filters = slices.Clone(c.Selection.Filters)
	return c, true
}

// RejectImplausible is the answer when a metric's value lies outside the
// metric's declared domain: outcome rejected, with kind
// implausible_magnitude, naming the call. detail says which bound, never
// the value.
func RejectImplausible(tool string, args map[string]string, detail string) Answer {
	a := Answer{outcome: Rejected, tool: tool, reason: Reason{Kind: ReasonImplausibleMagnitude, Detail: detail}}
	if args != nil {
		a.args = maps.Clone(args)
	}
	return a
}

// WithAttempts returns a with the repair attempts made before it; none
// leaves the answer's JSON without an attempts key.
func (a Answer) WithAttempts(attempts []Attempt) Answer {
	a.attempts = cloneAttempts(attempts)
	if len(a.attempts) == 0 {
		a.attempts = nil
	}
	return a
}

// Attempts returns the repair attempts made before the answer.
func (a Answer) Attempts() []Attempt { return cloneAttempts(a.attempts) }

// cloneAttempts copies attempts deeply (a sample index included).
func cloneAttempts(attempts []Attempt) []Attempt {
	out := slices.Clone(attempts)
	for i, at := range out {
		if at.Sample != nil {
			n := *at.Sample
			out[i].Sample = &n
		}
	}
	return out
}

// WithSpecialCause returns a with a note that its value lies outside the
// band of the metric's own history and did not change when the model was
// asked to repair it: a special cause, shipped as such.
func (a Answer) WithSpecialCause(note string) Answer {
	a.specialCause = note
	return a
}

// SpecialCause returns the answer's special-cause note, "" when none.
func (a Answer) SpecialCause() string { return a.specialCause }
