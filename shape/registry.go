package shape

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/task"
	"github.com/provenant/provenant/tool"
)

// Defs derives the tool definitions of a validated catalog, in catalog
// order (the metric tool is MetricDef's): each tool's parameters with their domains (entity ids with their
// patterns, timestamps, the filter's enumerated values or condition
// names), its value's shape, and the descriptions every schema shows.
func Defs(cat *catalog.Catalog) ([]tool.Def, error) {
	defs := make([]tool.Def, 0, len(cat.Tools))
	for _, t := range cat.Tools {
		if !cat.Served(t) {
			// A write tool of a catalog that does not enable writes is
			// on no menu: no surface offers it and the wall refuses it.
			continue
		}
		ds := cat.Dataset(t.Dataset.Value)
		if ds == nil {
			return nil, fmt.Errorf("derive tool %s: dataset is not declared", t.Name.Value)
		}
		d := tool.Def{Name: t.Name.Value, Description: t.Description.Value, Class: t.Class.Value, Currency: cat.Currency.Value}
		if t.Tier.Value != "" || t.Effect.Value != "" {
			d.Tier, d.Effect = t.TierOf().String(), t.EffectOf().String()
		}
		for _, ph := range t.Phrasings {
			d.Phrasings = append(d.Phrasings, ph.Value)
		}
		if a := t.Answer; a != nil {
			d.Answer, d.None, d.Check = a.Value.Value, a.None.Value, a.Check.Value
		}
		for _, k := range t.Keywords {
			d.Keywords = append(d.Keywords, k.Value)
		}
		row := ds.RowName.Value
		if row == "" {
			row = "row"
		}
		for _, name := range t.Params(ds) {
			p, err := param(ds, t, name, row)
			if err != nil {
				return nil, fmt.Errorf("derive tool %s: %w", t.Name.Value, err)
			}
			d.Params = append(d.Params, p)
		}
		switch t.Shape.Value {
		case catalog.ShapeLatestValue:
			a := ds.Attribute(t.Attribute.Value)
			d.Attribute = a.Name.Value
			switch attrKind(a) {
			case fact.KindText:
				d.Value = fact.KindText
				for _, v := range a.Values {
					d.Values = append(d.Values, v.Value)
				}
				d.Asks = attrSynonyms(a, d.Values)
			case fact.KindInteger:
				d.Value, d.Unit = fact.KindInteger, a.Unit.Value
			default:
				d.Value, d.Unit = fact.KindNumber, a.Unit.Value
			}
		case catalog.ShapeCountEntitiesWhere, catalog.ShapeListEntitiesInState:
			e := ds.Entity(t.Entity.Value)
			d.Value = fact.KindEntityList
			if t.Shape.Value == catalog.ShapeCountEntitiesWhere {
				d.Value = fact.KindEntityCount
			}
			d.IDsField, d.IDsPattern = e.Name.Value+"_ids", e.Pattern.Value
		case catalog.ShapeCountRowsInWindow:
			d.Value = fact.KindRowCount
		case catalog.ShapeAppendTask:
			d.Value, d.IDsField, d.IDsPattern = fact.KindEntityList, TaskIDsField, task.IDPattern
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// NewRegistry derives the tool registry of a validated catalog: its
// tools (Defs), without the metric tool.
func NewRegistry(cat *catalog.Catalog) (*tool.Registry, error) {
	return newRegistry(cat, false)
}

// NewMenuRegistry derives the registry a catalog engine serves: the
// catalog's tools (Defs), then query_metric when the catalog declares
// metrics (MetricDef), then query_sql when it opts in to free SQL
// (SQLDef). NewRegistry leaves the metric tool out, for the
// callers that pin a menu of the scalar tools (recorded model exchanges,
// the model-free parser's property tests).
func NewMenuRegistry(cat *catalog.Catalog) (*tool.Registry, error) {
	return newRegistry(cat, true)
}

func newRegistry(cat *catalog.Catalog, metrics bool) (*tool.Registry, error) {
	defs, err := Defs(cat)
	if err != nil {
		return nil, err
	}
	if d, ok := MetricDef(cat); ok && metrics {
		defs = append(defs, d)
	}
	if d, ok := SQLDef(cat); ok && metrics {
		defs = append(defs, d)
	}
	reg, err := tool.NewRegistry(defs, cat.ScopeEntity.Value)
	if err != nil {
		return nil, err
	}
	if d := cat.Description.Value; d != "" {
		reg = reg.WithAbout(d)
	}
	if len(cat.Prompts) == 0 {
		return reg, nil
	}
	prompts, err := promptDefs(cat, defs)
	if err != nil {
		return nil, err
	}
	return reg.WithPrompts(prompts)
}

// promptDefs derives the catalog's prompts: each argument takes the
// domain of the parameter of its tool that it names, and that
// parameter's description unless it gives its own.
func promptDefs(cat *catalog.Catalog, defs []tool.Def) ([]tool.Prompt, error) {
	var out []tool.Prompt
	for _, p := range cat.Prompts {
		tp := tool.Prompt{Name: p.Name.Value, Description: p.Description.Value, Text: p.Text.Value}
		for _, a := range p.Arguments {
			i := slices.IndexFunc(defs, func(d tool.Def) bool { return d.Name == a.Tool.Value })
			if i < 0 {
				return nil, fmt.Errorf("derive prompt %s: argument %s: no tool %s", p.Name.Value, a.Name.Value, a.Tool.Value)
			}
			j := slices.IndexFunc(defs[i].Params, func(q tool.Param) bool { return q.Name == a.Name.Value })
			if j < 0 {
				return nil, fmt.Errorf("derive prompt %s: argument %s: not a parameter of %s", p.Name.Value, a.Name.Value, a.Tool.Value)
			}
			q := defs[i].Params[j]
			desc := a.Description.Value
			if desc == "" {
				desc = q.Description
			}
			tp.Args = append(tp.Args, tool.PromptArg{Name: a.Name.Value, Description: desc, Param: q})
		}
		out = append(out, tp)
	}
	return out, nil
}

// TaskIDsField is the ids field of an append_task tool's value: the id
// of the task it opened (or the one its request key opened before).
const TaskIDsField = "task_ids"

// param derives one parameter of t.
func param(ds *catalog.Dataset, t *catalog.Tool, name, row string) (tool.Param, error) {
	if t.Shape.Value == catalog.ShapeAppendTask && t.Task != nil {
		switch name {
		case catalog.ParamQuantity:
			return tool.Param{Name: name, Kind: tool.Integer, Min: int(t.Task.QuantityMin), Max: int(t.Task.QuantityMax),
				Description: fmt.Sprintf("The task's quantity, from %d to %d.", t.Task.QuantityMin, t.Task.QuantityMax)}, nil
		case catalog.ParamRequestKey:
			return tool.Param{Name: name, Kind: tool.Token, Pattern: task.KeyPattern, Hint: "1 to 64 letters, digits and _.:-",
				Description: "The client's request key: the same key with the same arguments returns the task it opened instead of opening a second one; with other arguments it is refused."}, nil
		}
	}
	switch name {
	case "as_of":
		return tool.Param{Name: name, Kind: tool.Timestamp,
			Description: "Instant (UTC, to the second, trailing Z); the latest " + row + " at or before it counts."}, nil
	case "start":
		return tool.Param{Name: name, Kind: tool.Timestamp, Description: "Window start, inclusive (UTC, to the second, trailing Z)."}, nil
	case "end":
		return tool.Param{Name: name, Kind: tool.Timestamp, Description: "Window end, exclusive (UTC, to the second, trailing Z)."}, nil
	}
	if f := t.Filter; f != nil && name == f.Param.Value {
		desc := f.Description.Value
		if desc == "" {
			if f.Conditions != nil {
				desc = "A condition, judged on the latest " + row + " of each series."
			} else {
				desc = "A value of " + f.Attribute.Value + "."
			}
		}
		p := tool.Param{Name: name, Kind: tool.Enum, Description: desc, Values: t.FilterValues(ds)}
		if f.Conditions != nil {
			for _, c := range f.Conditions {
				if cond := ds.Condition(c.Value); cond != nil && len(cond.Synonyms) > 0 {
					p.Synonyms = append(p.Synonyms, tool.Synonyms{Value: c.Value, Phrases: refs(cond.Synonyms)})
				}
			}
		} else if a := ds.Attribute(f.Attribute.Value); a != nil {
			p.Synonyms = attrSynonyms(a, p.Values)
		}
		return p, nil
	}
	for _, e := range ds.Entities {
		if e.Column.Value == name {
			hint := tool.PatternHint(e.Pattern.Value)
			return tool.Param{Name: name, Kind: tool.EntityID, Description: capitalize(e.Name.Value) + " id, " + hint + ".",
				Entity: e.Name.Value, Pattern: e.Pattern.Value, Hint: hint, Nouns: refs(e.Nouns)}, nil
		}
	}
	return tool.Param{}, fmt.Errorf("parameter %s has no domain", name)
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + strings.ReplaceAll(s[n:], "_", " ")
}

// attrSynonyms returns an enumerated attribute's synonyms of values, in
// the attribute's order.
func attrSynonyms(a *catalog.Attribute, values []string) []tool.Synonyms {
	var out []tool.Synonyms
	for _, s := range a.Synonyms {
		if slices.Contains(values, s.Value.Value) {
			out = append(out, tool.Synonyms{Value: s.Value.Value, Phrases: refs(s.Phrases)})
		}
	}
	return out
}

func refs(rs []catalog.Ref) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Value)
	}
	return out
}
