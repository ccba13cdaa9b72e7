package catalog

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// SQL is the catalog's optional `sql:` section: the sandbox's read
// allowlist written out by hand, and the deny list. The allowlist is
// always derived (Allowlist); Allow, when written, is a copy an operator
// keeps for review, and Validate fails when it disagrees with the derived
// one.
type SQL struct {
	Pos Pos
	// Allow is the hand-written allowlist; nil when the key is absent.
	Allow    []Ref
	AllowPos Pos // where the `allow` list starts
	// Deny are tables taken out of the allowlist: free SQL and compiled
	// metric queries may not read them.
	Deny []Ref
	// Free opts in to free SQL: a query_sql tool joins the menu, for
	// questions no tool or metric covers, and runs in the sandbox over
	// the allowlist. Off unless written `free: true`.
	Free    bool
	FreePos Pos
	// Limits bound each free statement's run; nil when absent (the
	// sandbox's defaults).
	Limits *SQLLimits
}

// SQLLimits are the `sql.limits` a catalog may set for free SQL; a field
// left out is 0 and takes the sandbox's default. Names and units are
// `provenant sql`'s flags'.
type SQLLimits struct {
	Pos Pos
	// RowBudget: the most rows a statement may process.
	RowBudget int64
	// MaxRows and MaxBytes bound a result (rows; bytes as JSON).
	MaxRows  int64
	MaxBytes int64
	// MemoryMB is the worker's memory limit in MiB (at least 16).
	MemoryMB int64
	// Timeout is the wall-clock safety net.
	Timeout time.Duration
}

// MaxSQLTimeout bounds `sql.limits.timeout`: a safety net, not a budget.
const MaxSQLTimeout = 5 * time.Minute

// FreeSQL reports whether the catalog opts in to free SQL.
func (c *Catalog) FreeSQL() bool { return c.SQL != nil && c.SQL.Free }

// WithFreeSQL returns a copy of c with free SQL on, as `free: true` would
// turn it on, for a command's --free-sql; c is unchanged. The copy shares
// everything else with c.
func (c *Catalog) WithFreeSQL() *Catalog {
	d := *c
	s := SQL{}
	if c.SQL != nil {
		s = *c.SQL
	}
	s.Free = true
	d.SQL = &s
	return &d
}

