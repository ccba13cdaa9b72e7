package grounding

import (
	"math"
	"strconv"
	"strings"
)

// numeral is a Found with what the checker needs besides: whether it is a
// list index or an ordinal word, and the sentence it sits in.
type numeral struct {
	Found
	ordinal  bool
	sentence int
}

// scanner extracts numerals in one left-to-right pass. Every lookahead is
// either bounded by a constant or consumes what it reads, so a text of n
// bytes costs O(n) steps; steps counts byte inspections for the test that
// guards against quadratic blow-up.
type scanner struct {
	t     string
	out   []numeral
	steps int
	// lineHasContent reports whether anything but blanks precedes the
	// current position on its line (a list marker must open its line).
	lineHasContent bool
	// lastList is the value of the last list marker ("3." or "3)"), 0
	// before the first: a marker is a list index only when it is 1 or
	// continues the list.
	lastList float64
}

// Lookahead bounds.
const (
	maxWordLen   = 16 // longer letter runs are never unit or number words
	maxBlanks    = 2  // blanks allowed between a number and its unit
	maxListSpace = 8  // blanks allowed after a list marker
	maxFracDigit = 9  // fractional-second digits in a timestamp
)

// extract returns every numeral in t, in order of position, each tagged
// with its sentence index.
func extract(t string) []numeral {
	s := scanner{t: t, out: make([]numeral, 0, capFor(t))}
	s.run()
	s.tagSentences()
	return s.out
}

// capFor guesses how many numerals t holds: answers are dense (about one
// every dozen bytes); long texts less so.
func capFor(t string) int {
	if len(t) <= 4096 {
		return len(t)/12 + 4
	}
	return len(t) / 24
}

// extractUntagged is extract without the sentence pass, for a question,
// whose numerals only need comparing.
func extractUntagged(t string) []numeral {
	s := scanner{t: t, out: make([]numeral, 0, capFor(t))}
	s.run()
	return s.out
}

// Byte classes, looked up rather than compared: the scanner and the
// segmenter test every byte.
const (
	clDigit = 1 << iota
	clLetter
)

var byteClass = func() (c [256]uint8) {
	for b := '0'; b <= '9'; b++ {
		c[b] = clDigit
	}
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = clLetter, clLetter
	}
	return c
}()

func isDigit(c byte) bool  { return byteClass[c]&clDigit != 0 }
func isLetter(c byte) bool { return byteClass[c]&clLetter != 0 }
func isAlnum(c byte) bool  { return byteClass[c] != 0 }

// blank reports the width of a blank (space, tab, no-break space) at i, or 0.
func (s *scanner) blank(i int) int {
	s.steps++
	t := s.t
	if i >= len(t) {
		return 0
	}
	switch t[i] {
	case ' ', '\t':
		return 1
	case 0xC2:
		if i+1 < len(t) && t[i+1] == 0xA0 {
			return 2
		}
	}
	return 0
}

// skipBlanks skips at most max blanks from i.
func (s *scanner) skipBlanks(i, max int) int {
	for n := 0; n < max; n++ {
		w := s.blank(i)
		if w == 0 {
			break
		}
		i += w
	}
	return i
}

// digits returns the end of the run of ASCII digits starting at i.
func (s *scanner) digits(i int) int {
	for i < len(s.t) && isDigit(s.t[i]) {
		s.steps++
		i++
	}
	return i
}

// letters returns the end of the run of ASCII letters starting at i.
func (s *scanner) letters(i int) int {
	for i < len(s.t) && isLetter(s.t[i]) {
		s.steps++
		i++
	}
	return i
}

// shortWord returns the end of the letter run at i when it is 1 to
// maxWordLen letters long and followed by no letter or digit, else -1. It
// reads at most maxWordLen+1 bytes.
func (s *scanner) shortWord(i int) int {
	j := i
	for j < len(s.t) && isLetter(s.t[j]) {
		s.steps++
		j++
		if j-i > maxWordLen {
			return -1
		}
	}
	if j == i || (j < len(s.t) && isDigit(s.t[j])) {
		return -1
	}
	return j
}

