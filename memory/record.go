package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind is what a journal record says: a claim of its own (targetless) or
// an annotation of another record (targeted).
type Kind string

// The kinds. Observation, claim and note are targetless: each states
// something. Confirm, retract and supersede are targeted: each names
// another record's key in Target. A supersede is both: it replaces its
// target, and its text is the claim that stands in the target's place.
const (
	KindObservation Kind = "observation" // something the agent saw (a tool result, a reading)
	KindClaim       Kind = "claim"       // something the agent believes or was told
	KindNote        Kind = "note"        // a working note: a plan, a preference, a reminder
	KindConfirm     Kind = "confirm"     // the target is still true
	KindRetract     Kind = "retract"     // the target was wrong: never surface it again
	KindSupersede   Kind = "supersede"   // the target is replaced by this record's text
)

// Targeted reports whether k annotates another record. A targeted record
// without a target is corrupt evidence.
func (k Kind) Targeted() bool {
	return k == KindConfirm || k == KindRetract || k == KindSupersede
}

// Known reports whether k is one of the declared kinds.
func (k Kind) Known() bool {
	switch k {
	case KindObservation, KindClaim, KindNote, KindConfirm, KindRetract, KindSupersede:
		return true
	}
	return false
}

// claimBearing reports whether a record of kind k can surface on a sheet
// as a claim: the targetless kinds and supersede.
func (k Kind) claimBearing() bool {
	return k == KindObservation || k == KindClaim || k == KindNote || k == KindSupersede
}

// Record is one append-only journal entry. Times are logical: an int64
// tick the journal assigns in append order (a sequence number, or Unix
// seconds; the package only compares and subtracts them). Recorded is the
// wall-clock time of the append, kept for people and never read by
// retrieval or resolution, and left out of a sheet's canonical JSON.
type Record struct {
	Key        string      `json:"key"`
	Agent      string      `json:"agent"`
	Kind       Kind        `json:"kind"`
	Target     string      `json:"target,omitempty"`
	Text       string      `json:"text,omitempty"`
	Subject    string      `json:"subject,omitempty"`
	Tags       []string    `json:"tags,omitempty"`
	Class      string      `json:"class,omitempty"`
	Stated     bool        `json:"stated,omitempty"`
	Time       int64       `json:"time"`
	Valid      Interval    `json:"valid"`
	Relevance  *Relevance  `json:"relevance,omitempty"`
	Provenance *Provenance `json:"provenance,omitempty"`
	Recorded   time.Time   `json:"recorded,omitzero"`
}

// Interval is a half-open validity interval [From, To) in logical time;
// To == 0 means open-ended.
type Interval struct {
	From int64 `json:"from"`
	To   int64 `json:"to,omitempty"`
}

// Contains reports whether t lies in the interval.
func (iv Interval) Contains(t int64) bool {
	return iv.From <= t && (iv.To == 0 || t < iv.To)
}

// Relevance is a record's declared relevance and how it decays with age:
// at logical time t it is Score · 2^(−(t − Time)/HalfLife), and Score
// unchanged when HalfLife is 0. Score lies in [0, 1].
type Relevance struct {
	Score    float64 `json:"score"`
	HalfLife int64   `json:"half_life,omitempty"`
}

// Provenance ties a claim that came from an answer back into the engine:
// the result ids the answer carried, the tool call that produced it, the
// keys of the rows it rested on, the data version it was read at and the
// value the call returned (the answer's "value", as JSON). Recall re-runs
// the tool call and compares the value it gives now with Value.
type Provenance struct {
	ResultIDs   []string        `json:"result_ids,omitempty"`
	ToolCall    *ToolCall       `json:"tool_call,omitempty"`
	RowKeys     []string        `json:"row_keys,omitempty"`
	DataVersion string          `json:"data_version,omitempty"`
	Value       json.RawMessage `json:"value,omitempty"`
}

// ToolCall is a validated call as the engine ran it: the tool's name and
// its arguments as a JSON object.
type ToolCall struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Limits on a record's fields, checked by Validate.
const (
	MaxKeyLen    = 128   // bytes of a key, agent id, class id, tag or handle
	MaxTextLen   = 4096  // bytes of a statement or subject
	MaxTags      = 32    // tags on a record or a visibility
	MaxHandles   = 1000  // result ids or row keys on a provenance
	MaxArgsJSON  = 8192  // bytes of a tool call's arguments
	MaxValueJSON = 65536 // bytes of a provenance's value
)

// Errors of a record.
var (
	// ErrInvalidRecord is wrapped by every *FieldError from Validate.
	ErrInvalidRecord = errors.New("invalid record")
	// ErrMissingTarget marks a targeted record (confirm, retract,
	// supersede) without a target: corrupt evidence, which a sheet never
	// surfaces and counts as corrupt.
	ErrMissingTarget = errors.New("targeted record without a target")
)

// FieldError names the field of a record (or visibility, or query) that
// failed validation, and the problem in words. It never holds the value.
type FieldError struct {
	Field   string
	Problem string
	Err     error // ErrInvalidRecord, or ErrMissingTarget
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("validate record: %s: %s", e.Field, e.Problem)
}

func (e *FieldError) Unwrap() []error {
	if e.Err == nil || e.Err == ErrInvalidRecord {
		return []error{ErrInvalidRecord}
	}
	return []error{ErrInvalidRecord, e.Err}
}

func invalid(field, problem string) error {
	return &FieldError{Field: field, Problem: problem, Err: ErrInvalidRecord}
}

