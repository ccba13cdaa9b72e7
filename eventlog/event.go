package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/provenant/provenant/internal/strictjson"
)

// Type names an event type. Its JSON Schema is schemas/TYPE.vN.json.
type Type string

// The event types. Each has a payload struct (QuestionReceived for
// TypeQuestionReceived, and so on) and a versioned schema.
const (
	TypeQuestionReceived   Type = "question.received"
	TypeToolInvoked        Type = "tool.invoked"
	TypeToolReturned       Type = "tool.returned"
	TypePlanRejected       Type = "plan.rejected"
	TypeGroundingChecked   Type = "grounding.checked"
	TypeAbstained          Type = "abstained"
	TypeAnswerEmitted      Type = "answer.emitted"
	TypeBudgetReserved     Type = "budget.reserved"
	TypeBudgetExceeded     Type = "budget.exceeded"
	TypeElevationRequested Type = "elevation.requested"
	TypeElevationDecided   Type = "elevation.decided"
	TypeElevationExpired   Type = "elevation.expired"
	TypeDecisionRecorded   Type = "decision.recorded"
	TypeDecisionOutcome    Type = "decision.outcome"
)

// MaxSafeInteger is the largest integer an event carries (2^53 - 1):
// RFC 8785 writes numbers as IEEE 754 doubles, which hold every integer
// up to it exactly.
const MaxSafeInteger = 1<<53 - 1

// Event is one record of the log: the common envelope and a typed
// payload as canonical JSON. Events are built by NewEvent (or a Log,
// which calls it); one read from outside is built by Decode.
type Event struct {
	// ID is "evt-" and 32 lowercase hex digits: derived from (seed, run,
	// producer, seq) in deterministic mode, random otherwise.
	ID            string `json:"id"`
	Type          Type   `json:"type"`
	SchemaVersion int    `json:"schema_version"`
	Run           string `json:"run"`
	Producer      string `json:"producer"`
	// Seq is dense per (run, producer), from 1.
	Seq  int64 `json:"seq"`
	Seed int64 `json:"seed"`
	// Causation is the id of the event that caused this one; Correlation
	// groups the events of one question or session. Both optional.
	Causation   string `json:"causation,omitempty"`
	Correlation string `json:"correlation,omitempty"`
	// Time is the logical time the producer gives: a count, never a
	// clock reading. Non-decreasing per (run, producer).
	Time int64 `json:"time"`
	// WallTime, Host and PID are the non-deterministic fields
	// (nondeterministic.json): recorded, never hashed.
	WallTime string `json:"wall_time,omitempty"`
	Host     string `json:"host,omitempty"`
	PID      int64  `json:"pid,omitempty"`
	// Payload is the payload's canonical JSON (RFC 8785).
	Payload json.RawMessage `json:"payload"`

	// checked is set by NewEvent and Decode, which check the payload
	// against its schema: Validate does not decode again a payload it
	// covers (the same type, version and bytes).
	checked *sealed
}

// Envelope is what a producer gives NewEvent besides the payload.
type Envelope struct {
	ID          string
	Run         string
	Producer    string
	Seq         int64
	Seed        int64
	Causation   string
	Correlation string
	Time        int64
	WallTime    string
	Host        string
	PID         int64
}

// Payload is the typed body of an event. The payload types of this
// package implement it; Validate holds a payload to what its schema
// says.
type Payload interface {
	EventType() Type
	Validate() error
}

// The sentinels. Every error of this package wraps one of them.
var (
	// ErrInvalid: an event or payload that breaks its schema.
	ErrInvalid = errors.New("invalid event")
	// ErrUnknownType: an event type this package does not know, or a
	// schema version it does not read.
	ErrUnknownType = errors.New("unknown event type")
	// ErrSequence: a sequence number that is not the next for its
	// (run, producer), or a logical time that goes back.
	ErrSequence = errors.New("sequence broken")
	// ErrOrder: events not in canonical order where it is required, a
	// duplicate id, or a causation naming no earlier event.
	ErrOrder = errors.New("order broken")
	// ErrHash: a log hash or chain that differs from the one expected.
	ErrHash = errors.New("hash mismatch")
	// ErrTornTail: a file store's last line is incomplete (a crash
	// during an append that was never acknowledged).
	ErrTornTail = errors.New("torn last line")
	// ErrCorrupt: a complete line of a file store that does not decode.
	ErrCorrupt = errors.New("corrupt log")
	// ErrClosed: a store used after Close, or after a failed append it
	// could not undo.
	ErrClosed = errors.New("store closed")
	// ErrAborted: an event given to a Log was not stored because an
	// event before it was not acknowledged (its seq followed one that
	// was never stored, or it named that event as its cause).
	ErrAborted = errors.New("earlier event not acknowledged")
)

