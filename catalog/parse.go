package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// MaxSize is the largest catalog file Parse reads.
const MaxSize = 1 << 20

// maxDepth bounds the nesting of any/all in a condition.
const maxDepth = 8

// maxNesting bounds how deeply a catalog's YAML collections nest. The
// parser's cost grows with the square of the depth (each level copies its
// path), so a few hundred kilobytes of brackets or dashes would keep it
// busy for minutes; a real catalog nests a few levels deep.
const maxNesting = 128

// bom is the UTF-8 byte order mark, which YAML allows before a document.
var bom = []byte("\uFEFF")

// Parse decodes one catalog file strictly: unknown keys, duplicate keys,
// missing required keys and values of the wrong type are errors. It does
// not check references between fields; Validate (or Load) does. On failure
// it returns a nil catalog and an ErrorList.
func Parse(r io.Reader, filename string) (cat *Catalog, err error) {
	c := &errs{file: filename}
	b, rerr := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if rerr != nil {
		return nil, fmt.Errorf("read catalog %s: %w", filename, rerr)
	}
	if len(b) > MaxSize {
		c.add(Pos{1, 1}, "catalog larger than %d bytes", MaxSize)
		return nil, c.err()
	}
	if bytes.IndexByte(b, 0) >= 0 {
		c.add(Pos{1, 1}, "catalog contains a NUL byte")
		return nil, c.err()
	}
	// An editor's byte order mark is no part of the first key.
	b = bytes.TrimPrefix(b, bom)
	if !utf8.Valid(b) {
		c.add(invalidUTF8Pos(b), "catalog is not valid UTF-8")
		return nil, c.err()
	}
	// The YAML parser is third-party code fed untrusted input: a panic in
	// it becomes an error, never a crash.
	defer func() {
		if p := recover(); p != nil {
			cat = nil
			c.list = nil
			c.add(Pos{1, 1}, "invalid YAML")
			err = c.err()
		}
	}()
	tokens := lexer.Tokenize(string(b))
	if tk := tooDeep(tokens); tk != nil {
		c.add(tokPos(tk), "collections nested deeper than %d levels", maxNesting)
		return nil, c.err()
	}
	f, perr := parser.Parse(tokens, 0, parser.AllowDuplicateMapKey())
	if perr != nil {
		c.add(syntaxPos(perr), "%s", syntaxMessage(perr))
		return nil, c.err()
	}
	var body ast.Node
	switch {
	case len(f.Docs) == 0 || f.Docs[0].Body == nil:
		c.add(Pos{1, 1}, "empty catalog")
		return nil, c.err()
	case len(f.Docs) > 1:
		c.add(docPos(f.Docs[1]), "more than one YAML document")
		return nil, c.err()
	default:
		body = f.Docs[0].Body
	}
	d := &decoder{errs: c}
	cat = d.catalog(body)
	cat.File = filename
	if err := c.err(); err != nil {
		return nil, err
	}
	return cat, nil
}

// Load parses and validates one catalog file.
func Load(r io.Reader, filename string) (*Catalog, error) {
	cat, err := Parse(r, filename)
	if err != nil {
		return nil, err
	}
	if err := cat.Validate(); err != nil {
		return nil, err
	}
	return cat, nil
}

// invalidUTF8Pos is the line and column (in characters) of the first byte
// of b that is not valid UTF-8.
func invalidUTF8Pos(b []byte) Pos {
	p := Pos{1, 1}
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			return p
		}
		if r == '\n' {
			p.Line, p.Column = p.Line+1, 1
		} else {
			p.Column++
		}
		b = b[n:]
	}
	return p
}

// tooDeep returns the first token at which tokens nest deeper than
// maxNesting, or nil. It may overcount, never undercount by more than
// half: brackets count exactly; in block context a line counts its
// indentation and each '-', '?' and ':' on it, since a block collection
// nests only by a deeper indentation or one of those on the same line.
func tooDeep(tokens token.Tokens) *token.Token {
	flow, line, block := 0, 0, 0
	for _, tk := range tokens {
		if tk.Position == nil || tk.Type == token.CommentType {
			continue
		}
		if tk.Position.Line != line {
			line, block = tk.Position.Line, 0
			if flow == 0 {
				block = tk.Position.Column - 1
			}
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		case token.SequenceEntryType, token.MappingKeyType, token.MappingValueType:
			if flow == 0 {
				block++
			}
		}
		if flow+block > maxNesting {
			return tk
		}
	}
	return nil
}

