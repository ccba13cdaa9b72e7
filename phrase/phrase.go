// Package phrase reads the text a catalog declares for a tool: the
// phrasings a question may take and the vocabulary a question may use
// (Parser), and the sentence templates an answer is rendered from by code
// (Template).
//
// # Questions as people ask them
//
// A Parser reads a question against a Vocabulary, all of it declared:
// each tool's keywords ("price", "how much"), its typed slots (an entity
// with its nouns, id pattern and declared ids with display names; an
// enumeration with its values' synonyms; an instant; a window), and, for
// a tool returning an enumerated value, the values a yes/no question may
// name. Word order, filler, politeness, contractions, punctuation and
// letter case are free. A keyword of several words may be written apart
// when only slots (an id, a name, "store 3", a time, a declared value or
// "by zone", with the filler leading each) and the copulas is, are, was
// and were stand between its words: "share of shelves at st-003 were out
// of stock" reads the keyword "share of shelves out of stock". An
// entity is named by its id in any case, by its display name, or by a
// noun and a number ("store 3") when exactly one id carries the number.
// Time is read against an explicit clock passed to Parse, never the wall
// clock: an instant (none, "now", "currently",
// "today": the clock; a date: its last second, 23:59:59Z; "yesterday":
// the last second of the day before; "on Tuesday", "last Tuesday": the
// last second of the latest Tuesday before today; a date and time without
// a zone: that instant in UTC) or a half-open window ("today": [midnight,
// now); "yesterday"; "on Tuesday", "last Tuesday": that day; "this week": [Monday 00:00 of the ISO week, now); "last
// week"; "this month": [the 1st 00:00, now); "last month"; "last N
// days", "past N hours": [now - N, now); "between A and B", "from A to
// B": with dates [A, B + 1 day), with times [A, B), with two weekdays
// from A (the latest such day before today) to the first B on or after
// it, that day counting whole; "on DATE": that day; "since A", a date or
// a weekday: [A, now)).
//
// A tool may take lists (query_metric): a list of enumerated values is
// named by their synonyms ("by zone", "per device type"), a list of
// filters by the values of its dimensions (an id, a display name or "zone
// 2" of a dimension's entity; an enumerated value or its synonym: "of
// AGVs"), each read as an eq filter (several values of one dimension: in).
// Both are written as canonical JSON arrays.
//
// It never guesses. A question no tool's vocabulary matches is NoTool; a
// tool that matches but lacks a slot is MissingSlot; a name that matches
// several declared ids is Ambiguous (at most MaxCandidates of them); words
// where a slot's value goes that name nothing declared are UnknownName;
// and any other word outside the tool's vocabulary is NotUnderstood,
// because answering would mean dropping it. An abstention names the slot
// and declared ids, never a word of the question.
//
// A question a declared phrasing matches is read by the phrasing first,
// its tokens captured as written (an absolute date or time written as a
// timestamp), for the caller's own checks to judge.
//
// # Phrasings and templates
//
// A phrasing is a small pattern language over words:
//
//		what('s| is| was) the (stock|shelf) state (of|for) {product_id} (at|in) {store_id} as of {as_of}
//
//	  - {name} captures a parameter's token as written, spaces included (the
//	    wall, not the pattern, judges it);
//	  - (a|b|c) is one of the alternatives; (a|b)? may also be absent;
//	  - a space between words is one or more spaces; next to punctuation, any
//	    number; words match without regard to case;
//	  - \x is the character x as written, for ( ) [ ] { } | ? and \;
//	  - closing punctuation (? . !) and surrounding spaces are optional.
//
// A sentence template writes {name} for a call argument, {value} for the
// value, {ids} for the ids a count or list holds (comma separated),
// {count:one|many} for the count with its noun ("1 store has", "3 stores
// have") and {count?one|many} for the word alone ("was", "were"). A
// yes/no answer's template (a question that names a value, "is pr-007 in
// stock?") also writes {asked} for the value asked about and
// {match?yes|no} for the word chosen by whether the value is the one
// asked about.
//
// The package imports only the standard library.
package phrase

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Pattern is a compiled phrasing.
type Pattern struct {
	re     *regexp.Regexp
	params []string // in the order they appear
	// words are literal words every match holds (lowercase): a question
	// without one of them cannot match, which is cheaper to tell than the
	// regexp.
	words []string
}

// ErrSyntax is wrapped by every error of Compile and ParseTemplate.
var ErrSyntax = errors.New("phrase syntax")

// SyntaxError is a problem at a byte offset of a phrasing or template.
type SyntaxError struct {
	Offset int
	Reason string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("phrase syntax at offset %d: %s", e.Offset, e.Reason)
}

// Is reports that a SyntaxError is an ErrSyntax.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

// element is one piece of a parsed phrasing.
type element struct {
	kind  int // literal, param, group, space
	text  string
	alts  [][]element
	maybe bool
}

const (
	kLiteral = iota
	kParam
	kGroup
	kSpace
)

