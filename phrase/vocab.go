package phrase

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Vocabulary is everything a Parser understands, all of it declared: per
// tool, its phrasings, its keywords and its typed slots, each slot with
// its own words (an entity's nouns, ids and display names; an
// enumeration's values and synonyms).
type Vocabulary struct {
	Tools []ToolVocab
	// Filler are words a question may hold that mean nothing, beside the
	// built-in English ones (Filler returns them).
	Filler []string
}

// ToolVocab is one tool's vocabulary.
type ToolVocab struct {
	Name string
	// Phrasings are patterns of the pattern language (Compile), tried
	// before anything else: their captured tokens go out as written.
	Phrasings []string
	// Keywords are phrases any of which marks a question as asking for
	// the tool, whatever the order of its words.
	Keywords []string
	// Slots are the tool's parameters.
	Slots []Slot
	// Asks are, for a tool that returns an enumerated value, the values a
	// yes/no question may name ("is pr-007 in stock?"): a question that
	// names one asks for the tool even without a keyword.
	Asks []Value
}

// SlotKind is the kind of a slot.
type SlotKind int

// The slot kinds.
const (
	// SlotEntity is an entity id: by id (any case), by display name, or
	// by a noun and a number ("store 3").
	SlotEntity SlotKind = iota + 1
	// SlotEnum is one of Values, by value (any case) or synonym.
	SlotEnum
	// SlotInstant is a UTC instant (RFC 3339, seconds, Z), resolved from
	// the question's time words against the clock; now when none.
	SlotInstant
	// SlotStart and SlotEnd are a half-open window [start, end).
	SlotStart
	SlotEnd
	// SlotEnumList is a list of Values, each named by a synonym ("by
	// zone", "per device type"; the bare value is not enough); written as a JSON array of strings
	// in the order first named. It is never required.
	SlotEnumList
	// SlotFilters is a list of filters on Dims: a question naming a
	// dimension's value (an id, a display name or "zone 2" of its entity;
	// one of its values or a synonym) keeps the rows of that value (op eq;
	// several values of one dimension: op in). Written as a JSON array of
	// {"dimension","op","values"} objects in the order first named. It is
	// never required.
	SlotFilters
)

// Slot is one typed parameter of a tool.
type Slot struct {
	Name string // the parameter's name ("store_id")
	Kind SlotKind

	// SlotEntity only.
	Entity  string   // the entity's name, as reasons name the slot ("store")
	Nouns   []string // the words the entity is named with ("store", "shop")
	Pattern string   // the anchored regexp every id matches
	// IDs are the declared ids with their display names (Name may be
	// empty); nil when the entity declares none.
	IDs []Named

	// SlotEnum and SlotEnumList only.
	Values []Value

	// SlotFilters only.
	Dims []Dim

	// Optional: a question may leave the slot out (SlotEnum): it is then
	// absent from the parse, not a missing slot.
	Optional bool
}

// Dim is a dimension a filter may name: by its Entity's ids, names and
// nouns (an entity another slot of the vocabulary declares), or by one of
// its Values.
type Dim struct {
	Name   string
	Entity string
	Values []Value
}

// Named is a declared id and its display name.
type Named struct{ ID, Name string }

// Value is an enumerated value and the phrases that name it.
type Value struct {
	Value    string
	Synonyms []string
}

// builtinFiller are English words that carry no meaning a tool needs:
// articles, prepositions, auxiliaries, question words, politeness.
var builtinFiller = []string{
	"a", "an", "the", "of", "for", "at", "in", "on", "to", "from", "by", "with", "about", "as",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "have", "has", "had",
	"what", "which", "how", "many", "much", "whats",
	"please", "pls", "kindly", "can", "could", "would", "will", "should", "you", "me", "us", "we", "i",
	"our", "my", "tell", "show", "give", "let", "know", "check", "see", "look", "up", "there", "just",
	"hey", "hi", "hello", "thanks", "thank", "quick", "quickly", "it", "its", "that", "this", "any",
	"some", "so", "and", "still", "also", "ok", "okay", "well", "um", "uh", "want", "need", "get",
	"'s", "'re", "'d", "'ll", "'ve", "'m", "count", "number", "total", "right",
	"like", "wondering", "curious", "time", "whether", "if", "question",
}

// Filler returns the built-in filler words.
func Filler() []string { return slices.Clone(builtinFiller) }

// meaning is what a phrase of the lexicon means.
type meaning struct {
	kind   int // mFiller, mKeyword, mValue, mAsk, mNoun, mName
	tool   int // mKeyword, mValue, mAsk
	slot   int // mValue
	value  string
	entity string   // mNoun, mName
	ids    []string // mName
}