func docPos(d *ast.DocumentNode) Pos {
	if d.Start != nil {
		return tokPos(d.Start)
	}
	if d.Body != nil {
		return nodePos(d.Body)
	}
	return Pos{1, 1}
}

func syntaxPos(err error) Pos {
	var se interface{ GetToken() *token.Token }
	if errors.As(err, &se) {
		return tokPos(se.GetToken())
	}
	return Pos{1, 1}
}

// syntaxMessage is the parser's message when it repeats nothing from the
// input, else a generic one.
func syntaxMessage(err error) string {
	var se interface{ GetMessage() string }
	if errors.As(err, &se) {
		m := se.GetMessage()
		// "found character 'X' that cannot start any token": the
		// character, most often a tab where YAML wants spaces, named
		// without quoting it.
		if c, ok := strings.CutPrefix(m, "found character '"); ok && strings.HasSuffix(c, "' that cannot start any token") {
			if strings.HasPrefix(c, "\t'") {
				return "invalid YAML: a tab where YAML wants spaces (indent with spaces)"
			}
			return "invalid YAML: a character that cannot start any token"
		}
		if strings.HasSuffix(m, " is a reserved character") {
			return "invalid YAML: a reserved character (@ or `) starts a plain value (quote it)"
		}
		if m != "" && len(m) <= 120 && !strings.ContainsAny(m, "\"'`") && echoable(m) {
			return "invalid YAML: " + m
		}
	}
	return "invalid YAML"
}

func tokPos(t *token.Token) Pos {
	if t == nil || t.Position == nil {
		return Pos{1, 1}
	}
	return Pos{t.Position.Line, t.Position.Column}
}

// nodePos is where n starts: a block mapping at its first key.
func nodePos(n ast.Node) Pos {
	if n == nil {
		return Pos{1, 1}
	}
	if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > 0 {
		return nodePos(m.Values[0].Key)
	}
	if mv, ok := n.(*ast.MappingValueNode); ok {
		return nodePos(mv.Key)
	}
	return tokPos(n.GetToken())
}

type decoder struct{ *errs }

// field is one key of a mapping: its handler and whether it is required.
type field struct {
	name     string
	required bool
	decode   func(v ast.Node)
}

// mapping decodes n as a mapping whose keys are fields. It reports a
// non-mapping, an unknown key (with the nearest field), a duplicate key and
// a missing required key, and returns false when n is not a mapping.
func (d *decoder) mapping(n ast.Node, what string, fields []field) bool {
	n = d.plain(n)
	if n == nil {
		return false
	}
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.add(nodePos(n), "%s: want a mapping", what)
		return false
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	seen := map[string]Pos{}
	for _, mv := range m.Values {
		kp := nodePos(mv.Key)
		k, ok := mv.Key.(*ast.StringNode)
		if !ok {
			d.add(kp, "%s: want a plain string key", what)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.add(kp, "duplicate key%s (first at line %d, column %d)", quote(k.Value), first.Line, first.Column)
			continue
		}
		seen[k.Value] = kp
		found := false
		for _, f := range fields {
			if f.name == k.Value {
				found = true
				if _, null := mv.Value.(*ast.NullNode); null || mv.Value == nil {
					d.add(valuePos(mv), "`%s`: missing value", f.name)
					break
				}
				f.decode(mv.Value)
				break
			}
		}
		if !found {
			d.add(kp, "%s", unknown("key", k.Value, names))
		}
	}
	for _, f := range fields {
		if _, ok := seen[f.name]; f.required && !ok {
			d.add(nodePos(m), "%s: missing key `%s`", what, f.name)
		}
	}
	return true
}

func valuePos(mv *ast.MappingValueNode) Pos {
	if mv.Value != nil {
		return nodePos(mv.Value)
	}
	return nodePos(mv.Key)
}

