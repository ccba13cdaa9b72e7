package grounding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// MaxRequestText bounds the text of one request.
const MaxRequestText = 64 << 10

// ErrRequest is matched by every error Run returns for a malformed request.
var ErrRequest = errors.New("invalid grounding request")

// Run validates the request and checks its text. An error names what is
// wrong and never repeats the request's values.
func (r Request) Run() (Report, error) {
	var p Policy
	switch r.Policy {
	case "", "default":
		p = DefaultPolicy()
	case "strict":
		p = StrictPolicy()
	default:
		return Report{}, fmt.Errorf("%w: policy must be default or strict", ErrRequest)
	}
	if len(r.Text) > MaxRequestText {
		return Report{}, fmt.Errorf("%w: text is longer than %d bytes", ErrRequest, MaxRequestText)
	}
	if len(r.Ledger) == 0 {
		return Report{}, fmt.Errorf("%w: ledger is missing", ErrRequest)
	}
	l, err := ParseLedger(bytes.NewReader(r.Ledger))
	if err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrRequest, err)
	}
	return Check(r.Text, l, r.Question, p), nil
}
