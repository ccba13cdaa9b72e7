package catalog

import (
	"errors"
	"regexp"
	"slices"

	"github.com/goccy/go-yaml/ast"

	"github.com/provenant/provenant/autonomy"
)

// Autonomy tiers and write tools (issue 11).
//
// Every tool declares a tier (`tier: L1|L2|L3`) and a side-effect class
// (`effect: none|simulate|write`); a tool that declares neither is L1 and
// none, the read tools every catalog had before. Validate holds each
// tool to autonomy.CheckTool (write implies L3, none implies L1).
//
// One shape writes: append_task appends a task row (a restock task for a
// (store, product), a work order for a device) to the tasks table the
// `writes:` section names. Write tools are served only when the catalog
// says `writes: {enabled: true}`; a catalog that says nothing serves
// none.

// Writes is the catalog's `writes:` section.
type Writes struct {
	Pos Pos
	// Enabled serves the catalog's write tools. Off unless written
	// `enabled: true`.
	Enabled    bool
	EnabledPos Pos
	// Table is the tasks table append_task tools write to (unquoted;
	// schema.table allowed). Required when a tool appends tasks.
	Table Ref
}

// Task is an append_task tool's task.
type Task struct {
	Pos Pos
	// Kind is the task's kind, recorded on the row ("restock",
	// "work_order"): snake_case.
	Kind Ref
	// Entities are the entities whose ids name the task's subject; the
	// scope entity among them, so a principal writes only in its scope.
	Entities []Ref
	// QuantityMin and QuantityMax bound the task's quantity.
	QuantityMin, QuantityMax int64
	QuantityPos              Pos
}

// MaxQuantity is the largest quantity a task may declare as its bound.
const MaxQuantity = 1_000_000_000

// The parameters every append_task tool takes after its entities' ids.
const (
	ParamQuantity   = "quantity"
	ParamRequestKey = "request_key"
)

// RequestKeyPattern is what a client-supplied request key matches.
const RequestKeyPattern = `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`

// TierOf returns the tool's declared tier, L1 when unset. On a catalog
// that did not validate it may return an invalid tier.
func (t *Tool) TierOf() autonomy.Tier {
	if t.Tier.Value == "" {
		return autonomy.L1
	}
	tier, _ := autonomy.ParseTier(t.Tier.Value)
	return tier
}

// EffectOf returns the tool's declared side-effect class, none when
// unset.
func (t *Tool) EffectOf() autonomy.Effect {
	if t.Effect.Value == "" {
		return autonomy.None
	}
	e, _ := autonomy.ParseEffect(t.Effect.Value)
	return e
}

// WritesEnabled reports whether the catalog serves its write tools.
func (c *Catalog) WritesEnabled() bool { return c.Writes != nil && c.Writes.Enabled }

// Served reports whether the engine serves t: every read tool, and a
// write tool when writes are enabled.
func (c *Catalog) Served(t *Tool) bool {
	return t.EffectOf() != autonomy.Write || c.WritesEnabled()
}

// TasksTable returns the tasks table, "" when none is declared.
func (c *Catalog) TasksTable() string {
	if c.Writes == nil {
		return ""
	}
	return c.Writes.Table.Value
}

func (d *decoder) writes(n ast.Node) *Writes {
	w := &Writes{Pos: nodePos(n)}
	d.mapping(n, "writes", []field{
		{"enabled", false, func(v ast.Node) {
			w.EnabledPos = nodePos(v)
			w.Enabled = d.boolean(v, "enabled")
		}},
		d.strInto("table", false, &w.Table),
	})
	return w
}

func (d *decoder) task(n ast.Node) *Task {
	t := &Task{Pos: nodePos(n)}
	if !d.mapping(n, "task", []field{
		d.strInto("kind", true, &t.Kind),
		{"entities", true, func(v ast.Node) { t.Entities = d.strs(v, "entities") }},
		{"quantity", true, func(v ast.Node) {
			t.QuantityPos = nodePos(v)
			bound := func(name string, dst *int64) field {
				return field{name, true, func(v ast.Node) {
					if x, ok := d.integer(v, name); ok {
						*dst = x
					}
				}}
			}
			d.mapping(v, "quantity", []field{bound("min", &t.QuantityMin), bound("max", &t.QuantityMax)})
		}},
	}) {
		return nil
	}
	return t
}

var tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$`)

// validateWrites checks the `writes:` section and every tool's tier and
// effect.
func validateWrites(v *errs, c *Catalog) {
	var tasks []*Tool
	for _, t := range c.Tools {
		validateAutonomy(v, t)
		if t.Shape.Value == ShapeAppendTask {
			tasks = append(tasks, t)
		}
	}
	w := c.Writes
	switch {
	case len(tasks) > 0 && (w == nil || w.Table.Value == ""):
		p := tasks[0].Pos
		if w != nil {
			p = w.Pos
		}
		v.add(p, "tool %s appends tasks: `writes` wants a `table`", show(tasks[0].Name.Value))
	case w != nil && w.Table.Value != "" && !tableName.MatchString(w.Table.Value):
		v.add(w.Table.Pos, "`table`: want a lowercase table name (schema.table allowed)")
	case w != nil && w.Table.Value != "" && slices.Contains(c.Tables(), w.Table.Value):
		v.add(w.Table.Pos, "`table`: the tasks table must not be a table the datasets read")
	}
}

// validateAutonomy checks a tool's tier and effect: each from its closed
// set, together within autonomy.CheckTool's invariants, and effect write
// exactly for the write shape.
func validateAutonomy(v *errs, t *Tool) {
	tierOK, effectOK := true, true
	if t.Tier.Value != "" {
		if _, err := autonomy.ParseTier(t.Tier.Value); err != nil {
			v.add(t.Tier.Pos, "%s", unknown("tier", t.Tier.Value, []string{"L1", "L2", "L3"}))
			tierOK = false
		}
	}
	if t.Effect.Value != "" {
		if _, err := autonomy.ParseEffect(t.Effect.Value); err != nil {
			v.add(t.Effect.Pos, "%s", unknown("effect", t.Effect.Value, []string{"none", "simulate", "write"}))
			effectOK = false
		}
	}
	if !tierOK || !effectOK {
		return
	}
	at := t.Tier.Pos
	if at == (Pos{}) {
		at = t.Effect.Pos
	}
	if at == (Pos{}) {
		at = t.Pos
	}
	if err := autonomy.CheckTool(t.TierOf(), t.EffectOf()); err != nil {
		var ie *autonomy.InvariantError
		if errors.As(err, &ie) {
			v.add(at, "tool %s: tier %s does not fit effect %s (%s)", show(t.Name.Value), ie.Tier, ie.Effect, ie.Rule)
		} else {
			v.add(at, "tool %s: invalid tier or effect", show(t.Name.Value))
		}
		return
	}
	write := t.EffectOf() == autonomy.Write
	switch {
	case t.Shape.Value == ShapeAppendTask && !write:
		v.add(at, "tool %s: shape `%s` writes: declare `effect: write` and `tier: L3`", show(t.Name.Value), ShapeAppendTask)
	case t.Shape.Value != ShapeAppendTask && write && shapeClass[t.Shape.Value] != "":
		v.add(at, "tool %s: shape `%s` only reads: `effect: write` is for shape `%s`", show(t.Name.Value), t.Shape.Value, ShapeAppendTask)
	}
}

// validateTask checks an append_task tool's task against its dataset.
func validateTask(v *errs, t *Tool, ds *Dataset, scopeEntity string) {
	k := t.Task
	if k == nil {
		v.add(t.Pos, "tool %s: shape `%s` wants `task`", show(t.Name.Value), ShapeAppendTask)
		return
	}
	name(v, k.Kind, "task kind", snakeCase)
	if len(k.Entities) == 0 {
		v.add(k.Pos, "task: `entities`: want at least one entity")
	}
	seen := map[string]bool{}
	for _, e := range k.Entities {
		switch {
		case seen[e.Value]:
			v.add(e.Pos, "task: duplicate entity%s", quote(e.Value))
		case ds != nil && ds.entity(e.Value) == nil:
			v.add(e.Pos, "task: %s", unknown("entity", e.Value, ds.entityNames()))
		}
		seen[e.Value] = true
	}
	if len(k.Entities) > 0 && scopeEntity != "" && !seen[scopeEntity] {
		v.add(k.Pos, "task: `entities` must include the scope entity%s, so that a principal writes only in its scope", quote(scopeEntity))
	}
	switch {
	case k.QuantityMin < 1:
		v.add(k.QuantityPos, "task: `quantity`: `min` must be at least 1")
	case k.QuantityMax < k.QuantityMin || k.QuantityMax > MaxQuantity:
		v.add(k.QuantityPos, "task: `quantity`: `max` must be from `min` to %d", MaxQuantity)
	}
}

// ReadTools returns the tools that only read (every shape but
// append_task), in catalog order: the tools the shapes answer by SQL.
func (c *Catalog) ReadTools() []*Tool {
	out := make([]*Tool, 0, len(c.Tools))
	for _, t := range c.Tools {
		if t.Shape.Value != ShapeAppendTask {
			out = append(out, t)
		}
	}
	return out
}

// WriteTools returns the append_task tools the catalog serves: none
// unless writes are enabled.
func (c *Catalog) WriteTools() []*Tool {
	var out []*Tool
	for _, t := range c.Tools {
		if t.Shape.Value == ShapeAppendTask && c.Served(t) {
			out = append(out, t)
		}
	}
	return out
}

// WithWrites returns a copy of c whose write tools are served, as if
// it said `writes: {enabled: true}`: the opt-in of a caller that has no
// catalog file to write it in (an engine over a store file). c is not
// changed.
func (c *Catalog) WithWrites() *Catalog {
	d := *c
	w := Writes{}
	if c.Writes != nil {
		w = *c.Writes
	}
	w.Enabled = true
	d.Writes = &w
	return &d
}
