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

	"github.com/provenant/provenant/internal/strictjson"
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
// naming the field's path (an undeclared key by its position); no error
// repeats a value or a key from the input.
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

// wireLedger and wireNumeral are the ledger file's shape as the strict
// decoder reads it; each field stays raw until decodeNumeral judges it, so
// a missing field is told apart from a null one.
type wireLedger struct {
	Numerals *[]wireNumeral `json:"numerals"`
}

type wireNumeral struct {
	Value  json.RawMessage `json:"value"`
	Unit   json.RawMessage `json:"unit"`
	ID     json.RawMessage `json:"id"`
	Window json.RawMessage `json:"window"`
}

// decodeLedger decodes with the one strict decoder (package strictjson):
// unknown and repeated fields, at any depth, are caught with their path.
func decodeLedger(b []byte) (Ledger, error) {
	var w *wireLedger
	if err := strictjson.Decode(b, &w, nil); err != nil {
		return Ledger{}, ledgerJSONError(err)
	}
	if w == nil {
		return Ledger{}, errors.New("ledger: want an object")
	}
	if w.Numerals == nil {
		return Ledger{}, errors.New("missing field numerals")
	}
	l := Ledger{Numerals: make([]Numeral, 0, len(*w.Numerals))}
	for i, wn := range *w.Numerals {
		n, err := decodeNumeral(wn, fmt.Sprintf("numerals[%d]", i))
		if err != nil {
			return Ledger{}, err
		}
		l.Numerals = append(l.Numerals, n)
	}
	return l, nil
}

// ledgerJSONError words a strict decoding error in the ledger's own terms.
// Like the decoder's, it names declared fields and positions only: a key
// the input chose is never repeated.
func ledgerJSONError(err error) error {
	var e *strictjson.Error
	if !errors.As(err, &e) {
		return errors.New("malformed JSON")
	}
	path := strings.TrimPrefix(strings.TrimPrefix(e.Path, "$"), ".")
	parent, name := "", path
	if i := strings.LastIndexAny(path, ".]"); i >= 0 {
		parent, name = path[:i+1], path[i+1:]
		parent = strings.TrimSuffix(parent, ".")
	}
	at := func(p string) string {
		if p == "" {
			return ""
		}
		return p + ": "
	}
	switch e.Kind {
	case strictjson.Duplicate:
		if strings.HasPrefix(name, "#") {
			return fmt.Errorf("%sfield %s repeats an earlier key", at(parent), name)
		}
		return fmt.Errorf("%sfield %s appears twice", at(parent), name)
	case strictjson.Unknown:
		want := "value, unit, id or window"
		if parent == "" {
			want = "numerals"
		}
		return fmt.Errorf("%sunknown field %s (want %s)", at(parent), name, want)
	case strictjson.Type:
		if path == "" {
			path = "ledger"
		}
		return fmt.Errorf("%s: want %s", path, e.Want)
	case strictjson.Trailing:
		return errors.New("trailing data after the ledger object")
	case strictjson.Empty:
		return errors.New("malformed JSON: unexpected end of input")
	}
	return errors.New(e.SafeMessage())
}

func decodeNumeral(w wireNumeral, path string) (Numeral, error) {
	var n Numeral
	if w.Unit != nil {
		var u string
		if json.Unmarshal(w.Unit, &u) != nil {
			return Numeral{}, fmt.Errorf("%s.unit: want a string", path)
		}
		n.Unit = Unit(u)
	}
	if w.ID != nil {
		if json.Unmarshal(w.ID, &n.ID) != nil || n.ID == "" {
			return Numeral{}, fmt.Errorf("%s.id: want a non-empty string", path)
		}
	}
	if w.Window != nil && string(w.Window) != "null" {
		var win []string
		if json.Unmarshal(w.Window, &win) != nil || len(win) != 2 {
			return Numeral{}, fmt.Errorf("%s.window: want [start, end], two RFC 3339 timestamps", path)
		}
		n.Window = [2]string{win[0], win[1]}
	}
	value := w.Value
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
