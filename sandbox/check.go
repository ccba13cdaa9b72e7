package sandbox

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// CheckText is the first look at a statement, before any parser: it must
// be valid UTF-8, hold no NUL byte (a C string would end there, so two
// readers could see two statements) and be at most max bytes long.
func CheckText(sql string, max int) error {
	switch {
	case len(sql) > max:
		return reject(LayerParse, ClassSchemaViolation, "statement_length", NoPosition)
	case !utf8.ValidString(sql):
		return reject(LayerParse, ClassSchemaViolation, "encoding", NoPosition)
	case strings.IndexByte(sql, 0) >= 0:
		return reject(LayerParse, ClassSchemaViolation, "nul_byte", strings.IndexByte(sql, 0))
	case strings.TrimSpace(sql) == "":
		return reject(LayerParse, ClassSchemaViolation, "syntax", NoPosition)
	}
	return nil
}

// Check judges a statement by the JSON that DuckDB's json_serialize_sql
// gave for it. It returns nil when the statement is exactly one query
// within p, else a *Rejection at layer parse (DuckDB serialized an error:
// not a SELECT, or not SQL) or allowlist.
func Check(ast []byte, p *Policy) error {
	dec := json.NewDecoder(bytes.NewReader(ast))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return reject(LayerParse, ClassSchemaViolation, "syntax_tree", NoPosition)
	}
	if failed, _ := doc["error"].(bool); failed || doc["error"] == nil {
		// "not implemented" is DuckDB saying the statement is not a
		// SELECT (DDL, DML, PRAGMA, SET, COPY, ATTACH, EXPLAIN, ...), or
		// that one of several statements is not.
		if t, _ := doc["error_type"].(string); t == "not implemented" {
			return reject(LayerParse, ClassPermissionDenied, "statement", NoPosition)
		}
		return reject(LayerParse, ClassSchemaViolation, "syntax", position(doc["position"]))
	}
	stmts, _ := doc["statements"].([]any)
	switch {
	case len(stmts) == 0:
		return reject(LayerParse, ClassSchemaViolation, "syntax", NoPosition)
	case len(stmts) > 1:
		return reject(LayerParse, ClassPermissionDenied, "multiple_statements", NoPosition)
	}
	stmt, ok := stmts[0].(map[string]any)
	if !ok {
		return reject(LayerParse, ClassSchemaViolation, "syntax_tree", NoPosition)
	}
	w := &walker{p: p}
	return w.statement(stmt)
}

// walker walks one statement's tree. scopes holds the CTE names visible
// at the current point, innermost last.
type walker struct {
	p      *Policy
	scopes [][]string
	depth  int
}

// maxDepth bounds the walk; DuckDB's own expression depth limit is lower.
const maxDepth = 2000

func (w *walker) statement(stmt map[string]any) error {
	if stmt["node"] == nil {
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
	}
	for _, k := range sortedKeys(stmt) {
		v := stmt[k]
		switch k {
		case "node":
			if err := w.query(v); err != nil {
				return err
			}
		case "named_param_map":
			if l, _ := v.([]any); len(l) > 0 && !(w.p.parameters && positional(l)) {
				return reject(LayerAllowlist, ClassPermissionDenied, "parameter", NoPosition)
			}
		default:
			return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
		}
	}
	return nil
}

// positional reports whether a statement's parameter map names
// positional parameters only ($1, ?): every key is a decimal number.
func positional(params []any) bool {
	for _, e := range params {
		em, _ := e.(map[string]any)
		k, _ := em["key"].(string)
		if k == "" || strings.Trim(k, "0123456789") != "" {
			return false
		}
	}
	return true
}

// queryNodes are the query nodes admitted: a SELECT and a set operation
// (UNION, INTERSECT, EXCEPT). A recursive CTE's node is not.
var queryNodes = map[string]bool{"SELECT_NODE": true, "SET_OPERATION_NODE": true}

// query walks a query node: its CTEs first, each seeing the ones declared
// before it, then the rest of the node with all of them in scope.
func (w *walker) query(v any) error {
	n, ok := v.(map[string]any)
	if !ok {
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
	}
	t, _ := n["type"].(string)
	if !queryNodes[t] {
		if t == "RECURSIVE_CTE_NODE" || t == "CTE_NODE" {
			return reject(LayerAllowlist, ClassPermissionDenied, "construct", NoPosition)
		}
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
	}
	var names []string
	if cm, ok := n["cte_map"].(map[string]any); ok {
		entries, _ := cm["map"].([]any)
		for _, e := range entries {
			em, _ := e.(map[string]any)
			name, _ := em["key"].(string)
			val, _ := em["value"].(map[string]any)
			if name == "" || val == nil {
				return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
			}
			w.scopes = append(w.scopes, names)
			err := w.cte(val)
			w.scopes = w.scopes[:len(w.scopes)-1]
			if err != nil {
				return err
			}
			names = append(names, fold(name))
		}
	} else if n["cte_map"] != nil {
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
	}
	if s := n["sample"]; s != nil {
		return reject(LayerAllowlist, ClassPermissionDenied, "construct", NoPosition)
	}
	w.scopes = append(w.scopes, names)
	defer func() { w.scopes = w.scopes[:len(w.scopes)-1] }()
	for _, k := range sortedKeys(n) {
		v := n[k]
		switch k {
		case "cte_map", "type":
			continue
		case "left", "right":
			if err := w.query(v); err != nil {
				return err
			}
			continue
		}
		if err := w.any(v); err != nil {
			return err
		}
	}
	return nil
}

