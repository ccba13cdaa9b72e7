package grounding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxLedgerBytes bounds what ParseLedger reads.
const MaxLedgerBytes = 32 << 20

// units is the vocabulary, in the order errors list it.
var units = [...]Unit{UnitCount, UnitCents, UnitUSD, UnitEUR, UnitGBP, UnitRatio, UnitPercent, UnitTimestamp, UnitDate, UnitID}

// Units returns the unit vocabulary (UnitNone, the empty unit, aside).
func Units() []Unit {
	u := units
	return u[:]
}

func knownUnit(u Unit) bool {
	if u == UnitNone {
		return true
	}
	for _, k := range units {
		if u == k {
			return true
		}
	}
	return false
}

func unitList() string {
	s := make([]string, len(units))
	for i, u := range units {
		s[i] = string(u)
	}
	return strings.Join(s, ", ")
}

// ParseLedger reads a ledger from JSON and validates it:
//
//	{"numerals": [{"value": 781, "unit": "cents", "id": "res-000001", "window": ["2026-01-01T00:00:00Z", "2026-01-07T00:00:00Z"]}]}
//
// Every field but "numerals" is optional, with these rules: "value" is
// required unless "id" or "window" is given (an entry without a value is
// only an identifier or only a window), and a value given with an id needs
// a unit (an entry with an id and no unit is an identifier only). For units
// timestamp and date, "value" may also be a string (2026-01-06T08:00:00Z,
// 2026-01-06) instead of unix seconds. Decoding is strict: an unknown or
// repeated field, a value of the wrong type, or trailing data is an error
// naming the field's path; no error repeats a value from the input.
func ParseLedger(r io.Reader) (Ledger, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxLedgerBytes+1))
	if err != nil {
		return Ledger{}, fmt.Errorf("read ledger: %w", err)
	}
	if len(b) > MaxLedgerBytes {
		return Ledger{}, fmt.Errorf("parse ledger: larger than %d bytes", MaxLedgerBytes)
	}
	l, err := decodeLedger(b)
	if err != nil {
		return Ledger{}, fmt.Errorf("parse ledger: %w", err)
	}
	if err := l.Validate(); err != nil {
		return Ledger{}, err
	}
	return l, nil
}

// Validate reports the first entry that is not well formed: a unit outside
// the vocabulary, unit id without an id, a value that is not finite, or a
// window that is not two RFC 3339 timestamps in order (both empty is no
// window).
func (l Ledger) Validate() error {
	for i, n := range l.Numerals {
		if !knownUnit(n.Unit) {
			return fmt.Errorf("validate ledger: numerals[%d].unit: unknown unit (want one of %s, or none)", i, unitList())
		}
		if n.Unit == UnitID && n.ID == "" {
			return fmt.Errorf("validate ledger: numerals[%d]: unit id needs an id", i)
		}
		if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) {
			return fmt.Errorf("validate ledger: numerals[%d].value: not a finite number", i)
		}
		if n.Window[0] == "" && n.Window[1] == "" {
			continue
		}
		var ts [2]float64
		for k, w := range n.Window {
			t, ok := parseTimestamp(w)
			if !ok {
				return fmt.Errorf("validate ledger: numerals[%d].window[%d]: want an RFC 3339 timestamp like 2026-01-06T08:00:00Z", i, k)
			}
			ts[k] = t
		}
		if ts[1] < ts[0] {
			return fmt.Errorf("validate ledger: numerals[%d].window: start is after end", i)
		}
	}
	return nil
}