// lower returns the word w (ASCII letters only) lower-cased: w itself when
// it has no upper-case letter, else a copy made in buf. It is small enough
// to inline, so the copy does not escape to the heap.
func lower(buf *[maxWordLen]byte, w string) string {
	if !hasUpper(w) || len(w) > maxWordLen {
		return w
	}
	n := copy(buf[:], w)
	for k := 0; k < n; k++ {
		buf[k] |= 0x20
	}
	return string(buf[:n])
}

func hasUpper(w string) bool {
	for k := 0; k < len(w); k++ {
		if w[k] < 'a' {
			return true
		}
	}
	return false
}

// hasAt reports whether t has prefix p at i.
func hasAt(t string, i int, p string) bool {
	return i <= len(t) && strings.HasPrefix(t[i:], p)
}

// Multi-byte signs and symbols.
const (
	minusSign = "\u2212" // −
	enDash    = "\u2013" // –
	emDash    = "\u2014" // —
	euroSign  = "\u20ac" // €
	poundSign = "\u00a3" // £
	centSign  = "\u00a2" // ¢
)

// currencySymbol returns the unit and width of a currency symbol at i.
func currencySymbol(t string, i int) (Unit, int) {
	switch {
	case hasAt(t, i, "$"):
		return UnitUSD, 1
	case hasAt(t, i, euroSign):
		return UnitEUR, len(euroSign)
	case hasAt(t, i, poundSign):
		return UnitGBP, len(poundSign)
	}
	return UnitNone, 0
}

// sign returns the value and width of a sign at i: -1 for '-' or '−', +1
// for '+', 0 when there is none.
func sign(t string, i int) (float64, int) {
	switch {
	case hasAt(t, i, "-"):
		return -1, 1
	case hasAt(t, i, minusSign):
		return -1, len(minusSign)
	case hasAt(t, i, "+"):
		return 1, 1
	}
	return 0, 0
}

// boundaryBefore reports whether the byte before i does not glue to a
// number (a letter, a digit, '.' or '_' do).
func (s *scanner) boundaryBefore(i int) bool {
	if i == 0 {
		return true
	}
	c := s.t[i-1]
	return !isAlnum(c) && c != '.' && c != '_'
}

// numberStart reports whether a numeric core starts at i: a digit, or '.'
// followed by a digit.
func (s *scanner) numberStart(i int) bool {
	s.steps++
	t := s.t
	if i >= len(t) {
		return false
	}
	if isDigit(t[i]) {
		return true
	}
	return t[i] == '.' && i+1 < len(t) && isDigit(t[i+1])
}

// qty is one parsed quantity before it becomes a numeral.
type qty struct {
	start, end int
	value      float64
	unit       Unit
	ordinal    bool
	plainInt   bool    // digits only: no sign, prefix, separator, fraction or exponent
	mult       float64 // the scale word's multiplier ("million"), 0 for none
	unitDiv    float64 // what the unit word divided by ("pence": 100), 0 for none
}

func (s *scanner) run() {
	t := s.t
	for i := 0; i < len(t); {
		s.steps++
		c := t[i]
		switch c {
		case '\n':
			s.lineHasContent = false
			i++
			continue
		case ' ', '\t', '\r':
			i++
			continue
		}
		next := s.token(i)
		if next <= i {
			next = i + 1
		}
		s.lineHasContent = true
		i = next
	}
}