const (
	mFiller = iota
	mKeyword
	mValue
	mAsk
	mNoun
	mName
)

// entityTable is what the parser knows of one entity.
type entityTable struct {
	name    string
	re      *regexp.Regexp
	ids     []Named            // declared, sorted by id
	byLower map[string]string  // lowercase id → declared id
	byNum   map[int64][]string // the number an id carries → ids
	prefix  string             // a pattern of a prefix and k digits: the prefix
	digits  int                // and k; 0 otherwise
	names   [][]string         // tokenised display names, parallel to ids
}

// Parser parses questions against a vocabulary. Build one with
// NewParser; it is immutable and safe for concurrent use.
type Parser struct {
	tools    []ToolVocab
	legacy   [][]*Pattern // per tool, its compiled phrasings
	lexicon  map[string][]meaning
	maxLen   int // the longest phrase of the lexicon, in tokens
	entities map[string]*entityTable
	order    []string // entity names, sorted
	// split are the keywords of several words, longest first: each may
	// be written with slots and copulas between its words (splitRead).
	split [][]string
}

// digitsPattern is an id pattern of a literal prefix and k digits.
var digitsPattern = regexp.MustCompile(`^\^([A-Za-z0-9_-]*)\[0-9\]\{([1-9][0-9]?)\}\$$`)

// NewParser compiles a vocabulary. It fails on a phrasing that does not
// compile or an entity pattern that is not an anchored regexp.
func NewParser(v Vocabulary) (*Parser, error) {
	p := &Parser{lexicon: map[string][]meaning{}, entities: map[string]*entityTable{}}
	add := func(phrase string, m meaning) {
		toks := tokenize(phrase)
		if len(toks) == 0 {
			return
		}
		key := strings.Join(lowers(toks), " ")
		if !slices.ContainsFunc(p.lexicon[key], func(x meaning) bool { return equalMeaning(x, m) }) {
			p.lexicon[key] = append(p.lexicon[key], m)
		}
		p.maxLen = max(p.maxLen, len(toks))
	}
	for _, w := range builtinFiller {
		if strings.HasPrefix(w, "'") {
			// A contraction's ending, as tokenize splits it off.
			p.lexicon[w] = []meaning{{kind: mFiller}}
			continue
		}
		add(w, meaning{kind: mFiller})
	}
	for _, w := range v.Filler {
		add(w, meaning{kind: mFiller})
	}
	for ti, t := range v.Tools {
		t = cloneTool(t)
		p.tools = append(p.tools, t)
		var pats []*Pattern
		for _, ph := range t.Phrasings {
			pat, err := Compile(ph)
			if err != nil {
				return nil, fmt.Errorf("compile tool %s: %w", t.Name, err)
			}
			pats = append(pats, pat)
		}
		p.legacy = append(p.legacy, pats)
		for _, k := range t.Keywords {
			add(k, meaning{kind: mKeyword, tool: ti})
			if ws := lowers(tokenize(k)); len(ws) > 1 && !slices.ContainsFunc(p.split, func(x []string) bool { return slices.Equal(x, ws) }) {
				p.split = append(p.split, ws)
			}
		}
		for _, a := range t.Asks {
			add(a.Value, meaning{kind: mAsk, tool: ti, value: a.Value})
			for _, s := range a.Synonyms {
				add(s, meaning{kind: mAsk, tool: ti, value: a.Value})
			}
		}
		for si, s := range t.Slots {
			switch s.Kind {
			case SlotEnum, SlotEnumList:
				for _, val := range s.Values {
					// A list's bare value ("zone") is a noun, not a
					// grouping: only its synonyms ("by zone") name it.
					if s.Kind == SlotEnum {
						add(val.Value, meaning{kind: mValue, tool: ti, slot: si, value: val.Value})
					}
					for _, syn := range val.Synonyms {
						add(syn, meaning{kind: mValue, tool: ti, slot: si, value: val.Value})
					}
				}
			case SlotFilters:
				for _, d := range s.Dims {
					for _, val := range d.Values {
						m := meaning{kind: mValue, tool: ti, slot: si, entity: d.Name, value: val.Value}
						add(val.Value, m)
						for _, syn := range val.Synonyms {
							add(syn, m)
						}
					}
				}
			case SlotEntity:
				if s.Entity == "" {
					return nil, fmt.Errorf("compile tool %s: slot %s names no entity", t.Name, s.Name)
				}
				for _, n := range s.Nouns {
					add(n, meaning{kind: mNoun, entity: s.Entity})
				}
				if _, done := p.entities[s.Entity]; done {
					continue
				}
				et, err := newEntityTable(s)
				if err != nil {
					return nil, fmt.Errorf("compile tool %s: %w", t.Name, err)
				}
				p.entities[s.Entity] = et
				byName := map[string][]string{}
				var order []string
				for i, n := range et.ids {
					if len(et.names[i]) == 0 {
						continue
					}
					key := strings.Join(et.names[i], " ")
					if byName[key] == nil {
						order = append(order, key)
					}
					byName[key] = append(byName[key], n.ID)
				}
				for _, key := range order {
					add(key, meaning{kind: mName, entity: s.Entity, ids: byName[key]})
				}
			}
		}
	}
	slices.SortStableFunc(p.split, func(a, b []string) int { return len(b) - len(a) })
	for n := range p.entities {
		p.order = append(p.order, n)
	}
	slices.Sort(p.order)
	return p, nil
}

