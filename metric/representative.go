package metric

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
)

// Representative returns requests that together exercise every shape of
// SQL metric m of cat compiles to, for checking the compiled text without
// data (provenant validate parses each with DuckDB's parser). For each
// grain a request may ask of m (none, and every grain from m's own up
// when m is bucketed): one request with no dimension; one per allowed
// dimension, grouped by it and filtered on it (eq); and one with every
// allowed dimension (up to MaxDimensions), each filtered (in), ordered
// by value with a limit. Every request is scoped to one value of the
// scope entity when m's dataset has it. Filter and scope values are
// examples made from the declared values or the id pattern: only the
// SQL's shape matters, as values are parameters. A dimension for which
// no example can be made is grouped by but not filtered on.
func Representative(cat *catalog.Catalog, m *catalog.Metric) []Request {
	grains := []string{catalog.GrainNone}
	if r := catalog.GrainRank(m.Grain.Value); r > 0 {
		grains = append(grains, catalog.Grains()[r:]...)
	}
	var ds *catalog.Dataset
	var sm *catalog.SemanticModel
	if sm = cat.ModelOf(m); sm != nil {
		ds = cat.Dataset(sm.Dataset.Value)
	}
	scope := All()
	if ds != nil {
		if e := ds.Entity(cat.ScopeEntity.Value); e != nil {
			if v, ok := patternExample(e.Pattern.Value); ok {
				scope = Only(v)
			}
		}
	}
	var dims []string
	for _, d := range m.Dimensions {
		if len(dims) < MaxDimensions {
			dims = append(dims, d.Value)
		}
	}
	filter := func(name, op string) (Filter, bool) {
		if sm == nil || ds == nil {
			return Filter{}, false
		}
		d := sm.Dimension(name)
		if d == nil {
			return Filter{}, false
		}
		v, ok := exampleValue(ds, d)
		return Filter{Dimension: name, Op: op, Values: []string{v}}, ok
	}
	start := time.Date(2000, 1, 3, 0, 0, 0, 0, time.UTC) // a Monday
	end := start.AddDate(0, 2, 0)
	var out []Request
	for _, g := range grains {
		base := Request{Metric: m.Name.Value, Grain: g, Start: start, End: end, Scope: scope}
		out = append(out, base)
		for _, d := range dims {
			r := base
			r.Dimensions = []string{d}
			if f, ok := filter(d, "eq"); ok {
				r.Filters = []Filter{f}
			}
			out = append(out, r)
		}
		if len(dims) > 1 {
			r := base
			r.Dimensions = slices.Clone(dims)
			for _, d := range dims {
				if f, ok := filter(d, "in"); ok && len(r.Filters) < MaxFilters {
					r.Filters = append(r.Filters, f)
				}
			}
			r.Order, r.Limit = Order{By: OrderValue, Desc: true}, 1
			out = append(out, r)
		}
	}
	return out
}

// exampleValue is a value a filter on d accepts: a declared value of the
// dimension or its attribute, else an example of its entity's id pattern.
func exampleValue(ds *catalog.Dataset, d *catalog.Dimension) (string, bool) {
	check, err := valueCheck(ds, d)
	if err != nil {
		return "", false
	}
	var cands []string
	for _, v := range d.Values {
		cands = append(cands, v.Value)
	}
	for _, a := range ds.Attributes {
		if a.Column.Value == d.Column.Value {
			for _, v := range a.Values {
				cands = append(cands, v.Value)
			}
		}
	}
	for _, e := range ds.Entities {
		if e.Column.Value == d.Column.Value || e.Name.Value == d.Entity.Value {
			if v, ok := patternExample(e.Pattern.Value); ok {
				cands = append(cands, v)
			}
		}
	}
	cands = append(cands, "x")
	for _, v := range cands {
		if v != "" && len(v) <= MaxValueLength && check(v) == "" {
			return v, true
		}
	}
	return "", false
}

// patternExample returns a short string that pattern (a Go regexp)
// matches, when one is easily made: the first branch of each
// alternation, the least count of each repetition, the first character
// of each class.
func patternExample(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !example(&b, re, 0) || b.Len() == 0 || b.Len() > MaxValueLength {
		return "", false
	}
	full, err := regexp.Compile(pattern)
	if err != nil || !full.MatchString(b.String()) {
		return "", false
	}
	return b.String(), true
}

func example(b *strings.Builder, re *syntax.Regexp, depth int) bool {
	if depth > 50 || b.Len() > MaxValueLength {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		b.WriteRune(re.Rune[0])
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpStar, syntax.OpQuest:
	case syntax.OpCapture, syntax.OpPlus:
		return example(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for range re.Min {
			if !example(b, re.Sub[0], depth+1) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !example(b, s, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return example(b, re.Sub[0], depth+1)
	default:
		return false
	}
	return true
}
