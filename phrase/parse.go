package phrase

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Parse is a question understood: the tool, its parameters, and for a
// yes/no question the value asked about.
type Parse struct {
	Tool   string
	Params map[string]string
	// Asked is the value a yes/no question names ("is pr-007 in stock?"
	// asks IN_STOCK); "" for any other question.
	Asked string
	// Phrasing reports that a declared phrasing matched: its tokens are
	// as written, for the wall to judge.
	Phrasing bool
}

// AbstentionKind says why a question was not understood.
type AbstentionKind string

// The abstention kinds.
const (
	// NoTool: no tool's vocabulary matches the question.
	NoTool AbstentionKind = "no_tool"
	// MissingSlot: a tool matches but a slot it needs is absent.
	MissingSlot AbstentionKind = "missing_slot"
	// Ambiguous: a name matches several declared ids (Candidates).
	Ambiguous AbstentionKind = "ambiguous"
	// UnknownName: words where a slot's value goes name none.
	UnknownName AbstentionKind = "unknown_name"
	// NotUnderstood: a tool matches, but some words are outside its
	// vocabulary; answering would mean dropping them.
	NotUnderstood AbstentionKind = "not_understood"
)

// MaxCandidates bounds the candidates an Ambiguous abstention lists.
const MaxCandidates = 5

// Abstention is why a question was not understood. It names the slot and
// declared ids, never a word of the question.
type Abstention struct {
	Kind AbstentionKind
	Tool string // the tool that matched best; "" for NoTool
	// Slot names what is missing, unknown or ambiguous: an entity's name
	// ("store"), an enumerated parameter ("state"), "as_of" or "window".
	Slot string
	// Candidates are, for Ambiguous, up to MaxCandidates declared ids,
	// sorted.
	Candidates []string
}

func (a *Abstention) Error() string { return string(a.Kind) + ": " + a.Detail() }

// Detail is the reason's text after its kind.
func (a *Abstention) Detail() string {
	switch a.Kind {
	case NoTool:
		return "no tool on the menu covers the question"
	case MissingSlot:
		if a.Slot == "window" {
			return "window (the question names no time window; say, for example, today, last week, or between 2026-01-01 and 2026-01-07)"
		}
		return a.Slot + " (the question names no " + strings.ReplaceAll(a.Slot, "_", " ") + ")"
	case Ambiguous:
		return a.Slot + " (the question could name " + strings.Join(a.Candidates, ", ") + ")"
	case UnknownName:
		return a.Slot + " (the question names no declared " + strings.ReplaceAll(a.Slot, "_", " ") + ")"
	case NotUnderstood:
		return "the question has words outside the vocabulary of " + a.Tool
	}
	return string(a.Kind)
}

// auxiliaries open a yes/no question.
var auxiliaries = map[string]bool{"is": true, "are": true, "was": true, "were": true, "do": true, "does": true,
	"did": true, "has": true, "have": true, "had": true}

// segment is a run of words with one reading.
type segment struct {
	start, end int
	kind       int // sUnknown, sLexicon, sID, sNumbered, sWhen
	meanings   []meaning
	entity     string   // sID, sNumbered
	id         string   // sID
	ids        []string // sNumbered
	when       *when
}

const (
	sUnknown = iota
	sLexicon
	sID
	sNumbered
	sWhen
)

// maxWords bounds the words Parse reads; a longer question is not
// understood (package tool bounds questions far below this).
const maxWords = 200