// decodeLedger decodes strictly, token by token, so that unknown and
// repeated fields are caught with their path.
func decodeLedger(b []byte) (Ledger, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := wantDelim(dec, '{', "ledger", "an object"); err != nil {
		return Ledger{}, err
	}
	var l Ledger
	seen := false
	for dec.More() {
		key, err := keyToken(dec)
		if err != nil {
			return Ledger{}, err
		}
		if key != "numerals" {
			return Ledger{}, fmt.Errorf("unknown field %s (want numerals)", quoteKey(key))
		}
		if seen {
			return Ledger{}, errors.New("field numerals appears twice")
		}
		seen = true
		if err := wantDelim(dec, '[', "numerals", "an array"); err != nil {
			return Ledger{}, err
		}
		l.Numerals = []Numeral{}
		for i := 0; dec.More(); i++ {
			n, err := decodeNumeral(dec, fmt.Sprintf("numerals[%d]", i))
			if err != nil {
				return Ledger{}, err
			}
			l.Numerals = append(l.Numerals, n)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return Ledger{}, tokenErr(err)
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return Ledger{}, tokenErr(err)
	}
	if !seen {
		return Ledger{}, errors.New("missing field numerals")
	}
	if _, err := dec.Token(); err != io.EOF {
		return Ledger{}, errors.New("trailing data after the ledger object")
	}
	return l, nil
}

func decodeNumeral(dec *json.Decoder, path string) (Numeral, error) {
	if err := wantDelim(dec, '{', path, "an object"); err != nil {
		return Numeral{}, err
	}
	var n Numeral
	var value json.RawMessage
	seen := map[string]bool{}
	for dec.More() {
		key, err := keyToken(dec)
		if err != nil {
			return Numeral{}, err
		}
		switch key {
		case "value", "unit", "id", "window":
		default:
			return Numeral{}, fmt.Errorf("%s: unknown field %s (want value, unit, id or window)", path, quoteKey(key))
		}
		if seen[key] {
			return Numeral{}, fmt.Errorf("%s: field %s appears twice", path, key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Numeral{}, tokenErr(err)
		}
		switch key {
		case "value":
			value = raw
		case "unit":
			var u string
			if json.Unmarshal(raw, &u) != nil {
				return Numeral{}, fmt.Errorf("%s.unit: want a string", path)
			}
			n.Unit = Unit(u)
		case "id":
			if json.Unmarshal(raw, &n.ID) != nil || n.ID == "" {
				return Numeral{}, fmt.Errorf("%s.id: want a non-empty string", path)
			}
		case "window":
			if string(raw) == "null" {
				break
			}
			var w []string
			if json.Unmarshal(raw, &w) != nil || len(w) != 2 {
				return Numeral{}, fmt.Errorf("%s.window: want [start, end], two RFC 3339 timestamps", path)
			}
			n.Window = [2]string{w[0], w[1]}
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return Numeral{}, tokenErr(err)
	}
	if !knownUnit(n.Unit) {
		return Numeral{}, fmt.Errorf("%s.unit: unknown unit (want one of %s, or none)", path, unitList())
	}
	hasWindow := n.Window != [2]string{}
	switch {
	case value == nil && n.ID == "" && !hasWindow:
		return Numeral{}, fmt.Errorf("%s: value is required unless id or window is given", path)
	case value == nil && n.ID != "" && n.Unit != UnitNone && n.Unit != UnitID:
		return Numeral{}, fmt.Errorf("%s: unit %s needs a value", path, n.Unit)
	case value == nil && n.ID == "" && n.Unit != UnitNone && n.Unit != UnitTimestamp && n.Unit != UnitDate:
		return Numeral{}, fmt.Errorf("%s: unit %s needs a value", path, n.Unit)
	case value != nil && n.ID != "" && n.Unit == UnitNone:
		return Numeral{}, fmt.Errorf("%s: a value with an id needs a unit (an entry with an id and no unit is an identifier only)", path)
	case value != nil:
		v, err := decodeValue(value, n.Unit)
		if err != nil {
			return Numeral{}, fmt.Errorf("%s.value: %w", path, err)
		}
		n.Value = v
	}
	return n, nil
}

// decodeValue reads a number, or for timestamps and dates an ISO string.
func decodeValue(raw json.RawMessage, u Unit) (float64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, errors.New("want a number")
		}
		switch u {
		case UnitTimestamp:
			t, ok := parseTimestamp(s)
			if !ok {
				return 0, errors.New("want unix seconds or an RFC 3339 timestamp like 2026-01-06T08:00:00Z")
			}
			return t, nil
		case UnitDate:
			t, ok := parseDate(s)
			if !ok {
				return 0, errors.New("want unix seconds or a date like 2026-01-06")
			}
			return t, nil
		}
		return 0, errors.New("want a number (a string is allowed only for units timestamp and date)")
	}
	var num json.Number
	if json.Unmarshal(raw, &num) != nil {
		return 0, errors.New("want a number")
	}
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return 0, errors.New("number out of range")
	}
	return v, nil
}

func wantDelim(dec *json.Decoder, d json.Delim, path, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return tokenErr(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("%s: want %s", path, what)
	}
	return nil
}

func keyToken(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", tokenErr(err)
	}
	key, ok := tok.(string)
	if !ok {
		return "", errors.New("malformed JSON: want an object key")
	}
	return key, nil
}

// tokenErr describes a decoding error by position only: the standard
// library's messages may quote the offending input.
func tokenErr(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("malformed JSON near byte %d", se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("malformed JSON: unexpected end of input")
	}
	return errors.New("malformed JSON")
}

// quoteKey quotes a field name for an error, cut to a readable length.
func quoteKey(k string) string {
	const max = 40
	if len(k) > max {
		k = k[:max] + "..."
	}
	return strconv.Quote(k)
}
