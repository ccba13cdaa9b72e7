package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// position is a 1-based line and column in the gold file.
type position struct{ line, column int }

// index maps the paths of a parsed gold file ("items[3].expect.tool") to
// where they are written, so that decoding and validation errors can name
// a line and column. It also keeps each mapping value's node, so that an
// explicit null is told apart from a missing key.
type index struct {
	pos   map[string]position // key position for mapping entries, first token for list elements
	nodes map[string]ast.Node // value node of each mapping entry and list element
	byPos map[position]string // the inverse of pos, plus value-token positions
	items []position          // where each items[i] starts, in order
}

func newIndex() *index {
	return &index{pos: map[string]position{}, nodes: map[string]ast.Node{}, byPos: map[position]string{}}
}

func tokenPos(n ast.Node) position {
	if n == nil || n.GetToken() == nil {
		return position{}
	}
	p := n.GetToken().Position
	return position{p.Line, p.Column}
}

// errAnchor is returned for anchors, aliases, merge keys and tagged keys:
// a gold file is plain data and each item must read on its own.
var errAnchor = errors.New("anchors, aliases, merge keys and tagged keys are not allowed")

// walk records every path under n. It rejects anchors and aliases.
func (x *index) walk(n ast.Node, path string) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *ast.AnchorNode, *ast.AliasNode, *ast.MergeKeyNode:
		x.byPos[tokenPos(n)] = path
		return &posError{tokenPos(n), errAnchor.Error()}
	case *ast.TagNode:
		return x.walk(n.Value, path)
	case *ast.MappingNode:
		for _, kv := range n.Values {
			if err := x.walkEntry(kv, path); err != nil {
				return err
			}
		}
	case *ast.MappingValueNode:
		return x.walkEntry(n, path)
	case *ast.SequenceNode:
		for i, v := range n.Values {
			p := fmt.Sprintf("%s[%d]", path, i)
			start := tokenPos(v)
			if m, ok := v.(*ast.MappingNode); ok && len(m.Values) > 0 {
				start = tokenPos(m.Values[0].Key)
			} else if m, ok := v.(*ast.MappingValueNode); ok {
				start = tokenPos(m.Key)
			}
			x.pos[p], x.nodes[p] = start, v
			x.byPos[start] = p
			if path == "items" {
				x.items = append(x.items, start)
			}
			if err := x.walk(v, p); err != nil {
				return err
			}
		}
	}
	return nil
}

func (x *index) walkEntry(kv *ast.MappingValueNode, path string) error {
	switch kv.Key.(type) {
	case *ast.MergeKeyNode, *ast.AnchorNode, *ast.AliasNode, *ast.TagNode:
		return &posError{tokenPos(kv.Key), errAnchor.Error()}
	}
	name := kv.Key.GetToken().Value
	p := name
	if path != "" {
		p = path + "." + name
	}
	kp := tokenPos(kv.Key)
	x.pos[p], x.nodes[p] = kp, kv.Value
	x.byPos[kp] = p
	if vp := tokenPos(kv.Value); vp != (position{}) {
		if _, taken := x.byPos[vp]; !taken {
			x.byPos[vp] = p
		}
	}
	return x.walk(kv.Value, p)
}

// has reports whether path is written in the file (even as null).
func (x *index) has(path string) bool {
	if x == nil {
		return false
	}
	_, ok := x.pos[path]
	return ok
}

// at returns where path is written, or the zero position.
func (x *index) at(path string) position {
	if x == nil {
		return position{}
	}
	return x.pos[path]
}

// itemAt returns the index of the item whose text holds p, or -1.
func (x *index) itemAt(p position) int {
	if x == nil {
		return -1
	}
	found := -1
	for i, s := range x.items {
		if s.line < p.line || s.line == p.line && s.column <= p.column {
			found = i
		}
	}
	return found
}

// posError is an error at a position, before it is named by item.
type posError struct {
	at     position
	reason string
}

func (e *posError) Error() string { return e.reason }

// fromYAML turns an error of the YAML library (or a posError) into an
// *Error naming the line, column, item and, when known, the field. The
// library's own wording is kept except where it would name Go types.
func (x *index) fromYAML(op string, g *wireGold, err error) *Error {
	var (
		at     position
		reason string
	)
	var pe *posError
	var ye yaml.Error
	var te *yaml.TypeError
	switch {
	case errors.As(err, &pe):
		at, reason = pe.at, pe.reason
	case errors.As(err, &te):
		if te.Token != nil {
			at = position{te.Token.Position.Line, te.Token.Position.Column}
		}
		reason = "wrong type: want " + kindName(te.DstType.Kind().String())
	case errors.As(err, &ye):
		if tk := ye.GetToken(); tk != nil {
			at = position{tk.Position.Line, tk.Position.Column}
		}
		reason = ye.GetMessage()
	default:
		reason = err.Error()
	}
	e := &Error{Op: op, Line: at.line, Column: at.column, Reason: reason}
	path := ""
	if x != nil {
		path = x.byPos[at]
	}
	if i := x.itemAt(at); i >= 0 && (path == "" || strings.HasPrefix(path, "items[")) {
		e.Item = itemLabel(i, g, x)
		path = strings.TrimPrefix(path, fmt.Sprintf("items[%d]", i))
		path = strings.TrimPrefix(path, ".")
	}
	e.Field = path
	return e
}

func kindName(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice", "array":
		return "a list"
	case "map", "struct":
		return "a mapping"
	case "interface":
		return "a value"
	}
	return k
}