// Compile compiles a phrasing.
func Compile(phrasing string) (*Pattern, error) {
	p := &parser{s: phrasing}
	elems, err := p.sequence(false)
	if err != nil {
		return nil, err
	}
	var params []string
	collectParams(elems, &params)
	seen := map[string]bool{}
	for _, n := range params {
		if seen[n] {
			return nil, &SyntaxError{strings.LastIndex(phrasing, "{"+n+"}"), "parameter {" + n + "} appears twice"}
		}
		seen[n] = true
	}
	body := render(trimSpaces(elems))
	re, err := regexp.Compile(`(?i)^\s*` + body + `\s*[?.!]?\s*$`)
	if err != nil {
		return nil, &SyntaxError{0, "does not compile"}
	}
	var words []string
	for _, e := range elems {
		if e.kind == kLiteral {
			for _, w := range strings.Fields(strings.ToLower(e.text)) {
				words = append(words, w)
			}
		}
	}
	return &Pattern{re: re, params: params, words: words}, nil
}

// Params returns the parameters the phrasing captures, in order.
func (p *Pattern) Params() []string { return slices.Clone(p.params) }

// Match returns the captured tokens by parameter name (trimmed), or false.
func (p *Pattern) Match(question string) (map[string]string, bool) {
	return p.match(question, strings.ToLower(question))
}

// match is Match with the question's lowercase form computed once.
func (p *Pattern) match(question, lower string) (map[string]string, bool) {
	for _, w := range p.words {
		if !strings.Contains(lower, w) {
			return nil, false
		}
	}
	m := p.re.FindStringSubmatch(question)
	if m == nil {
		return nil, false
	}
	out := make(map[string]string, len(p.params))
	for i, name := range p.re.SubexpNames() {
		if name != "" {
			out[name] = strings.TrimSpace(m[i])
		}
	}
	return out, true
}

type parser struct {
	s string
	i int
}

// sequence parses elements up to the end, or up to | or ) inside a group.
func (p *parser) sequence(inGroup bool) ([]element, error) {
	var out []element
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, element{kind: kLiteral, text: lit.String()})
			lit.Reset()
		}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, &SyntaxError{p.i, "\\ at the end"}
			}
			lit.WriteByte(p.s[p.i+1])
			p.i += 2
		case c == ' ' || c == '\t' || c == '\n':
			flush()
			for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
				p.i++
			}
			out = append(out, element{kind: kSpace})
		case c == '{':
			flush()
			end := strings.IndexByte(p.s[p.i:], '}')
			if end < 0 {
				return nil, &SyntaxError{p.i, "unclosed {"}
			}
			name := p.s[p.i+1 : p.i+end]
			if !isName(name) {
				return nil, &SyntaxError{p.i, "want {name} with a snake_case name"}
			}
			out = append(out, element{kind: kParam, text: name})
			p.i += end + 1
		case c == '(':
			flush()
			start := p.i
			p.i++
			g := element{kind: kGroup}
			for {
				alt, err := p.sequence(true)
				if err != nil {
					return nil, err
				}
				g.alts = append(g.alts, alt)
				if p.i >= len(p.s) {
					return nil, &SyntaxError{start, "unclosed ("}
				}
				if p.s[p.i] == ')' {
					p.i++
					break
				}
				p.i++ // |
			}
			if p.i < len(p.s) && p.s[p.i] == '?' {
				g.maybe = true
				p.i++
			}
			out = append(out, g)
		case (c == '|' || c == ')') && inGroup:
			flush()
			return out, nil
		case c == '}':
			return nil, &SyntaxError{p.i, "unexpected } (write \\} for the character)"}
		default:
			lit.WriteByte(c)
			p.i++
		}
	}
	// Inside a group, the caller reports the unclosed ( at its offset.
	flush()
	return out, nil
}

func isName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

func collectParams(elems []element, out *[]string) {
	for _, e := range elems {
		switch e.kind {
		case kParam:
			*out = append(*out, e.text)
		case kGroup:
			for _, a := range e.alts {
				collectParams(a, out)
			}
		}
	}
}

// trimSpaces drops spaces at either end of a top-level sequence (the
// regexp allows spaces there anyway).
func trimSpaces(elems []element) []element {
	for len(elems) > 0 && elems[0].kind == kSpace {
		elems = elems[1:]
	}
	for len(elems) > 0 && elems[len(elems)-1].kind == kSpace {
		elems = elems[:len(elems)-1]
	}
	return elems
}

// edgeIsWord reports whether an element ends (last) or begins with a word
// character; placeholders and groups count as words.
func edgeIsWord(e element, last bool) bool {
	switch e.kind {
	case kParam:
		return true
	case kLiteral:
		r := []rune(e.text)
		c := r[0]
		if last {
			c = r[len(r)-1]
		}
		return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '\''
	case kGroup:
		return true
	}
	return false
}

