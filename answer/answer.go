// Package answer is the single writer of an answer. An Answer's value and
// provenance can be set only by Staple, which copies them from a tool
// result after the resolver's verdict has passed; the model's sentence is
// the only model-written field. This package imports no model provider, and
// a test keeps it so.
package answer

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/tool"
)

// Outcome is the terminal kind of a request.
type Outcome string

// The outcomes. Every request ends in exactly one.
const (
	Answered  Outcome = "answered"  // a positive value with its events
	Absence   Outcome = "absence"   // a grounded zero with its attestation
	Abstained Outcome = "abstained" // no tool covers the question
	Rejected  Outcome = "rejected"  // the wall refused the proposed call
	Error     Outcome = "error"     // the model was unreachable, or we failed
)

// Stage names the pipeline step an error came from.
type Stage string

// The stages that can fail.
const (
	StageSelect  Stage = "select"
	StageExecute Stage = "execute"
	StageResolve Stage = "resolve"
	StageCompose Stage = "compose"
)

// ReasonKind is the kind of a reason: the first word of the wire reason,
// from a closed set. Callers switch on it; they never cut the text apart.
type ReasonKind string

// The reason kinds, by the outcome that carries them.
const (
	// Abstentions.
	ReasonEmptyQuestion    ReasonKind = "empty_question"    // the question is empty
	ReasonQuestionTooLong  ReasonKind = "question_too_long" // the question exceeds the character bound
	ReasonNoTool           ReasonKind = "no_tool"           // no tool on the menu covers the question
	ReasonGroundingRefused ReasonKind = "grounding_refused" // the sentence cites numbers no result backs
	ReasonBelowThreshold   ReasonKind = "below_threshold"   // confidence below the calibrated threshold
	ReasonNoMajority       ReasonKind = "no_majority"       // a self-consistency vote found no majority
	ReasonMissingSlot      ReasonKind = "missing_slot"      // a tool matches, but the question lacks a slot it needs (named)
	ReasonAmbiguous        ReasonKind = "ambiguous"         // a name matches several declared ids (the slot and up to five named)
	ReasonUnknownName      ReasonKind = "unknown_name"      // a name matches no declared id (the slot named)
	ReasonNotUnderstood    ReasonKind = "not_understood"    // a tool matches, but words of the question are outside its vocabulary
	ReasonBudgetExhausted  ReasonKind = "budget_exhausted"  // a budget reservation was denied (the components short named)

	// Rejections: the wall's kinds (package tool).
	ReasonUnregistered = ReasonKind(tool.Unregistered)
	ReasonInvalid      = ReasonKind(tool.Invalid)
	ReasonRawQuery     = ReasonKind(tool.RawQuery)
	ReasonOutOfScope   = ReasonKind(tool.OutOfScope)

	// Rejections of a free SQL statement: the sandbox's failure classes
	// (package sandbox), and a statement that ran and returned no row.
	ReasonSQLError         ReasonKind = "sql_error"         // the statement failed while it ran
	ReasonEmptyResult      ReasonKind = "empty_result"      // the statement returned no row
	ReasonBudgetExceeded   ReasonKind = "budget_exceeded"   // a limit stopped it (rows processed, result size, memory, wall clock)
	ReasonPermissionDenied ReasonKind = "permission_denied" // it asked for something the sandbox forbids
	ReasonSchemaViolation  ReasonKind = "schema_violation"  // it is not one well-formed SELECT over the allowlisted tables' columns

	// Rejections of an action (a call of a tool above L1): the autonomy
	// gate's, and a write's.
	ReasonNeedsApproval ReasonKind = "needs_approval"     // the session's tier is below the tool's: a human must grant it (tool and tiers named)
	ReasonKeyReused     ReasonKind = "request_key_reused" // a write's request key already opened a task with other arguments

	// Errors.
	ReasonModelUnavailable   ReasonKind = "model_unavailable"   // the model was unreachable
	ReasonVerificationFailed ReasonKind = "verification_failed" // the resolver's verdict failed
	ReasonInternal           ReasonKind = "internal"            // our own failure
	ReasonTimeout            ReasonKind = "timeout"             // the request's deadline passed or it was cancelled
)

