package ingest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
)

// parseObject parses one JSON Lines line, a flat JSON object, into fields
// (by layout position). It returns nil, or the line's first problem.
func parseObject(l *Layout, s string, fields []raw) *RowError {
	p := jsonParser{s: s}
	p.ws()
	if !p.eat('{') {
		return &RowError{Reason: "malformed JSON: want an object"}
	}
	p.ws()
	if p.eat('}') {
		return p.end(l, fields)
	}
	for n := 1; ; n++ {
		p.ws()
		key, ok := p.str()
		if !ok {
			return &RowError{Reason: "malformed JSON: want a string key"}
		}
		p.ws()
		if !p.eat(':') {
			return &RowError{Reason: "malformed JSON: want a colon after a key"}
		}
		p.ws()
		v, ok := p.value()
		if !ok {
			return &RowError{Reason: "malformed JSON: bad value"}
		}
		j := l.ColumnIndex(key)
		switch {
		case j < 0:
			return &RowError{Reason: fmt.Sprintf("unknown column (key %d of the object)", n)}
		case fields[j].kind != rawAbsent:
			return &RowError{Field: key, Reason: "duplicate column"}
		}
		fields[j] = v
		p.ws()
		if p.eat('}') {
			return p.end(l, fields)
		}
		if !p.eat(',') {
			return &RowError{Reason: "malformed JSON: want a comma or a closing brace"}
		}
	}
}

type jsonParser struct {
	s string
	i int
	// unpaired: the last string parsed escapes half a surrogate pair
	// alone (\ud800 without its low half), which encoding/json would
	// silently turn into U+FFFD.
	unpaired bool
}

// end checks that nothing follows the object.
func (p *jsonParser) end(l *Layout, fields []raw) *RowError {
	p.ws()
	if p.i != len(p.s) {
		return &RowError{Reason: "malformed JSON: text after the object"}
	}
	return nil
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str parses a JSON string.
func (p *jsonParser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start, escaped := p.i, false
	p.unpaired = false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if !escaped {
				return p.s[start : p.i-1], true
			}
			var out string
			if err := json.Unmarshal([]byte(p.s[start-1:p.i]), &out); err != nil {
				return "", false
			}
			p.unpaired = unpairedSurrogate(p.s[start : p.i-1])
			return out, true
		case c == '\\':
			escaped = true
			p.i += 2
		case c < 0x20:
			return "", false
		default:
			p.i++
		}
	}
	return "", false
}

// value parses a scalar value; an object or array is rawOther, skipped.
func (p *jsonParser) value() (raw, bool) {
	if p.i >= len(p.s) {
		return raw{}, false
	}
	switch c := p.s[p.i]; {
	case c == '"':
		s, ok := p.str()
		if p.unpaired {
			return raw{kind: rawLone}, ok
		}
		return raw{kind: rawString, s: s}, ok
	case c == 'n':
		return raw{kind: rawNull}, p.literal("null")
	case c == 't':
		return raw{kind: rawOther}, p.literal("true")
	case c == 'f':
		return raw{kind: rawOther}, p.literal("false")
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.s) {
			c := p.s[p.i]
			if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				p.i++
				continue
			}
			break
		}
		s := p.s[start:p.i]
		return raw{kind: rawNumber, s: s}, jsonNumber(s)
	case c == '{' || c == '[':
		return raw{kind: rawOther}, p.skipNested()
	}
	return raw{}, false
}

// unpairedSurrogate reports whether the body of a valid JSON string (between
// its quotes) escapes a UTF-16 surrogate other than as a high half
// followed by a low half.
func unpairedSurrogate(s string) bool {
	high := false // the previous escape was a high half
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			if high {
				return true
			}
			continue
		}
		i++
		if s[i] != 'u' {
			if high {
				return true
			}
			continue
		}
		r, _ := strconv.ParseUint(s[i+1:i+5], 16, 16) // valid JSON: four hex digits
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			if !high {
				return true
			}
			high = false
		case high:
			return true
		default:
			high = utf16.IsSurrogate(rune(r))
		}
	}
	return high
}

func (p *jsonParser) literal(lit string) bool {
	if len(p.s)-p.i >= len(lit) && p.s[p.i:p.i+len(lit)] == lit {
		p.i += len(lit)
		return true
	}
	return false
}

// maxDepth bounds the nesting of a skipped object or array.
const maxDepth = 64

// skipNested skips one object or array, checking its syntax with
// encoding/json.
func (p *jsonParser) skipNested() bool {
	depth, start := 0, p.i
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '"':
			if _, ok := p.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
			if depth > maxDepth {
				return false
			}
		case '}', ']':
			depth--
			if depth == 0 {
				p.i++
				return json.Valid([]byte(p.s[start:p.i]))
			}
		}
		p.i++
	}
	return false
}

// jsonNumber reports whether s is a JSON number: decimal without leading
// zeros.
func jsonNumber(s string) bool {
	if !decimal(s) {
		return false
	}
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	return !(len(d) > 1 && d[0] == '0' && d[1] >= '0' && d[1] <= '9')
}
