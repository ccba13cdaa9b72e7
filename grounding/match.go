package grounding

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// class is a numeral's magnitude class: numerals compare only within a
// class, in the class's canonical unit.
type class uint8

const (
	classNoValue   class = iota // a ledger entry that is only an ID or only a window
	classPlain                  // a bare number or a count
	classMoney                  // canonical unit: cents (minor units)
	classRatio                  // canonical unit: a ratio (12% is 0.12)
	classTimestamp              // unix seconds
	classDate                   // unix seconds of 00:00 UTC
	classID                     // an identifier, matched by its text
)

// currency tells money apart: dollars never back euros.
type currency uint8

const (
	curNone currency = iota
	curUSD           // usd, and cents (US cents)
	curEUR
	curGBP
)

// canon is a value in its class's canonical unit.
type canon struct {
	class class
	cur   currency // money only
	v     float64  // canonical value
	raw   float64  // the value in its own unit, as written or as declared
	q     float64  // a found numeral's place in the canonical unit (0.01 × 100 = 1 cent for "$7.81"); 0 for a ledger value
}

// canonicalOf puts a value of unit u in its canonical unit.
func canonicalOf(v float64, u Unit) canon {
	c := canon{raw: v, v: v}
	switch u {
	case UnitCents: // US cents: 299 cents is $2.99
		c.class, c.cur = classMoney, curUSD
	case UnitUSD:
		c.class, c.cur, c.v = classMoney, curUSD, v*100
	case UnitEUR:
		c.class, c.cur, c.v = classMoney, curEUR, v*100
	case UnitGBP:
		c.class, c.cur, c.v = classMoney, curGBP, v*100
	case UnitPercent:
		c.class, c.v = classRatio, v/100
	case UnitRatio:
		c.class = classRatio
	case UnitTimestamp:
		c.class = classTimestamp
	case UnitDate:
		c.class = classDate
	case UnitID:
		c.class = classID
	default: // UnitNone, UnitCount, and anything outside the vocabulary
		c.class = classPlain
	}
	return c
}

// unitScale is what a value in unit u is multiplied by to be in its
// class's canonical unit.
func unitScale(u Unit) float64 {
	switch u {
	case UnitUSD, UnitEUR, UnitGBP:
		return 100
	case UnitPercent:
		return 0.01
	}
	return 1
}

// foundCanon is a found numeral's canonical form with its place.
func foundCanon(n *numeral) canon {
	c := canonicalOf(n.Value, n.Unit)
	c.q = n.quantum * unitScale(n.Unit)
	return c
}

// honest reports whether the ledger value x, rounded half away from zero
// to the place q the found value v is written to, is v: "3.14" for
// 3.14159, never "3.15". Both are compared as whole numbers of q, so the
// test is exact up to float rounding; a ledger value within 1e-9 of a
// half counts as the half (7.805 is stored as 7.80499…). Where a numeral
// has no place (q is 0) or its digits exceed what a float64 holds (more
// than 15 significant digits), only the tolerance applies.
func honest(v, q, x float64) bool {
	if !(q > 0) || math.IsInf(q, 0) {
		return true
	}
	a, b := x/q, v/q
	if !(math.Abs(a) <= maxExact && math.Abs(b) <= maxExact) {
		return true
	}
	return roundHalfAway(a) == math.Round(b)
}

// maxExact bounds the whole numbers of places honest compares.
const maxExact = 1e15

// roundHalfAway rounds x half away from zero, a fraction within a small
// slack of one half counting as one half.
func roundHalfAway(x float64) float64 {
	a := math.Abs(x)
	f := math.Floor(a)
	if a-f >= 0.5-math.Max(1e-9, a*1e-15) {
		f++
	}
	return math.Copysign(f, x)
}

// normText is s with its digits and fullwidth forms in ASCII (see
// normalize): "st-００３" is st-003. It is s itself when s is ASCII.
func normText(s string) string {
	n, _ := normalize(s)
	return n
}

