package main

import (
	"errors"
	"slices"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/provenant/provenant/budget"
)

// parseBudgetYAML reads a budget document written in YAML: parsed by
// goccy/go-yaml into its syntax tree, each section a block mapping of the
// five components, every amount kept as the text it was written in (so
// "0.1" is exactly 100,000 micro-dollars), then judged by budget.FromMap.
// Errors are *budget.ConfigError with the line of the key at fault; they
// name declared keys only, never what the file wrote.
func parseBudgetYAML(b []byte) (cfg budget.Config, err error) {
	defer func() {
		// The parser is third-party code over untrusted bytes: a panic
		// in it is an invalid document, never a crash.
		if p := recover(); p != nil {
			cfg, err = budget.Config{}, &budget.ConfigError{Problem: "not a YAML document"}
		}
	}()
	f, perr := parser.ParseBytes(b, 0, parser.AllowDuplicateMapKey()) // a repeated key is reported below, by its declared name
	if perr != nil {
		line := 0
		var se interface{ GetToken() *token.Token }
		if errors.As(perr, &se) && se.GetToken() != nil && se.GetToken().Position != nil {
			line = se.GetToken().Position.Line
		}
		return budget.Config{}, &budget.ConfigError{Line: line, Problem: "not a YAML document"}
	}
	if len(f.Docs) > 1 {
		return budget.Config{}, &budget.ConfigError{Problem: "more than one YAML document"}
	}
	lines := map[string]int{} // a key's path ("question", "question.tokens") → its line
	doc := map[string]any{}
	if len(f.Docs) == 1 && f.Docs[0].Body != nil {
		top, ok := f.Docs[0].Body.(*ast.MappingNode)
		if mv, single := f.Docs[0].Body.(*ast.MappingValueNode); single {
			top, ok = &ast.MappingNode{Values: []*ast.MappingValueNode{mv}}, true
		}
		if !ok || top.IsFlowStyle {
			return budget.Config{}, &budget.ConfigError{Line: lineOf(f.Docs[0].Body), Problem: "expected a mapping of session and question"}
		}
		for _, kv := range top.Values {
			key := kv.Key.String()
			if _, dup := doc[key]; dup {
				return budget.Config{}, &budget.ConfigError{Line: lineOf(kv.Key), Path: declared(key), Problem: "repeated"}
			}
			lines[key] = lineOf(kv.Key)
			if !slices.Contains(budgetSections, key) {
				doc[key] = nil // FromMap names it unknown, with the nearest section
				continue
			}
			sec := map[string]any{}
			doc[key] = sec
			var values []*ast.MappingValueNode
			switch v := kv.Value.(type) {
			case *ast.MappingNode:
				if v.IsFlowStyle {
					return budget.Config{}, &budget.ConfigError{Line: lineOf(kv.Key), Path: declared(key), Problem: "expected a block mapping of the five components"}
				}
				values = v.Values
			case *ast.MappingValueNode:
				values = []*ast.MappingValueNode{v}
			case *ast.NullNode, nil:
			default:
				return budget.Config{}, &budget.ConfigError{Line: lineOf(kv.Key), Path: declared(key), Problem: "expected a mapping of the five components"}
			}
			for _, c := range values {
				name := c.Key.String()
				path := key + "." + name
				if _, dup := sec[name]; dup {
					return budget.Config{}, &budget.ConfigError{Line: lineOf(c.Key), Path: declared(path), Problem: "repeated"}
				}
				lines[path] = lineOf(c.Key)
				s, ok := scalarText(c.Value)
				if !ok {
					return budget.Config{}, &budget.ConfigError{Line: lineOf(c.Key), Path: declared(path), Problem: "no amount"}
				}
				sec[name] = s
			}
		}
	}
	cfg, err = budget.FromMap(doc)
	var ce *budget.ConfigError
	if errors.As(err, &ce) && ce.Line == 0 {
		ce.Line = lines[ce.Path]
		if ce.Problem == "unknown key" {
			// The line of the first unknown key under the path, as
			// FromMap names the nearest name to that one.
			ce.Line = firstUnknownLine(doc, lines, ce.Path)
		}
	}
	return cfg, err
}

// scalarText is a scalar's text as written (a quoted one unquoted).
func scalarText(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.IntegerNode, *ast.FloatNode:
		return n.GetToken().Value, true
	}
	return "", false
}

func lineOf(n ast.Node) int {
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return 0
	}
	return n.GetToken().Position.Line
}

var (
	budgetSections   = []string{"session", "question"}
	budgetComponents = func() []string {
		var out []string
		for _, c := range budget.Components() {
			out = append(out, c.String())
		}
		return out
	}()
)

// declared returns path when every part of it is a declared key, else
// the declared part before it ("" for none): an error never repeats a
// key the file wrote that is not declared.
func declared(path string) string {
	sec, comp, nested := cut(path)
	if !slices.Contains(budgetSections, sec) {
		return ""
	}
	if nested && !slices.Contains(budgetComponents, comp) {
		return sec
	}
	return path
}

func cut(path string) (string, string, bool) {
	for i := range len(path) {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

// firstUnknownLine is the line of the first key, in sorted order, under
// path (the document when "") that is not declared there.
func firstUnknownLine(doc map[string]any, lines map[string]int, path string) int {
	keys, valid := doc, budgetSections
	prefix := ""
	if path != "" {
		sec, _ := doc[path].(map[string]any)
		keys, valid, prefix = sec, budgetComponents, path+"."
	}
	var unknown []string
	for k := range keys {
		if !slices.Contains(valid, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return 0
	}
	slices.Sort(unknown)
	return lines[prefix+unknown[0]]
}
