package catalog

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/provenant/provenant/phrase"
)

var (
	snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	upperCase = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	// enumValue is an enumerated attribute's value: printable, no spaces.
	enumValue = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
	// word is a phrase of the parser's vocabulary (a synonym, a noun, a
	// keyword): lowercase words separated by one space, hyphen or
	// apostrophe, as a normalised question writes them.
	word = regexp.MustCompile(`^[a-z0-9]+([ '-][a-z0-9]+)*$`)
)

// phrases checks a list of vocabulary phrases: a list given is not empty,
// and each phrase is well formed and appears once. at is where the list's
// owner is, for an empty list.
func phrases(v *errs, rs []Ref, what string, at Pos) {
	if rs != nil && len(rs) == 0 {
		v.add(at, "want at least one %s in the list", what)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if !word.MatchString(r.Value) {
			v.add(r.Pos, "%s%s: want lowercase words separated by single spaces, hyphens or apostrophes", what, quote(r.Value))
			continue
		}
		if seen[r.Value] {
			v.add(r.Pos, "duplicate %s%s", what, quote(r.Value))
		}
		seen[r.Value] = true
	}
}

// Validate checks the references between fields: names are unique and
// well formed; each dataset has exactly one of table and files, entities
// whose id patterns compile, series and attributes that fit; each
// condition names a declared attribute, an operator fitting its kind and
// declared values; each tool's shape fits its dataset; the scope entity
// exists in every dataset a tool uses. Semantic models and metrics are checked by
// validateMetrics. It returns every problem found as
// an ErrorList, or nil.
func (c *Catalog) Validate() error {
	v := &errs{file: c.File}
	name(v, c.Name, "catalog name", snakeCase)
	if c.Currency.Value != "" && !slices.Contains(Currencies(), c.Currency.Value) {
		v.add(c.Currency.Pos, "%s", unknown("currency", c.Currency.Value, Currencies()))
	}
	if strings.TrimSpace(c.Version.Value) == "" {
		v.add(c.Version.Pos, "`version`: want a non-empty string")
	}
	if len(c.Datasets) == 0 {
		v.add(c.Name.Pos, "catalog declares no datasets")
	}
	if len(c.Tools) == 0 {
		v.add(c.Name.Pos, "catalog declares no tools")
	}
	datasets := map[string]*Dataset{}
	for _, ds := range c.Datasets {
		validateDataset(v, ds)
		if _, dup := datasets[ds.Name.Value]; dup {
			v.add(ds.Name.Pos, "duplicate dataset name%s", quote(ds.Name.Value))
		} else {
			datasets[ds.Name.Value] = ds
		}
	}
	tools := map[string]bool{}
	scopeChecked := map[string]bool{}
	for _, t := range c.Tools {
		if tools[t.Name.Value] {
			v.add(t.Name.Pos, "duplicate tool name%s", quote(t.Name.Value))
		}
		tools[t.Name.Value] = true
		ds := datasets[t.Dataset.Value]
		if ds == nil {
			v.add(t.Dataset.Pos, "%s", unknown("dataset", t.Dataset.Value, sortedKeys(datasets)))
		}
		validateTool(v, t, ds)
		if t.Shape.Value == ShapeAppendTask {
			validateTask(v, t, ds, c.ScopeEntity.Value)
		} else if t.Task != nil {
			v.add(t.Task.Pos, "tool %s: shape `%s` takes no `task`", show(t.Name.Value), t.Shape.Value)
		}
		if ds != nil && !scopeChecked[ds.Name.Value] {
			scopeChecked[ds.Name.Value] = true
			if ds.entity(c.ScopeEntity.Value) == nil {
				v.add(c.ScopeEntity.Pos, "scope entity%s is not an entity of dataset %s, which tool %s uses%s",
					quote(c.ScopeEntity.Value), show(ds.Name.Value), show(t.Name.Value), ds.didYouMean(c.ScopeEntity.Value))
			}
		}
	}
	prompts := map[string]bool{}
	for _, p := range c.Prompts {
		if prompts[p.Name.Value] {
			v.add(p.Name.Pos, "duplicate prompt name%s", quote(p.Name.Value))
		}
		prompts[p.Name.Value] = true
		validatePrompt(v, c, p, datasets)
	}
	validateMetrics(v, c, datasets)
	validateSQL(v, c)
	validateWrites(v, c)
	return v.err()
}

