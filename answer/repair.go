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
type Attempt struct {
	Class ReasonKind `json:"class"`
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
	a.attempts = slices.Clone(attempts)
	if len(a.attempts) == 0 {
		a.attempts = nil
	}
	return a
}

// Attempts returns the repair attempts made before the answer.
func (a Answer) Attempts() []Attempt { return slices.Clone(a.attempts) }

// WithSpecialCause returns a with a note that its value lies outside the
// band of the metric's own history and did not change when the model was
// asked to repair it: a special cause, shipped as such.
func (a Answer) WithSpecialCause(note string) Answer {
	a.specialCause = note
	return a
}

// SpecialCause returns the answer's special-cause note, "" when none.
func (a Answer) SpecialCause() string { return a.specialCause }
