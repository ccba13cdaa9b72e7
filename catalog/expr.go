package catalog

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Expr is a derived metric's expression: a closed tree of numeric
// literals, metric names and the four operators. It is never SQL text.
type Expr struct {
	Op     byte // 0 for a leaf; '+', '-', '*' or '/'
	Metric string
	Num    float64
	IsNum  bool
	L, R   *Expr
}

// MaxExprLen is the longest expression ParseExpr reads.
const MaxExprLen = 256

// maxExprDepth bounds the nesting of parentheses and operators.
const maxExprDepth = 16

// ExprError is a syntax error in an expression: Offset is a byte offset
// into it. Reason never repeats the input.
type ExprError struct {
	Offset int
	Reason string
}

func (e *ExprError) Error() string {
	return "expression: " + e.Reason + " at character " + strconv.Itoa(e.Offset+1)
}

// ParseExpr parses an expression over metric names (snake_case), numeric
// literals (digits with an optional fraction), + - * / and parentheses,
// with the usual precedence, left to right.
func ParseExpr(s string) (*Expr, error) {
	if len(s) > MaxExprLen {
		return nil, &ExprError{0, "longer than " + strconv.Itoa(MaxExprLen) + " bytes"}
	}
	p := &exprParser{s: s}
	e, err := p.sum(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(s) {
		return nil, &ExprError{p.i, "unexpected character"}
	}
	return e, nil
}

type exprParser struct {
	s string
	i int
}

func (p *exprParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *exprParser) sum(depth int) (*Expr, error) {
	l, err := p.product(depth)
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.i >= len(p.s) || (p.s[p.i] != '+' && p.s[p.i] != '-') {
			return l, nil
		}
		op := p.s[p.i]
		p.i++
		r, err := p.product(depth)
		if err != nil {
			return nil, err
		}
		l = &Expr{Op: op, L: l, R: r}
	}
}

func (p *exprParser) product(depth int) (*Expr, error) {
	l, err := p.factor(depth)
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.i >= len(p.s) || (p.s[p.i] != '*' && p.s[p.i] != '/') {
			return l, nil
		}
		op := p.s[p.i]
		p.i++
		r, err := p.factor(depth)
		if err != nil {
			return nil, err
		}
		l = &Expr{Op: op, L: l, R: r}
	}
}

func (p *exprParser) factor(depth int) (*Expr, error) {
	if depth > maxExprDepth {
		return nil, &ExprError{p.i, "nested deeper than " + strconv.Itoa(maxExprDepth)}
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, &ExprError{p.i, "want a metric, a number or ("}
	}
	c := p.s[p.i]
	switch {
	case c == '(':
		p.i++
		e, err := p.sum(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, &ExprError{p.i, "want )"}
		}
		p.i++
		return e, nil
	case c >= '0' && c <= '9':
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i < len(p.s) && p.s[p.i] == '.' {
			p.i++
			if p.i >= len(p.s) || p.s[p.i] < '0' || p.s[p.i] > '9' {
				return nil, &ExprError{p.i, "want a digit after ."}
			}
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
		}
		f, err := strconv.ParseFloat(p.s[start:p.i], 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, &ExprError{start, "number out of range"}
		}
		return &Expr{IsNum: true, Num: f}, nil
	case c >= 'a' && c <= 'z':
		start := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '_') {
			p.i++
		}
		return &Expr{Metric: p.s[start:p.i]}, nil
	}
	return nil, &ExprError{p.i, "want a metric, a number or ("}
}

// Metrics returns the metric names the expression reads, in order of
// first appearance.
func (e *Expr) Metrics() []string {
	var out []string
	var walk func(*Expr)
	walk = func(e *Expr) {
		switch {
		case e == nil:
		case e.Op != 0:
			walk(e.L)
			walk(e.R)
		case !e.IsNum:
			for _, n := range out {
				if n == e.Metric {
					return
				}
			}
			out = append(out, e.Metric)
		}
	}
	walk(e)
	return out
}

// ErrNoValue is returned by Eval when a metric it reads has no value or a
// division is by zero.
var ErrNoValue = errors.New("no value")

// Eval computes the expression with value giving each metric's value (ok
// false for none). Division by zero, and any metric without a value, give
// ErrNoValue, as SQL's NULL would.
func (e *Expr) Eval(value func(metric string) (float64, bool)) (float64, error) {
	switch {
	case e.Op == 0 && e.IsNum:
		return e.Num, nil
	case e.Op == 0:
		v, ok := value(e.Metric)
		if !ok {
			return 0, ErrNoValue
		}
		return v, nil
	}
	l, err := e.L.Eval(value)
	if err != nil {
		return 0, err
	}
	r, err := e.R.Eval(value)
	if err != nil {
		return 0, err
	}
	switch e.Op {
	case '+':
		return l + r, nil
	case '-':
		return l - r, nil
	case '*':
		return l * r, nil
	case '/':
		if r == 0 {
			return 0, ErrNoValue
		}
		return l / r, nil
	}
	return 0, errors.New("eval expression: unknown operator")
}

// String renders the expression fully parenthesised, numbers in Go's
// shortest form: ParseExpr(e.String()) is e.
func (e *Expr) String() string {
	var b strings.Builder
	var walk func(*Expr)
	walk = func(e *Expr) {
		switch {
		case e.Op != 0:
			b.WriteByte('(')
			walk(e.L)
			b.WriteString(" " + string(e.Op) + " ")
			walk(e.R)
			b.WriteByte(')')
		case e.IsNum:
			b.WriteString(strconv.FormatFloat(e.Num, 'f', -1, 64))
		default:
			b.WriteString(e.Metric)
		}
	}
	walk(e)
	return b.String()
}