func equalMeaning(a, b meaning) bool {
	return a.kind == b.kind && a.tool == b.tool && a.slot == b.slot && a.value == b.value &&
		a.entity == b.entity && slices.Equal(a.ids, b.ids)
}

func cloneTool(t ToolVocab) ToolVocab {
	t.Phrasings = slices.Clone(t.Phrasings)
	t.Keywords = slices.Clone(t.Keywords)
	t.Slots = slices.Clone(t.Slots)
	for i := range t.Slots {
		t.Slots[i].Dims = slices.Clone(t.Slots[i].Dims)
	}
	t.Asks = slices.Clone(t.Asks)
	return t
}

func newEntityTable(s Slot) (*entityTable, error) {
	if !strings.HasPrefix(s.Pattern, "^") || !strings.HasSuffix(s.Pattern, "$") {
		return nil, fmt.Errorf("slot %s: pattern is not anchored", s.Name)
	}
	re, err := regexp.Compile(s.Pattern)
	if err != nil {
		return nil, fmt.Errorf("slot %s: pattern does not compile", s.Name)
	}
	et := &entityTable{name: s.Entity, re: re, byLower: map[string]string{}, byNum: map[int64][]string{}}
	if m := digitsPattern.FindStringSubmatch(s.Pattern); m != nil {
		et.prefix = m[1]
		et.digits, _ = strconv.Atoi(m[2])
	}
	et.ids = slices.Clone(s.IDs)
	slices.SortFunc(et.ids, func(a, b Named) int { return strings.Compare(a.ID, b.ID) })
	et.ids = slices.CompactFunc(et.ids, func(a, b Named) bool { return a.ID == b.ID })
	for _, n := range et.ids {
		et.byLower[strings.ToLower(n.ID)] = n.ID
		if num, ok := idNumber(n.ID); ok {
			et.byNum[num] = append(et.byNum[num], n.ID)
		}
		et.names = append(et.names, lowers(tokenize(n.Name)))
	}
	return et, nil
}

// idNumber is the number an id carries: its last run of digits.
func idNumber(id string) (int64, bool) {
	end := len(id)
	for end > 0 && !isDigit(id[end-1]) {
		end--
	}
	start := end
	for start > 0 && isDigit(id[start-1]) {
		start--
	}
	if start == end || end-start > 12 {
		return 0, false
	}
	n, err := strconv.ParseInt(id[start:end], 10, 64)
	return n, err == nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// id returns the declared (or, without declared ids, well-formed) id a
// token writes in any case.
func (et *entityTable) id(tok, low string) (string, bool) {
	if et.ids != nil {
		if id, ok := et.byLower[low]; ok {
			return id, true
		}
		// A well-formed id that is not declared goes to the wall, which
		// says so; it is not a name.
	}
	if et.re.MatchString(low) {
		return low, true
	}
	if tok != low && et.re.MatchString(tok) {
		return tok, true
	}
	if up := strings.ToUpper(tok); up != tok && et.re.MatchString(up) {
		return up, true
	}
	return "", false
}

// numbered returns the ids carrying the number n: the declared ones, or,
// without declared ids, the one id a prefix-and-digits pattern writes.
func (et *entityTable) numbered(n int64) []string {
	if et.ids != nil {
		return et.byNum[n]
	}
	if et.digits == 0 {
		return nil
	}
	s := strconv.FormatInt(n, 10)
	if len(s) > et.digits {
		return nil
	}
	return []string{et.prefix + strings.Repeat("0", et.digits-len(s)) + s}
}

// partly returns the declared ids whose display name holds the words
// run (and more), sorted: "milk" is part of "Oat milk 1L" and "Whole milk
// 1L".
func (et *entityTable) partly(run []string) []string {
	var out []string
	for i, name := range et.names {
		if len(name) <= len(run) {
			continue
		}
		for j := 0; j+len(run) <= len(name); j++ {
			if slices.Equal(name[j:j+len(run)], run) {
				out = append(out, et.ids[i].ID)
				break
			}
		}
	}
	return out
}
