package eventlog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/provenant/provenant/internal/strictjson"
)

// typeSpec is what the package knows of one event type.
type typeSpec struct {
	version int
	goType  reflect.Type
	decode  func(json.RawMessage) (Payload, error)
}

// registry holds every event type this package reads and writes, at its
// current schema version.
var registry = map[Type]typeSpec{}

func register[P Payload](version int) {
	var zero P
	registry[zero.EventType()] = typeSpec{
		version: version,
		goType:  reflect.TypeFor[P](),
		decode: func(raw json.RawMessage) (Payload, error) {
			var p P
			if err := strictjson.Decode(raw, &p, nil); err != nil {
				return nil, fmt.Errorf("%w: payload %s", ErrInvalid, strictjson.Message(err, "malformed"))
			}
			if err := noNulls(raw); err != nil {
				return nil, err
			}
			if err := requireFields(raw, reflect.TypeFor[P](), "$.payload"); err != nil {
				return nil, err
			}
			if err := p.Validate(); err != nil {
				return nil, err
			}
			return p, nil
		},
	}
}

func init() {
	register[QuestionReceived](1)
	register[ToolInvoked](1)
	register[ToolReturned](1)
	register[PlanRejected](1)
	register[GroundingChecked](1)
	register[Abstained](1)
	register[AnswerEmitted](1)
	register[BudgetReserved](1)
	register[BudgetExceeded](1)
	register[ElevationRequested](1)
	register[ElevationDecided](1)
	register[ElevationExpired](1)
	register[DecisionRecorded](1)
	register[DecisionOutcome](1)
}