// tiny stands in for |ledger| when the ledger value is zero, so a zero
// matches only (almost) zero.
const tiny = 1e-12

// echoTol is the tolerance of "the same value" for question echo: exact up
// to float rounding ($3.49 is 349 cents).
const echoTol = 1e-9

// near reports |a − b| <= tol × max(|b|, tiny).
func near(a, b, tol float64) bool {
	if math.IsInf(b, 0) || math.IsInf(a, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(b), tiny)
}

// entry is a ledger numeral prepared for matching.
type entry struct {
	canon
	id        string
	idDigits  float64 // the ID's trailing digits (st-003 → 3)
	hasDigits bool
	lo, hi    float64 // the window, in unix seconds
	hasWindow bool
}

// prepare puts the ledger's numerals in buf (grown when too small), all
// but the bare identifiers (see bareID): those back only a found
// identifier, or a number under the identifier allowance, so ground reads
// them from the ledger only then (bareIDs, idDigitsMatch). A window's
// answer has one per event behind it: preparing them would cost every
// check time and memory linear in the answer.
func prepare(l Ledger, buf []entry) []entry {
	n := 0
	for _, x := range l.Numerals {
		if !bareID(x) {
			n++
		}
	}
	es := buf[:0]
	if cap(es) < n {
		es = make([]entry, 0, n)
	}
	for _, x := range l.Numerals {
		if bareID(x) {
			continue
		}
		e := entry{canon: canonicalOf(x.Value, x.Unit), id: normText(x.ID)}
		e.lo, e.hi, e.hasWindow = parseWindow(x.Window)
		if idOnly(x) || windowOnly(x, e.hasWindow) {
			e.class = classNoValue
		}
		if d := trailingDigits(x.ID); d != "" {
			e.idDigits, e.hasDigits = parseNumber(d), true
		}
		es = append(es, e)
	}
	return es
}

// bareID reports whether n is an identifier and nothing else: no value
// (idOnly) and no window. As an entry it would back a found identifier
// equal to its ID, or a bare number equal to its ID's trailing digits
// under the identifier allowance, and nothing more.
func bareID(n Numeral) bool {
	return idOnly(n) && n.Window == [2]string{}
}

// bareIDs finds a ledger's bare identifiers for the found identifiers
// of one text: the first few by comparing with each (no allocation: a
// window's ledger holds an id per event behind it and its text names one
// or two, TestCheck_IdentifiersCostNoAllocation), the rest by a set of
// them (normText'd, by foldKey) built once: an answer that lists n ids
// has n of them in its ledger and n in its text, and comparing each with
// each would take n × n EqualFolds (250 devices: 62,500, about a tenth of
// a store-wide call's CPU in the engine).
type bareIDs struct {
	looked int
	set    map[string]struct{}
}

// bareIDScans is how many found identifiers bareIDs compares with each
// bare identifier before it builds the set.
const bareIDScans = 8

// has reports whether found identifier text (normText'd) equals a bare
// identifier's ID of l, by strings.EqualFold: matches for the entries
// prepare leaves out.
func (b *bareIDs) has(norm string, l Ledger) bool {
	if b.looked < bareIDScans {
		b.looked++
		for _, n := range l.Numerals {
			if bareID(n) && n.ID != "" && strings.EqualFold(norm, normText(n.ID)) {
				return true
			}
		}
		return false
	}
	if b.set == nil {
		b.set = map[string]struct{}{}
		for _, n := range l.Numerals {
			if bareID(n) && n.ID != "" {
				b.set[foldKey(normText(n.ID))] = struct{}{}
			}
		}
	}
	_, ok := b.set[foldKey(norm)]
	return ok
}

// foldKey maps s to a key that two strings share exactly when
// strings.EqualFold holds of them: each rune replaced by the least rune
// of its Unicode simple-folding orbit (unicode.SimpleFold), the
// equivalence EqualFold tests rune by rune (FuzzFoldKey holds them
// equal).
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'a' <= c && c <= 'z' {
			ascii = false
			break
		}
	}
	if ascii {
		return s // no lowercase letter to fold: already its key
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		least := r // an invalid byte is U+FFFD, as EqualFold reads it
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
		i += w
	}
	return b.String()
}

