package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Errors of a journal snapshot.
var (
	// ErrMalformed is wrapped by every error of ParseEntry and
	// ReadJournal: the text is not a journal line of the declared shape.
	ErrMalformed = errors.New("malformed journal")
)

// MaxLineLen bounds one line of a journal snapshot.
const MaxLineLen = 64 << 10

// ParseEntry reads one journal line: a JSON object with "record" and
// "visibility" (see Entry), strictly: an unknown field, a value of the
// wrong type, invalid UTF-8 or trailing data is an error wrapping
// ErrMalformed that names the field (or the byte offset), never the text.
// It checks the shape, not the meaning: a snapshot is read as its store
// held it, corrupt records included (Validate judges a record to append;
// a sheet counts corrupt ones).
func ParseEntry(line []byte) (Entry, error) {
	var e Entry
	if !utf8.Valid(line) {
		return Entry{}, fmt.Errorf("parse entry: not UTF-8: %w", ErrMalformed)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Entry{}, fmt.Errorf("parse entry: %s: %w", describe(err), ErrMalformed)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Entry{}, fmt.Errorf("parse entry: data after the object: %w", ErrMalformed)
	}
	if e.Record.Key == "" {
		return Entry{}, fmt.Errorf("parse entry: record.key is required: %w", ErrMalformed)
	}
	return e, nil
}

// describe turns a decoding error into words that repeat nothing of the
// input but declared field names and offsets.
func describe(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("field %s has the wrong type", typ.Field)
		}
		return "not a JSON object"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "incomplete JSON"
	default:
		// An unknown field, or a value a field's own decoder refused
		// (a recorded time, say).
		return "an unknown field or an invalid value"
	}
}

// ReadJournal reads a journal snapshot: JSON Lines of entries, blank lines
// skipped, each line at most MaxLineLen bytes. Errors name the line.
// Keys must be unique.
func ReadJournal(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineLen)
	var out []Entry
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := ParseEntry(line)
		if err != nil {
			return nil, fmt.Errorf("read journal: line %d: %w", n, err)
		}
		if seen[e.Record.Key] {
			return nil, fmt.Errorf("read journal: line %d: a key given twice: %w", n, ErrMalformed)
		}
		seen[e.Record.Key] = true
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("read journal: a line longer than %d bytes: %w", MaxLineLen, ErrMalformed)
		}
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return out, nil
}