// AbstainKinds, RejectKinds and ErrorKinds are the closed sets of reason
// kinds each outcome may carry.
var (
	AbstainKinds = []ReasonKind{ReasonEmptyQuestion, ReasonQuestionTooLong, ReasonNoTool,
		ReasonGroundingRefused, ReasonBelowThreshold, ReasonNoMajority,
		ReasonMissingSlot, ReasonAmbiguous, ReasonUnknownName, ReasonNotUnderstood,
		ReasonBudgetExhausted}
	RejectKinds = []ReasonKind{ReasonUnregistered, ReasonInvalid, ReasonRawQuery, ReasonOutOfScope}
	ErrorKinds  = []ReasonKind{ReasonModelUnavailable, ReasonVerificationFailed, ReasonInternal, ReasonTimeout}
	// StatementRejectKinds are the rejections of a free SQL statement
	// (RejectStatement); they are rejections too, kept apart from the
	// wall's kinds.
	StatementRejectKinds = []ReasonKind{ReasonSQLError, ReasonEmptyResult, ReasonBudgetExceeded,
		ReasonPermissionDenied, ReasonSchemaViolation}
	// ActionRejectKinds are the rejections of an action (RejectAction):
	// the autonomy gate's refusal and a write's reused request key.
	ActionRejectKinds = []ReasonKind{ReasonNeedsApproval, ReasonKeyReused}
)

// Reason says why a request did not end in an answer: a kind from a
// closed set and a human-readable detail that never holds a rejected
// value. Its wire form is "kind: detail", or "kind" alone.
type Reason struct {
	Kind   ReasonKind
	Detail string
}

// String returns the wire form.
func (r Reason) String() string {
	if r.Detail == "" {
		return string(r.Kind)
	}
	return string(r.Kind) + ": " + r.Detail
}

// IsZero reports whether r is no reason.
func (r Reason) IsZero() bool { return r.Kind == "" && r.Detail == "" }

// Answer is the one object every surface returns. Its fields are
// unexported so that only this package's constructors write them.
type Answer struct {
	outcome    Outcome
	tool       string
	args       map[string]string
	value      *fact.Value
	provenance *fact.Provenance
	dataVer    string
	text       *string
	verdict    *fact.Verdict
	reason     Reason
	stage      Stage
	resultIDs  []string
	grounding  *grounding.Report
	confidence *Confidence
	governance Governance
	// attempts and specialCause: see repair.go.
	attempts     []Attempt
	specialCause string
	advice       *Advice
}

// Governance says what kind of computation an answer's value came from.
// A governed answer (a declared tool or metric, compiled by our code and
// independently re-derived) carries none: its JSON has no governance key.
type Governance string

// Ungoverned marks an answer computed by SQL the engine did not write
// (free SQL run in the sandbox): re-executed, never independently
// re-derived, so only the statement says what its numbers mean.
const Ungoverned Governance = "ungoverned"

// Confidence is what the engine knows about how likely an answer is to be
// the right one for the question: its signals, and a combined score in
// [0, 1] that calibration thresholds (see package pipeline).
type Confidence struct {
	Score   float64            `json:"score"`
	Signals map[string]float64 `json:"signals"`
}

// WithConfidence returns a with its confidence.
func (a Answer) WithConfidence(c Confidence) Answer {
	c.Signals = maps.Clone(c.Signals)
	a.confidence = &c
	return a
}

// Confidence returns the answer's confidence, if it has one.
func (a Answer) Confidence() (Confidence, bool) {
	if a.confidence == nil {
		return Confidence{}, false
	}
	return *a.confidence, true
}

// ErrUnverified is returned by Staple for a result whose verdict failed.
var ErrUnverified = errors.New("staple answer: verdict did not pass")