// plain refuses anchors, aliases and tags (a catalog needs none, and
// aliases can expand a small file into a large tree) and returns n.
func (d *decoder) plain(n ast.Node) ast.Node {
	switch n.(type) {
	case *ast.AnchorNode, *ast.AliasNode, *ast.TagNode, *ast.MergeKeyNode:
		d.add(nodePos(n), "anchors, aliases, tags and merge keys are not supported")
		return nil
	case nil:
		return nil
	}
	return n
}

// str decodes a string scalar.
func (d *decoder) str(n ast.Node, what string) Ref {
	n = d.plain(n)
	switch v := n.(type) {
	case nil:
		return Ref{}
	case *ast.StringNode:
		return Ref{Value: v.Value, Pos: nodePos(v)}
	case *ast.LiteralNode:
		if v.Value != nil {
			return Ref{Value: v.Value.Value, Pos: nodePos(v)}
		}
		return Ref{Pos: nodePos(v)}
	}
	d.add(nodePos(n), "`%s`: want a string (quote it)", what)
	return Ref{}
}

// strInto returns a field decoder that stores a string into r.
func (d *decoder) strInto(name string, required bool, r *Ref) field {
	return field{name, required, func(v ast.Node) { *r = d.str(v, name) }}
}

// seq decodes n as a sequence, calling each for every element.
func (d *decoder) seq(n ast.Node, what string, each func(ast.Node)) bool {
	n = d.plain(n)
	if n == nil {
		return false
	}
	s, ok := n.(*ast.SequenceNode)
	if !ok {
		d.add(nodePos(n), "`%s`: want a list", what)
		return false
	}
	for _, e := range s.Values {
		each(e)
	}
	return true
}

// strs decodes a list of strings; the result is non-nil when n is a list.
func (d *decoder) strs(n ast.Node, what string) []Ref {
	out := []Ref{}
	if !d.seq(n, what, func(e ast.Node) {
		if r := d.str(e, what); r.Pos.Line > 0 {
			out = append(out, r)
		}
	}) {
		return nil
	}
	return out
}

func (d *decoder) boolean(n ast.Node, what string) bool {
	n = d.plain(n)
	if b, ok := n.(*ast.BoolNode); ok {
		return b.Value
	}
	if n != nil {
		d.add(nodePos(n), "`%s`: want true or false", what)
	}
	return false
}

func (d *decoder) catalog(n ast.Node) *Catalog {
	c := &Catalog{}
	d.mapping(n, "catalog", []field{
		d.strInto("name", true, &c.Name),
		d.strInto("version", true, &c.Version),
		d.strInto("description", false, &c.Description),
		d.strInto("scope_entity", true, &c.ScopeEntity),
		d.strInto("currency", false, &c.Currency),
		{"datasets", true, func(v ast.Node) {
			d.seq(v, "datasets", func(e ast.Node) {
				if ds := d.dataset(e); ds != nil {
					c.Datasets = append(c.Datasets, ds)
				}
			})
		}},
		{"tools", true, func(v ast.Node) {
			d.seq(v, "tools", func(e ast.Node) {
				if t := d.tool(e); t != nil {
					c.Tools = append(c.Tools, t)
				}
			})
		}},
		{"prompts", false, func(v ast.Node) {
			d.seq(v, "prompts", func(e ast.Node) {
				if p := d.prompt(e); p != nil {
					c.Prompts = append(c.Prompts, p)
				}
			})
		}},
		{"semantic_models", false, func(v ast.Node) {
			d.seq(v, "semantic_models", func(e ast.Node) {
				if m := d.semanticModel(e); m != nil {
					c.SemanticModels = append(c.SemanticModels, m)
				}
			})
		}},
		{"metrics", false, func(v ast.Node) {
			d.seq(v, "metrics", func(e ast.Node) {
				if m := d.metric(e); m != nil {
					c.Metrics = append(c.Metrics, m)
				}
			})
		}},
		{"sql", false, func(v ast.Node) { c.SQL = d.sql(v) }},
		{"writes", false, func(v ast.Node) { c.Writes = d.writes(v) }},
	})
	return c
}