// token scans whatever starts at i (which is not a blank) and returns where
// scanning resumes.
func (s *scanner) token(i int) int {
	t := s.t
	c := t[i]
	switch {
	case isLetter(c):
		return s.word(i)
	case isDigit(c):
		if end := s.dateTime(i); end > 0 {
			return end
		}
		return s.quantityAt(i, i, UnitNone, 1)
	case c == '.':
		if s.boundaryBefore(i) && s.numberStart(i) {
			return s.quantityAt(i, i, UnitNone, 1)
		}
		return i + 1
	}
	if sg, w := sign(t, i); w > 0 {
		if !s.boundaryBefore(i) {
			return i + w
		}
		j := i + w
		if u, uw := currencySymbol(t, j); uw > 0 && s.numberStart(j+uw) {
			return s.quantityAt(i, j+uw, u, sg)
		}
		if s.numberStart(j) {
			return s.quantityAt(i, j, UnitNone, sg)
		}
		return j
	}
	if u, w := currencySymbol(t, i); w > 0 {
		j := i + w
		sg, sw := sign(t, j)
		if sw > 0 && s.numberStart(j+sw) {
			return s.quantityAt(i, j+sw, u, sg)
		}
		j = s.skipBlanks(j, 1)
		if s.numberStart(j) {
			return s.quantityAt(i, j, u, 1)
		}
		return i + w
	}
	return i + 1
}

// word scans a run of letters at i: an identifier, a currency code before
// a number, a spelled-out number, or any other word (skipped).
func (s *scanner) word(i int) int {
	t := s.t
	j := s.letters(i)
	n := j - i
	// Identifier: 2 to 4 letters, '-', digits, then no letter or digit.
	if n >= 2 && n <= 4 && j+1 < len(t) && t[j] == '-' && isDigit(t[j+1]) {
		k := s.digits(j + 1)
		if k == len(t) || !isAlnum(t[k]) && t[k] != '_' {
			s.emit(qty{start: i, end: k, value: parseNumber(t[j+1 : k]), unit: UnitID})
			return k
		}
		return j
	}
	if n > maxWordLen {
		return j
	}
	var buf [maxWordLen]byte
	w := lower(&buf, t[i:j])
	// A currency code before a number: "USD 3.49", "EUR12".
	if u := codeUnit(w); u != UnitNone {
		k := s.skipBlanks(j, 1)
		sg, sw := sign(t, k)
		if s.numberStart(k + sw) {
			if sw == 0 {
				sg = 1
			}
			return s.quantityAt(i, k+sw, u, sg)
		}
		return j
	}
	if j < len(t) && isDigit(t[j]) { // "mp3": the digits are read next
		return j
	}
	if v, ord, ok := numberWord(w); ok {
		q := s.spelled(i, j, v, ord)
		if q.ordinal {
			s.emit(q)
			return q.end
		}
		return s.finish(q)
	}
	return j
}

// spelled completes a spelled-out number whose first word is t[i:j] with
// value v: a tens word may take a unit word after '-' or a blank
// ("twenty-one", "thirty two", "twenty-first").
func (s *scanner) spelled(i, j int, v float64, ord bool) qty {
	q := qty{start: i, end: j, value: v, ordinal: ord}
	if !ord && v >= 20 && v <= 90 && math.Mod(v, 10) == 0 && j < len(s.t) {
		k := j
		if s.t[k] == '-' {
			k++
		} else if b := s.blank(k); b > 0 {
			k += b
		} else {
			return q
		}
		if e := s.shortWord(k); e > 0 {
			var buf [maxWordLen]byte
			if u, uord, ok := numberWord(lower(&buf, s.t[k:e])); ok && u >= 1 && u <= 9 {
				q.end, q.value, q.ordinal = e, v+u, uord
			}
		}
	}
	return q
}

