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
	sentence int32 // with ordinal, one word: the struct stays small
	// quantum is the place the numeral is written to, in its Unit: 0.01
	// for "$7.81", 1 for "781 cents", 1000 for "4,000" or "9k", 1e5 for
	// "1.2 million"; 0 when it is not a quantity (identifier, time).
	quantum float64
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
	// listLine reports whether a list index was seen on the current line
	// (an inline list continues only on its line).
	listLine bool
	// pending is the index in out of a "1)" inside a line, which becomes
	// a list index when "2)" follows on the line; -1 when there is none.
	pending int
}

// Lookahead bounds.
const (
	maxWordLen   = 16  // longer letter runs are never unit or number words
	maxBlanks    = 2   // blanks allowed between a number and its unit
	maxListSpace = 8   // blanks allowed after a list marker
	maxFracDigit = 9   // fractional-second digits in a timestamp
	maxScales    = 3   // scale words in a row ("two hundred thousand")
	maxExponent  = 999 // an exponent saturates here (1e999 is beyond float64 anyway)
)

// extract returns every numeral in t, in order of position, each tagged
// with its sentence index.
func extract(t string) []numeral {
	nt, offs := normalize(t)
	s := newScanner(nt)
	s.run()
	s.tagSentences()
	s.remap(t, offs)
	return s.out
}

func newScanner(t string) scanner {
	return scanner{t: t, out: make([]numeral, 0, capFor(t)), pending: -1}
}

// remap puts the numerals found in the normalised text back on the
// original text t: offsets and Text are t's.
func (s *scanner) remap(t string, offs []int) {
	if offs == nil {
		return
	}
	for i := range s.out {
		f := &s.out[i].Found
		f.Start, f.End = offs[f.Start], offs[f.End]
		f.Text = t[f.Start:f.End]
	}
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
	nt, offs := normalize(t)
	s := newScanner(nt)
	s.run()
	s.remap(t, offs)
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
	quantum    float64 // the place it is written to, in its unit (see numeral)
	spelled    bool    // a number word ("three", "a dozen")
}

