package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/editdist"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// Coverage says whether some tool on the menu covers an item's question.
type Coverage string

// The coverages.
const (
	In  Coverage = "in"  // a tool covers it: expect answered, absence or rejected
	Out Coverage = "out" // no tool covers it: expect abstained
)

// GoldSet is a parsed gold file. Build one with Parse (or DefaultGold) and
// check it with Validate before running it.
type GoldSet struct {
	SuiteVersion string
	// Catalog names the catalog whose engine the set is for (a catalog
	// engine over a database: the values are in the JSON shapes of the
	// catalog's tools, the event ids are its rows' keys); "" for the
	// retail engine over its store file.
	Catalog        string
	DatasetVersion string
	// Now is the clock the set's relative-time questions ("today", "last
	// week", a question with no time) resolve against; zero when the file
	// has no now key. A runner pins the engine's clock to it.
	Now   time.Time
	Items []Item

	idx *index         // where each path is written; nil for a set built in code
	reg *tool.Registry // the registry Validate checked the set against
}

// kindOf returns the value kind of the named tool of the registry the set
// was validated against ("" when unknown).
func (g *GoldSet) kindOf(name string) fact.Kind {
	if g.reg == nil {
		return ""
	}
	d, _ := g.reg.Lookup(name)
	return d.Value
}

// Item is one question and what the engine must do with it.
type Item struct {
	ID       string
	Question string
	Coverage Coverage
	Tags     []string // what the item exercises: "zero", "tie", "window_start", ...
	// Family is the phrasing family the item exercises (FamilyTemplate,
	// FamilyWindowToday, ...); "" when the file gives none. The report
	// counts results per family.
	Family Family
	Note   string // for people; never scored
	Expect Expect
}

// Expect is an item's expected answer.
type Expect struct {
	Outcome answer.Outcome
	// Rejection is the wall's rejection kind, for a rejected outcome.
	Rejection tool.RejectKind
	// Tool and Params are the expected validated call (answered, absence;
	// Tool optionally for rejected).
	Tool   string
	Params map[string]string
	// Value is the answer's value in its documented JSON shape ("null" for
	// no observation); nil when the file has no value key.
	Value json.RawMessage
	// EventIDs is the complete provenance, sorted; empty for an absence.
	EventIDs []string
	// Reason is the expected abstention's reason kind, for outcome
	// abstained; "" when the gold does not judge the reason.
	Reason AbstainReason
	// Slot is the slot the reason names, for every reason but no_tool:
	// an entity (store, product), another parameter (state, condition,
	// as_of) or window (a start and end).
	Slot string
	// Candidates are ids the abstention must name, for reason ambiguous
	// (optional, 2 to MaxCandidates, sorted).
	Candidates []string
}

// Error is a problem in a gold file. It names the item, the field and,
// for a parsed file, the line and column; it never repeats the offending
// value.
type Error struct {
	Op     string // "parse" or "validate"
	Item   string // "items[3] (state-typical)"; "" for the document
	Field  string // "expect.tool"; "" for the item or document as a whole
	Line   int    // 1-based; 0 when unknown (a set built in code)
	Column int
	Reason string
}

// ErrInvalidGold is matched (with errors.Is) by every *Error.
var ErrInvalidGold = errors.New("invalid gold set")

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op + " gold set")
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d column %d", e.Line, e.Column)
	}
	if e.Item != "" {
		b.WriteString(": " + e.Item)
	}
	if e.Field != "" {
		b.WriteString(": field " + e.Field)
	}
	b.WriteString(": " + e.Reason)
	return b.String()
}

// Is makes errors.Is(err, ErrInvalidGold) hold.
func (e *Error) Is(target error) bool { return target == ErrInvalidGold }

// Wire forms, decoded strictly: an unknown key anywhere is an error.
type wireGold struct {
	SuiteVersion   string     `yaml:"suite_version"`
	Catalog        string     `yaml:"catalog"`
	DatasetVersion string     `yaml:"dataset_version"`
	Now            string     `yaml:"now"`
	Items          []wireItem `yaml:"items"`
}

type wireItem struct {
	ID       string     `yaml:"id"`
	Question string     `yaml:"question"`
	Coverage string     `yaml:"coverage"`
	Tags     []string   `yaml:"tags"`
	Family   string     `yaml:"family"`
	Note     string     `yaml:"note"`
	Expect   wireExpect `yaml:"expect"`
}