// quantityAt parses a quantity whose numeric core starts at core; start is
// where its text starts (a sign or a currency prefix may precede the core),
// prefix the unit of that prefix and sg its sign. It emits what it finds
// and returns where scanning resumes.
func (s *scanner) quantityAt(start, core int, prefix Unit, sg float64) int {
	t := s.t
	end, v, plain := s.core(core)
	q := qty{start: start, end: end, value: sg * v, unit: prefix}
	q.plainInt = plain && start == core
	if q.plainInt {
		// "1st", "2nd", "23rd", "4th": an ordinal.
		if end+2 <= len(t) && ordinalSuffix(t[end], t[end+1]) && (end+2 == len(t) || !isAlnum(t[end+2])) {
			q.end, q.ordinal = end+2, true
			s.emit(q)
			return q.end
		}
		// "1. " or "2) " opening a line, followed by more on it, and
		// starting (1) or continuing (previous + 1) a list: a list index.
		if !s.lineHasContent && end+1 < len(t) && (t[end] == '.' || t[end] == ')') &&
			(v == 1 || v == s.lastList+1) {
			k := s.skipBlanks(end+1, maxListSpace)
			if k > end+1 && k < len(t) && t[k] != '\n' && t[k] != '\r' {
				q.end, q.ordinal = end+1, true
				s.lastList = v
				s.emit(q)
				return q.end
			}
		}
	}
	return s.finish(q)
}

// finish applies a scale word and a unit after q, then looks for the second
// half of a range, emits, and returns where scanning resumes.
func (s *scanner) finish(q qty) int {
	q = s.suffix(q)
	if r, ok := s.rangeTail(q); ok {
		// A range shares its scale and unit: "1-2 million", "$12-15",
		// "12-15%", "50 to 60 pence".
		a, b := q, r
		if a.mult == 0 && b.mult != 0 {
			a.value *= b.mult
		}
		if b.mult == 0 && a.mult != 0 && a.unit == UnitNone {
			b.value *= a.mult
		}
		if a.unit == UnitNone && b.unit != UnitNone {
			a.unit = b.unit
			if b.unitDiv != 0 {
				a.value /= b.unitDiv
			}
		} else if b.unit == UnitNone && a.unit != UnitNone {
			b.unit = a.unit
			if a.unitDiv != 0 {
				b.value /= a.unitDiv
			}
		}
		a.end, b.start = b.end, a.start
		s.emit(a)
		s.emit(b)
		return b.end
	}
	s.emit(q)
	return q.end
}

// suffix extends q with a scale word ("1.2 million") and a unit ("12%",
// "12 per cent", "3 dollars", "299 cents", "12 €", "3.49 USD").
func (s *scanner) suffix(q qty) qty {
	t := s.t
	k := s.skipBlanks(q.end, 1)
	if e := s.shortWord(k); e > 0 {
		var buf [maxWordLen]byte
		if m := scaleWord(lower(&buf, t[k:e])); m != 0 {
			q.value *= m
			q.end, q.mult = e, m
		}
	}
	k = s.skipBlanks(q.end, maxBlanks)
	var u Unit
	e := -1
	switch {
	case hasAt(t, k, "%"):
		u, e = UnitPercent, k+1
	case hasAt(t, k, centSign):
		u, e = UnitCents, k+len(centSign)
	default:
		if cu, w := currencySymbol(t, k); w > 0 {
			// A symbol that opens the next number is that number's prefix.
			if _, sw := sign(t, k+w); !s.numberStart(k+w) && !s.numberStart(k+w+sw) {
				u, e = cu, k+w
			}
		} else if we := s.shortWord(k); we > 0 {
			var buf [maxWordLen]byte
			w := lower(&buf, t[k:we])
			u, e = unitWord(w), we
			switch w {
			case "pence", "penny", "pennies": // minor units of the pound
				if q.unit == UnitNone {
					q.value /= 100
					q.unitDiv = 100
				}
			}
			if w == "per" { // "per cent"
				u, e = UnitNone, -1
				if k2 := s.skipBlanks(we, 1); k2 > we {
					if we2 := s.shortWord(k2); we2 > 0 && strings.EqualFold(t[k2:we2], "cent") {
						u, e = UnitPercent, we2
					}
				}
			}
		}
	}
	if u != UnitNone && (q.unit == UnitNone || q.unit == u) {
		q.unit, q.end = u, e
	}
	return q
}