// Types returns every event type, sorted.
func Types() []Type {
	out := make([]Type, 0, len(registry))
	for t := range registry {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// SchemaVersion returns the schema version t is written at, or 0 for a
// type this package does not know.
func SchemaVersion(t Type) int { return registry[t].version }

// MaxQuestion bounds a question's text, in characters (as JSON Schema's
// maxLength counts them).
const MaxQuestion = 4096

// Tiers and outcomes as the payloads spell them.
var (
	tiers          = []string{"L1", "L2", "L3"}
	surfaces       = []string{"cli", "http", "mcp", "eval"}
	proposers      = []string{"model", "client", "rules", "code"}
	effects        = []string{"none", "simulate", "write"}
	callOutcomes   = []string{"ok", "error", "timeout", "refused"}
	layers         = []string{"wall", "gate", "budget", "sandbox", "resolver"}
	answerOutcomes = []string{"answered", "absence", "abstained", "rejected", "error", "timeout"}
	scopes         = []string{"question", "session"}
	components     = []string{"usd_micros", "tokens", "tool_calls", "simulated_ms", "rows_scanned"}
	decisions      = []string{"granted", "denied"}
	expiries       = []string{"questions", "age", "revoked"}
	results        = []string{"met", "missed", "partial", "unknown"}
)

// QuestionReceived: a question entered the engine. The text is
// untrusted and recorded as given (bounded).
type QuestionReceived struct {
	QuestionID string `json:"question_id"`
	Session    string `json:"session,omitempty"`
	Surface    string `json:"surface"`
	Question   string `json:"question"`
}

func (QuestionReceived) EventType() Type { return TypeQuestionReceived }

func (p QuestionReceived) Validate() error {
	return first(
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkPattern("session", namePattern, p.Session, true),
		checkEnum("surface", p.Surface, surfaces...),
		checkText("question", p.Question, MaxQuestion, false),
	)
}

// ToolInvoked: a validated call is about to run. Arguments are the
// call's canonical JSON object.
type ToolInvoked struct {
	QuestionID string          `json:"question_id"`
	CallID     string          `json:"call_id"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	ProposedBy string          `json:"proposed_by"`
	Effect     string          `json:"effect"`
}

func (ToolInvoked) EventType() Type { return TypeToolInvoked }

func (p ToolInvoked) Validate() error {
	var args map[string]any
	argErr := error(nil)
	if len(p.Arguments) == 0 || strictjson.Decode(p.Arguments, &args, nil) != nil || args == nil || noNulls(p.Arguments) != nil {
		argErr = fieldError("arguments", "a JSON object")
	}
	return first(
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkPattern("call_id", namePattern, p.CallID, false),
		checkPattern("tool", toolPattern, p.Tool, false),
		argErr,
		checkEnum("proposed_by", p.ProposedBy, proposers...),
		checkEnum("effect", p.Effect, effects...),
	)
}

// ToolReturned: a call finished. RowsScanned counts what the run read.
type ToolReturned struct {
	QuestionID  string `json:"question_id"`
	CallID      string `json:"call_id"`
	Tool        string `json:"tool"`
	Outcome     string `json:"outcome"`
	ResultID    string `json:"result_id,omitempty"`
	RowsScanned int64  `json:"rows_scanned"`
}

func (ToolReturned) EventType() Type { return TypeToolReturned }

func (p ToolReturned) Validate() error {
	return first(
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkPattern("call_id", namePattern, p.CallID, false),
		checkPattern("tool", toolPattern, p.Tool, false),
		checkEnum("outcome", p.Outcome, callOutcomes...),
		checkPattern("result_id", namePattern, p.ResultID, true),
		checkCount("rows_scanned", p.RowsScanned),
	)
}

// PlanRejected: a proposal was refused (by the wall, the gate, the
// budget, the sandbox or the resolver). Kind is the rejection's code,
// never the refused value. Tool is omitted when the name was not a
// registered one.
type PlanRejected struct {
	QuestionID string `json:"question_id"`
	Tool       string `json:"tool,omitempty"`
	Layer      string `json:"layer"`
	Kind       string `json:"kind"`
}

func (PlanRejected) EventType() Type { return TypePlanRejected }

func (p PlanRejected) Validate() error {
	return first(
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkPattern("tool", toolPattern, p.Tool, true),
		checkEnum("layer", p.Layer, layers...),
		checkPattern("kind", tokenPattern, p.Kind, false),
	)
}

// GroundingChecked: a composed sentence was held to the ledger.
type GroundingChecked struct {
	QuestionID string   `json:"question_id"`
	ResultIDs  []string `json:"result_ids,omitempty"`
	Passed     bool     `json:"passed"`
	Numerals   int64    `json:"numerals"`
	Unbacked   int64    `json:"unbacked"`
}

func (GroundingChecked) EventType() Type { return TypeGroundingChecked }

func (p GroundingChecked) Validate() error {
	return first(
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkIDs("result_ids", p.ResultIDs),
		checkCount("numerals", p.Numerals),
		checkCount("unbacked", p.Unbacked),
	)
}

// Abstained: the engine declined to answer, for a typed reason
// (budget_exhausted, missing_slot, below_threshold, ...).
type Abstained struct {
	QuestionID string `json:"question_id"`
	Reason     string `json:"reason"`
}

func (Abstained) EventType() Type { return TypeAbstained }

func (p Abstained) Validate() error {
	return first(
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkPattern("reason", tokenPattern, p.Reason, false),
	)
}

// AnswerEmitted: the answer left the engine. The sentence is recorded by
// its SHA-256 only.
type AnswerEmitted struct {
	QuestionID     string   `json:"question_id"`
	Outcome        string   `json:"outcome"`
	ResultIDs      []string `json:"result_ids,omitempty"`
	SentenceSHA256 string   `json:"sentence_sha256,omitempty"`
}

func (AnswerEmitted) EventType() Type { return TypeAnswerEmitted }

func (p AnswerEmitted) Validate() error {
	return first(
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkEnum("outcome", p.Outcome, answerOutcomes...),
		checkIDs("result_ids", p.ResultIDs),
		checkPattern("sentence_sha256", hexPattern, p.SentenceSHA256, true),
	)
}

// Amount is a budget's five components, each a count the run itself
// produces (no wall clock): dollars in millionths, model tokens, tool
// calls, simulated milliseconds and rows scanned.
type Amount struct {
	USDMicros   int64 `json:"usd_micros"`
	Tokens      int64 `json:"tokens"`
	ToolCalls   int64 `json:"tool_calls"`
	SimulatedMS int64 `json:"simulated_ms"`
	RowsScanned int64 `json:"rows_scanned"`
}

func (a Amount) validate(field string) error {
	return first(
		checkCount(field+".usd_micros", a.USDMicros),
		checkCount(field+".tokens", a.Tokens),
		checkCount(field+".tool_calls", a.ToolCalls),
		checkCount(field+".simulated_ms", a.SimulatedMS),
		checkCount(field+".rows_scanned", a.RowsScanned),
	)
}

// BudgetReserved: a reservation fitted on every component.
type BudgetReserved struct {
	Scope         string `json:"scope"`
	ScopeID       string `json:"scope_id"`
	QuestionID    string `json:"question_id,omitempty"`
	ReservationID string `json:"reservation_id"`
	Amount        Amount `json:"amount"`
	Remaining     Amount `json:"remaining"`
}

func (BudgetReserved) EventType() Type { return TypeBudgetReserved }

func (p BudgetReserved) Validate() error {
	return first(
		checkEnum("scope", p.Scope, scopes...),
		checkPattern("scope_id", namePattern, p.ScopeID, false),
		checkPattern("question_id", namePattern, p.QuestionID, true),
		checkPattern("reservation_id", namePattern, p.ReservationID, false),
		p.Amount.validate("amount"),
		p.Remaining.validate("remaining"),
	)
}

// BudgetExceeded: a reservation was denied; Short names the components
// that did not fit.
type BudgetExceeded struct {
	Scope      string   `json:"scope"`
	ScopeID    string   `json:"scope_id"`
	QuestionID string   `json:"question_id,omitempty"`
	Requested  Amount   `json:"requested"`
	Remaining  Amount   `json:"remaining"`
	Short      []string `json:"short"`
}

func (BudgetExceeded) EventType() Type { return TypeBudgetExceeded }

func (p BudgetExceeded) Validate() error {
	shortErr := error(nil)
	if len(p.Short) == 0 || len(p.Short) > len(components) {
		shortErr = fieldError("short", "1 to 5 budget components")
	}
	for i, c := range p.Short {
		if !slices.Contains(components, c) || slices.Contains(p.Short[:i], c) {
			shortErr = fieldError("short", "distinct budget components")
		}
	}
	return first(
		checkEnum("scope", p.Scope, scopes...),
		checkPattern("scope_id", namePattern, p.ScopeID, false),
		checkPattern("question_id", namePattern, p.QuestionID, true),
		p.Requested.validate("requested"),
		p.Remaining.validate("remaining"),
		shortErr,
	)
}

// ElevationRequested: the gate refused a call for want of a tier.
type ElevationRequested struct {
	Session     string `json:"session"`
	QuestionID  string `json:"question_id"`
	Tool        string `json:"tool"`
	TierNeeded  string `json:"tier_needed"`
	TierCurrent string `json:"tier_current"`
}

func (ElevationRequested) EventType() Type { return TypeElevationRequested }

func (p ElevationRequested) Validate() error {
	return first(
		checkPattern("session", namePattern, p.Session, false),
		checkPattern("question_id", namePattern, p.QuestionID, false),
		checkPattern("tool", toolPattern, p.Tool, false),
		checkEnum("tier_needed", p.TierNeeded, tiers...),
		checkEnum("tier_current", p.TierCurrent, tiers...),
	)
}

// ElevationDecided: a human approver granted or denied an elevation.
// Tools are named one by one (no wildcard); a grant lapses after
// MaxQuestions questions or MaxAge units of logical time, whichever
// comes first.
type ElevationDecided struct {
	Session      string   `json:"session"`
	Decision     string   `json:"decision"`
	GrantID      string   `json:"grant_id"`
	Tools        []string `json:"tools"`
	Tier         string   `json:"tier"`
	Approver     string   `json:"approver"`
	MaxQuestions int64    `json:"max_questions"`
	MaxAge       int64    `json:"max_age"`
	DecisionID   string   `json:"decision_id,omitempty"`
}

func (ElevationDecided) EventType() Type { return TypeElevationDecided }

func (p ElevationDecided) Validate() error {
	limits := error(nil)
	if p.MaxQuestions < 1 || p.MaxQuestions > MaxSafeInteger || p.MaxAge < 1 || p.MaxAge > MaxSafeInteger {
		limits = fieldError("max_questions, max_age", "integers from 1 to 2^53-1")
	}
	return first(
		checkPattern("session", namePattern, p.Session, false),
		checkEnum("decision", p.Decision, decisions...),
		checkPattern("grant_id", namePattern, p.GrantID, false),
		checkTools("tools", p.Tools),
		checkEnum("tier", p.Tier, tiers...),
		checkPattern("approver", namePattern, p.Approver, false),
		limits,
		checkPattern("decision_id", namePattern, p.DecisionID, true),
	)
}

// ElevationExpired: a grant lapsed and the session returned to its
// default tier.
type ElevationExpired struct {
	Session      string   `json:"session"`
	GrantID      string   `json:"grant_id"`
	Tools        []string `json:"tools"`
	Reason       string   `json:"reason"`
	TierRestored string   `json:"tier_restored"`
}

func (ElevationExpired) EventType() Type { return TypeElevationExpired }

func (p ElevationExpired) Validate() error {
	return first(
		checkPattern("session", namePattern, p.Session, false),
		checkPattern("grant_id", namePattern, p.GrantID, false),
		checkTools("tools", p.Tools),
		checkEnum("reason", p.Reason, expiries...),
		checkEnum("tier_restored", p.TierRestored, tiers...),
	)
}

// DecisionRecorded: a record was appended to the decision register at
// Index with hash RecordHash.
type DecisionRecorded struct {
	DecisionID string `json:"decision_id"`
	Index      int64  `json:"index"`
	RecordHash string `json:"record_hash"`
	Subject    string `json:"subject"`
	Actor      string `json:"actor"`
	Tier       string `json:"tier"`
}

func (DecisionRecorded) EventType() Type { return TypeDecisionRecorded }

func (p DecisionRecorded) Validate() error {
	return first(
		checkPattern("decision_id", namePattern, p.DecisionID, false),
		checkCount("index", p.Index),
		checkPattern("record_hash", hexPattern, p.RecordHash, false),
		checkPattern("subject", namePattern, p.Subject, false),
		checkPattern("actor", namePattern, p.Actor, false),
		checkEnum("tier", p.Tier, tiers...),
	)
}

// DecisionOutcome: an outcome record referencing DecisionID was
// appended to the register (never an edit of the original).
type DecisionOutcome struct {
	DecisionID string `json:"decision_id"`
	OutcomeID  string `json:"outcome_id"`
	Index      int64  `json:"index"`
	RecordHash string `json:"record_hash"`
	Result     string `json:"result"`
}

func (DecisionOutcome) EventType() Type { return TypeDecisionOutcome }

func (p DecisionOutcome) Validate() error {
	return first(
		checkPattern("decision_id", namePattern, p.DecisionID, false),
		checkPattern("outcome_id", namePattern, p.OutcomeID, false),
		checkCount("index", p.Index),
		checkPattern("record_hash", hexPattern, p.RecordHash, false),
		checkEnum("result", p.Result, results...),
	)
}

// first returns the first non-nil error.
func first(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkIDs checks an optional list of distinct result ids (at most 1,000).
func checkIDs(field string, ids []string) error {
	if len(ids) > 1000 {
		return fieldError(field, "at most 1000 ids")
	}
	for i, id := range ids {
		if !namePattern.MatchString(id) || slices.Contains(ids[:i], id) {
			return fieldError(field, "distinct ids matching "+namePattern.String())
		}
	}
	return nil
}

// checkTools checks a list of 1 to 64 distinct tool names: a name, never
// a pattern.
func checkTools(field string, tools []string) error {
	if len(tools) == 0 || len(tools) > 64 {
		return fieldError(field, "1 to 64 tool names")
	}
	for i, t := range tools {
		if !toolPattern.MatchString(t) || slices.Contains(tools[:i], t) {
			return fieldError(field, "distinct tool names matching "+toolPattern.String())
		}
	}
	return nil
}