type wireExpect struct {
	Outcome   string            `yaml:"outcome"`
	Rejection string            `yaml:"rejection"`
	Tool      string            `yaml:"tool"`
	Params    map[string]string `yaml:"params"`
	Value     ast.Node          `yaml:"value"`
	EventIDs  []string          `yaml:"event_ids"`
	Reason    string            `yaml:"reason"`
	Slot      string            `yaml:"slot"`
	// Candidates are the ids an ambiguous abstention must name.
	Candidates []string `yaml:"candidates"`
}

// validKeys lists the keys each level of the file accepts, for the
// nearest-key hint of an unknown-field error.
var validKeys = map[string][]string{
	"":       {"suite_version", "catalog", "dataset_version", "now", "items"},
	"item":   {"id", "question", "coverage", "tags", "family", "note", "expect"},
	"expect": {"outcome", "rejection", "tool", "params", "value", "event_ids", "reason", "slot", "candidates"},
}

// MaxGoldBytes bounds a gold file.
const MaxGoldBytes = 8 << 20

// Parse reads a gold file strictly: one YAML document, no unknown keys,
// no duplicate keys, no anchors or aliases, every field of its documented
// type. It does not judge the values; call Validate.
func Parse(r io.Reader) (*GoldSet, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxGoldBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read gold set: %w", err)
	}
	if len(b) > MaxGoldBytes {
		return nil, &Error{Op: "parse", Reason: fmt.Sprintf("file exceeds %d bytes", MaxGoldBytes)}
	}
	f, err := parser.ParseBytes(b, 0)
	if err != nil {
		return nil, (*index)(nil).fromYAML("parse", nil, err)
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, &Error{Op: "parse", Reason: "want exactly one YAML document"}
	}
	body := f.Docs[0].Body
	switch body.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
	default:
		p := tokenPos(body)
		return nil, &Error{Op: "parse", Line: p.line, Column: p.column, Reason: "document must be a mapping"}
	}
	idx := newIndex()
	if err := idx.walk(body, ""); err != nil {
		return nil, idx.fromYAML("parse", nil, err)
	}
	var w wireGold
	dec := yaml.NewDecoder(bytes.NewReader(nil), yaml.DisallowUnknownField())
	if err := dec.DecodeFromNode(body, &w); err != nil {
		e := idx.fromYAML("parse", &w, err)
		var uf *yaml.UnknownFieldError
		if errors.As(err, &uf) {
			e.Reason = unknownFieldReason(uf, e)
			e.Field = "" // the key is not one of ours; the position names it
		}
		return nil, e
	}
	g := &GoldSet{SuiteVersion: w.SuiteVersion, Catalog: w.Catalog, DatasetVersion: w.DatasetVersion, idx: idx}
	if idx.has("now") {
		now, ok := parseNow(w.Now)
		if !ok {
			p := idx.at("now")
			return nil, &Error{Op: "parse", Line: p.line, Column: p.column, Field: "now", Reason: nowReason}
		}
		g.Now = now
	}
	for i, wi := range w.Items {
		it := Item{
			ID: wi.ID, Question: wi.Question, Coverage: Coverage(wi.Coverage),
			Tags: wi.Tags, Family: Family(wi.Family), Note: wi.Note,
			Expect: Expect{
				Outcome: answer.Outcome(wi.Expect.Outcome), Rejection: tool.RejectKind(wi.Expect.Rejection),
				Tool: wi.Expect.Tool, Params: wi.Expect.Params, EventIDs: wi.Expect.EventIDs,
				Reason: AbstainReason(wi.Expect.Reason), Slot: wi.Expect.Slot, Candidates: wi.Expect.Candidates,
			},
		}
		path := fmt.Sprintf("items[%d].expect.value", i)
		if idx.has(path) {
			raw, err := nodeJSON(wi.Expect.Value)
			if err != nil {
				p := idx.at(path)
				return nil, &Error{Op: "parse", Line: p.line, Column: p.column, Item: itemLabel(i, &w, idx), Field: "expect.value", Reason: err.Error()}
			}
			it.Expect.Value = raw
		}
		g.Items = append(g.Items, it)
	}
	return g, nil
}

const nowReason = "must be a UTC timestamp like 2026-01-07T15:30:00Z"