func (d *decoder) prompt(n ast.Node) *Prompt {
	p := &Prompt{Pos: nodePos(n)}
	if !d.mapping(n, "prompt", []field{
		d.strInto("name", true, &p.Name),
		d.strInto("description", true, &p.Description),
		{"arguments", false, func(v ast.Node) {
			d.seq(v, "arguments", func(e ast.Node) {
				a := &PromptArgument{Pos: nodePos(e)}
				if d.mapping(e, "argument", []field{
					d.strInto("name", true, &a.Name),
					d.strInto("tool", true, &a.Tool),
					d.strInto("description", false, &a.Description),
				}) {
					p.Arguments = append(p.Arguments, a)
				}
			})
		}},
		d.strInto("text", true, &p.Text),
	}) {
		return nil
	}
	return p
}

func (d *decoder) dataset(n ast.Node) *Dataset {
	ds := &Dataset{Pos: nodePos(n)}
	ok := d.mapping(n, "dataset", []field{
		d.strInto("name", true, &ds.Name),
		d.strInto("table", false, &ds.Table),
		d.strInto("files", false, &ds.Files),
		d.strInto("key", true, &ds.Key),
		d.strInto("row_name", false, &ds.RowName),
		d.strInto("time", true, &ds.Time),
		{"series", true, func(v ast.Node) { ds.Series = d.strs(v, "series") }},
		{"entities", true, func(v ast.Node) {
			d.seq(v, "entities", func(e ast.Node) {
				if x := d.entity(e); x != nil {
					ds.Entities = append(ds.Entities, x)
				}
			})
		}},
		{"attributes", true, func(v ast.Node) {
			d.seq(v, "attributes", func(e ast.Node) {
				if x := d.attribute(e); x != nil {
					ds.Attributes = append(ds.Attributes, x)
				}
			})
		}},
		{"conditions", false, func(v ast.Node) {
			d.seq(v, "conditions", func(e ast.Node) {
				if x := d.condition(e); x != nil {
					ds.Conditions = append(ds.Conditions, x)
				}
			})
		}},
	})
	if !ok {
		return nil
	}
	return ds
}

func (d *decoder) entity(n ast.Node) *Entity {
	e := &Entity{Pos: nodePos(n)}
	if !d.mapping(n, "entity", []field{
		d.strInto("name", true, &e.Name),
		d.strInto("column", true, &e.Column),
		d.strInto("pattern", true, &e.Pattern),
		{"reference", false, func(v ast.Node) {
			r := &Reference{Pos: nodePos(v)}
			if d.mapping(v, "reference", []field{
				d.strInto("table", false, &r.Table),
				d.strInto("files", false, &r.Files),
				d.strInto("id", true, &r.ID),
				d.strInto("display_name", true, &r.DisplayName),
				{"columns", false, func(v ast.Node) { r.Columns = d.strs(v, "columns") }},
			}) {
				e.Reference = r
			}
		}},
		{"nouns", false, func(v ast.Node) { e.Nouns = d.strs(v, "nouns") }},
	}) {
		return nil
	}
	return e
}

func (d *decoder) attribute(n ast.Node) *Attribute {
	a := &Attribute{Pos: nodePos(n)}
	if !d.mapping(n, "attribute", []field{
		d.strInto("name", true, &a.Name),
		d.strInto("column", true, &a.Column),
		{"values", false, func(v ast.Node) { a.Values = d.strs(v, "values") }},
		d.strInto("unit", false, &a.Unit),
		d.strInto("type", false, &a.Type),
		{"optional", false, func(v ast.Node) { a.Optional = d.boolean(v, "optional") }},
		{"synonyms", false, func(v ast.Node) { a.Synonyms = d.synonyms(v) }},
	}) {
		return nil
	}
	return a
}

func (d *decoder) condition(n ast.Node) *Condition {
	c := &Condition{Pos: nodePos(n)}
	c.Predicate.Pos = c.Pos
	fields := []field{
		d.strInto("name", true, &c.Name),
		{"synonyms", false, func(v ast.Node) { c.Synonyms = d.strs(v, "synonyms") }},
	}
	if !d.mapping(n, "condition", append(fields, d.predicateFields(&c.Predicate, 0)...)) {
		return nil
	}
	return c
}