// Validate checks a record before it is appended. A record read back from
// a store is not re-validated: the sheet judges it (a targeted record
// without a target is counted as corrupt, not surfaced).
func Validate(r Record) error {
	if err := checkID("key", r.Key, true); err != nil {
		return err
	}
	if err := checkID("agent", r.Agent, true); err != nil {
		return err
	}
	if !r.Kind.Known() {
		return invalid("kind", "not a declared kind")
	}
	if r.Kind.Targeted() && r.Target == "" {
		return &FieldError{Field: "target", Problem: "required by a targeted kind", Err: ErrMissingTarget}
	}
	if !r.Kind.Targeted() && r.Target != "" {
		return invalid("target", "not allowed on a targetless kind")
	}
	if err := checkID("target", r.Target, false); err != nil {
		return err
	}
	if r.Target != "" && r.Target == r.Key {
		return invalid("target", "a record cannot target itself")
	}
	if r.Kind.claimBearing() && strings.TrimSpace(r.Text) == "" {
		return invalid("text", "required by a claim-bearing kind")
	}
	if err := checkText("text", r.Text); err != nil {
		return err
	}
	if err := checkText("subject", r.Subject); err != nil {
		return err
	}
	if err := checkList("tags", r.Tags, MaxTags); err != nil {
		return err
	}
	if err := checkID("class", r.Class, false); err != nil {
		return err
	}
	if r.Class != "" && !r.Kind.claimBearing() {
		return invalid("class", "only a claim-bearing kind has a class")
	}
	if r.Time < 0 {
		return invalid("time", "negative")
	}
	if r.Valid.From < 0 || r.Valid.To < 0 {
		return invalid("valid", "negative")
	}
	if r.Valid.To != 0 && r.Valid.To <= r.Valid.From {
		return invalid("valid", "empty interval")
	}
	if rel := r.Relevance; rel != nil {
		if math.IsNaN(rel.Score) || rel.Score < 0 || rel.Score > 1 {
			return invalid("relevance.score", "outside [0, 1]")
		}
		if rel.HalfLife < 0 {
			return invalid("relevance.half_life", "negative")
		}
	}
	if p := r.Provenance; p != nil {
		if err := checkList("provenance.result_ids", p.ResultIDs, MaxHandles); err != nil {
			return err
		}
		if err := checkList("provenance.row_keys", p.RowKeys, MaxHandles); err != nil {
			return err
		}
		if err := checkID("provenance.data_version", p.DataVersion, false); err != nil {
			return err
		}
		if len(p.Value) > MaxValueJSON {
			return invalid("provenance.value", "too long")
		}
		if len(p.Value) > 0 && !json.Valid(p.Value) {
			return invalid("provenance.value", "not JSON")
		}
		if c := p.ToolCall; c != nil {
			if err := checkID("provenance.tool_call.tool", c.Tool, true); err != nil {
				return err
			}
			if len(c.Arguments) > MaxArgsJSON {
				return invalid("provenance.tool_call.arguments", "too long")
			}
			if len(c.Arguments) > 0 {
				var obj map[string]json.RawMessage
				if json.Unmarshal(c.Arguments, &obj) != nil || obj == nil {
					return invalid("provenance.tool_call.arguments", "not a JSON object")
				}
			}
		}
	}
	return nil
}

// CheckAgent checks an agent id, as a record's author and a reader must
// be: non-empty, printable, no spaces, at most MaxKeyLen bytes. The
// error names the field "agent", never the id.
func CheckAgent(id string) error { return checkID("agent", id, true) }

// checkID checks an identifier: printable, no spaces, at most MaxKeyLen
// bytes; required ones non-empty.
func checkID(field, s string, required bool) error {
	if s == "" {
		if required {
			return invalid(field, "required")
		}
		return nil
	}
	if len(s) > MaxKeyLen {
		return invalid(field, "too long")
	}
	if !utf8.ValidString(s) {
		return invalid(field, "not UTF-8")
	}
	for _, c := range s {
		if !unicode.IsPrint(c) || unicode.IsSpace(c) {
			return invalid(field, "holds a space or a control character")
		}
	}
	return nil
}

func checkText(field, s string) error {
	if len(s) > MaxTextLen {
		return invalid(field, "too long")
	}
	if !utf8.ValidString(s) {
		return invalid(field, "not UTF-8")
	}
	for _, c := range s {
		if unicode.IsControl(c) && c != '\n' && c != '\t' {
			return invalid(field, "holds a control character")
		}
	}
	return nil
}

func checkList(field string, xs []string, limit int) error {
	if len(xs) > limit {
		return invalid(field, "too many")
	}
	for i, x := range xs {
		if err := checkID(field, x, true); err != nil {
			return err
		}
		if slices.Contains(xs[:i], x) {
			return invalid(field, "duplicate entry")
		}
	}
	return nil
}

// Decayed is the record's relevance at logical time asOf, rounded to six
// decimals so that every platform computes the same value; ok is false
// when the record declares no relevance. A record from the future (asOf
// before Time) has its full score; a score outside [0, 1] (a corrupt
// record read back) is taken as the nearer bound.
func (r Record) Decayed(asOf int64) (v float64, ok bool) {
	if r.Relevance == nil {
		return 0, false
	}
	s := r.Relevance.Score
	if math.IsNaN(s) || s < 0 {
		s = 0
	}
	s = min(s, 1)
	age := asOf - r.Time
	if age > 0 && r.Relevance.HalfLife > 0 {
		s *= math.Exp2(-float64(age) / float64(r.Relevance.HalfLife))
	}
	return round6(s), true
}

func round6(x float64) float64 {
	return math.Round(x*1e6) / 1e6
}