// cte walks one CTE's definition: {"aliases", "query": {"node"}, ...}.
func (w *walker) cte(val map[string]any) error {
	for _, k := range sortedKeys(val) {
		v := val[k]
		switch k {
		case "query":
			q, _ := v.(map[string]any)
			if q == nil {
				return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
			}
			if err := w.statement(q); err != nil {
				return err
			}
		case "key_targets":
			if l, _ := v.([]any); len(l) > 0 {
				return reject(LayerAllowlist, ClassPermissionDenied, "construct", NoPosition)
			}
		case "aliases", "materialized":
		default:
			return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
		}
	}
	return nil
}

// exprClasses are the expression classes admitted. PARAMETER (a
// statement's ? or $1) and anything not listed are not.
var exprClasses = map[string]bool{
	"CONSTANT": true, "COLUMN_REF": true, "FUNCTION": true, "OPERATOR": true, "CAST": true, "CASE": true,
	"COMPARISON": true, "CONJUNCTION": true, "SUBQUERY": true, "STAR": true, "WINDOW": true, "BETWEEN": true,
	"COLLATE": true, "LAMBDA": true, "POSITIONAL_REFERENCE": true,
}

// valueFunctions are the names DuckDB binds, written without
// parentheses, to a function when no column has that name: the clock and
// the session. A column of one of these names cannot be read unqualified.
var valueFunctions = map[string]bool{
	"current_date": true, "current_time": true, "current_timestamp": true, "localtime": true, "localtimestamp": true,
	"current_schema": true, "current_user": true, "user": true, "session_user": true, "current_catalog": true,
	"current_role": true, "current_database": true, "current_query": true,
}

// tableRefs are the table reference types admitted. SHOW_REF (SHOW,
// DESCRIBE, SUMMARIZE), PIVOT and anything not listed are not.
var tableRefs = map[string]bool{
	"BASE_TABLE": true, "JOIN": true, "SUBQUERY": true, "TABLE_FUNCTION": true, "EMPTY": true, "EXPRESSION_LIST": true,
}

// any walks any value of the tree.
func (w *walker) any(v any) error {
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > maxDepth {
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", NoPosition)
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := w.any(e); err != nil {
				return err
			}
		}
	case map[string]any:
		return w.object(x)
	}
	return nil
}

// object walks one object, recognised by its discriminating members.
func (w *walker) object(o map[string]any) error {
	if o["at_clause"] != nil {
		return reject(LayerAllowlist, ClassPermissionDenied, "construct", position(o["query_location"]))
	}
	if _, ok := o["sample"]; ok && o["sample"] != nil {
		return reject(LayerAllowlist, ClassPermissionDenied, "construct", position(o["query_location"]))
	}
	if c, ok := o["class"]; ok {
		return w.expression(o, c)
	}
	t, _ := o["type"].(string)
	switch {
	case strings.HasSuffix(t, "_NODE"):
		return w.query(o)
	case isTableRef(o):
		return w.tableRef(o, t)
	case o["table_name"] != nil || o["function_name"] != nil || o["cte_map"] != nil || o["node"] != nil && o["named_param_map"] != nil:
		if o["node"] != nil {
			return w.statement(o)
		}
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", position(o["query_location"]))
	}
	for _, k := range sortedKeys(o) {
		v := o[k]
		if err := w.any(v); err != nil {
			return err
		}
	}
	return nil
}

// isTableRef reports whether o is a table reference: every one carries a
// type, an alias, a sample and a query location.
func isTableRef(o map[string]any) bool {
	_, a := o["alias"]
	_, s := o["sample"]
	_, q := o["query_location"]
	_, t := o["type"]
	return a && s && q && t
}