// rangeTail looks for the second half of a range after q: "12-15",
// "12–15", "12 to 15", "12 through 15". It emits nothing.
func (s *scanner) rangeTail(q qty) (qty, bool) {
	t := s.t
	k := s.skipBlanks(q.end, maxBlanks)
	spaced := k > q.end
	var j int
	switch {
	case hasAt(t, k, "-"):
		j = k + 1
	case hasAt(t, k, enDash):
		j = k + len(enDash)
	case hasAt(t, k, emDash):
		j = k + len(emDash)
	case hasAt(t, k, minusSign):
		j = k + len(minusSign)
	default:
		if !spaced {
			return qty{}, false
		}
		e := s.shortWord(k)
		if e < 0 {
			return qty{}, false
		}
		var buf [maxWordLen]byte
		switch lower(&buf, t[k:e]) {
		case "to", "through", "thru":
		default:
			return qty{}, false
		}
		if j = s.skipBlanks(e, maxBlanks); j == e {
			return qty{}, false
		}
	}
	j = s.skipBlanks(j, maxBlanks)
	return s.operand(j)
}

// operand parses the second half of a range at i without emitting it: an
// optional currency symbol, then digits or a spelled-out number, with a
// scale word and a unit after.
func (s *scanner) operand(i int) (qty, bool) {
	t := s.t
	start, prefix := i, UnitNone
	if u, w := currencySymbol(t, i); w > 0 {
		prefix, i = u, i+w
	}
	var q qty
	switch {
	case s.numberStart(i):
		if end := s.dateShape(i); end > 0 {
			return qty{}, false // a date is its own numeral
		}
		end, v, _ := s.core(i)
		q = qty{start: start, end: end, value: v, unit: prefix}
	case i < len(t) && isLetter(t[i]) && prefix == UnitNone:
		e := s.shortWord(i)
		if e < 0 {
			return qty{}, false
		}
		var buf [maxWordLen]byte
		v, ord, ok := numberWord(lower(&buf, t[i:e]))
		if !ok || ord {
			return qty{}, false
		}
		q = s.spelled(i, e, v, false)
		if q.ordinal {
			return qty{}, false
		}
	default:
		return qty{}, false
	}
	return s.suffix(q), true
}

// core parses the numeric core at i (a digit or '.' digit): digits with
// optional thousands groups, a fraction and an exponent. It returns the
// end, the value and whether it was plain digits.
func (s *scanner) core(i int) (end int, v float64, plain bool) {
	t := s.t
	j := s.digits(i)
	commas := false
	if n := j - i; n >= 1 && n <= 3 {
		// Thousands groups: ",ddd" not followed by a digit, repeatedly.
		for j+4 <= len(t) && t[j] == ',' && isDigit(t[j+1]) && isDigit(t[j+2]) && isDigit(t[j+3]) &&
			(j+4 == len(t) || !isDigit(t[j+4])) {
			s.steps += 4
			j += 4
			commas = true
		}
	}
	plain = !commas && j > i
	if j+1 < len(t) && t[j] == '.' && isDigit(t[j+1]) {
		j = s.digits(j + 1)
		plain = false
	}
	if j < len(t) && (t[j] == 'e' || t[j] == 'E') {
		k := j + 1
		if k < len(t) && (t[k] == '+' || t[k] == '-') {
			k++
		}
		if k < len(t) && isDigit(t[k]) {
			j = s.digits(k)
			plain = false
		}
	}
	return j, parseLiteral(t[i:j], commas), plain
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseLiteral parses a numeric core: digits, thousands commas (dropped),
// a fraction and an exponent. Literals of at most 15 significant digits
// without an exponent take the exact fast path (an integer below 2^53
// divided by an exact power of ten is correctly rounded, as strconv
// would round it); the rest go through strconv.
func parseLiteral(lit string, commas bool) float64 {
	var m uint64
	digits, frac := 0, -1
	for k := 0; k < len(lit); k++ {
		c := lit[k]
		switch {
		case isDigit(c):
			m = m*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == ',':
		case c == '.':
			frac = 0
		default: // an exponent
			digits = 99
		}
		if digits > 15 {
			break
		}
	}
	if digits <= 15 {
		if frac <= 0 {
			return float64(m)
		}
		return float64(m) / pow10[frac]
	}
	if commas {
		lit = strings.ReplaceAll(lit, ",", "")
	}
	return parseNumber(lit)
}

// parseNumber parses a literal the grammar has already checked; a value
// beyond float64 is clamped to ±MaxFloat64 so a report always encodes.
func parseNumber(lit string) float64 {
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0 // unreachable for literals from the grammar
	}
	if math.IsInf(v, 0) {
		return math.Copysign(math.MaxFloat64, v)
	}
	return v
}