// validatePrompt checks a prompt: a snake_case name, a description, unique
// arguments each naming a parameter of a declared tool, and a text whose
// placeholders are exactly {name} of its arguments.
func validatePrompt(v *errs, c *Catalog, p *Prompt, datasets map[string]*Dataset) {
	name(v, p.Name, "prompt name", snakeCase)
	if strings.TrimSpace(p.Description.Value) == "" {
		v.add(p.Description.Pos, "prompt%s: `description` wants a non-empty string", quote(p.Name.Value))
	}
	var args []string
	for _, a := range p.Arguments {
		name(v, a.Name, "prompt argument name", snakeCase)
		if slices.Contains(args, a.Name.Value) {
			v.add(a.Name.Pos, "duplicate prompt argument%s", quote(a.Name.Value))
		}
		args = append(args, a.Name.Value)
		t := c.Tool(a.Tool.Value)
		if t == nil {
			names := make([]string, len(c.Tools))
			for i, t := range c.Tools {
				names[i] = t.Name.Value
			}
			v.add(a.Tool.Pos, "%s", unknown("tool", a.Tool.Value, names))
			continue
		}
		if params := t.Params(datasets[t.Dataset.Value]); params != nil && !slices.Contains(params, a.Name.Value) {
			v.add(a.Name.Pos, "prompt argument: %s of tool %s", unknown("parameter", a.Name.Value, params), show(t.Name.Value))
		}
	}
	if strings.TrimSpace(p.Text.Value) == "" {
		v.add(p.Text.Pos, "prompt%s: `text` wants a non-empty template", quote(p.Name.Value))
		return
	}
	tpl, err := phrase.ParseTemplate(p.Text.Value)
	if err != nil {
		v.add(p.Text.Pos, "prompt text: %s", syntaxReason(err))
		return
	}
	if value, ids, count := tpl.Uses(); value || ids || count {
		v.add(p.Text.Pos, "prompt text: {value}, {ids} and {count...} are for answers; a prompt names only its arguments")
	}
	for _, n := range tpl.Args() {
		if !slices.Contains(args, n) {
			v.add(p.Text.Pos, "prompt text: %s", unknown("argument", n, args))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// name checks that a name is present and matches re.
func name(v *errs, r Ref, what string, re *regexp.Regexp) {
	switch {
	case r.Value == "":
		v.add(r.Pos, "%s: want a non-empty name", what)
	case !re.MatchString(r.Value):
		form := "snake_case"
		if re == upperCase {
			form = "UPPER_SNAKE_CASE"
		}
		v.add(r.Pos, "%s%s: want %s (%s)", what, quote(r.Value), form, re.String())
	}
}

// didYouMean is "; did you mean `e`?" for the entity e of ds nearest to
// the unknown name n, or "" when none is near or n may not be echoed.
func (ds *Dataset) didYouMean(n string) string {
	if quote(n) == "" {
		return ""
	}
	names := make([]string, len(ds.Entities))
	for i, e := range ds.Entities {
		names[i] = e.Name.Value
	}
	if x := nearest(n, names); x != "" {
		return "; did you mean `" + x + "`?"
	}
	return ""
}

func (ds *Dataset) entity(n string) *Entity {
	for _, e := range ds.Entities {
		if e.Name.Value == n {
			return e
		}
	}
	return nil
}

func (ds *Dataset) attribute(n string) *Attribute {
	for _, a := range ds.Attributes {
		if a.Name.Value == n {
			return a
		}
	}
	return nil
}

func (ds *Dataset) condition(n string) *Condition {
	for _, c := range ds.Conditions {
		if c.Name.Value == n {
			return c
		}
	}
	return nil
}

func (ds *Dataset) entityNames() []string {
	var out []string
	for _, e := range ds.Entities {
		out = append(out, e.Name.Value)
	}
	return out
}

func (ds *Dataset) attributeNames(enumOnly bool) []string {
	var out []string
	for _, a := range ds.Attributes {
		if !enumOnly || a.Enumerated() {
			out = append(out, a.Name.Value)
		}
	}
	return out
}

func (ds *Dataset) conditionNames() []string {
	var out []string
	for _, c := range ds.Conditions {
		out = append(out, c.Name.Value)
	}
	return out
}

func refValues(rs []Ref) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Value
	}
	return out
}

// rowName is a dataset's name for one row: lowercase words.
var rowName = regexp.MustCompile(`^[a-z][a-z ]*$`)

// checkGlob checks a `files` glob as both of its readers take it: the
// engine matches it with filepath.Glob (the files' version) and DuckDB
// reads what its own globbing matches. They agree on `*`, `?` and `[...]`
// within one directory level; DuckDB's `**` descends into every
// directory below, where filepath.Glob reads it as `*`, so the version
// would miss files DuckDB reads. A malformed pattern is refused here
// rather than when the files are opened.
func checkGlob(v *errs, r Ref) {
	if strings.Contains(r.Value, "**") {
		v.add(r.Pos, "`files`: `**` is not supported (write one `*` for each directory level)")
		return
	}
	if _, err := filepath.Match(r.Value, ""); err != nil {
		v.add(r.Pos, "`files`: not a valid glob (an unclosed `[`, a malformed range or a trailing `\\`)")
	}
}

func validateDataset(v *errs, ds *Dataset) {
	name(v, ds.Name, "dataset name", snakeCase)
	if ds.RowName.Value != "" && !rowName.MatchString(ds.RowName.Value) {
		v.add(ds.RowName.Pos, "`row_name`: want lowercase words (%s)", rowName.String())
	}
	switch {
	case ds.Table.Value == "" && ds.Files.Value == "":
		v.add(ds.Pos, "dataset: want exactly one of `table` and `files`")
	case ds.Table.Value != "" && ds.Files.Value != "":
		v.add(ds.Files.Pos, "dataset: want exactly one of `table` and `files`, not both")
	case ds.Files.Value != "":
		if f := strings.ToLower(ds.Files.Value); !strings.HasSuffix(f, ".parquet") && !strings.HasSuffix(f, ".csv") {
			v.add(ds.Files.Pos, "`files`: want a Parquet or CSV path or glob (ending .parquet or .csv)")
		} else {
			checkGlob(v, ds.Files)
		}
	}
	// Columns: key, time, entities and attributes name distinct columns.
	columns := map[string]Pos{}
	column := func(r Ref, what string) {
		if r.Value == "" {
			v.add(r.Pos, "%s: want a non-empty column name", what)
			return
		}
		if first, dup := columns[r.Value]; dup {
			v.add(r.Pos, "column%s is already used at line %d, column %d", quote(r.Value), first.Line, first.Column)
			return
		}
		columns[r.Value] = r.Pos
	}
	column(ds.Key, "`key`")
	column(ds.Time, "`time`")
	names := map[string]bool{}
	uniqueName := func(r Ref, what string) {
		name(v, r, what, snakeCase)
		if names[r.Value] {
			v.add(r.Pos, "duplicate %s%s (entities and attributes share one namespace)", what, quote(r.Value))
		}
		names[r.Value] = true
	}
	if len(ds.Entities) == 0 {
		v.add(ds.Pos, "dataset declares no entities")
	}
	for _, e := range ds.Entities {
		uniqueName(e.Name, "entity name")
		column(e.Column, "entity `column`")
		p := e.Pattern.Value
		if !strings.HasPrefix(p, "^") || !strings.HasSuffix(p, "$") {
			v.add(e.Pattern.Pos, "`pattern`: want a regexp anchored with ^ and $")
		} else if _, err := regexp.Compile(p); err != nil {
			v.add(e.Pattern.Pos, "`pattern` does not compile as a Go regexp")
		}
		phrases(v, e.Nouns, "noun", e.Pos)
		if r := e.Reference; r != nil {
			if (r.Table.Value == "") == (r.Files.Value == "") {
				v.add(r.Pos, "reference: want exactly one of `table` and `files`")
			} else if r.Files.Value != "" {
				checkGlob(v, r.Files)
			}
			if r.ID.Value == "" || r.DisplayName.Value == "" {
				v.add(r.Pos, "reference: want non-empty `id` and `display_name` columns")
			}
			if r.Columns != nil && len(r.Columns) == 0 {
				v.add(r.Pos, "reference: `columns` is empty")
			}
			cols := map[string]bool{r.ID.Value: true, r.DisplayName.Value: true}
			for _, x := range r.Columns {
				name(v, x, "reference column", snakeCase)
				if cols[x.Value] {
					v.add(x.Pos, "reference column%s is already used", quote(x.Value))
				}
				cols[x.Value] = true
			}
		}
	}
	if len(ds.Attributes) == 0 {
		v.add(ds.Pos, "dataset declares no attributes")
	}
	for _, a := range ds.Attributes {
		uniqueName(a.Name, "attribute name")
		column(a.Column, "attribute `column`")
		switch {
		case a.Values == nil && a.Unit.Value == "":
			v.add(a.Pos, "attribute: want `values` (enumerated) or `unit` (numeric)")
		case a.Values != nil && a.Unit.Value != "":
			v.add(a.Unit.Pos, "attribute: want `values` (enumerated) or `unit` (numeric), not both")
		case a.Values != nil:
			if len(a.Values) == 0 {
				v.add(a.Pos, "attribute %s: `values` is empty", show(a.Name.Value))
			}
			seen := map[string]bool{}
			for _, x := range a.Values {
				if !enumValue.MatchString(x.Value) {
					v.add(x.Pos, "value%s: want letters, digits, _ . : - (%s)", quote(x.Value), enumValue.String())
				}
				if seen[x.Value] {
					v.add(x.Pos, "duplicate value%s", quote(x.Value))
				}
				seen[x.Value] = true
			}
			if a.Type.Value != "" {
				v.add(a.Type.Pos, "`type` applies to numeric attributes only")
			}
			validateSynonyms(v, a)
		default:
			if !slices.Contains(Units(), a.Unit.Value) {
				v.add(a.Unit.Pos, "%s", unknown("unit", a.Unit.Value, Units()))
			}
			if a.Synonyms != nil {
				v.add(a.Pos, "attribute %s: `synonyms` apply to enumerated attributes only", show(a.Name.Value))
			}
			if a.Type.Value != "" && !slices.Contains(Types(), a.Type.Value) {
				v.add(a.Type.Pos, "%s", unknown("type", a.Type.Value, Types()))
			}
		}
	}
	if len(ds.Series) == 0 {
		v.add(ds.Pos, "dataset: `series` names no entity")
	}
	inSeries := map[string]bool{}
	for _, s := range ds.Series {
		if ds.entity(s.Value) == nil {
			v.add(s.Pos, "%s", unknown("entity", s.Value, ds.entityNames()))
		} else if inSeries[s.Value] {
			v.add(s.Pos, "duplicate entity%s in `series`", quote(s.Value))
		}
		inSeries[s.Value] = true
	}
	conds := map[string]bool{}
	condOf := map[string]string{} // synonym → condition
	for _, c := range ds.Conditions {
		phrases(v, c.Synonyms, "synonym", c.Pos)
		for _, r := range c.Synonyms {
			if other, ok := condOf[r.Value]; ok && other != c.Name.Value {
				v.add(r.Pos, "synonym%s names conditions %s and %s", quote(r.Value), show(other), show(c.Name.Value))
			}
			condOf[r.Value] = c.Name.Value
		}
		name(v, c.Name, "condition name", upperCase)
		if conds[c.Name.Value] {
			v.add(c.Name.Pos, "duplicate condition name%s", quote(c.Name.Value))
		}
		conds[c.Name.Value] = true
		validatePredicate(v, ds, &c.Predicate)
	}
}

var (
	enumOps    = []string{"eq", "ne", "in", "not_in"}
	numericOps = Ops()
)

func validatePredicate(v *errs, ds *Dataset, p *Predicate) {
	leaf := p.Attribute.Value != "" || p.Op.Value != "" || p.Value != nil
	kinds := 0
	for _, b := range []bool{leaf, p.Any != nil, p.All != nil} {
		if b {
			kinds++
		}
	}
	if kinds != 1 {
		v.add(p.Pos, "condition: want exactly one of a comparison (`attribute`, `op`, `value`), `any` and `all`")
		return
	}
	if p.Any != nil || p.All != nil {
		list, what := p.Any, "any"
		if p.All != nil {
			list, what = p.All, "all"
		}
		if len(list) == 0 {
			v.add(p.Pos, "condition: `%s` is empty", what)
		}
		for _, q := range list {
			validatePredicate(v, ds, q)
		}
		return
	}
	if p.Attribute.Value == "" || p.Op.Value == "" || p.Value == nil {
		v.add(p.Pos, "condition: a comparison wants `attribute`, `op` and `value`")
		return
	}
	a := ds.attribute(p.Attribute.Value)
	if a == nil {
		v.add(p.Attribute.Pos, "%s", unknown("attribute", p.Attribute.Value, ds.attributeNames(false)))
		return
	}
	if !slices.Contains(Ops(), p.Op.Value) {
		v.add(p.Op.Pos, "%s", unknown("operator", p.Op.Value, Ops()))
		return
	}
	if a.Enumerated() && !slices.Contains(enumOps, p.Op.Value) {
		v.add(p.Op.Pos, "operator `%s` does not apply to enumerated attribute %s (want one of %s)",
			p.Op.Value, show(a.Name.Value), strings.Join(enumOps, ", "))
		return
	}
	wantList := p.Op.Value == "in" || p.Op.Value == "not_in"
	switch {
	case wantList && !p.Value.IsList:
		v.add(p.Value.Pos, "operator `%s` wants a list of values", p.Op.Value)
		return
	case !wantList && p.Value.IsList:
		v.add(p.Value.Pos, "operator `%s` wants one value, not a list", p.Op.Value)
		return
	case wantList && len(p.Value.Items) == 0:
		v.add(p.Value.Pos, "operator `%s` wants a non-empty list", p.Op.Value)
		return
	}
	for _, it := range p.Value.Items {
		switch {
		case a.Enumerated() && it.IsNum:
			v.add(it.Pos, "attribute %s is enumerated: want one of its values, not a number", show(a.Name.Value))
		case a.Enumerated() && !slices.Contains(refValues(a.Values), it.Str):
			v.add(it.Pos, "%s", unknown("value of attribute "+show(a.Name.Value), it.Str, refValues(a.Values)))
		case !a.Enumerated() && !it.IsNum:
			v.add(it.Pos, "attribute %s is numeric: want a number", show(a.Name.Value))
		}
	}
}

func validateTool(v *errs, t *Tool, ds *Dataset) {
	name(v, t.Name, "tool name", snakeCase)
	if strings.TrimSpace(t.Description.Value) == "" {
		v.add(t.Description.Pos, "`description`: want a non-empty string")
	}
	if len(t.Phrasings) == 0 && t.Shape.Value != ShapeAppendTask {
		v.add(t.Pos, "tool %s: want at least one phrasing", show(t.Name.Value))
	}
	for _, p := range t.Phrasings {
		if strings.TrimSpace(p.Value) == "" {
			v.add(p.Pos, "phrasing: want a non-empty string")
		}
	}
	phrases(v, t.Keywords, "keyword", t.Pos)
	want, ok := shapeClass[t.Shape.Value]
	if !ok {
		v.add(t.Shape.Pos, "%s", unknown("shape", t.Shape.Value, Shapes()))
		return
	}
	switch {
	case !slices.Contains(Classes(), t.Class.Value):
		v.add(t.Class.Pos, "%s", unknown("class", t.Class.Value, Classes()))
	case t.Class.Value != want:
		v.add(t.Class.Pos, "class `%s` does not fit shape `%s` (want `%s`)", t.Class.Value, t.Shape.Value, want)
	}
	// Which of attribute, entity, at and filter the shape takes.
	var needAttr, needEntity, needAt, needFilter bool
	switch t.Shape.Value {
	case ShapeLatestValue:
		needAttr = true
	case ShapeCountEntitiesWhere:
		needEntity, needFilter = true, true
	case ShapeListEntitiesInState:
		needEntity, needAt, needFilter = true, true, true
	case ShapeCountRowsInWindow:
		needAt, needFilter = true, true
	}
	presence := func(has, need bool, key string, p Pos) bool {
		switch {
		case need && !has:
			v.add(t.Pos, "tool %s: shape `%s` wants `%s`", show(t.Name.Value), t.Shape.Value, key)
		case !need && has:
			v.add(p, "tool %s: shape `%s` takes no `%s`", show(t.Name.Value), t.Shape.Value, key)
		}
		return has && need
	}
	checkAttr := presence(t.Attribute.Value != "", needAttr, "attribute", t.Attribute.Pos)
	checkEntity := presence(t.Entity.Value != "", needEntity, "entity", t.Entity.Pos)
	checkAt := presence(t.At.Value != "", needAt, "at", t.At.Pos)
	var fpos Pos
	if t.Filter != nil {
		fpos = t.Filter.Pos
	}
	checkFilter := presence(t.Filter != nil, needFilter, "filter", fpos)
	if ds == nil {
		return
	}
	if checkAttr {
		switch a := ds.attribute(t.Attribute.Value); {
		case a == nil:
			v.add(t.Attribute.Pos, "%s", unknown("attribute", t.Attribute.Value, ds.attributeNames(false)))
		case a.Optional:
			// An empty value on the latest row would be neither an
			// observation nor a grounded zero.
			v.add(t.Attribute.Pos, "tool %s: attribute %s is optional; shape `%s` wants a required attribute", show(t.Name.Value), show(a.Name.Value), t.Shape.Value)
		}
	}
	if checkEntity && ds.entity(t.Entity.Value) == nil {
		v.add(t.Entity.Pos, "%s", unknown("entity", t.Entity.Value, ds.entityNames()))
	}
	if checkAt && ds.entity(t.At.Value) == nil {
		v.add(t.At.Pos, "%s", unknown("entity", t.At.Value, ds.entityNames()))
	}
	if checkEntity && checkAt && t.Entity.Value == t.At.Value {
		v.add(t.At.Pos, "tool %s: `at` and `entity` name the same entity", show(t.Name.Value))
	}
	if checkFilter {
		validateFilter(v, t, ds)
	}
	if params := t.Params(ds); params != nil {
		for _, ph := range t.Phrasings {
			if strings.TrimSpace(ph.Value) == "" {
				continue
			}
			pat, err := phrase.Compile(ph.Value)
			if err != nil {
				v.add(ph.Pos, "phrasing: %s", syntaxReason(err))
				continue
			}
			for _, name := range pat.Params() {
				if !slices.Contains(params, name) {
					v.add(ph.Pos, "phrasing: %s", unknown("parameter", name, params))
				}
			}
		}
		if t.Answer != nil {
			validateAnswer(v, t, params)
			validateCheck(v, t, ds, params)
		}
		if checkFilter {
			seen := 0
			for _, p := range params {
				if p == t.Filter.Param.Value {
					seen++
				}
			}
			if seen > 1 || slices.Contains([]string{"as_of", "start", "end"}, t.Filter.Param.Value) {
				v.add(t.Filter.Param.Pos, "filter `param`%s collides with another parameter of the tool", quote(t.Filter.Param.Value))
			}
		}
	}
}

// syntaxReason is a phrase syntax error's text without the value.
func syntaxReason(err error) string {
	var se *phrase.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at character %d)", se.Reason, se.Offset+1)
	}
	return "does not parse"
}

