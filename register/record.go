package register

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Kind says whether a record is a decision or an outcome.
type Kind string

// The kinds of record.
const (
	KindDecision Kind = "decision"
	KindOutcome  Kind = "outcome"
)

// Tier is the autonomy tier a record's actor acted under.
type Tier string

// The tiers.
const (
	L1 Tier = "L1" // advise
	L2 Tier = "L2" // recommend, with human approval
	L3 Tier = "L3" // apply within guardrails
)

// Record is one entry of the register. A decision record carries
// Decision; an outcome record carries Outcome, which names an earlier
// decision: an outcome is back-filled by appending, never by editing.
//
// Prev and Hash are set by the register: Prev is the previous record's
// hash (GenesisHash for the first) and Hash is
// SHA-256(prev || canonical JSON of the record without "hash"), both in
// lowercase hex.
type Record struct {
	// ID is the decision id of a decision record, the outcome's own id of
	// an outcome record; unique in the register.
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Time is the logical time of the record (at most MaxTime, so it is
	// exact as a JSON number).
	Time uint64 `json:"time"`
	// Question or Task names what the record is about: exactly one is set.
	Question string `json:"question,omitempty"`
	Task     string `json:"task,omitempty"`
	// Actor names who decided or observed ("pipeline", "human:alice").
	Actor string `json:"actor"`
	Tier  Tier   `json:"tier"`

	Decision *Decision `json:"decision,omitempty"`
	Outcome  *Outcome  `json:"outcome,omitempty"`

	// Approver names the human who approved; empty (absent in JSON) when
	// none did.
	Approver      string `json:"approver,omitempty"`
	ModelVersion  string `json:"model_version"`
	PolicyVersion string `json:"policy_version"`
	// Seed is the run's seed, written as a decimal string so every uint64
	// is exact.
	Seed uint64 `json:"seed,string"`

	Prev string `json:"prev"`
	Hash string `json:"hash,omitempty"`
}

// Decision is what was decided: the alternatives considered and the one
// chosen.
type Decision struct {
	Alternatives []Alternative `json:"alternatives"`
	// Chosen is the ID of one of the alternatives.
	Chosen string `json:"chosen"`
	// Inputs are the result ids (ledger ids) the decision rested on.
	Inputs []string `json:"inputs,omitempty"`
	// Expected is the outcome expected of the chosen alternative.
	Expected    string   `json:"expected"`
	Constraints []string `json:"constraints,omitempty"`
}

// Alternative is one option a decision considered.
type Alternative struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	// Change is what the alternative would change ("restock store 3,
	// product 17, 40 units").
	Change string `json:"change"`
	// Effect is its projected effect, with an interval.
	Effect Effect `json:"effect"`
	// Cost and Score are finite numbers; their units are the policy's.
	Cost  float64 `json:"cost"`
	Score float64 `json:"score"`
}

// Effect is a projected effect: an estimate inside an interval
// (Low <= Estimate <= High), in Unit.
type Effect struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Unit     string  `json:"unit,omitempty"`
}

// Outcome is what was observed after a decision.
type Outcome struct {
	// Decision is the ID of the decision record the outcome reports on.
	Decision string `json:"decision"`
	Observed string `json:"observed"`
	// Inputs are the result ids the observation rests on.
	Inputs []string `json:"inputs,omitempty"`
}

// GenesisHash is the Prev of the first record: 32 zero bytes.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// Limits of a record.
const (
	MaxTime         = 1<<53 - 1 // the largest logical time: exact in a JSON number
	MaxIDBytes      = 128       // ids, names and versions
	MaxTextBytes    = 4096      // descriptions, changes, expected and observed outcomes, constraints
	MaxAlternatives = 64
	MaxInputs       = 1024
	MaxConstraints  = 64
)

// ErrInvalid is wrapped by every *FieldError.
var ErrInvalid = errors.New("invalid record")

// FieldError is a record that is not valid. Field is a declared JSON path
// ("decision.alternatives[2].effect"); the field's value is never
// repeated.
type FieldError struct {
	Field   string
	Problem string
}

func (e *FieldError) Error() string { return "validate record: " + e.Field + ": " + e.Problem }

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func bad(field, problem string) error { return &FieldError{Field: field, Problem: problem} }

// validID reports whether s is 1 to MaxIDBytes bytes of letters, digits
// and . _ : @ / + - (ids, actor and approver names, versions).
func validID(s string) bool {
	if s == "" || len(s) > MaxIDBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == ':', c == '@', c == '/', c == '+', c == '-':
		default:
			return false
		}
	}
	return true
}

func checkID(field, s string) error {
	if !validID(s) {
		return bad(field, fmt.Sprintf("want 1 to %d letters, digits or . _ : @ / + -", MaxIDBytes))
	}
	return nil
}

func checkText(field, s string, required bool) error {
	switch {
	case s == "" && required:
		return bad(field, "missing")
	case len(s) > MaxTextBytes:
		return bad(field, fmt.Sprintf("longer than %d bytes", MaxTextBytes))
	case !utf8.ValidString(s):
		return bad(field, "invalid UTF-8")
	}
	return nil
}

func checkNumber(field string, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return bad(field, "not a finite number")
	}
	return nil
}