// Staple writes a verified result into an answer. text is the composed
// sentence; nil means the model could not compose one, which yields an
// error outcome at stage compose that still carries the verified fact.
// resultID names the result, so that a client can cite it.
func Staple(r fact.Result, v fact.Verdict, text *string, resultID string) (Answer, error) {
	if !v.OK() {
		return Answer{}, ErrUnverified
	}
	value := r.Value
	value.IDs = append([]string(nil), r.Value.IDs...)
	prov := r.Provenance.WithEnumeratedCount(v.Enumerated)
	a := Answer{
		outcome:    Answered,
		tool:       r.Tool,
		args:       maps.Clone(r.Args),
		value:      &value,
		provenance: &prov,
		dataVer:    r.DataVersion,
		verdict:    &v,
		resultIDs:  []string{resultID},
	}
	if _, absent := prov.Absence(); absent {
		a.outcome = Absence
	}
	if _, ran := prov.Statement(); ran {
		a.governance = Ungoverned
	}
	if text == nil {
		a.outcome, a.stage, a.reason = Error, StageCompose, Reason{Kind: ReasonModelUnavailable}
		return a, nil
	}
	t := *text
	a.text = &t
	return a, nil
}

// Abstain is the answer when no tool covers the question, or when a
// verified answer must not ship. It panics on a kind outside AbstainKinds:
// that is a programming error.
func Abstain(kind ReasonKind, detail string) Answer {
	mustKind(kind, AbstainKinds)
	return Answer{outcome: Abstained, reason: Reason{Kind: kind, Detail: detail}}
}

// Reject is the answer when the wall refused a call. tool is the called
// tool's name when it is registered, "" otherwise (an unregistered name is
// never echoed); the rejection never holds the rejected value.
func Reject(tool string, r *tool.Rejection) Answer {
	kind := ReasonKind(r.Kind)
	mustKind(kind, RejectKinds)
	return Answer{outcome: Rejected, tool: tool, reason: Reason{Kind: kind, Detail: r.Detail()}}
}

// RejectStatement is the answer when a free SQL statement the wall
// admitted was stopped by the sandbox or returned nothing: outcome
// rejected, with the failure class as the reason's kind. detail says what
// was refused (a kind and a layer), never the statement's text. It panics
// on a kind outside StatementRejectKinds.
func RejectStatement(tool string, kind ReasonKind, detail string) Answer {
	mustKind(kind, StatementRejectKinds)
	return Answer{outcome: Rejected, tool: tool, reason: Reason{Kind: kind, Detail: detail}}
}

// RejectAction is the answer when the autonomy gate refuses a call the
// wall admitted (needs_approval), or a write refuses its request key
// (request_key_reused): outcome rejected. detail names the tool and the
// tiers, never an argument. It panics on a kind outside
// ActionRejectKinds.
func RejectAction(tool string, kind ReasonKind, detail string) Answer {
	mustKind(kind, ActionRejectKinds)
	return Answer{outcome: Rejected, tool: tool, reason: Reason{Kind: kind, Detail: detail}}
}

// Fail is the answer for an error at a stage. When a call had been
// validated, tool and args name it. It panics on a kind outside
// ErrorKinds.
func Fail(stage Stage, kind ReasonKind, tool string, args map[string]string) Answer {
	mustKind(kind, ErrorKinds)
	return Answer{outcome: Error, stage: stage, reason: Reason{Kind: kind}, tool: tool, args: maps.Clone(args)}
}

func mustKind(k ReasonKind, set []ReasonKind) {
	if !slices.Contains(set, k) {
		panic("answer: reason kind " + strconv.Quote(string(k)) + " is not in its outcome's closed set")
	}
}

// Outcome returns the terminal kind.
func (a Answer) Outcome() Outcome { return a.outcome }

// Tool returns the tool name, "" when none.
func (a Answer) Tool() string { return a.tool }

// Args returns a copy of the validated arguments.
func (a Answer) Args() map[string]string { return maps.Clone(a.args) }

// Value returns the stapled value, if any.
func (a Answer) Value() (fact.Value, bool) {
	if a.value == nil {
		return fact.Value{}, false
	}
	return *a.value, true
}

// Provenance returns the stapled provenance, if any.
func (a Answer) Provenance() (fact.Provenance, bool) {
	if a.provenance == nil {
		return fact.Provenance{}, false
	}
	return *a.provenance, true
}

// Verdict returns the resolver's verdict, if any.
func (a Answer) Verdict() (fact.Verdict, bool) {
	if a.verdict == nil {
		return fact.Verdict{}, false
	}
	return *a.verdict, true
}