func (s *scanner) run() {
	t := s.t
	for i := 0; i < len(t); {
		s.steps++
		c := t[i]
		switch c {
		case '\n':
			s.lineHasContent, s.listLine, s.pending = false, false, -1
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
	// A scale word on its own is its number: "a dozen", "a million".
	if m := lonelyScale(w); m != 0 {
		q := qty{start: i, end: j, value: m, quantum: m, mult: m, spelled: true}
		if m == 1e2 { // "a hundred and two"
			if end, v, ok := s.hundredsTail(j); ok {
				q.end, q.value, q.quantum = end, m+v, intQuantum(m+v)
			}
		}
		return s.finish(q)
	}
	return j
}

// spelled completes a spelled-out number whose first word is t[i:j] with
// value v: a tens word may take a unit word after '-' or a blank
// ("twenty-one", "thirty two", "twenty-first").
func (s *scanner) spelled(i, j int, v float64, ord bool) (q qty) {
	q = qty{start: i, end: j, value: v, ordinal: ord, spelled: true}
	defer func() { q.quantum = intQuantum(q.value) }()
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
	end, v, plain, quantum := s.core(core)
	q := qty{start: start, end: end, value: sg * v, unit: prefix, quantum: quantum}
	q.plainInt = plain && start == core
	if q.plainInt {
		// "1st", "2nd", "23rd", "4th": an ordinal.
		if end+2 <= len(t) && ordinalSuffix(t[end], t[end+1]) && (end+2 == len(t) || !isAlnum(t[end+2])) {
			q.end, q.ordinal = end+2, true
			s.emit(q)
			return q.end
		}
		if end := s.listIndex(q, v); end > 0 {
			return end
		}
	}
	return s.finish(q)
}

// listIndex emits q, plain digits v followed by '.' or ')', as a list index
// and returns where scanning resumes, or returns 0 when it is none. A
// marker followed by more text on its line is a list index when
//
//   - it opens its line and starts (1) or continues (previous + 1) a list;
//   - it is 1 after ':', ',' or ';' ("Two products: 1. oat milk");
//   - it continues a list whose previous index is on the same line
//     ("… 1. oat milk 2. rye bread");
//   - it is "2)" after a "1)" on the same line: both are ("1) oat 2) rye").
//
// A "1)" inside a line is emitted as the number 1 until a "2)" makes it
// an index; a bare number in running prose never is one.
func (s *scanner) listIndex(q qty, v float64) int {
	t := s.t
	end := q.end
	if end+1 >= len(t) || (t[end] != '.' && t[end] != ')') {
		return 0
	}
	k := s.skipBlanks(end+1, maxListSpace)
	if k == end+1 || k >= len(t) || t[k] == '\n' || t[k] == '\r' {
		return 0
	}
	var index bool
	if !s.lineHasContent {
		index = v == 1 || v == s.lastList+1
	} else {
		index = (v == 1 && s.afterListSep(q.start)) || (s.listLine && v == s.lastList+1)
		if !index && t[end] == ')' {
			switch {
			case v == 1:
				s.pending = len(s.out)
				s.emit(q)
				return q.end
			case v == 2 && s.pending >= 0:
				p := &s.out[s.pending]
				p.ordinal, p.End = true, p.End+1
				p.Text = t[p.Start:p.End]
				index = true
			}
		}
	}
	if !index {
		return 0
	}
	q.end, q.ordinal = end+1, true
	s.lastList, s.listLine, s.pending = v, true, -1
	s.emit(q)
	return q.end
}

// afterListSep reports whether the last byte before i but blanks is ':',
// ',' or ';'.
func (s *scanner) afterListSep(i int) bool {
	for n := 0; n < maxListSpace && i > 0; n++ {
		s.steps++
		switch s.t[i-1] {
		case ' ', '\t':
			i--
			continue
		case ':', ',', ';':
			return true
		}
		return false
	}
	return false
}

// finish applies a scale word and a unit after q, then looks for the second
// half of a range, emits, and returns where scanning resumes.
func (s *scanner) finish(q qty) int {
	q = s.suffix(q, false)
	if r, ok := s.rangeTail(q); ok {
		// A range shares its scale and unit: "1-2 million", "$12-15",
		// "12-15%", "50 to 60 pence", "$1-2m".
		a, b := q, r
		if a.mult == 0 && b.mult != 0 {
			a.value *= b.mult
			a.quantum *= b.mult
		}
		if b.mult == 0 && a.mult != 0 && a.unit == UnitNone {
			b.value *= a.mult
			b.quantum *= a.mult
		}
		if a.unit == UnitNone && b.unit != UnitNone {
			a.unit = b.unit
			if b.unitDiv != 0 {
				a.value /= b.unitDiv
				a.quantum /= b.unitDiv
			}
		} else if b.unit == UnitNone && a.unit != UnitNone {
			b.unit = a.unit
			if a.unitDiv != 0 {
				b.value /= a.unitDiv
				b.quantum /= a.unitDiv
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

// suffix extends q with scale words ("1.2 million", "9k", "$1.2m") and a
// unit ("12%", "12 per cent", "3 dollars", "299 cents", "12 €", "3.49
// USD"). moneyCtx says that q is money by context (the second half of a
// range whose first half is), for the scale letters that multiply only
// money ("m", "b", "B").
func (s *scanner) suffix(q qty, moneyCtx bool) qty {
	t := s.t
	for n := 0; n < maxScales; n++ {
		k := s.skipBlanks(q.end, 1)
		e := s.shortWord(k)
		if e < 0 {
			break
		}
		var buf [maxWordLen]byte
		m, moneyOnly := scaleWord(t[k:e], lower(&buf, t[k:e]))
		if m == 0 || moneyOnly && !moneyCtx && !isMoney(q.unit) && !isMoney(s.unitAfter(e)) {
			break
		}
		q.value *= m
		q.quantum *= m
		q.end = e
		if q.mult == 0 {
			q.mult = 1
		}
		q.mult *= m
		if q.spelled && q.mult == 1e2 {
			// "one hundred [and] twenty-three" is 123.
			if end, v, ok := s.hundredsTail(q.end); ok {
				q.value += v
				q.end = end
				q.quantum = intQuantum(q.value)
			}
		}
	}
	u, e, pence := s.unitAt(s.skipBlanks(q.end, maxBlanks))
	if pence && q.unit == UnitNone { // minor units of the pound
		q.value /= 100
		q.quantum /= 100
		q.unitDiv = 100
	}
	if u != UnitNone && (q.unit == UnitNone || q.unit == u) {
		q.unit, q.end = u, e
	}
	return q
}

// hundredsTail reads what may follow a spelled number's "hundred" at i: an
// optional "and", then a spelled cardinal from one to ninety-nine. It
// returns its end and value.
func (s *scanner) hundredsTail(i int) (int, float64, bool) {
	t := s.t
	k := s.skipBlanks(i, 1)
	if k == i {
		return 0, 0, false
	}
	e := s.shortWord(k)
	var buf [maxWordLen]byte
	if e > 0 && lower(&buf, t[k:e]) == "and" {
		if k = s.skipBlanks(e, 1); k == e {
			return 0, 0, false
		}
		e = s.shortWord(k)
	}
	if e < 0 {
		return 0, 0, false
	}
	v, ord, ok := numberWord(lower(&buf, t[k:e]))
	if !ok || ord || v < 1 {
		return 0, 0, false
	}
	q := s.spelled(k, e, v, false)
	if q.ordinal {
		return 0, 0, false
	}
	return q.end, q.value, true
}

// unitAfter returns the unit written after a scale word ending at e.
func (s *scanner) unitAfter(e int) Unit {
	u, _, _ := s.unitAt(s.skipBlanks(e, maxBlanks))
	return u
}

// unitAt reads a unit at k: a percent, cent, or currency sign, or a unit
// word. It returns the unit (UnitNone when there is none), its end, and
// whether it is a word for pence.
func (s *scanner) unitAt(k int) (u Unit, e int, pence bool) {
	t := s.t
	switch {
	case hasAt(t, k, "%"):
		return UnitPercent, k + 1, false
	case hasAt(t, k, centSign):
		return UnitCents, k + len(centSign), false
	}
	if cu, w := currencySymbol(t, k); w > 0 {
		// A symbol that opens the next number is that number's prefix.
		if _, sw := sign(t, k+w); !s.numberStart(k+w) && !s.numberStart(k+w+sw) {
			return cu, k + w, false
		}
		return UnitNone, -1, false
	}
	we := s.shortWord(k)
	if we < 0 {
		return UnitNone, -1, false
	}
	var buf [maxWordLen]byte
	w := lower(&buf, t[k:we])
	switch w {
	case "pence", "penny", "pennies":
		return UnitGBP, we, true
	case "per": // "per cent"
		if k2 := s.skipBlanks(we, 1); k2 > we {
			if we2 := s.shortWord(k2); we2 > 0 && strings.EqualFold(t[k2:we2], "cent") {
				return UnitPercent, we2, false
			}
		}
		return UnitNone, -1, false
	}
	return unitWord(w), we, false
}

// isMoney reports whether u is a unit of money.
func isMoney(u Unit) bool {
	switch u {
	case UnitUSD, UnitEUR, UnitGBP, UnitCents:
		return true
	}
	return false
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
	return s.operand(j, isMoney(q.unit))
}

// operand parses the second half of a range at i without emitting it: an
// optional currency symbol, then digits or a spelled-out number, with a
// scale word and a unit after.
func (s *scanner) operand(i int, moneyCtx bool) (qty, bool) {
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
		end, v, _, quantum := s.core(i)
		q = qty{start: start, end: end, value: v, unit: prefix, quantum: quantum}
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
	return s.suffix(q, moneyCtx), true
}

// core parses the numeric core at i (a digit or '.' digit): digits with
// optional thousands groups, a fraction and an exponent. It returns the
// end, the value, whether it was plain digits, and the place it is
// written to (see numeral.quantum).
func (s *scanner) core(i int) (end int, v float64, plain bool, quantum float64) {
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
	intEnd, frac := j, 0
	if j+1 < len(t) && t[j] == '.' && isDigit(t[j+1]) {
		j = s.digits(j + 1)
		frac = j - intEnd - 1
		plain = false
	}
	exp := 0
	if j < len(t) && (t[j] == 'e' || t[j] == 'E') {
		k := j + 1
		esign := 1
		if k < len(t) && (t[k] == '+' || t[k] == '-') {
			if t[k] == '-' {
				esign = -1
			}
			k++
		}
		if k < len(t) && isDigit(t[k]) {
			e := s.digits(k)
			for p := k; p < e; p++ {
				exp = min(exp*10+int(t[p]-'0'), maxExponent)
			}
			exp *= esign
			j = e
			plain = false
		}
	}
	// The place: 10^-frac with a fraction; else the integer's trailing
	// zeros ("4,000" may be 3,992 rounded to thousands); times 10^exp.
	place := exp - frac
	if frac == 0 {
		place += trailingZeros(t[i:intEnd])
	}
	return j, parseLiteral(t[i:j], commas), plain, math.Pow10(place)
}

// trailingZeros counts the zeros that end the digits (and commas) of lit,
// 0 when lit is all zeros.
func trailingZeros(lit string) int {
	z := 0
	for k := len(lit) - 1; k >= 0; k-- {
		switch lit[k] {
		case '0':
			z++
		case ',':
		default:
			return z
		}
	}
	return 0
}

// intQuantum is the place a spelled-out integer is written to: "twenty"
// may be 19.6 rounded to tens.
func intQuantum(v float64) float64 {
	q := 1.0
	for v >= 10 && math.Mod(v, 10) == 0 {
		v /= 10
		q *= 10
	}
	return q
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
	if math.IsInf(q.value, 0) { // a scale word took it beyond float64
		q.value = math.Copysign(math.MaxFloat64, q.value)
	}
	s.out = append(s.out, numeral{
		Found: Found{
			Text:  s.t[q.start:q.end],
			Value: q.value,
			Unit:  q.unit,
			Start: q.start,
			End:   q.end,
		},
		ordinal: q.ordinal,
		quantum: q.quantum,
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
		s.out[i].sentence = int32(min(k, math.MaxInt32))
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

// scaleWord returns the multiplier a scale word or suffix after a number
// names, or 0, and whether it multiplies money only. raw is the word as
// written (single letters are case-sensitive: "M" is a million, "m" a
// million only for money, else metres or minutes), low lower-cased.
func scaleWord(raw, low string) (m float64, moneyOnly bool) {
	switch raw {
	case "k", "K":
		return 1e3, false
	case "M":
		return 1e6, false
	case "m":
		return 1e6, true
	case "b", "B":
		return 1e9, true
	}
	switch low {
	case "mn", "mln":
		return 1e6, false
	case "bn", "bln":
		return 1e9, false
	case "dozen", "dozens":
		return 12, false
	case "hundred", "hundreds":
		return 1e2, false
	case "thousand", "thousands":
		return 1e3, false
	case "lakh", "lakhs":
		return 1e5, false
	case "million", "millions":
		return 1e6, false
	case "crore", "crores":
		return 1e7, false
	case "billion", "billions":
		return 1e9, false
	case "trillion", "trillions":
		return 1e12, false
	}
	return 0, false
}

// lonelyScale returns the number a singular scale word names on its own
// ("a dozen", "a million"), or 0.
func lonelyScale(w string) float64 {
	switch w {
	case "dozen", "hundred", "thousand", "lakh", "million", "crore", "billion", "trillion":
		m, _ := scaleWord(w, w)
		return m
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
