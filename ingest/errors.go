package ingest

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is matched (errors.Is) by every *RowError and Errors: the
// input, not the database, is at fault.
var ErrInvalid = errors.New("invalid input")

// MaxErrors is how many row errors an import collects before it stops
// reading.
const MaxErrors = 20

// RowError is one problem in an input. It names where, never the value.
type RowError struct {
	Input  string // the input's name (a file path), "" if unnamed
	Row    int64  // the 1-based data row (for JSON Lines, the line); 0 is the CSV header
	Field  string // the declared column name, "" for a row-level problem
	Reason string
}

func (e *RowError) Error() string {
	var b strings.Builder
	if e.Input != "" {
		b.WriteString(e.Input + ":")
	}
	if e.Row == 0 {
		b.WriteString("header")
	} else {
		fmt.Fprintf(&b, "row %d", e.Row)
	}
	if e.Field != "" {
		b.WriteString(": field " + e.Field)
	}
	b.WriteString(": " + e.Reason)
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *RowError) Is(target error) bool { return target == ErrInvalid }

// Errors is every problem an import found (at most MaxErrors), in input
// order. It matches ErrInvalid.
type Errors []*RowError

func (l Errors) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Is reports whether target is ErrInvalid.
func (l Errors) Is(target error) bool { return target == ErrInvalid }