// Parse reads a question against the vocabulary, with now as the clock
// for relative time ("today", "last week", no time at all); a zero now
// means there is no clock, and a question that needs one abstains. It
// returns the understood call, or an *Abstention. It never guesses: a
// word no slot or keyword accounts for is an abstention, not dropped.
//
// A question a tool's phrasing matches is that tool's, with the captured
// tokens as written. Otherwise the question is read word by word (time
// expressions, ids, names, "store 3", synonyms, keywords, filler), every
// tool whose keyword (or, for a yes/no question, whose asked value) it
// holds is tried, and the one whose slots it fills is chosen; among
// several, the one with the most keyword words, then the first.
func (p *Parser) Parse(question string, now time.Time) (Parse, error) {
	now = now.UTC().Truncate(time.Second)
	lower := strings.ToLower(question)
	for ti, pats := range p.legacy {
		for _, pat := range pats {
			m, ok := pat.match(question, lower)
			if !ok {
				continue
			}
			return Parse{Tool: p.tools[ti].Name, Params: p.captured(ti, pat, m, now), Phrasing: true}, nil
		}
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	ts := tokenizeInto(sc.tokens[:0], question)
	sc.tokens = ts
	// A negative question ("isn't it in stock?", "don't we have it?")
	// asks what the positive one asks: its "not" right after the opening
	// auxiliary is dropped; any other "not" must be declared vocabulary.
	if len(ts) > 1 && auxiliaries[ts[0].low] && ts[1].low == "not" {
		ts = append(ts[:1], ts[2:]...)
	}
	if len(ts) == 0 || len(ts) > maxWords {
		return Parse{}, &Abstention{Kind: NoTool}
	}
	segs, _ := p.segmentInto(sc, ts, now, false)
	res, err := p.read(ts, segs, now)
	if err == nil {
		return res, nil
	}
	// Two phrases that share a word ("low stock" and "stock level") split
	// the other way when that reads where the first split does not.
	if alt, differs := p.segmentInto(sc, ts, now, true); differs {
		if res, aerr := p.read(ts, alt, now); aerr == nil {
			return res, nil
		}
	}
	res, ok, reason := p.splitRead(sc, ts, now)
	if ok {
		return res, nil
	}
	// A keyword read whole but for a slot it lacks says so, rather than
	// that its words were outside another tool's vocabulary.
	if a, isA := err.(*Abstention); isA && reason != nil && (a.Kind == NotUnderstood || a.Kind == NoTool) {
		return Parse{}, reason
	}
	return Parse{}, err
}

// copulas are the words a keyword's words may be split by besides
// slots: "share of shelves were out of stock".
var copulas = map[string]bool{"is": true, "are": true, "was": true, "were": true}

// splitRead reads a question in which a keyword of several words is
// written apart: between its words only slots (an id, a name, "store 3",
// a time expression, a declared value or synonym such as "by zone", each
// with the filler that leads it, "at st-003") and copulas. The keyword's
// words are read together, the words between them after it, in their
// order; the first such reading that reads is the question's (keywords
// longest first, then leftmost). A keyword is never assembled from words
// anything else stands between. When no such reading reads, the first
// that lacks a slot, names an unknown or ambiguous name is the reason
// (nil when none does).
func (p *Parser) splitRead(sc *scratch, ts []token, now time.Time) (Parse, bool, *Abstention) {
	var reason *Abstention
	for _, kw := range p.split {
		for i := range ts {
			if ts[i].low != kw[0] {
				continue
			}
			// The keyword's words in order from i, each the next word
			// after the last that is it.
			idx := []int{i}
			for _, w := range kw[1:] {
				k := idx[len(idx)-1] + 1
				for k < len(ts) && ts[k].low != w {
					k++
				}
				if k == len(ts) {
					break
				}
				idx = append(idx, k)
			}
			if len(idx) < len(kw) || idx[len(idx)-1]-i+1 == len(kw) {
				continue // not all there, or not apart
			}
			var gap []token
			for j := 1; j < len(idx); j++ {
				gap = append(gap, ts[idx[j-1]+1:idx[j]]...)
			}
			if !p.slotsOnly(gap, now) {
				continue
			}
			re := make([]token, 0, len(ts))
			re = append(re, ts[:i]...)
			for _, j := range idx {
				re = append(re, ts[j])
			}
			re = append(re, gap...)
			re = append(re, ts[idx[len(idx)-1]+1:]...)
			segs, _ := p.segmentInto(sc, re, now, false)
			res, err := p.read(re, segs, now)
			if err == nil {
				return res, true, nil
			}
			if a, ok := err.(*Abstention); ok && reason == nil && a.Kind != NotUnderstood && a.Kind != NoTool {
				reason = a
			}
		}
	}
	return Parse{}, false, reason
}

// slotsOnly reports whether words are slots and copulas only: each an id,
// "store 3", a time expression, a declared name or value, or a copula;
// other filler only when a slot follows it ("at st-003").
func (p *Parser) slotsOnly(ws []token, now time.Time) bool {
	segs, _ := p.segmentInto(&scratch{}, ws, now, false)
	slot := func(s segment) bool {
		switch s.kind {
		case sID, sNumbered, sWhen:
			return true
		case sLexicon:
			return slices.ContainsFunc(s.meanings, func(m meaning) bool { return m.kind == mValue || m.kind == mName })
		}
		return false
	}
	for k, s := range segs {
		if slot(s) {
			continue
		}
		if s.kind != sLexicon || !slices.ContainsFunc(s.meanings, func(m meaning) bool { return m.kind == mFiller }) {
			return false
		}
		if s.end-s.start == 1 && copulas[ws[s.start].low] {
			continue
		}
		// Filler leading a slot: the next segment that is not filler.
		j := k + 1
		for j < len(segs) && segs[j].kind == sLexicon && !slot(segs[j]) &&
			slices.ContainsFunc(segs[j].meanings, func(m meaning) bool { return m.kind == mFiller }) && !copulas[ws[segs[j].start].low] {
			j++
		}
		if j == len(segs) || !slot(segs[j]) {
			return false
		}
	}
	return true
}

// read interprets a segmentation: the tools its keywords (else its yes/no
// values) name, and the one whose slots it fills.
func (p *Parser) read(ts []token, segs []segment, now time.Time) (Parse, error) {
	// Candidates: tools a keyword names; else tools a yes/no value names.
	var cands []int
	for _, s := range segs {
		for _, m := range s.meanings {
			if m.kind == mKeyword && !slices.Contains(cands, m.tool) {
				cands = append(cands, m.tool)
			}
		}
	}
	if len(cands) == 0 {
		for _, s := range segs {
			for _, m := range s.meanings {
				if m.kind == mAsk && !slices.Contains(cands, m.tool) {
					cands = append(cands, m.tool)
				}
			}
		}
	}
	if len(cands) == 0 {
		return Parse{}, &Abstention{Kind: NoTool}
	}
	slices.Sort(cands)
	var (
		best      *Parse
		bestScore = -1
		abst      *Abstention
		abstScore = -1
	)
	for _, ti := range cands {
		res, a, score, outside := p.interpret(ti, ts, segs, now)
		if a == nil {
			if score > bestScore {
				r := res
				best, bestScore = &r, score
			}
			continue
		}
		// The closest failure: most keyword words, then fewest words
		// outside the tool's vocabulary, then a named slot over words
		// out of vocabulary.
		s := (score*maxWords + maxWords - min(outside, maxWords)) * 2
		if a.Kind != NotUnderstood {
			s++
		}
		if s > abstScore {
			abst, abstScore = a, s
		}
	}
	if best != nil {
		return *best, nil
	}
	return Parse{}, abst
}

// captured writes the tokens a declared phrasing captured as parameters.
// A token that names exactly one declared value of its slot the way a
// question may (an id in any case, a display name, "store 3", a synonym;
// a date or a date and time, a window's end date counted whole unless the
// phrasing writes the window half-open with "["; with a clock, a relative
// time such as "now" or "yesterday", resolved as anywhere else; with a
// clock, a window's two weekdays outside the half-open form, resolved as
// "between Monday and Wednesday" is anywhere else) is written as that
// value; any other token as written, for the wall to judge.
func (p *Parser) captured(ti int, pat *Pattern, m map[string]string, now time.Time) map[string]string {
	params := make(map[string]string, len(m))
	halfOpen := slices.Contains(pat.words, "[") || slices.ContainsFunc(pat.words, func(w string) bool { return strings.HasPrefix(w, "[") })
	var days map[string]string
	if !halfOpen && !now.IsZero() {
		days = p.capturedDays(ti, m, now)
	}
	for name, tok := range m {
		params[name] = tok
		if v, ok := days[name]; ok {
			params[name] = v
			continue
		}
		si := slices.IndexFunc(p.tools[ti].Slots, func(s Slot) bool { return s.Name == name })
		if si < 0 {
			continue
		}
		s := p.tools[ti].Slots[si]
		switch s.Kind {
		case SlotEntity, SlotEnum:
			if v, ok := p.slotValue(ti, si, tok); ok {
				params[name] = v
			}
		case SlotInstant, SlotStart, SlotEnd:
			ts := tokenize(tok)
			if s.Kind == SlotInstant && !now.IsZero() {
				// now, today, yesterday, a date: the instant a state is
				// read at, as in a question read word by word.
				if w, n := scanWhen(ts, 0, now.Year()); n > 0 && n == len(ts) {
					if t, ok := w.instant(now); ok {
						params[name] = Timestamp(t)
					}
					continue
				}
			}
			year := 0
			if !now.IsZero() {
				year = now.Year()
			}
			pt, n := scanPoint(ts, 0, year)
			if n == 0 || n != len(ts) || pt.relative && now.IsZero() {
				continue
			}
			pt = pt.resolve(now)
			switch {
			case !pt.dateOnly:
				params[name] = Timestamp(pt.t)
			case s.Kind == SlotInstant:
				params[name] = Timestamp(endOfDay(pt.t))
			case s.Kind == SlotEnd && !halfOpen:
				params[name] = Timestamp(pt.t.AddDate(0, 0, 1))
			default:
				params[name] = Timestamp(pt.t)
			}
		}
	}
	return params
}

// capturedDays reads a window's captured start and end as the range
// "between <start> and <end>" is read in a question, when that range is
// one of weekdays: the start and end it resolves to, by slot name; nil
// otherwise (dates resolve one by one in captured).
func (p *Parser) capturedDays(ti int, m map[string]string, now time.Time) map[string]string {
	var start, end string
	for _, s := range p.tools[ti].Slots {
		switch s.Kind {
		case SlotStart:
			start = s.Name
		case SlotEnd:
			end = s.Name
		}
	}
	a, okA := m[start]
	b, okB := m[end]
	if !okA || !okB {
		return nil
	}
	ts := append(append(append([]token{{raw: "between", low: "between"}}, tokenize(a)...), token{raw: "and", low: "and"}), tokenize(b)...)
	w, n := scanWhen(ts, 0, now.Year())
	if n != len(ts) || w.kind != wRange || !w.a.weekday {
		return nil
	}
	s, e, _ := w.window(now)
	return map[string]string{start: Timestamp(s), end: Timestamp(e)}
}

// slotValue reads a captured token as one value of slot si of tool ti:
// the whole token must be one id, name, noun and number, value or
// synonym, naming exactly one value.
func (p *Parser) slotValue(ti, si int, tok string) (string, bool) {
	s := p.tools[ti].Slots[si]
	if s.Kind == SlotEnum {
		for _, v := range s.Values {
			if strings.EqualFold(v.Value, tok) {
				return v.Value, true
			}
		}
	}
	ts := tokenize(tok)
	if len(ts) == 0 {
		return "", false
	}
	segs, _ := p.segmentInto(&scratch{}, ts, time.Time{}, false)
	if len(segs) != 1 || segs[0].end != len(ts) {
		return "", false
	}
	g := segs[0]
	switch {
	case s.Kind == SlotEntity && g.kind == sID && g.entity == s.Entity:
		return g.id, true
	case s.Kind == SlotEntity && g.kind == sNumbered && g.entity == s.Entity && len(g.ids) == 1:
		return g.ids[0], true
	case g.kind == sLexicon:
		for _, m := range g.meanings {
			switch {
			case s.Kind == SlotEntity && m.kind == mName && m.entity == s.Entity && len(m.ids) == 1:
				return m.ids[0], true
			case s.Kind == SlotEnum && m.kind == mValue && m.tool == ti && m.slot == si:
				return m.value, true
			}
		}
	}
	return "", false
}

// segment reads the words left to right: at each, the longest reading
// among a time expression, an id, a phrase of the lexicon (with a noun
// followed by a number read as "store 3"); else the word is unknown.
//
// With split, a lexicon match is lexAt's rather than the longest; differs
// reports whether that changed any segment.
func (p *Parser) segmentInto(sc *scratch, ts []token, now time.Time, split bool) (segs []segment, differs bool) {
	year := 0
	if !now.IsZero() {
		year = now.Year()
	}
	segs = sc.segs[:0]
	defer func() { sc.segs = segs[:0] }()
	w := joinWords(sc, ts)
	for i := 0; i < len(ts); {
		if w, n := scanWhen(ts, i, year); n > 0 {
			segs = append(segs, segment{start: i, end: i + n, kind: sWhen, when: &w})
			i += n
			continue
		}
		if ent, id, ok := p.idAt(ts[i]); ok {
			segs = append(segs, segment{start: i, end: i + 1, kind: sID, entity: ent, id: id})
			i++
			continue
		}
		n, ms := p.longest(w, i)
		if split {
			if k, kms := p.lexAt(w, i); k != n {
				n, ms, differs = k, kms, true
			}
		}
		if n > 0 {
			// A noun and a number: "store 3".
			if i+n < len(ts) && slices.ContainsFunc(ms, func(m meaning) bool { return m.kind == mNoun }) {
				if num, ok := number(ts[i+n].low); ok {
					for _, m := range ms {
						if m.kind != mNoun {
							continue
						}
						segs = append(segs, segment{start: i, end: i + n + 1, kind: sNumbered, entity: m.entity,
							ids: p.entities[m.entity].numbered(num)})
						i += n + 1
						goto next
					}
				}
			}
			segs = append(segs, segment{start: i, end: i + n, kind: sLexicon, meanings: ms})
			i += n
			continue
		}
		segs = append(segs, segment{start: i, end: i + 1, kind: sUnknown})
		i++
	next:
	}
	return segs, differs
}

// number reads a word that is a number ("3", "#3").
func number(s string) (int64, bool) {
	s = strings.TrimPrefix(s, "#")
	if s == "" || len(s) > 12 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// idAt reports whether a word is an id of a known entity.
func (p *Parser) idAt(t token) (entity, id string, ok bool) {
	if !strings.ContainsFunc(t.low, func(r rune) bool { return r >= '0' && r <= '9' }) {
		return "", "", false
	}
	// A declared id first, in any entity: no regexp.
	for _, n := range p.order {
		if id, ok := p.entities[n].byLower[t.low]; ok {
			return n, id, true
		}
	}
	for _, n := range p.order {
		if id, ok := p.entities[n].id(t.raw, t.low); ok {
			return n, id, true
		}
	}
	return "", "", false
}

// words is a question's lowercase words joined by single spaces, with
// where each begins and ends: the phrase of words i to j is a slice of
// it, looked up without building a string.
type words struct {
	text       []byte
	start, end []int
}

// scratch is the memory one parse works in, reused across parses.
type scratch struct {
	tokens     []token
	segs       []segment
	text       []byte
	start, end []int
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

func joinWords(sc *scratch, ts []token) words {
	b := sc.text[:0]
	start, end := sc.start[:0], sc.end[:0]
	for i, t := range ts {
		if i > 0 {
			b = append(b, ' ')
		}
		start = append(start, len(b))
		b = append(b, t.low...)
		end = append(end, len(b))
	}
	sc.text, sc.start, sc.end = b, start, end
	return words{text: b, start: start, end: end}
}

// longest returns the longest phrase of the lexicon at word i.
// lexAt is the lexicon's match at word i: the longest, unless a shorter
// one lets the match after it run past the longest's end, so that two
// phrases sharing a word split where both are whole ("low" then "stock
// level", not "low stock" then an unknown "level").
func (p *Parser) lexAt(w words, i int) (int, []meaning) {
	n, ms := p.longest(w, i)
	for k := n - 1; k >= 1; k-- {
		kms, ok := p.lexicon[string(w.text[w.start[i]:w.end[i+k-1]])]
		if !ok {
			continue
		}
		if m, _ := p.longest(w, i+k); k+m > n {
			return k, kms
		}
	}
	return n, ms
}

func (p *Parser) longest(w words, i int) (int, []meaning) {
	bestN := 0
	var best []meaning
	for n := 1; n <= p.maxLen && i+n <= len(w.start); n++ {
		if ms, ok := p.lexicon[string(w.text[w.start[i]:w.end[i+n-1]])]; ok {
			bestN, best = n, ms
		}
	}
	return bestN, best
}

// interpret reads the segments as a question for tool ti. It returns the
// call, or why not, the tool's score (its keyword words) and the words
// outside its vocabulary.
func (p *Parser) interpret(ti int, ts []token, segs []segment, now time.Time) (Parse, *Abstention, int, int) {
	t := p.tools[ti]
	fail := func(kind AbstentionKind, slot string, cands []string) *Abstention {
		if len(cands) > MaxCandidates {
			cands = cands[:MaxCandidates]
		}
		return &Abstention{Kind: kind, Tool: t.Name, Slot: slot, Candidates: cands}
	}
	slotOf := func(entity string) int {
		return slices.IndexFunc(t.Slots, func(s Slot) bool { return s.Kind == SlotEntity && s.Entity == entity })
	}
	// filterOf is the slot of filters and the dimension an entity's ids
	// filter, when the tool has no slot of that entity.
	filterSlot := slices.IndexFunc(t.Slots, func(s Slot) bool { return s.Kind == SlotFilters })
	filterOf := func(entity string) string {
		if filterSlot < 0 || entity == "" {
			return ""
		}
		for _, d := range t.Slots[filterSlot].Dims {
			if d.Entity == entity {
				return d.Name
			}
		}
		return ""
	}
	var (
		score     int
		filled    = make([]string, len(t.Slots))
		lists     = make([][]string, len(t.Slots))
		asked     string
		times     []when
		unknown   [][2]int           // runs of unknown words: [start, end)
		cue       [][2]int           // a segment after a noun, and the noun's slot
		nounCue   []nounAt           // a segment after a noun of a filtered entity
		named     = map[int]string{} // segments that named a filtered entity's id
		ambiguous = ""
		ambCands  []string
		filters   []dimFilter
		conflict  bool
		outside   int // words outside the tool's vocabulary
	)
	ret := func(a *Abstention) (Parse, *Abstention, int, int) { return Parse{}, a, score, outside }
	fill := func(si int, v string) {
		if filled[si] != "" && filled[si] != v {
			conflict = true
		}
		filled[si] = v
	}
	filter := func(dim, v string) {
		for i := range filters {
			if filters[i].dim == dim {
				if !slices.Contains(filters[i].values, v) {
					filters[i].values = append(filters[i].values, v)
				}
				return
			}
		}
		filters = append(filters, dimFilter{dim: dim, values: []string{v}})
	}
	for k, s := range segs {
		switch s.kind {
		case sWhen:
			times = append(times, *s.when)
		case sID:
			si := slotOf(s.entity)
			if si < 0 {
				if dim := filterOf(s.entity); dim != "" {
					filter(dim, s.id)
					named[k] = s.entity
					continue
				}
				conflict = true
				continue
			}
			fill(si, s.id)
		case sNumbered:
			si := slotOf(s.entity)
			dim := filterOf(s.entity)
			switch {
			case si < 0 && dim == "":
				conflict = true
			case len(s.ids) == 1 && si < 0:
				filter(dim, s.ids[0])
			case len(s.ids) == 1:
				fill(si, s.ids[0])
			case len(s.ids) == 0:
				return ret(fail(UnknownName, s.entity, nil))
			default:
				ambiguous, ambCands = s.entity, s.ids
			}
		case sLexicon:
			m, ok := pick(s.meanings, ti, func(e string) bool { return slotOf(e) >= 0 || filterOf(e) != "" })
			if !ok {
				// The words mean something, but not for this tool.
				unknown = appendRun(unknown, s.start, s.end)
				outside += s.end - s.start
				continue
			}
			switch m.kind {
			case mKeyword:
				score += s.end - s.start
			case mValue:
				if t.Slots[m.slot].Kind == SlotFilters {
					filter(m.entity, m.value)
					continue
				}
				if t.Slots[m.slot].Kind == SlotEnumList {
					if !slices.Contains(lists[m.slot], m.value) {
						lists[m.slot] = append(lists[m.slot], m.value)
					}
					continue
				}
				fill(m.slot, m.value)
			case mAsk:
				if asked != "" && asked != m.value {
					conflict = true
				}
				asked = m.value
			case mNoun:
				cue = append(cue, [2]int{k + 1, slotOf(m.entity)})
				if slotOf(m.entity) < 0 {
					nounCue = append(nounCue, nounAt{k + 1, m.entity})
				}
			case mName:
				si := slotOf(m.entity)
				if len(m.ids) > 1 {
					ambiguous, ambCands = m.entity, m.ids
					continue
				}
				if si < 0 {
					filter(filterOf(m.entity), m.ids[0])
					named[k] = m.entity
					continue
				}
				fill(si, m.ids[0])
			}
		default:
			unknown = appendRun(unknown, s.start, s.end)
			outside += s.end - s.start
		}
	}
	if ambiguous != "" {
		return ret(fail(Ambiguous, ambiguous, ambCands))
	}
	if conflict {
		return ret(fail(NotUnderstood, "", nil))
	}
	params := map[string]string{}
	// Entity and enumerated slots.
	var missing []int
	for si, s := range t.Slots {
		switch s.Kind {
		case SlotEntity, SlotEnum:
			switch {
			case filled[si] != "":
				params[s.Name] = filled[si]
			case !s.Optional:
				missing = append(missing, si)
			}
		case SlotEnumList:
			if len(lists[si]) > 0 {
				params[s.Name] = jsonStrings(lists[si])
			}
		}
	}
	if len(missing) > 0 {
		// Words where a name goes: a declared name they begin, else an
		// unknown name; no such words: the slot is missing.
		for _, si := range missing {
			s := t.Slots[si]
			if s.Kind != SlotEntity {
				continue
			}
			et := p.entities[s.Entity]
			for _, r := range unknown {
				if c := et.partly(lowers(ts[r[0]:r[1]])); len(c) > 0 {
					return ret(fail(Ambiguous, s.Entity, c))
				}
			}
		}
		si := missing[0]
		if len(unknown) == 1 {
			// After a noun ("at store Springfield"): that noun's slot.
			for k, s := range segs {
				if s.start == unknown[0][0] {
					for _, c := range cue {
						if c[0] == k && slices.Contains(missing, c[1]) {
							si = c[1]
						}
					}
				}
			}
			return ret(fail(UnknownName, slotName(t.Slots[si]), nil))
		}
		if len(unknown) > 1 {
			return ret(fail(NotUnderstood, "", nil))
		}
		return ret(fail(MissingSlot, slotName(t.Slots[si]), nil))
	}
	if len(unknown) > 0 {
		// Words after a noun of a filtered entity ("in zone Narnia"): a
		// declared name they begin, else an unknown name.
		if len(unknown) == 1 {
			for k, s := range segs {
				if s.start != unknown[0][0] {
					continue
				}
				for _, c := range nounCue {
					if c.seg != k {
						continue
					}
					if cands := p.entities[c.entity].partly(lowers(ts[unknown[0][0]:unknown[0][1]])); len(cands) > 0 {
						return ret(fail(Ambiguous, c.entity, cands))
					}
					return ret(fail(UnknownName, c.entity, nil))
				}
			}
		}
		return ret(fail(NotUnderstood, "", nil))
	}
	// A noun of a filtered entity names one of its ids right after it
	// ("in zone zone-02"); alone ("the zone") it would be dropped.
	for _, c := range nounCue {
		if named[c.seg] != c.entity {
			return ret(fail(NotUnderstood, "", nil))
		}
	}
	if filterSlot >= 0 && len(filters) > 0 {
		params[t.Slots[filterSlot].Name] = jsonFilters(filters)
	}
	// Time.
	if len(times) > 1 {
		return ret(fail(NotUnderstood, "", nil))
	}
	var w *when
	if len(times) == 1 {
		w = &times[0]
	}
	for _, s := range t.Slots {
		switch s.Kind {
		case SlotInstant:
			if w == nil || w.clock {
				if now.IsZero() {
					return ret(fail(MissingSlot, s.Name, nil))
				}
			}
			at := now
			if w != nil {
				var ok bool
				if at, ok = w.instant(now); !ok {
					return ret(fail(NotUnderstood, "", nil))
				}
			}
			params[s.Name] = Timestamp(at)
		case SlotStart:
			if w == nil {
				return ret(fail(MissingSlot, "window", nil))
			}
			if w.clock && now.IsZero() {
				return ret(fail(MissingSlot, "window", nil))
			}
			start, end, ok := w.window(now)
			if !ok {
				return ret(fail(NotUnderstood, "", nil))
			}
			params[s.Name] = Timestamp(start)
			for _, e := range t.Slots {
				if e.Kind == SlotEnd {
					params[e.Name] = Timestamp(end)
				}
			}
		}
	}
	if w != nil && !slices.ContainsFunc(t.Slots, func(s Slot) bool { return s.Kind == SlotInstant || s.Kind == SlotStart }) {
		return ret(fail(NotUnderstood, "", nil))
	}
	return Parse{Tool: t.Name, Params: params, Asked: asked}, nil, score, 0
}

// slotName is how a reason names a slot: an entity by its name, any
// other slot by its parameter.
func slotName(s Slot) string {
	if s.Kind == SlotEntity {
		return s.Entity
	}
	return s.Name
}

// pick chooses the meaning a phrase has for tool ti: its value, its yes/no
// value, its keyword, a noun of one of its entities, a name of one, or
// filler, in that order.
func pick(ms []meaning, ti int, hasEntity func(string) bool) (meaning, bool) {
	rank := func(m meaning) int {
		switch {
		case m.kind == mValue && m.tool == ti:
			return 6
		case m.kind == mAsk && m.tool == ti:
			return 5
		case m.kind == mKeyword && m.tool == ti:
			return 4
		case m.kind == mName && hasEntity(m.entity):
			return 3
		case m.kind == mNoun && hasEntity(m.entity):
			return 2
		case m.kind == mFiller:
			return 1
		}
		return 0
	}
	best, bestRank := meaning{}, 0
	for _, m := range ms {
		if r := rank(m); r > bestRank {
			best, bestRank = m, r
		}
	}
	return best, bestRank > 0
}

func appendRun(runs [][2]int, start, end int) [][2]int {
	if n := len(runs); n > 0 && runs[n-1][1] == start {
		runs[n-1][1] = end
		return runs
	}
	return append(runs, [2]int{start, end})
}

// String writes a parse for tests and examples: the tool, its parameters
// sorted, and the asked value.
func (r Parse) String() string {
	keys := make([]string, 0, len(r.Params))
	for k := range r.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(r.Tool)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, r.Params[k])
	}
	if r.Asked != "" {
		b.WriteString(" asked=" + r.Asked)
	}
	return b.String()
}

// jsonStrings writes strings as a canonical JSON array.
func jsonStrings(ss []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(s))
	}
	b.WriteByte(']')
	return b.String()
}

// dimFilter is a filter a question names: a dimension and its values.
type dimFilter struct {
	dim    string
	values []string
}

// nounAt is a noun of an entity and the segment after it.
type nounAt struct {
	seg    int
	entity string
}

// jsonFilters writes filters as a canonical JSON array of objects: op eq
// for one value, in for several.
func jsonFilters(fs []dimFilter) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		op := "eq"
		if len(f.values) > 1 {
			op = "in"
		}
		b.WriteString(`{"dimension":` + strconv.Quote(f.dim) + `,"op":"` + op + `","values":` + jsonStrings(f.values) + "}")
	}
	b.WriteByte(']')
	return b.String()
}
