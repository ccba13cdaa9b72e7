// Package tool is the closed tool menu: the Registry of tool definitions
// every surface derives from (the model's tool schemas, the HTTP and MCP
// descriptions), the untrusted Proposal a model returns, and the Wall, the
// only constructor of a validated Call.
//
// The package names no domain: a registry is built from data (the tools of
// a catalog, derived by package shape), and every parameter carries its
// domain as data (an entity id with its pattern, a UTC timestamp, an
// enumeration).
//
// The package imports only the standard library and packages fact and
// phrase.
package tool

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/phrase"
)

// ParamKind is the domain a parameter's value must come from. No parameter
// is a free string but a Statement, which the sandbox judges.
type ParamKind int

// The parameter domains.
const (
	EntityID  ParamKind = iota + 1 // an id of Param.Entity, matching Param.Pattern (and declared, when the wall knows the ids)
	Timestamp                      // YYYY-MM-DDTHH:MM:SSZ, a valid UTC instant
	Enum                           // one of Param.Values
	Integer                        // a JSON integer in [Param.Min, Param.Max]
	Boolean                        // a JSON boolean
	Array                          // a JSON array of at most Param.MaxItems values of Param.Items
	Object                         // a JSON object of Param.Fields (each required unless Optional), no other key
	Token                          // a string matching Param.Pattern (a value a tool's own check judges further)
	// Statement is the one free string: an SQL statement of 1 to
	// Param.MaxBytes bytes of valid UTF-8 without NUL, for the free SQL
	// tool. The wall judges only its size and encoding (it is query
	// syntax by design); the sandbox's validator judges what it says.
	Statement
)

// Structured reports whether a value of kind k is a JSON array or object:
// the wall judges its leaves, and a call carries it as canonical JSON.
func (k ParamKind) Structured() bool { return k == Array || k == Object }

func (k ParamKind) String() string {
	switch k {
	case EntityID:
		return "entity_id"
	case Timestamp:
		return "timestamp"
	case Enum:
		return "enum"
	case Integer:
		return "integer"
	case Boolean:
		return "boolean"
	case Array:
		return "array"
	case Object:
		return "object"
	case Token:
		return "token"
	case Statement:
		return "statement"
	}
	return fmt.Sprintf("ParamKind(%d)", int(k))
}

// Param is one named, typed parameter of a tool, with its domain as data.
type Param struct {
	Name        string
	Kind        ParamKind
	Description string

	// EntityID only.
	Entity  string   // the entity the id names ("store")
	Pattern string   // anchored regular expression (RE2) an id matches: "^st-[0-9]{3}$"
	Hint    string   // the pattern for humans, used in the wall's message: "st- and 3 digits" (Token too)
	Nouns   []string // the words a question names the entity with ("store", "shop")
	// Names are the declared ids with their display names ("" when the
	// reference declares none), from WithNames; nil when unknown. The map
	// is shared by every copy of the definition: read it, never write it.
	Names map[string]string

	// Enum only.
	Values   []string   // the allowed values, in the order schemas list them
	Synonyms []Synonyms // the everyday phrases that name values ("sold out")

	// Optional: the parameter may be left out (a schema does not require
	// it; a call carries no argument for it). Every parameter of the
	// scalar tools is required.
	// (The fields from here on are omitted from a definition's JSON when
	// unset, so a dump of the scalar tools reads as it always has.)
	Optional bool `json:",omitempty"`

	// Integer only: the inclusive bounds.
	Min int `json:",omitempty"`
	Max int `json:",omitempty"`

	// Array only: the items' domain and how many at most.
	Items    *Param `json:",omitempty"`
	MaxItems int    `json:",omitempty"`

	// Object only: the fields, in the order schemas list them.
	Fields []Param `json:",omitempty"`

	// Statement only: the most bytes a statement may have.
	MaxBytes int `json:",omitempty"`
}

// Synonyms are the phrases that name one enumerated value.
type Synonyms struct {
	Value   string
	Phrases []string
}