func (d *decoder) predicateFields(p *Predicate, depth int) []field {
	sub := func(name string, dst *[]*Predicate) field {
		return field{name, false, func(v ast.Node) {
			if depth >= maxDepth {
				d.add(nodePos(v), "`%s`: conditions nested deeper than %d", name, maxDepth)
				return
			}
			*dst = []*Predicate{}
			d.seq(v, name, func(e ast.Node) {
				q := &Predicate{Pos: nodePos(e)}
				if d.mapping(e, "predicate", d.predicateFields(q, depth+1)) {
					*dst = append(*dst, q)
				}
			})
		}}
	}
	return []field{
		d.strInto("attribute", false, &p.Attribute),
		d.strInto("op", false, &p.Op),
		{"value", false, func(v ast.Node) { p.Value = d.value(v) }},
		sub("any", &p.Any),
		sub("all", &p.All),
	}
}

func (d *decoder) value(n ast.Node) *Value {
	n = d.plain(n)
	if n == nil {
		return nil
	}
	v := &Value{Pos: nodePos(n)}
	if s, ok := n.(*ast.SequenceNode); ok {
		v.IsList = true
		for _, e := range s.Values {
			if sc, ok := d.scalar(e); ok {
				v.Items = append(v.Items, sc)
			}
		}
		return v
	}
	if sc, ok := d.scalar(n); ok {
		v.Items = []Scalar{sc}
		return v
	}
	return nil
}

func (d *decoder) scalar(n ast.Node) (Scalar, bool) {
	n = d.plain(n)
	p := nodePos(n)
	switch v := n.(type) {
	case nil:
		return Scalar{}, false
	case *ast.StringNode:
		return Scalar{Pos: p, Str: v.Value}, true
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			return Scalar{Pos: p, IsNum: true, Num: float64(x)}, true
		case uint64:
			return Scalar{Pos: p, IsNum: true, Num: float64(x)}, true
		}
	case *ast.FloatNode:
		return Scalar{Pos: p, IsNum: true, Num: v.Value}, true
	}
	d.add(p, "`value`: want a string or a number")
	return Scalar{}, false
}

func (d *decoder) tool(n ast.Node) *Tool {
	t := &Tool{Pos: nodePos(n)}
	if !d.mapping(n, "tool", []field{
		d.strInto("name", true, &t.Name),
		d.strInto("description", true, &t.Description),
		d.strInto("shape", true, &t.Shape),
		d.strInto("class", true, &t.Class),
		d.strInto("dataset", true, &t.Dataset),
		d.strInto("attribute", false, &t.Attribute),
		d.strInto("entity", false, &t.Entity),
		d.strInto("at", false, &t.At),
		{"filter", false, func(v ast.Node) {
			f := &Filter{Pos: nodePos(v)}
			if d.mapping(v, "filter", []field{
				d.strInto("param", true, &f.Param),
				d.strInto("description", false, &f.Description),
				d.strInto("attribute", false, &f.Attribute),
				{"values", false, func(v ast.Node) { f.Values = d.strs(v, "values") }},
				{"conditions", false, func(v ast.Node) { f.Conditions = d.strs(v, "conditions") }},
			}) {
				t.Filter = f
			}
		}},
		{"phrasings", false, func(v ast.Node) { t.Phrasings = d.strs(v, "phrasings") }},
		{"keywords", false, func(v ast.Node) { t.Keywords = d.strs(v, "keywords") }},
		{"answer", false, func(v ast.Node) {
			a := &Answer{Pos: nodePos(v)}
			if d.mapping(v, "answer", []field{
				d.strInto("value", true, &a.Value),
				d.strInto("none", false, &a.None),
				d.strInto("check", false, &a.Check),
			}) {
				t.Answer = a
			}
		}},
		d.strInto("tier", false, &t.Tier),
		d.strInto("effect", false, &t.Effect),
		{"task", false, func(v ast.Node) { t.Task = d.task(v) }},
	}) {
		return nil
	}
	return t
}

