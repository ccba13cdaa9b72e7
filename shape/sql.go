package shape

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/sqlcond"
)

// query accumulates SQL text and its positional arguments ($1, $2, ...),
// a form DuckDB, PostgreSQL and its wire-compatible engines all take.
type query struct {
	args []any
}

// param binds v and returns its placeholder.
func (q *query) param(v any) string {
	q.args = append(q.args, v)
	return placeholder(len(q.args))
}

// bind binds v and returns its placeholder's number, for a text rendered
// apart (Engine.text).
func (q *query) bind(v any) int {
	q.args = append(q.args, v)
	return len(q.args)
}

// bindAll binds vs in order and returns the first one's placeholder
// number.
func (q *query) bindAll(vs []string) int {
	first := len(q.args) + 1
	for _, v := range vs {
		q.args = append(q.args, v)
	}
	return first
}

// instantText renders the placeholder number n as a TIMESTAMP, as
// instant does.
func instantText(n int) string { return "CAST(" + placeholder(n) + " AS TIMESTAMP)" }

// sqlInstant is t in the form instant binds.
func sqlInstant(t time.Time) string { return t.UTC().Format(sqlTime) }

// placeholders are the first placeholders, made once: a call binds a few
// arguments, and each would otherwise be a string of its own.
var placeholders = func() [64]string {
	var out [64]string
	for i := range out {
		out[i] = "$" + strconv.Itoa(i)
	}
	return out
}()

// placeholder is the n-th positional placeholder, $n.
func placeholder(n int) string {
	if n < len(placeholders) {
		return placeholders[n]
	}
	return "$" + strconv.Itoa(n)
}

// instant binds a time as a TIMESTAMP (UTC, no time zone).
func (q *query) instant(t time.Time) string {
	return instantText(q.bind(sqlInstant(t)))
}

// list binds vs and returns "($1, $2)".
func (q *query) list(vs []string) string {
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = q.param(v)
	}
	return "(" + strings.Join(ph, ", ") + ")"
}

// col returns alias.column, quoted.
func col(alias, column string) string { return sqlcond.Column(alias, column) }

// condition returns the predicate a tool's filter argument selects: a
// named condition, or equality on the filter's enumerated attribute.
func (p *plan) condition(c Call) (*catalog.Predicate, error) {
	f := p.tool.Filter
	v, err := arg(c, f.Param.Value)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(p.tool.FilterValues(p.ds), v) {
		return nil, &ArgError{Param: f.Param.Value, Reason: "is not one of " + strings.Join(p.tool.FilterValues(p.ds), ", ")}
	}
	if f.Conditions != nil {
		cond := p.ds.Condition(v)
		if cond == nil {
			return nil, &ArgError{Param: f.Param.Value, Reason: "names no condition of the dataset"}
		}
		return &cond.Predicate, nil
	}
	return &catalog.Predicate{
		Attribute: f.Attribute,
		Op:        catalog.Ref{Value: "eq"},
		Value:     &catalog.Value{Items: []catalog.Scalar{{Str: v}}},
	}, nil
}

// predicateColumns returns the columns a predicate reads.
func (p *plan) predicateColumns(pr *catalog.Predicate, out []string) []string {
	if pr.Attribute.Value != "" {
		if a := p.ds.Attribute(pr.Attribute.Value); a != nil && !slices.Contains(out, a.Column.Value) {
			out = append(out, a.Column.Value)
		}
	}
	for _, s := range append(slices.Clone(pr.Any), pr.All...) {
		out = p.predicateColumns(s, out)
	}
	return out
}

// predicate renders pr over the row aliased alias (sqlcond.Predicate,
// the one renderer of a catalog condition, which metric uses too).
func (p *plan) predicate(q *query, alias string, pr *catalog.Predicate) (string, error) {
	sql, err := sqlcond.Predicate(p.ds, alias, pr, func(v string) string { return q.param(v) })
	if err != nil {
		return "", fmt.Errorf("render condition: %w", err)
	}
	return sql, nil
}

// scopeSQL restricts rows aliased alias to the caller's scope: "" for
// everything, a predicate otherwise.
func (p *plan) scopeSQL(q *query, alias string, s Scope) string {
	return p.scopeText(alias, p.scopeBind(q, s))
}

// scopeBound is a scope's values bound in a query: the shape of its text
// (scopeAll, scopeNone, or the number of values) and the number of the
// first value's placeholder.
type scopeBound struct{ n, first int }

const (
	scopeAll  = -1 // no restriction
	scopeNone = 0  // nothing is in scope
)

// scopeBind binds the values of a scope that allows some, for scopeText.
func (p *plan) scopeBind(q *query, s Scope) scopeBound {
	switch {
	case s.IsAll():
		return scopeBound{n: scopeAll}
	case p.scope == nil || len(s.values) == 0:
		return scopeBound{n: scopeNone}
	}
	b := scopeBound{n: len(s.values), first: len(q.args) + 1}
	for _, v := range s.values {
		q.args = append(q.args, v)
	}
	return b
}

// scopeText renders the restriction of a bound scope on rows aliased
// alias.
func (p *plan) scopeText(alias string, b scopeBound) string {
	switch b.n {
	case scopeAll:
		return ""
	case scopeNone:
		return " AND 1 = 0"
	}
	ph := make([]string, b.n)
	for i := range ph {
		ph[i] = placeholder(b.first + i)
	}
	return " AND " + col(alias, p.scope.Column.Value) + " IN (" + strings.Join(ph, ", ") + ")"
}

// seriesArgs returns the series' columns with the call's value for each.
func (p *plan) seriesArgs(c Call) ([]string, error) {
	out := make([]string, len(p.series))
	for i, e := range p.series {
		v, err := arg(c, e.Column.Value)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Digest is the digest of a provenance key list (fact.Digest): SHA-256
// over the keys sorted bytewise, each followed by a newline, in lowercase
// hex. The order of keys does not matter; duplicates do.
func Digest(keys []string) string { return fact.Digest(keys) }

// distinctSorted returns the distinct values of vs, sorted: vs itself
// when its values already are (strictly increasing, as a window's keys
// come from an index on time where the keys follow time: an O(n) check
// instead of an O(n log n) sort), else a sorted copy.
func distinctSorted(vs []string) []string {
	if increasing(vs) {
		return vs
	}
	out := slices.Clone(vs)
	slices.Sort(out)
	return slices.Compact(out)
}

// increasing reports whether every value of vs is greater than the one
// before.
func increasing(vs []string) bool {
	for i := 1; i < len(vs); i++ {
		if vs[i] <= vs[i-1] {
			return false
		}
	}
	return true
}