// Def defines one tool.
type Def struct {
	Name        string
	Description string
	Params      []Param
	Value       fact.Kind // the shape of the tool's value
	Unit        string    // KindInteger, KindNumber: the value's unit ("cents"), or ""
	IDsField    string    // KindEntityCount, KindEntityList: the JSON key of the ids ("store_ids")
	IDsPattern  string    // KindEntityCount, KindEntityList: the anchored pattern every id matches
	Values      []string  // KindText: the enumerated values the attribute takes
	Attribute   string    // a scalar kind: the attribute the tool reads ("price"); informational

	// How people ask and how an answer reads (package phrase): the forms a
	// question may take, the sentence template of an answer and of a
	// grounded zero (Answer when empty), the question class, and the
	// currency cents are shown in. Empty templates get a plain default.
	Class     string   // scalar, aggregate, list or window
	Phrasings []string // question forms, tried in order
	Answer    string   // sentence template of an answer
	None      string   // sentence template of a grounded zero
	Currency  string   // ISO 4217 code, lowercase, or ""
	// The model-free parser's vocabulary (package phrase): phrases that
	// mark a question as asking for the tool, and, for a tool returning
	// an enumerated value, the phrases of the values a yes/no question
	// may name, with the sentence template of such an answer.
	Keywords []string
	Asks     []Synonyms
	Check    string
	// Filters are, for a tool with a list of filters (query_metric), the
	// words a question names a filter's value with: each dimension's
	// entity (its ids, names and nouns, read as for an entity slot) or its
	// enumerated values and their synonyms. A question naming one is read
	// as an eq filter on that dimension.
	Filters []FilterWords `json:"-"`

	// Tier and Effect are the tool's autonomy tier ("L1", "L2", "L3")
	// and side-effect class ("none", "simulate", "write"), as the
	// catalog declares them; empty means L1 and none (package autonomy
	// holds the invariants).
	Tier   string `json:",omitempty"`
	Effect string `json:",omitempty"`
}

// Writes reports whether the tool changes state (Effect "write"). The
// model-free parser never proposes such a tool (Vocabulary leaves it
// out): a write is proposed by a client or a model, and the gate holds
// it to its tier.
func (d Def) Writes() bool { return d.Effect == "write" }

// FilterWords are the words that name the values of one filterable
// dimension: Entity's ids (the entity of another tool's slot), or Values.
type FilterWords struct {
	Dimension string
	Entity    string
	Values    []Synonyms
}

// Registry is a validated, immutable set of tool definitions and the name
// of the scope entity: the entity whose ids a caller's Scope lists. Safe
// for concurrent use.
type Registry struct {
	defs     []Def
	scope    string
	about    string
	patterns map[string]*regexp.Regexp // by Param.Pattern
	// prompts and their parsed texts, by name (WithPrompts).
	prompts   []Prompt
	templates map[string]*phrase.Template
	// answers are the answer templates Sentence parsed, by their text
	// (shared by the registry's copies: a text parses alike in each).
	answers *sync.Map
}

// ErrInvalidRegistry is matched (with errors.Is) by every error of
// NewRegistry.
var ErrInvalidRegistry = errors.New("invalid tool registry")

// NewRegistry validates defs and returns a registry over a copy of them,
// in their order. Tool names are unique and non-empty; within a tool,
// parameter names are unique and non-empty; every parameter's kind is
// known, an entity id names its entity, an anchored pattern that compiles
// and a hint, an enumeration at least one value; the value kind is known,
// a text value lists its values, and counts and lists of entities name
// their ids field and an anchored ids pattern. scopeEntity names the
// entity a Scope restricts.
func NewRegistry(defs []Def, scopeEntity string) (*Registry, error) {
	if scopeEntity == "" {
		return nil, fmt.Errorf("%w: scope entity is empty", ErrInvalidRegistry)
	}
	r := &Registry{scope: scopeEntity, patterns: map[string]*regexp.Regexp{}, answers: &sync.Map{}}
	for i, d := range defs {
		if err := r.check(d); err != nil {
			return nil, fmt.Errorf("%w: tools[%d]: %w", ErrInvalidRegistry, i, err)
		}
		if slices.ContainsFunc(r.defs, func(e Def) bool { return e.Name == d.Name }) {
			return nil, fmt.Errorf("%w: tools[%d]: name is not unique", ErrInvalidRegistry, i)
		}
		r.defs = append(r.defs, cloneDef(d))
	}
	return r, nil
}

func (r *Registry) check(d Def) error {
	if d.Name == "" {
		return errors.New("name is empty")
	}
	if !d.Value.Valid() {
		return errors.New("value kind is unknown")
	}
	if d.Value.HasIDs() {
		if d.IDsField == "" {
			return errors.New("ids field is empty")
		}
		if err := r.compile(d.IDsPattern); err != nil {
			return fmt.Errorf("ids pattern %w", err)
		}
	}
	if d.Value == fact.KindText && len(d.Values) == 0 {
		return errors.New("text value has no enumerated values")
	}
	for j, ph := range d.Phrasings {
		if _, err := phrase.Compile(ph); err != nil {
			return fmt.Errorf("phrasings[%d]: %w", j, err)
		}
	}
	for _, t := range []string{d.Answer, d.None, d.Check} {
		if t == "" {
			continue
		}
		if _, err := phrase.ParseTemplate(t); err != nil {
			return fmt.Errorf("answer template: %w", err)
		}
	}
	for j, p := range d.Params {
		if p.Name == "" {
			return fmt.Errorf("params[%d]: name is empty", j)
		}
		if slices.ContainsFunc(d.Params[:j], func(q Param) bool { return q.Name == p.Name }) {
			return fmt.Errorf("params[%d]: name is not unique", j)
		}
		if err := r.checkParam(p); err != nil {
			return fmt.Errorf("params[%d]: %w", j, err)
		}
	}
	return nil
}