// render writes a sequence as a regexp.
func render(elems []element) string {
	var b strings.Builder
	for i, e := range elems {
		switch e.kind {
		case kLiteral:
			b.WriteString(regexp.QuoteMeta(e.text))
		case kParam:
			b.WriteString("(?P<" + e.text + ">.+?)")
		case kGroup:
			alts := make([]string, len(e.alts))
			for j, a := range e.alts {
				alts[j] = render(a)
			}
			b.WriteString("(?:" + strings.Join(alts, "|") + ")")
			if e.maybe {
				b.WriteString("?")
			}
		case kSpace:
			// After a word, a placeholder or a group: one or more spaces;
			// after punctuation: any number.
			if i > 0 && !edgeIsWord(elems[i-1], true) {
				b.WriteString(`\s*`)
			} else {
				b.WriteString(`\s+`)
			}
		}
	}
	return b.String()
}

// Template is a parsed sentence template.
type Template struct {
	parts []tpart
}

type tpart struct {
	kind      int // text, arg, value, ids, count, countWord
	text      string
	one, many string
}

const (
	tText = iota
	tArg
	tValue
	tIDs
	tCount
	tCountWord
	tAsked
	tMatch
)

// ParseTemplate parses a sentence template.
func ParseTemplate(s string) (*Template, error) {
	t := &Template{}
	for i := 0; i < len(s); {
		open := strings.IndexByte(s[i:], '{')
		if open < 0 {
			t.parts = append(t.parts, tpart{kind: tText, text: s[i:]})
			break
		}
		if open > 0 {
			t.parts = append(t.parts, tpart{kind: tText, text: s[i : i+open]})
		}
		i += open
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, &SyntaxError{i, "unclosed {"}
		}
		inner := s[i+1 : i+end]
		switch {
		case inner == "value":
			t.parts = append(t.parts, tpart{kind: tValue})
		case inner == "ids":
			t.parts = append(t.parts, tpart{kind: tIDs})
		case inner == "asked":
			t.parts = append(t.parts, tpart{kind: tAsked})
		case strings.HasPrefix(inner, "match?"):
			forms := strings.SplitN(inner[6:], "|", 2)
			if len(forms) != 2 || forms[0] == "" || forms[1] == "" {
				return nil, &SyntaxError{i, "want {match?yes|no}"}
			}
			t.parts = append(t.parts, tpart{kind: tMatch, one: forms[0], many: forms[1]})
		case strings.HasPrefix(inner, "count:") || strings.HasPrefix(inner, "count?"):
			forms := strings.SplitN(inner[6:], "|", 2)
			if len(forms) != 2 || forms[0] == "" || forms[1] == "" {
				return nil, &SyntaxError{i, "want {count:one|many} or {count?one|many}"}
			}
			kind := tCount
			if inner[5] == '?' {
				kind = tCountWord
			}
			t.parts = append(t.parts, tpart{kind: kind, one: forms[0], many: forms[1]})
		case isName(inner):
			t.parts = append(t.parts, tpart{kind: tArg, text: inner})
		default:
			return nil, &SyntaxError{i, "want {name}, {value}, {ids}, {count:one|many}, {count?one|many}, {asked} or {match?yes|no}"}
		}
		i += end + 1
	}
	return t, nil
}

// Args returns the argument names the template uses.
func (t *Template) Args() []string {
	var out []string
	for _, p := range t.parts {
		if p.kind == tArg && !slices.Contains(out, p.text) {
			out = append(out, p.text)
		}
	}
	return out
}

// Uses reports which of {value}, {ids} and {count...} the template uses.
func (t *Template) Uses() (value, ids, count bool) {
	for _, p := range t.parts {
		switch p.kind {
		case tValue:
			value = true
		case tIDs:
			ids = true
		case tCount, tCountWord:
			count = true
		}
	}
	return
}

// Asks reports whether the template uses {asked} or {match?...}: it is
// a yes/no answer's template.
func (t *Template) Asks() bool {
	for _, p := range t.parts {
		if p.kind == tAsked || p.kind == tMatch {
			return true
		}
	}
	return false
}

// Fill is what a template is rendered with.
type Fill struct {
	Args  map[string]string
	Value string // the rendered value
	IDs   []string
	Count int
	Asked string // a yes/no answer: the value asked about
	Match bool   // a yes/no answer: the value is the one asked about
}

// Render writes the sentence.
func (t *Template) Render(f Fill) string {
	var b strings.Builder
	for _, p := range t.parts {
		switch p.kind {
		case tText:
			b.WriteString(p.text)
		case tArg:
			b.WriteString(f.Args[p.text])
		case tValue:
			b.WriteString(f.Value)
		case tIDs:
			b.WriteString(strings.Join(f.IDs, ", "))
		case tAsked:
			b.WriteString(f.Asked)
		case tMatch:
			if f.Match {
				b.WriteString(p.one)
			} else {
				b.WriteString(p.many)
			}
		case tCount:
			b.WriteString(strconv.Itoa(f.Count) + " ")
			fallthrough
		case tCountWord:
			if f.Count == 1 {
				b.WriteString(p.one)
			} else {
				b.WriteString(p.many)
			}
		}
	}
	return b.String()
}
