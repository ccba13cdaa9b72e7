package shape

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
)

// query accumulates SQL text and its positional arguments ($1, $2, ...),
// a form DuckDB, PostgreSQL and its wire-compatible engines all take.
type query struct {
	args []any
}

// param binds v and returns its placeholder.
func (q *query) param(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// instant binds a time as a TIMESTAMP (UTC, no time zone).
func (q *query) instant(t time.Time) string {
	return "CAST(" + q.param(t.UTC().Format(sqlTime)) + " AS TIMESTAMP)"
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
func col(alias, column string) string { return alias + "." + ident(column) }

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

var sqlOps = map[string]string{"eq": "=", "ne": "<>", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}

// predicate renders pr over the row aliased alias. An empty (null) value
// never meets a comparison: SQL's unknown is false in WHERE, and the
// combinations (AND, OR, never NOT) keep it so.
func (p *plan) predicate(q *query, alias string, pr *catalog.Predicate) (string, error) {
	if len(pr.Any) > 0 || len(pr.All) > 0 {
		subs, join := pr.Any, " OR "
		if len(pr.All) > 0 {
			subs, join = pr.All, " AND "
		}
		parts := make([]string, len(subs))
		for i, s := range subs {
			sql, err := p.predicate(q, alias, s)
			if err != nil {
				return "", err
			}
			parts[i] = sql
		}
		return "(" + strings.Join(parts, join) + ")", nil
	}
	a := p.ds.Attribute(pr.Attribute.Value)
	if a == nil || pr.Value == nil || len(pr.Value.Items) == 0 {
		return "", errors.New("render condition: malformed comparison")
	}
	column := col(alias, a.Column.Value)
	literal := func(s catalog.Scalar) (string, error) {
		if a.Enumerated() {
			return q.param(s.Str), nil
		}
		return number(s.Num)
	}
	switch op := pr.Op.Value; op {
	case "in", "not_in":
		items := make([]string, len(pr.Value.Items))
		for i, s := range pr.Value.Items {
			l, err := literal(s)
			if err != nil {
				return "", err
			}
			items[i] = l
		}
		kw := " IN ("
		if op == "not_in" {
			kw = " NOT IN ("
		}
		return column + kw + strings.Join(items, ", ") + ")", nil
	default:
		sqlOp, ok := sqlOps[op]
		if !ok {
			return "", errors.New("render condition: unknown operator")
		}
		l, err := literal(pr.Value.Items[0])
		if err != nil {
			return "", err
		}
		return column + " " + sqlOp + " " + l, nil
	}
}

// number renders a catalog number as an SQL numeric literal. Numbers come
// from the catalog, not from a caller, and are formatted here, so they
// are inlined rather than bound: a bound float against a BIGINT column
// is an error on PostgreSQL.
func number(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", errors.New("render condition: not a finite number")
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), nil
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

// scopeSQL restricts rows aliased alias to the caller's scope: "" for
// everything, a predicate otherwise.
func (p *plan) scopeSQL(q *query, alias string, s Scope) string {
	switch {
	case s.IsAll():
		return ""
	case p.scope == nil || len(s.values) == 0:
		return " AND 1 = 0"
	}
	return " AND " + col(alias, p.scope.Column.Value) + " IN " + q.list(s.values)
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

// distinctSorted returns the distinct values of vs, sorted.
func distinctSorted(vs []string) []string {
	out := slices.Clone(vs)
	slices.Sort(out)
	return slices.Compact(out)
}