// idDigitsMatch reports whether v equals the trailing digits of a bare
// identifier's ID of l: the identifier allowance for the entries prepare
// leaves out.
func idDigitsMatch(v float64, l Ledger) bool {
	for _, n := range l.Numerals {
		if !bareID(n) {
			continue
		}
		if d := trailingDigits(n.ID); d != "" && parseNumber(d) == v {
			return true
		}
	}
	return false
}

// idOnly reports whether n is only an identifier: unit id, or an ID with
// no unit (its Value is ignored).
func idOnly(n Numeral) bool {
	return n.Unit == UnitID || (n.ID != "" && n.Unit == UnitNone)
}

// windowOnly reports whether n is only a window: it has one, its Value is
// 0 and its unit is none, timestamp or date (the epoch is never a value
// worth citing, so 0 there means "no value").
func windowOnly(n Numeral, hasWindow bool) bool {
	return hasWindow && n.Value == 0 && (n.Unit == UnitNone || n.Unit == UnitTimestamp || n.Unit == UnitDate)
}

// trailingDigits returns the run of digits that ends s.
func trailingDigits(s string) string {
	k := len(s)
	for k > 0 && isDigit(s[k-1]) {
		k--
	}
	return s[k:]
}

// parseWindow parses a [start, end] window of RFC 3339 timestamps; a window
// that is empty, unparsable or reversed is no window.
func parseWindow(w [2]string) (lo, hi float64, ok bool) {
	if w[0] == "" && w[1] == "" {
		return 0, 0, false
	}
	a, ok1 := parseTimestamp(w[0])
	b, ok2 := parseTimestamp(w[1])
	if !ok1 || !ok2 || b < a {
		return 0, 0, false
	}
	return a, b, true
}

// matches reports whether found numeral f (canonical form fc) is backed by
// ledger entry e within relative tolerance tol.
func matches(f *Found, fc canon, e *entry, tol float64) bool {
	if fc.class == classID {
		return e.id != "" && strings.EqualFold(normText(f.Text), e.id)
	}
	if e.class == classNoValue || e.class == classID {
		return false
	}
	switch fc.class {
	case classTimestamp, classDate:
		return e.class == fc.class && e.v == fc.v
	case classPlain:
		// A bare number is read in the ledger entry's canonical unit: "3"
		// backs a count of 3, "299" a price of 299 cents (or $2.99), "0.12"
		// a ratio of 0.12 (or 12 percent); never a time or an identifier.
		switch e.class {
		case classPlain, classMoney, classRatio:
			return near(fc.v, e.v, tol) && honest(fc.v, fc.q, e.v)
		}
		return false
	case classMoney, classRatio:
		if e.class != fc.class || fc.cur != e.cur {
			return false // a unit never backs another class; dollars never back euros
		}
		return near(fc.v, e.v, tol) && honest(fc.v, fc.q, e.v)
	}
	return false
}

// sameNumeral reports whether two found numerals say the same thing, for
// question echo: the same text, or the same class (and currency) and the
// same canonical value.
func sameNumeral(f *Found, fc canon, q *Found, qc canon) bool {
	if strings.EqualFold(f.Text, q.Text) || strings.EqualFold(normText(f.Text), normText(q.Text)) {
		return true
	}
	if fc.class != qc.class || fc.cur != qc.cur || fc.class == classID {
		return false
	}
	return near(fc.v, qc.v, echoTol)
}

// inWindow reports whether a timestamp lies inside e's window (inclusive),
// or a date's day overlaps it.
func inWindow(fc canon, e *entry) bool {
	if !e.hasWindow {
		return false
	}
	switch fc.class {
	case classTimestamp:
		return e.lo <= fc.v && fc.v <= e.hi
	case classDate:
		return fc.v <= e.hi && fc.v+86400 > e.lo
	}
	return false
}

