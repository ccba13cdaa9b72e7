package budget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Component names one of the five things a budget counts.
type Component int

// The components, in the order they are reported.
const (
	USD Component = iota
	Tokens
	ToolCalls
	SimSeconds
	RowsScanned
)

// NumComponents is the number of components.
const NumComponents = 5

var componentNames = [NumComponents]string{"usd", "tokens", "tool_calls", "sim_seconds", "rows_scanned"}

// Components returns every component, in order.
func Components() []Component {
	return []Component{USD, Tokens, ToolCalls, SimSeconds, RowsScanned}
}

// String returns the component's name as configuration spells it.
func (c Component) String() string {
	if c < 0 || int(c) >= NumComponents {
		return "component(" + strconv.Itoa(int(c)) + ")"
	}
	return componentNames[c]
}

// ParseComponent returns the component with the given configuration name.
func ParseComponent(name string) (Component, bool) {
	for i, n := range componentNames {
		if n == name {
			return Component(i), true
		}
	}
	return 0, false
}

// Micros is an amount of money in micro-dollars: 1_000_000 is one dollar.
type Micros int64

// Dollar is one dollar in Micros.
const Dollar Micros = 1_000_000

// String formats m as a decimal dollar amount with six places: "0.250000".
func (m Micros) String() string {
	neg := m < 0
	u := uint64(m)
	if neg {
		u = -u
	}
	whole, frac := u/1_000_000, u%1_000_000
	s := strconv.FormatUint(whole, 10) + "." + leftPad(strconv.FormatUint(frac, 10), 6)
	if neg {
		return "-" + s
	}
	return s
}

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// ErrUSD is wrapped by every error of ParseUSD.
var ErrUSD = errors.New("not a dollar amount")

// ParseUSD reads a non-negative decimal dollar amount exactly: digits, and
// optionally a point and at most six more digits ("5", "0.25", "0.000001").
// A sign, an exponent, separators and a seventh decimal place are errors;
// nothing is rounded. The input is never repeated in the error.
func ParseUSD(s string) (Micros, error) {
	whole, frac, hasPoint := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || (hasPoint && (frac == "" || !allDigits(frac))) {
		return 0, fmt.Errorf("parse usd: %w", ErrUSD)
	}
	if len(frac) > 6 {
		return 0, fmt.Errorf("parse usd: more than six decimal places: %w", ErrUSD)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > int64(math.MaxInt64/Dollar) {
		return 0, fmt.Errorf("parse usd: too large: %w", ErrUSD)
	}
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
	}
	m := w * int64(Dollar)
	if f > math.MaxInt64-m {
		return 0, fmt.Errorf("parse usd: too large: %w", ErrUSD)
	}
	return Micros(m + f), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Amount is a quantity of every component.
type Amount struct {
	USD         Micros
	Tokens      int64
	ToolCalls   int64
	SimSeconds  int64
	RowsScanned int64
}

// Get returns the amount of one component.
func (a Amount) Get(c Component) int64 {
	switch c {
	case USD:
		return int64(a.USD)
	case Tokens:
		return a.Tokens
	case ToolCalls:
		return a.ToolCalls
	case SimSeconds:
		return a.SimSeconds
	case RowsScanned:
		return a.RowsScanned
	}
	return 0
}

// With returns a copy of a with component c set to v.
func (a Amount) With(c Component, v int64) Amount {
	switch c {
	case USD:
		a.USD = Micros(v)
	case Tokens:
		a.Tokens = v
	case ToolCalls:
		a.ToolCalls = v
	case SimSeconds:
		a.SimSeconds = v
	case RowsScanned:
		a.RowsScanned = v
	}
	return a
}

// Add returns a+b, component by component.
func (a Amount) Add(b Amount) Amount {
	return Amount{a.USD + b.USD, a.Tokens + b.Tokens, a.ToolCalls + b.ToolCalls, a.SimSeconds + b.SimSeconds, a.RowsScanned + b.RowsScanned}
}

// Sub returns a-b, component by component.
func (a Amount) Sub(b Amount) Amount {
	return Amount{a.USD - b.USD, a.Tokens - b.Tokens, a.ToolCalls - b.ToolCalls, a.SimSeconds - b.SimSeconds, a.RowsScanned - b.RowsScanned}
}

// IsZero reports whether every component is zero.
func (a Amount) IsZero() bool { return a == Amount{} }

// Exceeding returns, in order, the components on which a is greater than
// limit.
func (a Amount) Exceeding(limit Amount) []Component {
	var out []Component
	for _, c := range Components() {
		if a.Get(c) > limit.Get(c) {
			out = append(out, c)
		}
	}
	return out
}

// Negative returns, in order, the components on which a is below zero.
func (a Amount) Negative() []Component {
	var out []Component
	for _, c := range Components() {
		if a.Get(c) < 0 {
			out = append(out, c)
		}
	}
	return out
}

// String formats a as "usd=0.250000 tokens=1000 tool_calls=3 sim_seconds=0 rows_scanned=10".
func (a Amount) String() string {
	var b strings.Builder
	for i, c := range Components() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.String())
		b.WriteByte('=')
		if c == USD {
			b.WriteString(a.USD.String())
		} else {
			b.WriteString(strconv.FormatInt(a.Get(c), 10))
		}
	}
	return b.String()
}