// Text returns the display sentence, "" when none.
func (a Answer) Text() string {
	if a.text == nil {
		return ""
	}
	return *a.text
}

// WithGrounding returns a with the grounding report of the sentence the
// model composed (when it was refused, Text is the code-rendered sentence
// that replaced it).
func (a Answer) WithGrounding(r grounding.Report) Answer {
	a.grounding = &r
	return a
}

// Grounding returns the grounding report, if the answer has one.
func (a Answer) Grounding() (grounding.Report, bool) {
	if a.grounding == nil {
		return grounding.Report{}, false
	}
	return *a.grounding, true
}

// ResultIDs returns the ids of the results the answer carries.
func (a Answer) ResultIDs() []string { return append([]string(nil), a.resultIDs...) }

// Reason returns the reason for a non-answer, the zero Reason otherwise.
func (a Answer) Reason() Reason { return a.reason }

// Rejection returns the wall's kind of a rejected answer.
func (a Answer) Rejection() (tool.RejectKind, bool) {
	if a.outcome != Rejected {
		return "", false
	}
	return tool.RejectKind(a.reason.Kind), true
}

// Governance returns Ungoverned for an answer whose value rests on a
// statement the engine did not write, "" for a governed one.
func (a Answer) Governance() Governance { return a.governance }

// Stage returns the failing stage of an error, "" otherwise.
func (a Answer) Stage() Stage { return a.stage }

// wire is the documented JSON object, identical on every surface.
type wire struct {
	Outcome    Outcome           `json:"outcome"`
	Tool       *string           `json:"tool"`
	Params     map[string]string `json:"params"`
	Value      any               `json:"value"`      // fact.Value.JSONShape, or nil
	Provenance any               `json:"provenance"` // fact.Provenance.JSONShape, or nil
	DataVer    string            `json:"data_version,omitempty"`
	Governance Governance        `json:"governance,omitempty"`
	Text       *string           `json:"text"`
	Verdict    *fact.Verdict     `json:"verdict"`
	Reason     *string           `json:"reason"`
	Stage      *Stage            `json:"stage"`
	ResultIDs  []string          `json:"result_ids"`
	Grounding  *grounding.Report `json:"grounding"`
	Confidence *Confidence       `json:"confidence"`
	// Attempts and SpecialCause: see repair.go; absent when empty.
	Attempts     []Attempt `json:"attempts,omitempty"`
	SpecialCause string    `json:"special_cause,omitempty"`
	// Repair is the advice for a client whose own call failed
	// verification (see repair.go); absent when none.
	Repair *Advice `json:"repair,omitempty"`
}

// DataVersion names the snapshot the answer was read from, for an engine
// over a database; "" otherwise.
func (a Answer) DataVersion() string { return a.dataVer }

// MarshalJSON writes the documented answer object with every key present.
func (a Answer) MarshalJSON() ([]byte, error) {
	w := wire{Outcome: a.outcome, Params: a.args, Text: a.text, Verdict: a.verdict, DataVer: a.dataVer, Governance: a.governance,
		ResultIDs: a.resultIDs, Grounding: a.grounding, Confidence: a.confidence,
		Attempts: a.attempts, SpecialCause: a.specialCause, Repair: a.advice}
	// Plain data, not the Marshalers: encoding/json scans a Marshaler's
	// output once more, a pass over every event id of a window.
	if a.value != nil {
		w.Value = a.value.JSONShape()
	}
	if a.provenance != nil {
		w.Provenance = a.provenance.JSONShape()
	}
	if w.ResultIDs == nil {
		w.ResultIDs = []string{}
	}
	if a.tool != "" {
		t := a.tool
		w.Tool = &t
	}
	if !a.reason.IsZero() {
		r := a.reason.String()
		w.Reason = &r
	}
	if a.stage != "" {
		s := a.stage
		w.Stage = &s
	}
	return json.Marshal(w)
}

// Unverified is the answer when the resolver's verdict failed: an error at
// stage resolve that carries the verdict (so an operator sees which clause
// failed) and neither the value nor the provenance.
func Unverified(tool string, args map[string]string, v fact.Verdict) Answer {
	a := Fail(StageResolve, ReasonVerificationFailed, tool, args)
	a.verdict = &v
	return a
}
