package main

import (
	"errors"
	"slices"
	"strings"

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
		top, ok := mappingValues(f.Docs[0].Body)
		if !ok {
			return budget.Config{}, &budget.ConfigError{Line: lineOf(f.Docs[0].Body), Problem: "expected a mapping of session and question"}
		}
		if err := readMapping(doc, lines, "", top); err != nil {
			return budget.Config{}, err
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

// mappingValues returns the pairs of a block mapping (a single pair
// parses as a MappingValueNode); a flow mapping or anything else is not
// one.
func mappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, !v.IsFlowStyle
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

// readMapping reads the pairs of the mapping at path into m: a section
// (session, question, prices) or a model's price is a block mapping, read
// in turn; anything else is a scalar, kept as its text. An undeclared
// key is kept (nil) for FromMap to name the nearest declared one; an
// error names declared keys only.
func readMapping(m map[string]any, lines map[string]int, path string, values []*ast.MappingValueNode) error {
	for _, kv := range values {
		key := kv.Key.String()
		full := key
		if path != "" {
			full = path + "." + key
		}
		if _, dup := m[key]; dup {
			return &budget.ConfigError{Line: lineOf(kv.Key), Path: declared(full), Problem: "repeated"}
		}
		lines[full] = lineOf(kv.Key)
		if path == "prices" && !budget.ValidModel(key) {
			return &budget.ConfigError{Line: lineOf(kv.Key), Path: "prices", Problem: "not a model name (a letter or digit, then letters, digits and ._:/@+-, at most 128)"}
		}
		if !declaredAt(path, key) {
			m[key] = nil // FromMap names it unknown, with the nearest declared key
			continue
		}
		if !(path == "" || path == "prices") {
			s, ok := scalarText(kv.Value)
			if !ok {
				return &budget.ConfigError{Line: lineOf(kv.Key), Path: full, Problem: "no amount"}
			}
			m[key] = s
			continue
		}
		switch kv.Value.(type) {
		case *ast.NullNode, nil:
			if path == "" && key == "prices" {
				m[key] = nil // "prices:" with none under it
			} else {
				m[key] = map[string]any{}
			}
			continue
		}
		values, ok := mappingValues(kv.Value)
		if !ok {
			problem := "expected a mapping of "
			if mn, flow := kv.Value.(*ast.MappingNode); flow && mn.IsFlowStyle {
				problem = "expected a block mapping of "
			}
			return &budget.ConfigError{Line: lineOf(kv.Key), Path: full, Problem: problem + mappingOf(full)}
		}
		sub := map[string]any{}
		m[key] = sub
		if err := readMapping(sub, lines, full, values); err != nil {
			return err
		}
	}
	return nil
}

// declaredAt reports whether key is declared in the mapping at path: a
// section at the top, a component in session and question, a model name
// under prices, input or output under a model.
func declaredAt(path, key string) bool {
	switch {
	case path == "":
		return slices.Contains(budgetSections, key)
	case path == "prices":
		return budget.ValidModel(key)
	case strings.HasPrefix(path, "prices."):
		return slices.Contains(priceKeys, key)
	}
	return slices.Contains(budgetComponents, key)
}

// mappingOf says what the mapping at a declared path holds.
func mappingOf(path string) string {
	switch {
	case path == "prices":
		return "model names to prices"
	case strings.HasPrefix(path, "prices."):
		return "input and output"
	}
	return "the five components"
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
	budgetSections   = []string{"session", "question", "prices"}
	budgetComponents = func() []string {
		var out []string
		for _, c := range budget.Components() {
			out = append(out, c.String())
		}
		return out
	}()
	priceKeys = []string{"input", "output"}
)

// declared returns path when every part of it is a declared key (a
// section, a component, a model name spelt as one, input or output),
// else the declared part before it ("" for none): an error never repeats
// a key the file wrote that is not declared.
func declared(path string) string {
	parts := strings.Split(path, ".")
	if path == "" || !slices.Contains(budgetSections, parts[0]) {
		return ""
	}
	sec := parts[0]
	if len(parts) == 1 {
		return sec
	}
	if sec != "prices" {
		if len(parts) > 2 || !slices.Contains(budgetComponents, parts[1]) {
			return sec
		}
		return path
	}
	// prices.MODEL.KEY: a model name may hold dots (llama3.2).
	last := parts[len(parts)-1]
	if len(parts) >= 3 && slices.Contains(priceKeys, last) {
		if model := strings.Join(parts[1:len(parts)-1], "."); budget.ValidModel(model) {
			return path
		}
	}
	if model := strings.Join(parts[1:], "."); budget.ValidModel(model) {
		return path
	}
	return sec
}

// firstUnknownLine is the line of the first key, in sorted order, under
// path (the document when "") that is not declared there.
func firstUnknownLine(doc map[string]any, lines map[string]int, path string) int {
	keys, valid := doc, budgetSections
	prefix := ""
	if path != "" {
		keys, valid, prefix = lookup(doc, path), budgetComponents, path+"."
		if strings.HasPrefix(path, "prices.") {
			valid = priceKeys
		}
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

// lookup returns the mapping at a section's path: "session", or
// "prices.MODEL" (whose model name may hold dots).
func lookup(doc map[string]any, path string) map[string]any {
	sec, rest, _ := strings.Cut(path, ".")
	m, _ := doc[sec].(map[string]any)
	if rest != "" {
		m, _ = m[rest].(map[string]any)
	}
	return m
}
