package ingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// rawKind is how an input spelled a field.
type rawKind uint8

const (
	rawAbsent rawKind = iota // the column is missing from the row
	rawNull                  // JSON null, an empty CSV field, a NULL
	rawText                  // untyped text (CSV, records): any column
	rawString                // a JSON string
	rawNumber                // a JSON number
	rawOther                 // a JSON boolean, object or array; a record's value of another type
	rawInt                   // a record's int64
	rawFloat                 // a record's float64
	rawTime                  // a record's time.Time
	rawLone                  // a JSON string escaping half a surrogate pair alone
)

// raw is one field as read, before validation.
type raw struct {
	kind rawKind
	s    string
	i    int64
	f    float64
	t    time.Time
}

// MaxTextLen bounds a key or an entity id, in bytes: both are indexed,
// and an index entry has a size limit (about 2,700 bytes in PostgreSQL).
const MaxTextLen = 1024

// maxCachedIDs bounds each entity column's cache of ids already matched.
const maxCachedIDs = 1 << 16

// validator checks rows against a layout and converts them to stored
// values.
type validator struct {
	l     *Layout
	valid []map[string]bool // per column: entity ids known to match
}

func newValidator(l *Layout) *validator {
	v := &validator{l: l, valid: make([]map[string]bool, len(l.Columns))}
	for i, c := range l.Columns {
		if c.Kind == KindEntity {
			v.valid[i] = map[string]bool{}
		}
	}
	return v
}

// row validates fields (in layout order) into out (stored values: string,
// time.Time, int64, float64 or nil) and returns the problems found, each
// naming the row and the column.
func (v *validator) row(input string, row int64, fields []raw, out []any, errs []*RowError) []*RowError {
	for i := range v.l.Columns {
		c := &v.l.Columns[i]
		val, reason := v.field(i, c, fields[i])
		if reason != "" {
			errs = append(errs, &RowError{Input: input, Row: row, Field: c.Name, Reason: reason})
			continue
		}
		out[i] = val
	}
	return errs
}

func (v *validator) field(i int, c *Column, f raw) (any, string) {
	switch f.kind {
	case rawAbsent:
		return nil, "missing"
	case rawNull:
		if c.Nullable {
			return nil, ""
		}
		return nil, "empty or null, and the column is not optional"
	case rawOther:
		if c.Kind == KindInteger || c.Kind == KindNumber {
			return nil, "want a number"
		}
		return nil, "want a string"
	case rawLone:
		if c.Kind == KindInteger || c.Kind == KindNumber {
			return nil, "want a number, not a string"
		}
		return nil, "not valid Unicode (an escaped surrogate without its pair)"
	case rawString:
		if c.Kind == KindInteger || c.Kind == KindNumber {
			return nil, "want a number, not a string"
		}
	case rawNumber:
		if c.Kind != KindInteger && c.Kind != KindNumber {
			return nil, "want a string, not a number"
		}
	case rawInt, rawFloat, rawTime:
		return typed(c, f)
	}
	s := f.s
	switch c.Kind {
	case KindKey, KindEntity, KindEnum:
		if s == "" {
			if c.Nullable {
				return nil, ""
			}
			return nil, "empty, and the column is not optional"
		}
		if !utf8.ValidString(s) {
			return nil, "not valid UTF-8"
		}
		if strings.IndexByte(s, 0) >= 0 {
			return nil, "contains a NUL character"
		}
		if len(s) > MaxTextLen && c.Kind != KindEnum {
			return nil, fmt.Sprintf("longer than %d bytes", MaxTextLen)
		}
	}
	switch c.Kind {
	case KindKey:
		return s, ""
	case KindEntity:
		m := v.valid[i]
		if m[s] {
			return s, ""
		}
		if !c.pattern.MatchString(s) {
			return nil, "does not match the entity's pattern " + c.pattern.String()
		}
		if len(m) < maxCachedIDs {
			m[strings.Clone(s)] = true // not a slice of the whole line
		}
		return s, ""
	case KindEnum:
		if !c.values[s] {
			return nil, "not one of the attribute's declared values"
		}
		return s, ""
	case KindTime:
		t, reason := parseTime(s)
		if reason != "" {
			return nil, reason
		}
		return t, ""
	case KindInteger:
		if !decimal(s) {
			return nil, "want a decimal number"
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			if strings.Contains(s, ".") {
				return nil, "want an integer, not a fraction"
			}
			if strings.ContainsAny(s, "eE") {
				return nil, "want an integer, without an exponent"
			}
			return nil, "integer out of range"
		}
		return n, ""
	case KindNumber:
		if !decimal(s) {
			return nil, "want a decimal number"
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) {
			return nil, "number out of range"
		}
		return x, ""
	}
	return nil, "unknown column kind"
}

