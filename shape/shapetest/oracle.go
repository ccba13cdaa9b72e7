package shapetest

import (
	"slices"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/shape"
)

// Oracle computes a call's value and provenance keys (sorted) over rows
// in plain Go: the catalog's semantics written a third time, by loops.
func Oracle(c *catalog.Catalog, rows []Row, call shape.Call) (fact.Value, []string) {
	tl := c.Tool(call.Tool)
	ds := c.Dataset(tl.Dataset.Value)
	scopeCol := ds.Entity(c.ScopeEntity.Value).Column.Value
	inScope := func(r Row) bool {
		if call.Scope.IsAll() {
			return true
		}
		return slices.Contains(call.Scope.Values(), *r.Str[scopeCol])
	}
	at := func(name string) time.Time {
		t, _ := time.Parse("2006-01-02T15:04:05Z", call.Args[name])
		return t
	}
	seriesOf := func(r Row) string {
		var parts []string
		for _, s := range ds.Series {
			parts = append(parts, *r.Str[ds.Entity(s.Value).Column.Value])
		}
		return strings.Join(parts, "\x00")
	}
	// latest returns the latest row at or before asOf of every series.
	latest := func(asOf time.Time) map[string]Row {
		out := map[string]Row{}
		for _, r := range rows {
			if r.Time.After(asOf) {
				continue
			}
			s := seriesOf(r)
			cur, ok := out[s]
			if !ok || r.Time.After(cur.Time) || (r.Time.Equal(cur.Time) && r.Key > cur.Key) {
				out[s] = r
			}
		}
		return out
	}
	var cond *catalog.Predicate
	if f := tl.Filter; f != nil {
		v := call.Args[f.Param.Value]
		if f.Conditions != nil {
			cond = &ds.Condition(v).Predicate
		} else {
			cond = &catalog.Predicate{Attribute: f.Attribute, Op: catalog.Ref{Value: "eq"},
				Value: &catalog.Value{Items: []catalog.Scalar{{Str: v}}}}
		}
	}
	var keys []string
	switch tl.Shape.Value {
	case catalog.ShapeLatestValue:
		a := ds.Attribute(tl.Attribute.Value)
		kind := fact.KindNumber
		switch {
		case a.Enumerated():
			kind = fact.KindText
		case a.Type.Value == "integer":
			kind = fact.KindInteger
		}
		want := make([]string, len(ds.Series))
		for i, s := range ds.Series {
			want[i] = call.Args[ds.Entity(s.Value).Column.Value]
		}
		r, ok := latest(at("as_of"))[strings.Join(want, "\x00")]
		if !ok || !inScope(r) {
			return fact.NoObservation(kind), nil
		}
		switch kind {
		case fact.KindText:
			return fact.Text(*r.Str[a.Column.Value]), []string{r.Key}
		case fact.KindInteger:
			return fact.Integer(int64(*r.Num[a.Column.Value]), a.Unit.Value), []string{r.Key}
		}
		v, _ := fact.Number(*r.Num[a.Column.Value], a.Unit.Value)
		return v, []string{r.Key}
	case catalog.ShapeCountEntitiesWhere, catalog.ShapeListEntitiesInState:
		ent := ds.Entity(tl.Entity.Value)
		var ids []string
		for _, r := range latest(at("as_of")) {
			if tl.At.Value != "" {
				col := ds.Entity(tl.At.Value).Column.Value
				if *r.Str[col] != call.Args[col] {
					continue
				}
			}
			if !inScope(r) || !meets(ds, cond, r) {
				continue
			}
			keys = append(keys, r.Key)
			if !slices.Contains(ids, *r.Str[ent.Column.Value]) {
				ids = append(ids, *r.Str[ent.Column.Value])
			}
		}
		slices.Sort(keys)
		slices.Sort(ids)
		if ids == nil {
			ids = []string{}
		}
		if tl.Shape.Value == catalog.ShapeCountEntitiesWhere {
			return fact.EntityCount(ent.Name.Value+"_ids", ids), keys
		}
		return fact.EntityList(ent.Name.Value+"_ids", ids), keys
	case catalog.ShapeCountRowsInWindow:
		col := ds.Entity(tl.At.Value).Column.Value
		start, end := at("start"), at("end")
		for _, r := range rows {
			if *r.Str[col] == call.Args[col] && !r.Time.Before(start) && r.Time.Before(end) &&
				inScope(r) && meets(ds, cond, r) {
				keys = append(keys, r.Key)
			}
		}
		slices.Sort(keys)
		return fact.RowCount(len(keys)), keys
	}
	return fact.Value{}, nil
}

// meets evaluates a predicate on a row; an empty value meets nothing.
func meets(ds *catalog.Dataset, p *catalog.Predicate, r Row) bool {
	switch {
	case len(p.Any) > 0:
		return slices.ContainsFunc(p.Any, func(s *catalog.Predicate) bool { return meets(ds, s, r) })
	case len(p.All) > 0:
		return !slices.ContainsFunc(p.All, func(s *catalog.Predicate) bool { return !meets(ds, s, r) })
	}
	a := ds.Attribute(p.Attribute.Value)
	if a.Enumerated() {
		s := r.Str[a.Column.Value]
		if s == nil {
			return false
		}
		in := slices.ContainsFunc(p.Value.Items, func(x catalog.Scalar) bool { return x.Str == *s })
		if p.Op.Value == "ne" || p.Op.Value == "not_in" {
			return !in
		}
		return in
	}
	n := r.Num[a.Column.Value]
	if n == nil {
		return false
	}
	x := p.Value.Items[0].Num
	switch p.Op.Value {
	case "eq":
		return *n == x
	case "ne":
		return *n != x
	case "in", "not_in":
		in := slices.ContainsFunc(p.Value.Items, func(s catalog.Scalar) bool { return s.Num == *n })
		return in == (p.Op.Value == "in")
	case "lt":
		return *n < x
	case "le":
		return *n <= x
	case "gt":
		return *n > x
	case "ge":
		return *n >= x
	}
	return false
}