// checkParam checks a parameter's domain (recursively for arrays and
// objects).
func (r *Registry) checkParam(p Param) error {
	switch p.Kind {
	case EntityID:
		if p.Entity == "" || p.Hint == "" {
			return errors.New("entity id needs an entity and a hint")
		}
		if err := r.compile(p.Pattern); err != nil {
			return fmt.Errorf("pattern %w", err)
		}
	case Timestamp, Boolean:
	case Token:
		if p.Hint == "" {
			return errors.New("token needs a hint")
		}
		if err := r.compile(p.Pattern); err != nil {
			return fmt.Errorf("pattern %w", err)
		}
	case Enum:
		if len(p.Values) == 0 {
			return errors.New("enumeration has no values")
		}
	case Statement:
		if p.MaxBytes <= 0 {
			return errors.New("statement needs a positive maximum size")
		}
	case Integer:
		if p.Min > p.Max {
			return errors.New("integer bounds are reversed")
		}
	case Array:
		if p.Items == nil || p.MaxItems <= 0 {
			return errors.New("array needs items and a positive maximum")
		}
		if err := r.checkParam(*p.Items); err != nil {
			return fmt.Errorf("items: %w", err)
		}
	case Object:
		if len(p.Fields) == 0 {
			return errors.New("object has no fields")
		}
		for k, f := range p.Fields {
			if f.Name == "" || slices.ContainsFunc(p.Fields[:k], func(g Param) bool { return g.Name == f.Name }) {
				return fmt.Errorf("fields[%d]: name is empty or not unique", k)
			}
			if err := r.checkParam(f); err != nil {
				return fmt.Errorf("fields[%d]: %w", k, err)
			}
		}
	default:
		return errors.New("kind is unknown")
	}
	return nil
}

// compile checks that pattern is anchored and compiles, and keeps it.
func (r *Registry) compile(pattern string) error {
	if !strings.HasPrefix(pattern, "^") || !strings.HasSuffix(pattern, "$") {
		return errors.New("is not anchored")
	}
	if _, ok := r.patterns[pattern]; !ok {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return errors.New("does not compile")
		}
		r.patterns[pattern] = re
	}
	return nil
}

func cloneDef(d Def) Def {
	d.Params = cloneParams(d.Params)
	d.Values = slices.Clone(d.Values)
	d.Phrasings = slices.Clone(d.Phrasings)
	d.Keywords = slices.Clone(d.Keywords)
	d.Asks = cloneSynonyms(d.Asks)
	d.Filters = slices.Clone(d.Filters)
	for i := range d.Filters {
		d.Filters[i].Values = cloneSynonyms(d.Filters[i].Values)
	}
	return d
}

func cloneParams(ps []Param) []Param {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Values = slices.Clone(out[i].Values)
		out[i].Nouns = slices.Clone(out[i].Nouns)
		out[i].Synonyms = cloneSynonyms(out[i].Synonyms)
		if it := out[i].Items; it != nil {
			c := cloneParams([]Param{*it})[0]
			out[i].Items = &c
		}
		if out[i].Fields != nil {
			out[i].Fields = cloneParams(out[i].Fields)
		}
	}
	return out
}

func cloneSynonyms(ss []Synonyms) []Synonyms {
	out := slices.Clone(ss)
	for i := range out {
		out[i].Phrases = slices.Clone(out[i].Phrases)
	}
	return out
}

// WithNames returns a copy of r whose entity id parameters carry the
// declared ids and display names of their entity: names maps an entity's
// name to its ids and their names. The maps are shared, not copied: the
// caller must not change them afterwards.
func (r *Registry) WithNames(names map[string]map[string]string) *Registry {
	c := *r
	c.defs = make([]Def, len(r.defs))
	for i, d := range r.defs {
		d = cloneDef(d)
		for j, p := range d.Params {
			if p.Kind == EntityID {
				d.Params[j].Names = names[p.Entity]
			}
		}
		c.defs[i] = d
	}
	return &c
}

// WithAbout returns a copy of r about the named data ("the shelf-scan
// data"), which the ask tool's description names.
func (r *Registry) WithAbout(about string) *Registry {
	c := *r
	c.about = about
	return &c
}

