package shape

import (
	"slices"
	"strings"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

// QuerySQL is the free SQL tool's name.
const QuerySQL = "query_sql"

// ClassFreeSQL is the question class of the free SQL tool.
const ClassFreeSQL = "free_sql"

// MaxStatementBytes bounds a free SQL statement, in bytes: the wall
// refuses a longer one before the sandbox sees it.
const MaxStatementBytes = 8192

// SQLDef derives the free SQL tool (query_sql) of a catalog that opts in
// (`sql: {free: true}`): one statement parameter, a table value. Its
// description names the tables it may read and their columns, as the
// model needs them; ok is false when the catalog leaves free SQL off.
func SQLDef(cat *catalog.Catalog) (def tool.Def, ok bool) {
	if !cat.FreeSQL() {
		return tool.Def{}, false
	}
	var tables []string
	for _, t := range cat.Allowlist() {
		if cols := columnsOf(cat, t); len(cols) > 0 {
			tables = append(tables, t+"("+strings.Join(cols, ", ")+")")
		} else {
			tables = append(tables, t)
		}
	}
	return tool.Def{
		Name: QuerySQL,
		Description: "Last resort, for a question no other tool and no metric covers: run one read-only DuckDB SELECT over " +
			strings.Join(tables, "; ") + ". The answer is tagged ungoverned: it is re-executed, not independently re-derived. " +
			"Write, attach, read files or URLs, or set options, and it is refused.",
		Class: ClassFreeSQL,
		Value: fact.KindTable,
		Params: []tool.Param{{
			Name: "sql", Kind: tool.Statement, MaxBytes: MaxStatementBytes,
			Description: "Exactly one SELECT (a WITH is fine) over the tables named, returning a small result.",
		}},
	}, true
}

// columnsOf returns the columns the catalog declares for table t: a
// dataset's key, time, entity and attribute columns, or a reference's id,
// name and further columns; nil when t is none of them.
func columnsOf(cat *catalog.Catalog, t string) []string {
	var out []string
	add := func(c string) {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, ds := range cat.Datasets {
		if strings.EqualFold(ds.Table.Value, t) {
			add(ds.Key.Value)
			add(ds.Time.Value)
			for _, e := range ds.Entities {
				add(e.Column.Value)
			}
			for _, a := range ds.Attributes {
				add(a.Column.Value)
			}
			return out
		}
		for _, e := range ds.Entities {
			if r := e.Reference; r != nil && strings.EqualFold(r.Table.Value, t) {
				add(r.ID.Value)
				add(r.DisplayName.Value)
				for _, c := range r.Columns {
					add(c.Value)
				}
				return out
			}
		}
	}
	return nil
}