// outcome is the checker's decision about one numeral: matched by the
// ledger, passed by one allowance, or neither (unmatched).
type outcome struct {
	numeral
	matched   bool
	allowance Allowance // set only when not matched and allowed
}

// allowanceOrder is the fixed order in which allowances are tried; a
// numeral is attributed to the first that applies.
var allowanceOrder = [...]Allowance{AllowQuestionEcho, AllowOrdinal, AllowWindowTimestamp, AllowIdentifier}

// check grounds text and returns each numeral's outcome with the report.
func check(text string, ledger Ledger, question string, p Policy) ([]outcome, Report) {
	return ground(text, ledger, question, p, true)
}

// ground is Check; it returns the outcomes too when keep is set.
func ground(text string, ledger Ledger, question string, p Policy, keep bool) ([]outcome, Report) {
	tol := p.MatchRelTol
	if !(tol >= 0) { // negative or NaN
		tol = 0
	}
	var allow [len(allowanceOrder)]bool
	for k, a := range allowanceOrder {
		allow[k] = p.Allow[a]
	}
	var buf [24]entry // most ledgers fit: no allocation
	entries := prepare(ledger, buf[:])
	ns := extract(text)
	var hits [len(allowanceOrder)]int
	var unmatched []Unmatched
	var qs []numeral
	var qcs []canon
	qsDone := false
	var bare bareIDs
	var out []outcome
	if keep {
		out = make([]outcome, len(ns))
	}
	for i := range ns {
		f := &ns[i].Found
		fc := foundCanon(&ns[i])
		matched := false
		for k := range entries {
			if matches(f, fc, &entries[k], tol) {
				matched = true
				break
			}
		}
		if !matched && fc.class == classID {
			matched = bare.has(normText(f.Text), ledger)
		}
		allowed := -1
		for k := 0; k < len(allowanceOrder) && !matched && allowed < 0; k++ {
			if !allow[k] {
				continue
			}
			ok := false
			switch allowanceOrder[k] {
			case AllowQuestionEcho:
				if !qsDone {
					qs, qsDone = extractUntagged(question), true
					qcs = make([]canon, len(qs))
					for j := range qs {
						qcs[j] = canonicalOf(qs[j].Value, qs[j].Unit)
					}
				}
				for j := range qs {
					if sameNumeral(f, fc, &qs[j].Found, qcs[j]) {
						ok = true
						break
					}
				}
			case AllowOrdinal:
				ok = ns[i].ordinal
			case AllowWindowTimestamp:
				for e := range entries {
					if inWindow(fc, &entries[e]) {
						ok = true
						break
					}
				}
			case AllowIdentifier:
				if f.Unit == UnitNone && f.Value >= 0 && f.Value == math.Trunc(f.Value) {
					for e := range entries {
						if entries[e].hasDigits && entries[e].idDigits == f.Value {
							ok = true
							break
						}
					}
					ok = ok || idDigitsMatch(f.Value, ledger)
				}
			}
			if ok {
				allowed = k
				hits[k]++
			}
		}
		if !matched && allowed < 0 {
			unmatched = append(unmatched, Unmatched{Text: f.Text, Value: f.Value, Unit: f.Unit})
		}
		if keep {
			out[i] = outcome{numeral: ns[i], matched: matched}
			if allowed >= 0 {
				out[i].allowance = allowanceOrder[allowed]
			}
		}
	}
	r := Report{
		Verdict:       Pass,
		NumeralsTotal: len(ns),
		Unmatched:     unmatched,
		AllowanceHits: make(map[Allowance]int, len(allowanceOrder)),
	}
	for k, a := range allowanceOrder {
		r.AllowanceHits[a] = hits[k]
	}
	if len(unmatched) > 0 {
		r.Verdict = Refuse
	} else {
		r.Unmatched = []Unmatched{}
	}
	return out, r
}