func (w *walker) expression(o map[string]any, c any) error {
	class, _ := c.(string)
	pos := position(o["query_location"])
	if class == "PARAMETER" && w.p.parameters {
		// A positional parameter carries no name and no child: only its
		// number ("identifier"), the class fields and the location.
		if t, _ := o["type"].(string); t != "VALUE_PARAMETER" {
			return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
		}
		return nil
	}
	if !exprClasses[class] {
		if class == "PARAMETER" {
			return reject(LayerAllowlist, ClassPermissionDenied, "parameter", pos)
		}
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
	}
	if class == "COLUMN_REF" {
		// A lone name that binds to no column is bound as a function of
		// no arguments when it is one of SQL's value functions: a column
		// reference that is a call.
		if names, _ := o["column_names"].([]any); len(names) == 1 {
			if n, _ := names[0].(string); valueFunctions[fold(n)] {
				return reject(LayerAllowlist, ClassPermissionDenied, "function", pos)
			}
		}
	}
	if class == "FUNCTION" || class == "WINDOW" {
		if err := w.function(o, w.p.functions, "function"); err != nil {
			return err
		}
	} else if o["function_name"] != nil {
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
	}
	if class == "SUBQUERY" {
		return w.subquery(o, pos)
	}
	for _, k := range sortedKeys(o) {
		v := o[k]
		if err := w.any(v); err != nil {
			return err
		}
	}
	return nil
}

// function checks a function's name against allowed: unqualified, or in
// schema main (the parser writes list_value and struct_pack so), never in
// another catalog.
func (w *walker) function(o map[string]any, allowed map[string]bool, kind string) error {
	pos := position(o["query_location"])
	name, ok := o["function_name"].(string)
	if !ok {
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
	}
	schema, _ := o["schema"].(string)
	catalog, _ := o["catalog"].(string)
	if catalog != "" || schema != "" && fold(schema) != "main" {
		return reject(LayerAllowlist, ClassPermissionDenied, "qualified_name", pos)
	}
	if !allowed[fold(name)] {
		return reject(LayerAllowlist, ClassPermissionDenied, kind, pos)
	}
	return nil
}

func (w *walker) tableRef(o map[string]any, t string) error {
	pos := position(o["query_location"])
	if !tableRefs[t] {
		if t == "SHOW_REF" {
			return reject(LayerAllowlist, ClassPermissionDenied, "construct", pos)
		}
		return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
	}
	switch t {
	case "BASE_TABLE":
		name, ok := o["table_name"].(string)
		if !ok {
			return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
		}
		schema, _ := o["schema_name"].(string)
		catalog, _ := o["catalog_name"].(string)
		if catalog != "" || schema != "" && fold(schema) != "main" {
			return reject(LayerAllowlist, ClassPermissionDenied, "qualified_name", pos)
		}
		// A qualified name is never a CTE.
		if schema == "" && w.inScope(fold(name)) {
			break
		}
		if !w.p.tables[fold(name)] {
			return reject(LayerAllowlist, ClassPermissionDenied, "table", pos)
		}
	case "TABLE_FUNCTION":
		f, _ := o["function"].(map[string]any)
		if f == nil || f["class"] != "FUNCTION" {
			return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
		}
		if err := w.function(f, w.p.tableFunctions, "table_function"); err != nil {
			return err
		}
		// The arguments are expressions like any other.
		for _, k := range sortedKeys(f) {
			v := f[k]
			if k == "function_name" {
				continue
			}
			if err := w.any(v); err != nil {
				return err
			}
		}
		for _, k := range sortedKeys(o) {
			v := o[k]
			if k == "function" {
				continue
			}
			if err := w.any(v); err != nil {
				return err
			}
		}
		return nil
	case "SUBQUERY":
		return w.subquery(o, pos)
	}
	for _, k := range sortedKeys(o) {
		v := o[k]
		if k == "table_name" {
			continue
		}
		if err := w.any(v); err != nil {
			return err
		}
	}
	return nil
}

// inScope reports whether a CTE of that folded name is visible.
func (w *walker) inScope(name string) bool {
	for _, s := range w.scopes {
		for _, n := range s {
			if n == name {
				return true
			}
		}
	}
	return false
}

// position reads a query_location: a byte offset, or NoPosition for
// DuckDB's "none" (the largest uint64) and anything else.
func position(v any) int {
	var f float64
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			return NoPosition
		}
		f = float64(i)
	case string:
		var n json.Number = json.Number(x)
		i, err := n.Int64()
		if err != nil {
			return NoPosition
		}
		f = float64(i)
	default:
		return NoPosition
	}
	if f < 0 || f > math.MaxInt32 {
		return NoPosition
	}
	return int(f)
}

// sortedKeys returns an object's members in sorted order, so that a
// statement with several faults is always refused for the same one.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// subquery walks a node holding a subquery (an expression's or a table
// reference's): the query as a statement of its own, every other field
// as any node.
func (w *walker) subquery(o map[string]any, pos int) error {
	for _, k := range sortedKeys(o) {
		v := o[k]
		if k == "subquery" {
			q, _ := v.(map[string]any)
			if q == nil {
				return reject(LayerAllowlist, ClassSchemaViolation, "construct", pos)
			}
			if err := w.statement(q); err != nil {
				return err
			}
		} else if err := w.any(v); err != nil {
			return err
		}
	}
	return nil
}