var (
	idPattern       = newPattern(`^evt-[0-9a-f]{32}$`, func(s string) bool { return len(s) == 36 && s[:4] == "evt-" && all(s[4:], isHex) })
	namePattern     = newPattern(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`, classes(isAlnum, isNameByte, 127))
	producerPattern = newPattern(`^[a-z][a-z0-9_.-]{0,63}$`, classes(isLower, isProducerByte, 63))
	toolPattern     = newPattern(`^[a-z][a-z0-9_]{0,63}$`, classes(isLower, isToolByte, 63))
	tokenPattern    = newPattern(`^[a-z][a-z0-9_]{0,63}$`, classes(isLower, isToolByte, 63))
	hexPattern      = newPattern(`^[0-9a-f]{64}$`, func(s string) bool { return len(s) == 64 && all(s, isHex) })
	wallPattern     = newPattern(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$`, wallTime)
	hostPattern     = newPattern(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$`, classes(isAlnum, isHostByte, 254))
)

// pattern is a field's pattern: the regular expression, which specifies
// it and names it in errors, and a matcher of exactly the same strings
// that needs no regexp engine (an event's fields are checked when it is
// built and again when a store appends it: TestPatterns_MatchRegexp and
// FuzzPatterns hold the two to each other).
type pattern struct {
	*regexp.Regexp
	match func(string) bool
}

func newPattern(expr string, match func(string) bool) pattern {
	return pattern{Regexp: regexp.MustCompile(expr), match: match}
}

// MatchString reports whether s matches the pattern.
func (p pattern) MatchString(s string) bool { return p.match(s) }

// classes matches one byte of first, then at most maxRest bytes of rest.
func classes(first, rest func(byte) bool, maxRest int) func(string) bool {
	return func(s string) bool {
		return len(s) >= 1 && len(s)-1 <= maxRest && first(s[0]) && all(s[1:], rest)
	}
}

func all(s string, class func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !class(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool        { return '0' <= c && c <= '9' }
func isLower(c byte) bool        { return 'a' <= c && c <= 'z' }
func isHex(c byte) bool          { return isDigit(c) || 'a' <= c && c <= 'f' }
func isAlnum(c byte) bool        { return isDigit(c) || isLower(c) || 'A' <= c && c <= 'Z' }
func isNameByte(c byte) bool     { return isAlnum(c) || c == '_' || c == '.' || c == ':' || c == '-' }
func isHostByte(c byte) bool     { return isAlnum(c) || c == '_' || c == '.' || c == '-' }
func isProducerByte(c byte) bool { return isLower(c) || isDigit(c) || c == '_' || c == '.' || c == '-' }
func isToolByte(c byte) bool     { return isLower(c) || isDigit(c) || c == '_' }

// wallTime matches wallPattern: YYYY-MM-DDTHH:MM:SS, then optionally a
// dot and 1 to 9 digits, then Z.
func wallTime(s string) bool {
	const layout = "0000-00-00T00:00:00"
	if len(s) < len(layout)+1 || s[len(s)-1] != 'Z' {
		return false
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == '0' && !isDigit(s[i]) || layout[i] != '0' && s[i] != layout[i] {
			return false
		}
	}
	frac := s[len(layout) : len(s)-1]
	if frac == "" {
		return true
	}
	return frac[0] == '.' && len(frac) >= 2 && len(frac) <= 10 && all(frac[1:], isDigit)
}

// fieldError is the one way this package says a field is wrong: it names
// the field, never its value.
func fieldError(field, want string) error {
	return fmt.Errorf("%w: %s: want %s", ErrInvalid, field, want)
}

// checkNonNegative checks an integer is in [0, MaxSafeInteger].
func checkCount(field string, v int64) error {
	if v < 0 || v > MaxSafeInteger {
		return fieldError(field, "an integer from 0 to 2^53-1")
	}
	return nil
}

func checkPattern(field string, re pattern, v string, optional bool) error {
	if v == "" && optional {
		return nil
	}
	if !re.MatchString(v) {
		return fieldError(field, "a value matching "+re.String())
	}
	return nil
}

func checkText(field string, v string, max int, optional bool) error {
	if v == "" && optional {
		return nil
	}
	if v == "" || !utf8.ValidString(v) || utf8.RuneCountInString(v) > max {
		return fieldError(field, fmt.Sprintf("text of 1 to %d characters", max))
	}
	return nil
}

func checkEnum(field, v string, values ...string) error {
	if !slices.Contains(values, v) {
		return fieldError(field, "one of "+strings.Join(values, ", "))
	}
	return nil
}

// Validate checks the envelope fields of e (not its payload).
func (e Envelope) Validate() error {
	switch {
	case !idPattern.MatchString(e.ID):
		return fieldError("id", "evt- and 32 lowercase hex digits")
	case !namePattern.MatchString(e.Run):
		return fieldError("run", "a name matching "+namePattern.String())
	case !producerPattern.MatchString(e.Producer):
		return fieldError("producer", "a name matching "+producerPattern.String())
	case e.Seq < 1 || e.Seq > MaxSafeInteger:
		return fieldError("seq", "an integer from 1 to 2^53-1")
	}
	if err := checkCount("seed", e.Seed); err != nil {
		return err
	}
	if err := checkCount("time", e.Time); err != nil {
		return err
	}
	if err := checkPattern("causation", idPattern, e.Causation, true); err != nil {
		return err
	}
	if err := checkPattern("correlation", namePattern, e.Correlation, true); err != nil {
		return err
	}
	if err := checkPattern("wall_time", wallPattern, e.WallTime, true); err != nil {
		return err
	}
	if err := checkPattern("host", hostPattern, e.Host, true); err != nil {
		return err
	}
	if e.PID < 0 || e.PID > MaxSafeInteger {
		return fieldError("pid", "an integer from 1 to 2^53-1")
	}
	return nil
}

// NewEvent builds an event from its envelope and payload, both
// validated; the payload is stored as canonical JSON.
func NewEvent(env Envelope, p Payload) (Event, error) {
	if p == nil || reflect.ValueOf(p).Kind() == reflect.Pointer && reflect.ValueOf(p).IsNil() {
		return Event{}, fmt.Errorf("build event: %w: payload: want a payload", ErrInvalid)
	}
	spec, ok := registry[p.EventType()]
	if !ok || reflect.TypeOf(p) != spec.goType {
		return Event{}, fmt.Errorf("build event: %w", ErrUnknownType)
	}
	if err := env.Validate(); err != nil {
		return Event{}, fmt.Errorf("build event: %w", err)
	}
	if err := p.Validate(); err != nil {
		return Event{}, fmt.Errorf("build event: payload: %w", err)
	}
	raw, err := canonical(p)
	if err != nil {
		return Event{}, fmt.Errorf("build event: %w", err)
	}
	return Event{
		ID: env.ID, Type: p.EventType(), SchemaVersion: spec.version,
		Run: env.Run, Producer: env.Producer, Seq: env.Seq, Seed: env.Seed,
		Causation: env.Causation, Correlation: env.Correlation, Time: env.Time,
		WallTime: env.WallTime, Host: env.Host, PID: env.PID,
		Payload: raw, checked: seal(p.EventType(), spec.version, raw),
	}, nil
}

// Envelope returns the envelope of e.
func (e Event) Envelope() Envelope {
	return Envelope{
		ID: e.ID, Run: e.Run, Producer: e.Producer, Seq: e.Seq, Seed: e.Seed,
		Causation: e.Causation, Correlation: e.Correlation, Time: e.Time,
		WallTime: e.WallTime, Host: e.Host, PID: e.PID,
	}
}

// Decoded returns e's payload as its typed struct (a value, such as
// QuestionReceived), checked against its schema.
func (e Event) Decoded() (Payload, error) {
	spec, ok := registry[e.Type]
	if !ok || spec.version != e.SchemaVersion {
		return nil, fmt.Errorf("decode payload: %w", ErrUnknownType)
	}
	return spec.decode(e.Payload)
}

// Validate checks every field of e: the envelope, the type and version,
// and the payload against its schema. A payload that NewEvent built or
// Decode read, unchanged since (the same type, version and bytes), was
// checked then and is not decoded again; any other is decoded strictly.
func (e Event) Validate() error {
	if err := e.Envelope().Validate(); err != nil {
		return err
	}
	if e.checked.covers(&e) {
		return nil
	}
	_, err := e.Decoded()
	return err
}

// MaxLine bounds one event's JSON line.
const MaxLine = 1 << 20

// Decode reads one event from its JSON (a line of a log, without its
// newline) strictly: unknown or duplicate keys, a null anywhere, a
// missing required field, a wrong type and anything the event's schema
// refuses are errors wrapping ErrInvalid or ErrUnknownType. Errors never
// quote the input.
func Decode(line []byte) (Event, error) {
	if len(line) > MaxLine {
		return Event{}, fmt.Errorf("decode event: %w: longer than %d bytes", ErrInvalid, MaxLine)
	}
	var e Event
	if err := strictjson.Decode(line, &e, nil); err != nil {
		return Event{}, fmt.Errorf("decode event: %w: %s", ErrInvalid, strictjson.Message(err, "malformed"))
	}
	if err := noNulls(line); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	if err := requireFields(line, reflect.TypeFor[Event](), "$"); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	if err := e.Validate(); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	// Keep the payload canonical, so a decoded event re-encodes as the
	// stored one did.
	c, err := jcs.Transform(e.Payload)
	if err != nil {
		return Event{}, fmt.Errorf("decode event: %w: payload", ErrInvalid)
	}
	e.Payload = c
	e.checked = seal(e.Type, e.SchemaVersion, c)
	return e, nil
}

// noNulls refuses a JSON null anywhere in data: no field of any event is
// nullable, and encoding/json would read one as a zero value. data must
// be valid JSON (checked before); outside strings, only null starts with
// an n.
func noNulls(data []byte) error {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++ // skip the escaped byte
		case c == '"':
			inString = !inString
		case !inString && c == 'n':
			return fmt.Errorf("%w: a null value", ErrInvalid)
		}
	}
	return nil
}

// requireFields checks that every field of struct type t without
// omitempty is present in the object data, recursively into struct and
// slice-of-struct fields, as the schemas' "required" lists say.
func requireFields(data []byte, t reflect.Type, path string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("%w: %s: want an object", ErrInvalid, path)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		raw, ok := obj[name]
		omitempty := strings.Contains(opts, "omitempty")
		switch {
		case !ok && omitempty:
			continue
		case !ok:
			return fmt.Errorf("%w: %s.%s: missing", ErrInvalid, path, name)
		case omitempty && isZeroJSON(raw):
			// An optional field is left out when empty, never written
			// empty: the schemas say so (minLength, minItems, minimum).
			return fmt.Errorf("%w: %s.%s: present but empty", ErrInvalid, path, name)
		}
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			if err := requireFields(raw, ft, path+"."+name); err != nil {
				return err
			}
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return fmt.Errorf("%w: %s.%s: want an array", ErrInvalid, path, name)
			}
			for j, it := range items {
				if err := requireFields(it, ft.Elem(), fmt.Sprintf("%s.%s[%d]", path, name, j)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// isZeroJSON reports whether raw (valid JSON) is "", [], {}, a zero
// number or false.
func isZeroJSON(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return false
	}
	switch c := t[0]; {
	case c == '"':
		return len(t) == 2
	case c == '[' || c == '{':
		return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
	case c == 'f':
		return true
	case c == '-' || c >= '0' && c <= '9':
		f, err := strconv.ParseFloat(string(t), 64)
		return err == nil && f == 0
	}
	return false
}