// synonyms decodes an attribute's synonyms: a mapping from each value to
// a list of phrases.
func (d *decoder) synonyms(n ast.Node) []*Synonyms {
	n = d.plain(n)
	if n == nil {
		return nil
	}
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.add(nodePos(n), "`synonyms`: want a mapping from each value to a list of phrases")
		return nil
	}
	out := []*Synonyms{}
	seen := map[string]Pos{}
	for _, mv := range m.Values {
		kp := nodePos(mv.Key)
		k, ok := mv.Key.(*ast.StringNode)
		if !ok {
			d.add(kp, "`synonyms`: want a plain string key")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.add(kp, "duplicate key%s (first at line %d, column %d)", quote(k.Value), first.Line, first.Column)
			continue
		}
		seen[k.Value] = kp
		if _, null := mv.Value.(*ast.NullNode); null || mv.Value == nil {
			d.add(valuePos(mv), "`synonyms`: missing value")
			continue
		}
		out = append(out, &Synonyms{Pos: kp, Value: Ref{Value: k.Value, Pos: kp}, Phrases: d.strs(mv.Value, "synonyms")})
	}
	return out
}

func (d *decoder) semanticModel(n ast.Node) *SemanticModel {
	sm := &SemanticModel{Pos: nodePos(n)}
	if !d.mapping(n, "semantic model", []field{
		d.strInto("name", true, &sm.Name),
		d.strInto("dataset", true, &sm.Dataset),
		{"dimensions", true, func(v ast.Node) {
			d.seq(v, "dimensions", func(e ast.Node) {
				x := &Dimension{Pos: nodePos(e)}
				if d.mapping(e, "dimension", []field{
					d.strInto("name", true, &x.Name),
					d.strInto("type", false, &x.Type),
					d.strInto("column", true, &x.Column),
					d.strInto("entity", false, &x.Entity),
					{"values", false, func(v ast.Node) { x.Values = d.strs(v, "values") }},
					d.strInto("description", false, &x.Description),
				}) {
					sm.Dimensions = append(sm.Dimensions, x)
				}
			})
		}},
		{"measures", true, func(v ast.Node) {
			d.seq(v, "measures", func(e ast.Node) {
				x := &Measure{Pos: nodePos(e)}
				if d.mapping(e, "measure", []field{
					d.strInto("name", true, &x.Name),
					d.strInto("agg", true, &x.Agg),
					d.strInto("column", false, &x.Column),
					d.strInto("condition", false, &x.Condition),
					{"filter", false, func(v ast.Node) {
						p := &Predicate{Pos: nodePos(v)}
						if d.mapping(v, "filter", d.predicateFields(p, 0)) {
							x.Filter = p
						}
					}},
					d.strInto("sample", false, &x.Sample),
				}) {
					sm.Measures = append(sm.Measures, x)
				}
			})
		}},
	}) {
		return nil
	}
	return sm
}

func (d *decoder) metric(n ast.Node) *Metric {
	m := &Metric{Pos: nodePos(n)}
	if !d.mapping(n, "metric", []field{
		d.strInto("name", true, &m.Name),
		d.strInto("type", true, &m.Type),
		d.strInto("definition", true, &m.Definition),
		d.strInto("owner", true, &m.Owner),
		d.strInto("unit", true, &m.Unit),
		{"domain", false, func(v ast.Node) {
			dm := &Domain{Pos: nodePos(v)}
			num := func(name string, dst **Scalar) field {
				return field{name, false, func(v ast.Node) {
					if s, ok := d.scalar(v); ok {
						if !s.IsNum {
							d.add(s.Pos, "`%s`: want a number", name)
							return
						}
						*dst = &s
					}
				}}
			}
			if d.mapping(v, "domain", []field{num("min", &dm.Min), num("max", &dm.Max)}) {
				m.Domain = dm
			}
		}},
		d.strInto("grain", true, &m.Grain),
		d.strInto("time_dimension", true, &m.TimeDimension),
		{"dimensions", true, func(v ast.Node) { m.Dimensions = d.strs(v, "dimensions") }},
		d.strInto("measure", false, &m.Measure),
		d.strInto("numerator", false, &m.Numerator),
		d.strInto("denominator", false, &m.Denominator),
		d.strInto("expr", false, &m.Expr),
		{"tolerance", false, func(v ast.Node) {
			if s, ok := d.scalar(v); ok {
				if !s.IsNum {
					d.add(s.Pos, "`tolerance`: want a number")
					return
				}
				m.Tolerance = &s
			}
		}},
		d.strInto("fixture", true, &m.Fixture),
		{"phrases", false, func(v ast.Node) { m.Phrases = d.strs(v, "phrases") }},
	}) {
		return nil
	}
	return m
}