func checkIDs(field string, ids []string, max int) error {
	if len(ids) > max {
		return bad(field, fmt.Sprintf("more than %d", max))
	}
	for i, id := range ids {
		if err := checkID(fmt.Sprintf("%s[%d]", field, i), id); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks every field of r but Prev and Hash, and checks those
// only for form (64 lowercase hex digits, when set). It does not look at
// other records: a unique ID and an outcome's reference are the
// register's to check.
func (r *Record) Validate() error {
	if err := checkID("id", r.ID); err != nil {
		return err
	}
	if r.Time > MaxTime {
		return bad("time", "beyond 2^53-1")
	}
	if (r.Question == "") == (r.Task == "") {
		return bad("question", "want exactly one of question and task")
	}
	if r.Question != "" {
		if err := checkID("question", r.Question); err != nil {
			return err
		}
	} else if err := checkID("task", r.Task); err != nil {
		return err
	}
	if err := checkID("actor", r.Actor); err != nil {
		return err
	}
	switch r.Tier {
	case L1, L2, L3:
	default:
		return bad("tier", "want L1, L2 or L3")
	}
	switch r.Kind {
	case KindDecision:
		if r.Decision == nil || r.Outcome != nil {
			return bad("decision", "a decision record carries a decision and no outcome")
		}
		if err := r.Decision.validate(); err != nil {
			return err
		}
	case KindOutcome:
		if r.Outcome == nil || r.Decision != nil {
			return bad("outcome", "an outcome record carries an outcome and no decision")
		}
		if err := r.Outcome.validate(); err != nil {
			return err
		}
	default:
		return bad("kind", "want decision or outcome")
	}
	if r.Approver != "" {
		if err := checkID("approver", r.Approver); err != nil {
			return err
		}
	}
	if err := checkID("model_version", r.ModelVersion); err != nil {
		return err
	}
	if err := checkID("policy_version", r.PolicyVersion); err != nil {
		return err
	}
	if r.Prev != "" && !validHash(r.Prev) {
		return bad("prev", "want 64 lowercase hex digits")
	}
	if r.Hash != "" && !validHash(r.Hash) {
		return bad("hash", "want 64 lowercase hex digits")
	}
	return nil
}

func (d *Decision) validate() error {
	if len(d.Alternatives) == 0 {
		return bad("decision.alternatives", "missing")
	}
	if len(d.Alternatives) > MaxAlternatives {
		return bad("decision.alternatives", fmt.Sprintf("more than %d", MaxAlternatives))
	}
	var ids []string
	for i, a := range d.Alternatives {
		f := fmt.Sprintf("decision.alternatives[%d]", i)
		if err := checkID(f+".id", a.ID); err != nil {
			return err
		}
		if slices.Contains(ids, a.ID) {
			return bad(f+".id", "repeats an earlier alternative's")
		}
		ids = append(ids, a.ID)
		if err := checkText(f+".description", a.Description, true); err != nil {
			return err
		}
		if err := checkText(f+".change", a.Change, true); err != nil {
			return err
		}
		e := a.Effect
		for _, n := range []struct {
			name string
			v    float64
		}{{".effect.estimate", e.Estimate}, {".effect.low", e.Low}, {".effect.high", e.High}, {".cost", a.Cost}, {".score", a.Score}} {
			if err := checkNumber(f+n.name, n.v); err != nil {
				return err
			}
		}
		if !(e.Low <= e.Estimate && e.Estimate <= e.High) {
			return bad(f+".effect", "want low <= estimate <= high")
		}
		if err := checkText(f+".effect.unit", e.Unit, false); err != nil {
			return err
		}
	}
	if !slices.Contains(ids, d.Chosen) {
		return bad("decision.chosen", "names none of the alternatives")
	}
	if err := checkIDs("decision.inputs", d.Inputs, MaxInputs); err != nil {
		return err
	}
	if err := checkText("decision.expected", d.Expected, true); err != nil {
		return err
	}
	if len(d.Constraints) > MaxConstraints {
		return bad("decision.constraints", fmt.Sprintf("more than %d", MaxConstraints))
	}
	for i, c := range d.Constraints {
		if err := checkText(fmt.Sprintf("decision.constraints[%d]", i), c, true); err != nil {
			return err
		}
	}
	return nil
}

func (o *Outcome) validate() error {
	if err := checkID("outcome.decision", o.Decision); err != nil {
		return err
	}
	if err := checkText("outcome.observed", o.Observed, true); err != nil {
		return err
	}
	return checkIDs("outcome.inputs", o.Inputs, MaxInputs)
}

func validHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Canonical returns the RFC 8785 canonical JSON of r, as the register
// stores it (one line of a register file, without its newline).
func Canonical(r Record) ([]byte, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canonicalise record: %w", err)
	}
	return out, nil
}

// ComputeHash returns the hash r must carry: SHA-256 of the 32 bytes of
// r.Prev followed by the canonical JSON of r without its "hash" member.
func ComputeHash(r Record) (string, error) {
	prev, err := hex.DecodeString(r.Prev)
	if err != nil || !validHash(r.Prev) {
		return "", bad("prev", "want 64 lowercase hex digits")
	}
	r.Hash = ""
	body, err := Canonical(r)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(prev)
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Clone returns a deep copy of r.
func (r Record) Clone() Record {
	if r.Decision != nil {
		d := *r.Decision
		d.Alternatives = slices.Clone(d.Alternatives)
		d.Inputs = slices.Clone(d.Inputs)
		d.Constraints = slices.Clone(d.Constraints)
		r.Decision = &d
	}
	if r.Outcome != nil {
		o := *r.Outcome
		o.Inputs = slices.Clone(o.Inputs)
		r.Outcome = &o
	}
	return r
}
