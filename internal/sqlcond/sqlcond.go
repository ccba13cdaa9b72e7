// Package sqlcond renders what a catalog declares as SQL text in the
// portable subset DuckDB and PostgreSQL share: quoted identifiers and
// relation names, numeric literals from the catalog, and the catalog's
// conditions (structured predicates, never SQL text) over a row. Values a
// caller chose never reach the text: enumerated values are bound through
// the caller's param function; numbers come from the catalog itself.
//
// Both users, the shapes' two formulations (package shape) and the metric
// compiler (package metric), render conditions the same way, so that a
// condition means the same rows in a tool's answer and in a metric.
package sqlcond

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/provenant/provenant/catalog"
)

// Ident quotes an identifier.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// QuoteName quotes a relation name, schema.table allowed.
func QuoteName(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = Ident(p)
	}
	return strings.Join(parts, ".")
}

// Column is alias.column, the column quoted.
func Column(alias, column string) string { return alias + "." + Ident(column) }

// ErrMalformed is returned for a predicate validation should have refused:
// a comparison without an attribute or a value, an unknown operator, a
// number that is not finite.
var ErrMalformed = errors.New("malformed condition")

// Number renders a catalog number as an SQL numeric literal. Numbers come
// from the catalog, not from a caller, and are formatted here, so they are
// inlined rather than bound: a bound float against a BIGINT column is an
// error on PostgreSQL.
func Number(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", ErrMalformed
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), nil
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

var ops = map[string]string{"eq": "=", "ne": "<>", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}

// Predicate renders pr, a condition of ds, over the row aliased alias,
// each comparison in parentheses. param binds an enumerated value and
// returns its placeholder. An empty (null) value never meets a
// comparison: SQL's unknown is false in WHERE and WHEN, and the
// combinations (AND, OR, never NOT) keep it so.
func Predicate(ds *catalog.Dataset, alias string, pr *catalog.Predicate, param func(string) string) (string, error) {
	if len(pr.Any) > 0 || len(pr.All) > 0 {
		subs, join := pr.Any, " OR "
		if len(pr.All) > 0 {
			subs, join = pr.All, " AND "
		}
		parts := make([]string, len(subs))
		for i, s := range subs {
			x, err := Predicate(ds, alias, s, param)
			if err != nil {
				return "", err
			}
			parts[i] = x
		}
		return "(" + strings.Join(parts, join) + ")", nil
	}
	a := ds.Attribute(pr.Attribute.Value)
	if a == nil || pr.Value == nil || len(pr.Value.Items) == 0 {
		return "", ErrMalformed
	}
	column := Column(alias, a.Column.Value)
	literal := func(s catalog.Scalar) (string, error) {
		if a.Enumerated() {
			return param(s.Str), nil
		}
		return Number(s.Num)
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
		return "(" + column + kw + strings.Join(items, ", ") + "))", nil
	default:
		o, ok := ops[op]
		if !ok {
			return "", ErrMalformed
		}
		l, err := literal(pr.Value.Items[0])
		if err != nil {
			return "", err
		}
		return "(" + column + " " + o + " " + l + ")", nil
	}
}