// Tables returns the tables c declares, in declaration order, each once:
// every dataset's table, then its entities' reference tables. Datasets
// and references declared with files: are not tables and are not listed.
// Every table a metric reads (MetricTables) is among them.
func (c *Catalog) Tables() []string {
	var out []string
	add := func(t string) {
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, ds := range c.Datasets {
		add(ds.Table.Value)
		for _, e := range ds.Entities {
			if e.Reference != nil {
				add(e.Reference.Table.Value)
			}
		}
	}
	return out
}

// MetricTables returns the tables c's metrics may read, sorted, each
// once: each semantic model's dataset table and the reference tables its
// dimensions join. A dataset or reference declared with files: is not a
// table and is not listed.
func (c *Catalog) MetricTables() []string {
	var out []string
	add := func(t string) {
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, sm := range c.SemanticModels {
		ds := c.Dataset(sm.Dataset.Value)
		if ds == nil {
			continue
		}
		add(ds.Table.Value)
		for _, d := range sm.Dimensions {
			if e := ds.Entity(d.Entity.Value); e != nil && e.Reference != nil {
				add(e.Reference.Table.Value)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Deny returns the tables the `sql:` section denies, as written; nil
// without one.
func (c *Catalog) Deny() []string {
	if c.SQL == nil {
		return nil
	}
	out := make([]string, 0, len(c.SQL.Deny))
	for _, d := range c.SQL.Deny {
		out = append(out, d.Value)
	}
	return out
}

// Allowlist is the derived read allowlist: the union of Tables and
// MetricTables minus Deny, with ASCII letters lowered (DuckDB matches
// identifiers so), sorted, each once.
func (c *Catalog) Allowlist() []string {
	denied := map[string]bool{}
	for _, d := range c.Deny() {
		denied[foldTable(d)] = true
	}
	var out []string
	for _, t := range slices.Concat(c.Tables(), c.MetricTables()) {
		if t = foldTable(t); t != "" && !denied[t] && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// foldTable lowers ASCII letters only, as DuckDB folds identifiers.
func foldTable(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func (d *decoder) sql(n ast.Node) *SQL {
	s := &SQL{Pos: nodePos(n)}
	d.mapping(n, "sql", []field{
		{"allow", false, func(v ast.Node) {
			s.AllowPos = nodePos(v)
			s.Allow = d.strs(v, "allow")
		}},
		{"deny", false, func(v ast.Node) { s.Deny = d.strs(v, "deny") }},
		{"free", false, func(v ast.Node) {
			s.FreePos = nodePos(v)
			s.Free = d.boolean(v, "free")
		}},
		{"limits", false, func(v ast.Node) { s.Limits = d.sqlLimits(v) }},
	})
	return s
}

func (d *decoder) sqlLimits(n ast.Node) *SQLLimits {
	l := &SQLLimits{Pos: nodePos(n)}
	positive := func(name string, min int64, dst *int64) field {
		return field{name, false, func(v ast.Node) {
			x, ok := d.integer(v, name)
			switch {
			case !ok:
			case x < min:
				d.add(nodePos(v), "`%s`: want an integer of at least %d", name, min)
			default:
				*dst = x
			}
		}}
	}
	d.mapping(n, "limits", []field{
		positive("row_budget", 1, &l.RowBudget),
		positive("max_rows", 1, &l.MaxRows),
		positive("max_bytes", 1, &l.MaxBytes),
		positive("memory_mb", 16, &l.MemoryMB),
		{"timeout", false, func(v ast.Node) {
			r := d.str(v, "timeout")
			if r.Pos.Line == 0 {
				return
			}
			t, err := time.ParseDuration(r.Value)
			if err != nil || t <= 0 || t > MaxSQLTimeout {
				d.add(r.Pos, "`timeout`: want a duration like 10s, more than 0 and at most %s", MaxSQLTimeout)
				return
			}
			l.Timeout = t
		}},
	})
	return l
}

// integer decodes an integer scalar.
func (d *decoder) integer(n ast.Node, what string) (int64, bool) {
	n = d.plain(n)
	if i, ok := n.(*ast.IntegerNode); ok {
		switch x := i.Value.(type) {
		case int64:
			return x, true
		case uint64:
			if x <= math.MaxInt64 {
				return int64(x), true
			}
		}
	}
	if n != nil {
		d.add(nodePos(n), "`%s`: want an integer", what)
	}
	return 0, false
}

// validateSQL checks the `sql:` section: each list names a table once;
// every denied table is a declared one; no table is both allowed and
// denied; `allow`, when written, is exactly the derived allowlist; free
// SQL has a table to read; and `limits` are written only with free SQL
// on (their values are checked as they are read).
func validateSQL(v *errs, c *Catalog) {
	s := c.SQL
	if s == nil {
		return
	}
	defer func() {
		switch {
		case s.Limits != nil && !s.Free:
			v.add(s.Limits.Pos, "`limits` bound free SQL, which is off: set `free: true` or remove them")
		case s.Free && len(c.Allowlist()) == 0:
			v.add(s.FreePos, "`free`: free SQL needs at least one table in the allowlist (every declared table is denied)")
		}
	}()
	declared := c.Tables()
	folded := make([]string, len(declared))
	for i, t := range declared {
		folded[i] = foldTable(t)
	}
	denied := map[string]bool{}
	for _, d := range s.Deny {
		f := foldTable(d.Value)
		switch {
		case strings.TrimSpace(d.Value) == "":
			v.add(d.Pos, "`deny`: want a table name")
		case denied[f]:
			v.add(d.Pos, "duplicate table%s in `deny`", quote(d.Value))
		case !slices.Contains(folded, f):
			v.add(d.Pos, "`deny`: %s", unknown("table", d.Value, declared))
		}
		denied[f] = true
	}
	if s.Allow == nil {
		return
	}
	derived := c.Allowlist()
	allowed := map[string]bool{}
	var extra []string
	for _, a := range s.Allow {
		f := foldTable(a.Value)
		switch {
		case strings.TrimSpace(a.Value) == "":
			v.add(a.Pos, "`allow`: want a table name")
		case allowed[f]:
			v.add(a.Pos, "duplicate table%s in `allow`", quote(a.Value))
		case denied[f]:
			v.add(a.Pos, "table%s is in both `allow` and `deny`", quote(a.Value))
		case !slices.Contains(derived, f):
			extra = append(extra, a.Value)
		}
		allowed[f] = true
	}
	var missing []string
	for _, t := range derived {
		if !allowed[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return
	}
	msg := "`allow` is not the derived allowlist (the tables the datasets, their references and the metrics declare, minus `deny`):"
	if len(missing) > 0 {
		msg += " missing " + names(missing)
		if len(extra) > 0 {
			msg += ";"
		}
	}
	if len(extra) > 0 {
		msg += " extra " + names(extra)
	}
	v.add(s.AllowPos, "%s", msg)
}

// names formats table names for a message, each quoted; a name that may
// not be echoed is counted instead.
func names(ts []string) string {
	var parts []string
	hidden := 0
	for _, t := range ts {
		if echoable(t) {
			parts = append(parts, "`"+t+"`")
		} else {
			hidden++
		}
	}
	if hidden > 0 {
		parts = append(parts, fmt.Sprintf("%d unprintable name(s)", hidden))
	}
	return strings.Join(parts, ", ")
}