// About names the data the registry's tools answer over: "the data"
// unless WithAbout said otherwise.
func (r *Registry) About() string {
	if r.about == "" {
		return "the data"
	}
	return r.about
}

// ScopeEntity returns the entity a Scope restricts ("store").
func (r *Registry) ScopeEntity() string { return r.scope }

// Menu returns the tools in a fixed order. The slice is a copy.
func (r *Registry) Menu() []Def {
	m := make([]Def, len(r.defs))
	for i, d := range r.defs {
		m[i] = cloneDef(d)
	}
	return m
}

// Lookup returns the definition of a registered tool.
func (r *Registry) Lookup(name string) (Def, bool) {
	for _, d := range r.defs {
		if d.Name == name {
			return cloneDef(d), true
		}
	}
	return Def{}, false
}

// Sentence renders a value of the registered tool name as Sentence
// does, without Lookup's copy of the definition (each call's answer
// renders one); ok is false for a tool that is not registered.
func (r *Registry) Sentence(name string, args map[string]string, v fact.Value) (s string, ok bool) {
	d, ok := r.lookup(name)
	if !ok {
		return "", false
	}
	return sentence(d, args, v, r.answerTemplate), true
}

// answerTemplate parses an answer template once: a tool's templates are
// few, and each call's sentence would otherwise parse one.
func (r *Registry) answerTemplate(src string) (*phrase.Template, error) {
	if r.answers == nil {
		return phrase.ParseTemplate(src)
	}
	if t, ok := r.answers.Load(src); ok {
		return t.(*phrase.Template), nil
	}
	t, err := phrase.ParseTemplate(src)
	if err == nil {
		r.answers.Store(src, t)
	}
	return t, err
}

// lookup is Lookup without the copy, for the wall's hot path.
func (r *Registry) lookup(name string) (Def, bool) {
	for _, d := range r.defs {
		if d.Name == name {
			return d, true
		}
	}
	return Def{}, false
}

// IDMatches reports whether s is an id of d's value (an entity count or
// list): it matches d.IDsPattern.
func (r *Registry) IDMatches(d Def, s string) bool { return r.match(d.IDsPattern, s) }

// OutOfDomain returns why s is outside p's domain as far as the registry
// can tell (an entity id's pattern, a timestamp, an enumeration), or ""
// when it is inside; whether an id is declared is the wall's to judge.
// The reason never holds s.
func (r *Registry) OutOfDomain(p Param, s string) string {
	switch p.Kind {
	case EntityID:
		if !r.match(p.Pattern, s) {
			return "is not a " + p.Entity + " id (" + p.Hint + ")"
		}
	case Timestamp:
		if !IsTimestamp(s) {
			return "is not a UTC timestamp like 2026-01-06T08:00:00Z"
		}
		if s > LastInstant { // the layout's fixed width orders as time does
			return "is after " + LastInstant + ", the latest instant answered"
		}
		if s < FirstInstant {
			return "is before " + FirstInstant + ", the earliest instant answered"
		}
	case Enum:
		if !slices.Contains(p.Values, s) {
			return "is not one of " + strings.Join(p.Values, ", ")
		}
	case Token:
		if !r.match(p.Pattern, s) {
			return "is not " + p.Hint
		}
	case Statement:
		return StatementOutOfDomain(s, p.MaxBytes)
	default:
		return "has no domain"
	}
	return ""
}

// StatementOutOfDomain returns why s is not a statement a Statement
// parameter of at most maxBytes bytes admits, or "": it is empty (or only
// white space), longer than maxBytes bytes, not valid UTF-8, or holds a
// NUL byte. The reason never holds s.
func StatementOutOfDomain(s string, maxBytes int) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "is empty"
	case len(s) > maxBytes:
		return fmt.Sprintf("is longer than %d bytes", maxBytes)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.ContainsRune(s, 0):
		return "holds a NUL byte"
	}
	return ""
}

func (r *Registry) match(pattern, s string) bool {
	re := r.patterns[pattern]
	return re != nil && re.MatchString(s)
}

// digitsPattern is an id pattern of a literal prefix and k digits.
var digitsPattern = regexp.MustCompile(`^\^([A-Za-z0-9_-]*)\[0-9\]\{([1-9][0-9]?)\}\$$`)

// PatternHint returns the human hint of an anchored id pattern, as the
// wall's rejection and a schema description say it: "st- and 3 digits"
// for ^st-[0-9]{3}$ (a literal prefix and k digits), "3 digits" without
// a prefix, and "matching ^...$" for any other pattern.
func PatternHint(pattern string) string {
	m := digitsPattern.FindStringSubmatch(pattern)
	if m == nil {
		return "matching " + pattern
	}
	if m[1] == "" {
		return m[2] + " digits"
	}
	return m[1] + " and " + m[2] + " digits"
}
