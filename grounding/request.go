package grounding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Request is a grounding check a client asks for (the ground command, the
// check_grounding tool, POST /v1/ground): a text, a ledger in the ledger
// file format, and optionally the question and a policy name.
type Request struct {
	Text     string          `json:"text"`
	Ledger   json.RawMessage `json:"ledger"`
	Question string          `json:"question,omitempty"`
	Policy   string          `json:"policy,omitempty"` // "default" (the default) or "strict"
}

// MaxRequestText bounds the text of one request, and MaxRequestQuestion
// its question, in characters (Unicode code points), as the maxLength of
// the check_grounding schema counts them.
const (
	MaxRequestText     = 64 << 10
	MaxRequestQuestion = 4096
)

// ErrRequest is matched by every error Run returns for a malformed request.
var ErrRequest = errors.New("invalid grounding request")

// RequestError is what Run returns for a malformed request. Its message
// names the field at fault and never repeats a value or a key the request
// chose, so a surface may show it: it is a strictjson.Safe.
type RequestError struct {
	msg string
}

func requestError(format string, a ...any) error {
	return &RequestError{msg: fmt.Sprintf(format, a...)}
}

func (e *RequestError) Error() string { return ErrRequest.Error() + ": " + e.msg }

// SafeMessage returns the message; it holds nothing from the request.
func (e *RequestError) SafeMessage() string { return e.Error() }

// Is makes errors.Is(err, ErrRequest) hold.
func (e *RequestError) Is(target error) bool { return target == ErrRequest }

// Run validates the request and checks its text. An error is a
// *RequestError: it names what is wrong and never repeats the request's
// values or keys.
func (r Request) Run() (Report, error) {
	var p Policy
	switch r.Policy {
	case "", "default":
		p = DefaultPolicy()
	case "strict":
		p = StrictPolicy()
	default:
		return Report{}, requestError("policy must be default or strict")
	}
	if utf8.RuneCountInString(r.Text) > MaxRequestText {
		return Report{}, requestError("text is longer than %d characters", MaxRequestText)
	}
	if utf8.RuneCountInString(r.Question) > MaxRequestQuestion {
		return Report{}, requestError("question is longer than %d characters", MaxRequestQuestion)
	}
	if len(r.Ledger) == 0 {
		return Report{}, requestError("ledger is missing")
	}
	l, err := ParseLedger(bytes.NewReader(r.Ledger))
	if err != nil {
		return Report{}, requestError("%v", err)
	}
	return Check(r.Text, l, r.Question, p), nil
}