// dateShape returns the end of "dddd-dd-dd" at i when no digit follows,
// else -1.
func (s *scanner) dateShape(i int) int {
	t := s.t
	s.steps += 10
	if i+10 > len(t) {
		return -1
	}
	for k := 0; k < 10; k++ {
		c := t[i+k]
		if k == 4 || k == 7 {
			if c != '-' {
				return -1
			}
		} else if !isDigit(c) {
			return -1
		}
	}
	if i+10 < len(t) && isDigit(t[i+10]) {
		return -1
	}
	return i + 10
}

// dateTime emits an ISO 8601 timestamp (2026-01-06T08:00:00Z, RFC 3339
// with optional fractional seconds and an offset) or date (2026-01-06) at
// i as one numeral and returns its end, or returns -1.
func (s *scanner) dateTime(i int) int {
	t := s.t
	if !s.boundaryBefore(i) {
		return -1
	}
	d := s.dateShape(i)
	if d < 0 {
		return -1
	}
	if d < len(t) && t[d] == 'T' {
		// hh:mm:ss[.f{1,9}](Z|±hh:mm)
		e := d + 9
		s.steps += 9
		if e > len(t) || t[d+3] != ':' || t[d+6] != ':' {
			return -1
		}
		if e < len(t) && t[e] == '.' {
			f := s.digits(e + 1)
			if f == e+1 || f-e-1 > maxFracDigit {
				return -1
			}
			e = f
		}
		switch {
		case hasAt(t, e, "Z"):
			e++
		case hasAt(t, e, "+") || hasAt(t, e, "-"):
			e += 6
			s.steps += 6
		default:
			return -1
		}
		if e > len(t) || (e < len(t) && isAlnum(t[e])) {
			return -1
		}
		v, ok := parseTimestamp(t[i:e])
		if !ok {
			return -1
		}
		s.emit(qty{start: i, end: e, value: v, unit: UnitTimestamp})
		return e
	}
	if d < len(t) && isLetter(t[d]) {
		return -1
	}
	v, ok := parseDate(t[i:d])
	if !ok {
		return -1
	}
	s.emit(qty{start: i, end: d, value: v, unit: UnitDate})
	return d
}

func (s *scanner) emit(q qty) {
	s.out = append(s.out, numeral{
		Found: Found{
			Text:  s.t[q.start:q.end],
			Value: q.value,
			Unit:  q.unit,
			Start: q.start,
			End:   q.end,
		},
		ordinal: q.ordinal,
	})
}

// tagSentences sets each numeral's sentence index.
func (s *scanner) tagSentences() {
	if len(s.out) == 0 {
		return
	}
	spans := segment(s.t)
	k := 0
	for i := range s.out {
		for k+1 < len(spans) && s.out[i].Start >= spans[k].end {
			k++
		}
		s.out[i].sentence = k
	}
}