// validateAnswer checks a tool's sentence templates: they parse, name only
// the tool's parameters, and use {value}, {ids} and {count...} only where
// the shape has them.
func validateAnswer(v *errs, t *Tool, params []string) {
	shape := t.Shape.Value
	for _, r := range []Ref{t.Answer.Value, t.Answer.None} {
		if r.Value == "" {
			if r == t.Answer.Value {
				v.add(t.Answer.Pos, "answer: `value` wants a non-empty template")
			}
			continue
		}
		tpl, err := phrase.ParseTemplate(r.Value)
		if err != nil {
			v.add(r.Pos, "answer: %s", syntaxReason(err))
			continue
		}
		if tpl.Asks() {
			v.add(r.Pos, "answer: {asked} and {match?yes|no} are for `check`")
		}
		for _, name := range tpl.Args() {
			if !slices.Contains(params, name) {
				v.add(r.Pos, "answer: %s", unknown("parameter", name, params))
			}
		}
		value, ids, count := tpl.Uses()
		switch {
		case value && shape != ShapeLatestValue:
			v.add(r.Pos, "answer: {value} is for shape `%s`; use {count:one|many} or {ids}", ShapeLatestValue)
		case ids && shape != ShapeCountEntitiesWhere && shape != ShapeListEntitiesInState && shape != ShapeAppendTask:
			v.add(r.Pos, "answer: {ids} is for shapes `%s`, `%s` and `%s`", ShapeCountEntitiesWhere, ShapeListEntitiesInState, ShapeAppendTask)
		case count && shape == ShapeLatestValue:
			v.add(r.Pos, "answer: {count...} is not for shape `%s`; use {value}", ShapeLatestValue)
		}
	}
}