// parseNow reads a suite's now: RFC 3339 in UTC, whole seconds, written
// with Z (the one timestamp format of every tool parameter).
func parseNow(s string) (time.Time, bool) {
	if !tool.IsTimestamp(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(tool.TimestampLayout, s)
	return t, err == nil
}

// nodeJSON converts a YAML value to JSON ("null" for an explicit null).
func nodeJSON(n ast.Node) (json.RawMessage, error) {
	if n == nil {
		return json.RawMessage("null"), nil
	}
	var v any
	if err := yaml.NodeToValue(n, &v); err != nil {
		return nil, errors.New("not a plain value")
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, errors.New("not representable as JSON")
	}
	return raw, nil
}

func unknownFieldReason(uf *yaml.UnknownFieldError, e *Error) string {
	level := ""
	if e.Item != "" {
		level = "item"
	}
	if strings.HasPrefix(e.Field, "expect.") {
		level = "expect"
	}
	name := ""
	if uf.Token != nil {
		name = uf.Token.Value
	}
	keys := validKeys[level]
	if near := nearest(name, keys); near != "" {
		return fmt.Sprintf("unknown field (did you mean %s?)", near)
	}
	return "unknown field (want one of " + strings.Join(keys, ", ") + ")"
}

// nearest returns the key within edit distance 2 of s, if any.
func nearest(s string, keys []string) string {
	if len(s) > 64 {
		return "" // no key is that long; bound the work
	}
	best, bestD := "", 3
	for _, k := range keys {
		if d := editdist.Distance(strings.ToLower(s), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// itemLabel names items[i] with its id when the id is well formed: from
// the decoded item, or from the file when decoding stopped early.
func itemLabel(i int, w *wireGold, x *index) string {
	id := ""
	if w != nil && i < len(w.Items) {
		id = w.Items[i].ID
	}
	if id == "" && x != nil {
		if n, ok := x.nodes[fmt.Sprintf("items[%d].id", i)].(*ast.StringNode); ok {
			id = n.Value
		}
	}
	if idPattern.MatchString(id) {
		return fmt.Sprintf("items[%d] (%s)", i, id)
	}
	return fmt.Sprintf("items[%d]", i)
}

var (
	idPattern      = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	catalogPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)
	// keyPattern bounds a catalog row's key as a gold file may name it.
	keyPattern     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)
	tagPattern     = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)
	versionPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$`)
)

const catalogReason = "must be a catalog name: a lower-case letter, then up to 63 lower-case letters, digits, _ or -"

// Limits on a gold file's content.
const (
	MaxItems         = 10_000
	MaxQuestionBytes = 4096 // the pipeline's own bound on a question
	maxNoteBytes     = 500
)

// Validate checks the whole set against the tools of reg and returns the
// first problem as an *Error. The rules are documented in the package
// comment.
func (g *GoldSet) Validate(reg *tool.Registry) error {
	g.reg = reg
	docErr := func(field, reason string) error {
		p := g.idx.at(field)
		return &Error{Op: "validate", Field: field, Line: p.line, Column: p.column, Reason: reason}
	}
	switch {
	case g.SuiteVersion == "":
		return docErr("suite_version", "is required")
	case !versionPattern.MatchString(g.SuiteVersion):
		return docErr("suite_version", "must be 1 to 64 letters, digits or ._/- characters")
	case g.Catalog != "" && !catalogPattern.MatchString(g.Catalog):
		return docErr("catalog", catalogReason)
	case g.DatasetVersion == "":
		return docErr("dataset_version", "is required")
	case !versionPattern.MatchString(g.DatasetVersion):
		return docErr("dataset_version", "must be 1 to 64 letters, digits or ._/- characters")
	case len(g.Items) == 0:
		return docErr("items", "must hold at least one item")
	case len(g.Items) > MaxItems:
		return docErr("items", fmt.Sprintf("must hold at most %d items", MaxItems))
	case !g.Now.IsZero() && (g.Now.Location() != time.UTC || g.Now.Nanosecond() != 0):
		return docErr("now", nowReason)
	}
	seen := map[string]int{}
	for i, it := range g.Items {
		label := fmt.Sprintf("items[%d]", i)
		if idPattern.MatchString(it.ID) {
			label += " (" + it.ID + ")"
		}
		fail := func(field, reason string) error {
			// The field's own position, or its nearest written parent's.
			p := g.idx.at(fmt.Sprintf("items[%d]", i))
			for f := field; f != ""; {
				if fp := g.idx.at(fmt.Sprintf("items[%d].%s", i, f)); fp != (position{}) {
					p = fp
					break
				}
				cut := strings.LastIndexAny(f, ".[")
				if cut < 0 {
					break
				}
				f = f[:cut]
			}
			return &Error{Op: "validate", Item: label, Field: field, Line: p.line, Column: p.column, Reason: reason}
		}
		if err := it.validate(reg, g.Catalog != "", fail); err != nil {
			return err
		}
		if err := it.validatePhrasing(reg, !g.Now.IsZero(), fail); err != nil {
			return err
		}
		if j, dup := seen[it.ID]; dup {
			return fail("id", fmt.Sprintf("duplicate id (first used by items[%d])", j))
		}
		seen[it.ID] = i
	}
	return nil
}

type failFunc func(field, reason string) error

// validate checks one item; keys says the event ids are a catalog's row
// keys rather than retail event ids.
func (it Item) validate(reg *tool.Registry, keys bool, fail failFunc) error {
	switch {
	case it.ID == "":
		return fail("id", "is required")
	case !idPattern.MatchString(it.ID):
		return fail("id", "must be 1 to 64 lower-case letters, digits or ._- characters, starting with a letter or digit")
	case strings.TrimSpace(it.Question) == "":
		return fail("question", "is required")
	case len(it.Question) > MaxQuestionBytes:
		return fail("question", fmt.Sprintf("exceeds %d bytes", MaxQuestionBytes))
	case it.Coverage == "":
		return fail("coverage", "is required (in or out)")
	case it.Coverage != In && it.Coverage != Out:
		return fail("coverage", "must be in or out")
	case len(it.Note) > maxNoteBytes:
		return fail("note", fmt.Sprintf("exceeds %d bytes", maxNoteBytes))
	}
	for j, tag := range it.Tags {
		if !tagPattern.MatchString(tag) {
			return fail(fmt.Sprintf("tags[%d]", j), "must be 1 to 32 lower-case letters, digits or underscores")
		}
		if slices.Contains(it.Tags[:j], tag) {
			return fail(fmt.Sprintf("tags[%d]", j), "duplicate tag")
		}
	}
	x := it.Expect
	present := func(field string, ok bool) error {
		if ok {
			return fail("expect."+field, "must be absent for outcome "+string(x.Outcome))
		}
		return nil
	}
	if x.Outcome == "" {
		return fail("expect.outcome", "is required")
	}
	if it.Coverage == Out {
		if x.Outcome != answer.Abstained {
			return fail("expect.outcome", "must be abstained for an out-of-coverage item")
		}
		return first(present("rejection", x.Rejection != ""), present("tool", x.Tool != ""),
			present("params", x.Params != nil), present("value", x.Value != nil), present("event_ids", x.EventIDs != nil))
	}
	if x.Outcome != answer.Abstained {
		// An abstention's reason belongs to an out item (validatePhrasing).
		if err := first(present("reason", x.Reason != ""), present("slot", x.Slot != ""), present("candidates", x.Candidates != nil)); err != nil {
			return err
		}
	}
	switch x.Outcome {
	case answer.Answered, answer.Absence:
		if err := present("rejection", x.Rejection != ""); err != nil {
			return err
		}
		return x.validateFact(reg, keys, fail)
	case answer.Rejected:
		switch x.Rejection {
		case "":
			return fail("expect.rejection", "is required for outcome rejected (unregistered, invalid or raw_query)")
		case tool.Unregistered, tool.Invalid, tool.RawQuery:
		default:
			return fail("expect.rejection", "must be unregistered, invalid or raw_query")
		}
		if x.Tool != "" {
			if _, ok := reg.Lookup(x.Tool); !ok {
				return fail("expect.tool", "is not a registered tool")
			}
			if x.Rejection == tool.Unregistered {
				return fail("expect.tool", "must be absent for an unregistered rejection (the name is never echoed)")
			}
		}
		return first(present("params", x.Params != nil), present("value", x.Value != nil), present("event_ids", x.EventIDs != nil))
	case answer.Abstained:
		return fail("expect.outcome", "an in-coverage item cannot expect abstained (use coverage: out)")
	case answer.Error:
		return fail("expect.outcome", "a gold item cannot expect an error")
	}
	return fail("expect.outcome", "must be answered, absence, rejected or abstained")
}

// first returns the first non-nil error.
func first(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// validateFact checks an expected fact: a registered tool, exactly its
// parameters with values in their domains, a value of the tool's shape
// that is a grounded zero exactly when the outcome is absence, and event
// ids consistent with the value.
func (x Expect) validateFact(reg *tool.Registry, keys bool, fail failFunc) error {
	if x.Tool == "" {
		return fail("expect.tool", "is required for outcome "+string(x.Outcome))
	}
	def, ok := reg.Lookup(x.Tool)
	if !ok {
		return fail("expect.tool", "is not a registered tool")
	}
	if x.Params == nil {
		return fail("expect.params", "is required for outcome "+string(x.Outcome))
	}
	for name := range x.Params {
		if !slices.ContainsFunc(def.Params, func(p tool.Param) bool { return p.Name == name }) {
			return fail("expect.params", "has a parameter "+def.Name+" does not take")
		}
	}
	for _, p := range def.Params {
		v, ok := x.Params[p.Name]
		field := "expect.params." + p.Name
		if !ok && p.Optional {
			continue
		}
		if !ok {
			return fail(field, "is missing")
		}
		if p.Kind == tool.Array || p.Kind == tool.Object {
			// A structured argument (query_metric's dimensions, filters,
			// order) is canonical JSON of its kind; the run compares it
			// with the wall's canonical form.
			if reason := structured(p, v); reason != "" {
				return fail(field, reason)
			}
			continue
		}
		if reason := reg.OutOfDomain(p, v); reason != "" {
			return fail(field, reason)
		}
	}
	if s, e := x.Params["start"], x.Params["end"]; s != "" && s > e {
		return fail("expect.params.start", "is after end")
	}
	if x.Value == nil {
		return fail("expect.value", "is required for outcome "+string(x.Outcome)+" (null for no observation)")
	}
	n, zero, reason := checkValue(reg, def, x.Value)
	if reason != "" {
		return fail("expect.value", reason)
	}
	if def.Value == fact.KindTable {
		// A metric's table is an absence when no row was read, whatever
		// its numbers: the outcome says which.
		zero = x.Outcome == answer.Absence
	}
	if zero != (x.Outcome == answer.Absence) {
		if zero {
			return fail("expect.outcome", "must be absence for a grounded zero value")
		}
		return fail("expect.outcome", "must be answered for a positive value")
	}
	for j, id := range x.EventIDs {
		switch {
		case keys && !keyPattern.MatchString(id):
			return fail(fmt.Sprintf("expect.event_ids[%d]", j), "is not a row key (1 to 128 letters, digits or ._:- characters)")
		case !keys && !retail.IsEventID(id):
			return fail(fmt.Sprintf("expect.event_ids[%d]", j), "is not an event id (evt- and 6 digits)")
		case j > 0 && x.EventIDs[j-1] >= id:
			return fail(fmt.Sprintf("expect.event_ids[%d]", j), "must be sorted and unique")
		}
	}
	switch {
	case zero && x.EventIDs != nil:
		return fail("expect.event_ids", "must be absent for a grounded zero (its provenance is an absence attestation)")
	case !zero && len(x.EventIDs) == 0:
		return fail("expect.event_ids", "is required for a positive value")
	case !zero && def.Value == fact.KindEntityCount && len(x.EventIDs) < n:
		return fail("expect.event_ids", "must hold at least one event per counted "+strings.TrimSuffix(def.IDsField, "_ids"))
	case !zero && def.Value != fact.KindEntityCount && n >= 0 && len(x.EventIDs) != n:
		return fail("expect.event_ids", fmt.Sprintf("must hold exactly %d event ids for this value", n))
	}
	return nil
}

// checkValue judges a value's shape for a tool's kind. It returns the
// number of events a positive value stands on (1 for a scalar, the count
// or list length otherwise), whether the value is a grounded zero, and a
// reason when the shape is wrong.
func checkValue(reg *tool.Registry, def tool.Def, raw json.RawMessage) (n int, zero bool, reason string) {
	var v any
	if err := strictjson.Decode(raw, &v, nil); err != nil {
		return 0, false, "is not a JSON value"
	}
	count := func(v any) (int, bool) {
		num, ok := v.(json.Number)
		if !ok {
			return 0, false
		}
		i, err := num.Int64()
		if err != nil || i < 0 || i > 1<<31 {
			return 0, false
		}
		return int(i), true
	}
	valid := func(s string) bool { return reg.IDMatches(def, s) }
	ids := func(v any) ([]string, bool) {
		list, ok := v.([]any)
		if !ok {
			return nil, false
		}
		out := make([]string, len(list))
		for i, e := range list {
			s, ok := e.(string)
			if !ok || !valid(s) || i > 0 && out[i-1] >= s {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	keys := func(m map[string]any, want ...string) bool {
		if len(m) != len(want) {
			return false
		}
		for _, w := range want {
			if _, ok := m[w]; !ok {
				return false
			}
		}
		return true
	}
	field := def.IDsField
	noun := strings.ReplaceAll(field, "_", " ") // "store ids"
	switch def.Value {
	case fact.KindText:
		if v == nil {
			return 0, true, ""
		}
		if s, ok := v.(string); !ok || !slices.Contains(def.Values, s) {
			return 0, false, "must be null or one of " + strings.Join(def.Values, ", ")
		}
		return 1, false, ""
	case fact.KindInteger, fact.KindNumber:
		if v == nil {
			return 0, true, ""
		}
		unit := ""
		if def.Unit != "" {
			unit = " (" + def.Unit + ")"
		}
		if def.Value == fact.KindNumber {
			if _, ok := v.(json.Number); !ok {
				return 0, false, "must be null or a number" + unit
			}
			return 1, false, ""
		}
		if _, ok := count(v); !ok {
			return 0, false, "must be null or a non-negative integer" + unit
		}
		return 1, false, ""
	case fact.KindEntityCount:
		m, ok := v.(map[string]any)
		if !ok || !keys(m, "count", field) {
			return 0, false, `must be {"count": n, "` + field + `": [...]}`
		}
		c, okC := count(m["count"])
		list, okL := ids(m[field])
		if !okC || !okL {
			return 0, false, "must hold a non-negative integer count and sorted, unique " + noun
		}
		if c != len(list) {
			return 0, false, "count must equal the number of " + noun
		}
		return c, c == 0, ""
	case fact.KindEntityList:
		m, ok := v.(map[string]any)
		if !ok || !keys(m, field) {
			return 0, false, `must be {"` + field + `": [...]}`
		}
		list, okL := ids(m[field])
		if !okL {
			return 0, false, "must hold sorted, unique " + noun
		}
		return len(list), len(list) == 0, ""
	case fact.KindTable:
		// {"columns": [...], "rows": [[...], ...]}: zero when it holds no
		// number but 0 (no rows, or zeros and nulls); the outcome, not
		// the value, says whether it is an absence (validateFact). The
		// events a row stands on are the metric's, so their number is not
		// judged.
		m, ok := v.(map[string]any)
		if !ok || !keys(m, "columns", "rows") {
			return 0, false, `must be {"columns": [...], "rows": [...]}`
		}
		cols, okC := m["columns"].([]any)
		rows, okR := m["rows"].([]any)
		if !okC || !okR || len(cols) == 0 {
			return 0, false, "must hold a non-empty list of columns and a list of rows"
		}
		zero := true
		for _, r := range rows {
			cells, ok := r.([]any)
			if !ok || len(cells) != len(cols) {
				return 0, false, "must hold rows of one cell per column"
			}
			for _, c := range cells {
				if num, ok := c.(json.Number); ok && !isZeroNumber(num) {
					zero = false
				}
			}
		}
		return -1, zero, ""
	case fact.KindRowCount:
		m, ok := v.(map[string]any)
		if !ok || !keys(m, "count") {
			return 0, false, `must be {"count": n}`
		}
		c, okC := count(m["count"])
		if !okC {
			return 0, false, "count must be a non-negative integer"
		}
		return c, c == 0, ""
	}
	return 0, false, "has no known shape"
}

//go:embed retail-demo-v1.gold.yaml
var defaultGold []byte

// DefaultGoldFile returns the embedded gold file for the demo store.
func DefaultGoldFile() []byte { return slices.Clone(defaultGold) }

// DefaultGold parses the embedded gold file and validates it against the
// tools of the embedded retail catalog, whose demo store it is written
// for.
func DefaultGold() (*GoldSet, error) { return Suite(SuiteDemo) }

// isZeroNumber reports whether a JSON number is zero (0, 0.0, -0, 0e3).
func isZeroNumber(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && f == 0
}

// structured judges a structured argument: JSON of the parameter's kind,
// an array of at most MaxItems items or an object.
func structured(p tool.Param, s string) string {
	var v any
	if err := strictjson.Decode([]byte(s), &v, nil); err != nil {
		return "is not JSON"
	}
	switch p.Kind {
	case tool.Array:
		list, ok := v.([]any)
		if !ok {
			return "is not a JSON array"
		}
		if p.MaxItems > 0 && len(list) > p.MaxItems {
			return fmt.Sprintf("holds more than %d items", p.MaxItems)
		}
	case tool.Object:
		if _, ok := v.(map[string]any); !ok {
			return "is not a JSON object"
		}
	}
	return ""
}