func ordinalSuffix(a, b byte) bool {
	switch string([]byte{a | 0x20, b | 0x20}) {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// codeUnit returns the currency a code word names (usd, eur, gbp).
func codeUnit(w string) Unit {
	switch w {
	case "usd":
		return UnitUSD
	case "eur":
		return UnitEUR
	case "gbp":
		return UnitGBP
	}
	return UnitNone
}

// unitWord returns the unit a word after a number names.
func unitWord(w string) Unit {
	switch w {
	case "percent", "pct":
		return UnitPercent
	case "cent", "cents":
		return UnitCents
	case "pence", "penny", "pennies":
		return UnitGBP
	case "dollar", "dollars", "usd":
		return UnitUSD
	case "euro", "euros", "eur":
		return UnitEUR
	case "pound", "pounds", "gbp":
		return UnitGBP
	}
	return UnitNone
}

// scaleWord returns the multiplier a scale word names, or 0.
func scaleWord(w string) float64 {
	switch w {
	case "thousand":
		return 1e3
	case "million":
		return 1e6
	case "billion":
		return 1e9
	case "trillion":
		return 1e12
	}
	return 0
}

// numberWord returns the value of a spelled-out cardinal (zero to twenty,
// and the tens to ninety) or ordinal (first to twentieth, and the tens'
// ordinals), and whether it is an ordinal.
func numberWord(w string) (v float64, ordinal bool, ok bool) {
	switch w {
	case "zero":
		return 0, false, true
	case "one":
		return 1, false, true
	case "two":
		return 2, false, true
	case "three":
		return 3, false, true
	case "four":
		return 4, false, true
	case "five":
		return 5, false, true
	case "six":
		return 6, false, true
	case "seven":
		return 7, false, true
	case "eight":
		return 8, false, true
	case "nine":
		return 9, false, true
	case "ten":
		return 10, false, true
	case "eleven":
		return 11, false, true
	case "twelve":
		return 12, false, true
	case "thirteen":
		return 13, false, true
	case "fourteen":
		return 14, false, true
	case "fifteen":
		return 15, false, true
	case "sixteen":
		return 16, false, true
	case "seventeen":
		return 17, false, true
	case "eighteen":
		return 18, false, true
	case "nineteen":
		return 19, false, true
	case "twenty":
		return 20, false, true
	case "thirty":
		return 30, false, true
	case "forty":
		return 40, false, true
	case "fifty":
		return 50, false, true
	case "sixty":
		return 60, false, true
	case "seventy":
		return 70, false, true
	case "eighty":
		return 80, false, true
	case "ninety":
		return 90, false, true
	case "first":
		return 1, true, true
	case "second":
		return 2, true, true
	case "third":
		return 3, true, true
	case "fourth":
		return 4, true, true
	case "fifth":
		return 5, true, true
	case "sixth":
		return 6, true, true
	case "seventh":
		return 7, true, true
	case "eighth":
		return 8, true, true
	case "ninth":
		return 9, true, true
	case "tenth":
		return 10, true, true
	case "eleventh":
		return 11, true, true
	case "twelfth":
		return 12, true, true
	case "thirteenth":
		return 13, true, true
	case "fourteenth":
		return 14, true, true
	case "fifteenth":
		return 15, true, true
	case "sixteenth":
		return 16, true, true
	case "seventeenth":
		return 17, true, true
	case "eighteenth":
		return 18, true, true
	case "nineteenth":
		return 19, true, true
	case "twentieth":
		return 20, true, true
	case "thirtieth":
		return 30, true, true
	case "fortieth":
		return 40, true, true
	case "fiftieth":
		return 50, true, true
	case "sixtieth":
		return 60, true, true
	case "seventieth":
		return 70, true, true
	case "eightieth":
		return 80, true, true
	case "ninetieth":
		return 90, true, true
	}
	return 0, false, false
}