// Params returns the names of the tool's parameters in a fixed order, or
// nil when the shape does not fit ds: latest_value (the series' entity
// columns, as_of); count_entities_where (filter, as_of);
// list_entities_in_state (at, filter, as_of); count_rows_in_window (at,
// filter, start, end). Schemas list them, and the wall checks them, in
// this order.
func (t *Tool) Params(ds *Dataset) []string {
	if ds == nil {
		return nil
	}
	col := func(name string) string {
		if e := ds.entity(name); e != nil {
			return e.Column.Value
		}
		return ""
	}
	out := t.params(ds, col)
	if slices.Contains(out, "") {
		return nil
	}
	return out
}

func (t *Tool) params(ds *Dataset, col func(string) string) []string {
	var out []string
	switch t.Shape.Value {
	case ShapeLatestValue:
		for _, s := range ds.Series {
			out = append(out, col(s.Value))
		}
		return append(out, "as_of")
	case ShapeCountEntitiesWhere:
		if t.Filter == nil {
			return nil
		}
		return []string{t.Filter.Param.Value, "as_of"}
	case ShapeListEntitiesInState:
		if t.Filter == nil {
			return nil
		}
		return []string{col(t.At.Value), t.Filter.Param.Value, "as_of"}
	case ShapeCountRowsInWindow:
		if t.Filter == nil {
			return nil
		}
		return []string{col(t.At.Value), t.Filter.Param.Value, "start", "end"}
	case ShapeAppendTask:
		if t.Task == nil {
			return nil
		}
		for _, e := range t.Task.Entities {
			out = append(out, col(e.Value))
		}
		return append(out, ParamQuantity, ParamRequestKey)
	}
	return nil
}