// typed validates a record's typed value.
func typed(c *Column, f raw) (any, string) {
	switch {
	case f.kind == rawTime && c.Kind == KindTime:
		t := f.t.UTC()
		if y := t.Year(); y < 0 || y > 9999 {
			// What RFC 3339 writes (and a text time may hold); beyond it
			// lie DuckDB's infinities, which PostgreSQL would store as
			// year 294247, and times past the open end of a validity
			// interval (shape.OpenEnd).
			return nil, "time outside the years 0000 to 9999"
		}
		if t.Nanosecond()%1000 != 0 {
			return nil, "more than 6 fractional digits (times are stored to the microsecond)"
		}
		if !t.Before(TimeLimit) {
			return nil, pastLimit
		}
		return t, ""
	case f.kind == rawInt && c.Kind == KindInteger:
		return f.i, ""
	case f.kind == rawInt && c.Kind == KindNumber:
		return float64(f.i), ""
	case f.kind == rawFloat && c.Kind == KindInteger:
		if math.IsNaN(f.f) || math.IsInf(f.f, 0) {
			return nil, "want a finite number"
		}
		return nil, "want an integer, not a fraction"
	case f.kind == rawFloat && c.Kind == KindNumber:
		if math.IsNaN(f.f) || math.IsInf(f.f, 0) {
			return nil, "want a finite number"
		}
		return f.f, ""
	case c.Kind == KindTime:
		return nil, "want a time"
	case c.Kind == KindInteger || c.Kind == KindNumber:
		return nil, "want a number"
	case f.kind == rawTime:
		return nil, "want a string, not a time"
	}
	return nil, "want a string, not a number"
}

// decimal reports whether s is a number in JSON's decimal syntax:
// -?digits(.digits)?([eE][+-]?digits)?, leading zeros allowed.
func decimal(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if !digits() {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// TimeLimit bounds the event time: every stored time is before it. The
// derived structures mark a series' latest row valid until this instant
// (shape.OpenEnd), so a row at or past it would end before it begins, and
// answers over its series would fail their re-derivation.
var TimeLimit = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// pastLimit is the reason for a time at or past TimeLimit.
const pastLimit = "at or after 9999-12-31T00:00:00Z, where a row's validity is marked open"

// parseTime parses an RFC 3339 UTC timestamp: YYYY-MM-DDTHH:MM:SS, an
// optional fraction of 1 to 6 digits (storage keeps microseconds), and Z.
func parseTime(s string) (time.Time, string) {
	const want = "want an RFC 3339 UTC time like 2026-01-06T08:00:00Z"
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, want
	}
	num := func(a, b int) int {
		n := 0
		for _, c := range []byte(s[a:b]) {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	if year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || sec < 0 {
		return time.Time{}, want
	}
	rest := s[19:]
	nanos := 0
	if rest[0] == '.' {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		digits := j - 1
		if digits == 0 {
			return time.Time{}, want
		}
		if digits > 6 {
			return time.Time{}, "more than 6 fractional digits (times are stored to the microsecond)"
		}
		f := num(20, 20+digits)
		for k := digits; k < 9; k++ {
			f *= 10
		}
		nanos = f
		rest = rest[j:]
	}
	if rest != "Z" {
		if rest == "z" || (len(rest) == 6 && (rest[0] == '+' || rest[0] == '-')) {
			return time.Time{}, "want UTC, written with Z (no other offset)"
		}
		return time.Time{}, want
	}
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, "not a valid date and time"
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC)
	if t.Day() != day {
		return time.Time{}, "not a valid date and time"
	}
	if !t.Before(TimeLimit) {
		return time.Time{}, pastLimit
	}
	return t, ""
}