func validateFilter(v *errs, t *Tool, ds *Dataset) {
	f := t.Filter
	if f.Description.Pos != (Pos{}) && strings.TrimSpace(f.Description.Value) == "" {
		v.add(f.Description.Pos, "filter `description`: want a non-empty string")
	}
	name(v, f.Param, "filter `param`", snakeCase)
	hasAttr, hasConds := f.Attribute.Value != "", f.Conditions != nil
	if hasAttr == hasConds {
		v.add(f.Pos, "filter: want exactly one of `attribute` and `conditions`")
		return
	}
	if t.Shape.Value == ShapeListEntitiesInState && !hasAttr {
		v.add(f.Pos, "filter: shape `%s` wants an enumerated `attribute` (a state), not `conditions`", t.Shape.Value)
		return
	}
	if hasConds {
		if f.Values != nil {
			v.add(f.Pos, "filter: `values` goes with `attribute`, not `conditions`")
		}
		if len(f.Conditions) == 0 {
			v.add(f.Pos, "filter: `conditions` is empty")
		}
		seen := map[string]bool{}
		for _, c := range f.Conditions {
			if ds.condition(c.Value) == nil {
				v.add(c.Pos, "%s", unknown("condition", c.Value, ds.conditionNames()))
			} else if seen[c.Value] {
				v.add(c.Pos, "duplicate condition%s", quote(c.Value))
			}
			seen[c.Value] = true
		}
		return
	}
	a := ds.attribute(f.Attribute.Value)
	if a != nil && !a.Enumerated() {
		v.add(f.Attribute.Pos, "filter: attribute %s is numeric; want an enumerated attribute", show(a.Name.Value))
		return
	}
	if a == nil {
		v.add(f.Attribute.Pos, "%s", unknown("enumerated attribute", f.Attribute.Value, ds.attributeNames(true)))
		return
	}
	if f.Values != nil && len(f.Values) == 0 {
		v.add(f.Pos, "filter: `values` is empty")
	}
	for _, x := range f.Values {
		if !slices.Contains(refValues(a.Values), x.Value) {
			v.add(x.Pos, "%s", unknown("value of attribute "+show(a.Name.Value), x.Value, refValues(a.Values)))
		}
	}
}

// show returns "`s`" for a message, or a placeholder when s may not be
// echoed.
func show(s string) string {
	if !echoable(s) {
		return "(not shown)"
	}
	return "`" + s + "`"
}

// validateSynonyms checks an enumerated attribute's synonyms: each names
// a declared value, each phrase is well formed, and no phrase names two
// values.
func validateSynonyms(v *errs, a *Attribute) {
	values := refValues(a.Values)
	valueOf := map[string]string{}
	seen := map[string]bool{}
	for _, s := range a.Synonyms {
		if !slices.Contains(values, s.Value.Value) {
			v.add(s.Value.Pos, "synonyms: %s", unknown("value of attribute "+show(a.Name.Value), s.Value.Value, values))
			continue
		}
		if seen[s.Value.Value] {
			v.add(s.Value.Pos, "duplicate synonyms for%s", quote(s.Value.Value))
		}
		seen[s.Value.Value] = true
		phrases(v, s.Phrases, "synonym", s.Pos)
		for _, r := range s.Phrases {
			if other, ok := valueOf[r.Value]; ok && other != s.Value.Value {
				v.add(r.Pos, "synonym%s names values %s and %s", quote(r.Value), show(other), show(s.Value.Value))
			}
			valueOf[r.Value] = s.Value.Value
		}
	}
}

// validateCheck checks a tool's yes/no template: only latest_value over
// an enumerated attribute has one; it parses, names only the tool's
// parameters, and writes {value}.
func validateCheck(v *errs, t *Tool, ds *Dataset, params []string) {
	r := t.Answer.Check
	if r.Value == "" {
		if r.Pos != (Pos{}) {
			v.add(r.Pos, "answer: `check` wants a non-empty template")
		}
		return
	}
	a := ds.attribute(t.Attribute.Value)
	if t.Shape.Value == ShapeLatestValue && a == nil {
		return // the unknown attribute is reported already
	}
	if t.Shape.Value != ShapeLatestValue || !a.Enumerated() {
		v.add(r.Pos, "answer: `check` is for shape `%s` over an enumerated attribute", ShapeLatestValue)
		return
	}
	tpl, err := phrase.ParseTemplate(r.Value)
	if err != nil {
		v.add(r.Pos, "answer check: %s", syntaxReason(err))
		return
	}
	for _, name := range tpl.Args() {
		if !slices.Contains(params, name) {
			v.add(r.Pos, "answer check: %s", unknown("parameter", name, params))
		}
	}
	if value, ids, count := tpl.Uses(); !value || ids || count {
		v.add(r.Pos, "answer check: want {value} (the observed value), and no {ids} or {count...}")
	}
}
