package budget

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/provenant/provenant/internal/editdist"
)

// Config holds the budgets a deployment grants: one per session, and one
// per question carved out of the session's.
type Config struct {
	Session  Amount
	Question Amount
	// Prices are the models' prices, by the model name a provider is
	// configured with (--model); nil when the file has none. A model
	// call's tokens are charged usd at its model's price.
	Prices map[string]Price
}

// ErrConfig is wrapped by every *ConfigError.
var ErrConfig = errors.New("invalid budget config")

// ConfigError is a configuration that is not a complete, valid pair of
// budgets. Its message names declared keys only: a key or value the file
// wrote that is not declared is never repeated.
type ConfigError struct {
	Line    int    // 1-based line of the document, 0 when read from a map
	Path    string // the declared key at fault: "session", "question.tokens"; "" for the document
	Problem string
	Nearest string // for an unknown key, the nearest declared key
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("parse budget config: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Problem)
	if e.Nearest != "" {
		b.WriteString(" (did you mean " + e.Nearest + "?)")
	}
	return b.String()
}

// Unwrap returns ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }

var sectionNames = []string{"session", "question"}

// allSections are the top-level keys: the two budgets and the optional
// prices.
var allSections = []string{"session", "question", "prices"}

// priceNames are the keys of one model's price.
var priceNames = []string{"input", "output"}

// MaxConfigBytes bounds a configuration document.
const MaxConfigBytes = 64 << 10

func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] == ' ') {
			return s[:i]
		}
	}
	return s
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func missing(seen map[Component]bool) string {
	var m []Component
	for _, c := range Components() {
		if !seen[c] {
			m = append(m, c)
		}
	}
	return joinComponents(m)
}

// parseScalar reads one component's amount from its text; the problem is
// empty when it parses.
func parseScalar(c Component, s string) (int64, string) {
	if s == "" {
		return 0, "no amount"
	}
	if rest := s[1:]; s[0] == '-' && rest != "" && rest[0] != '-' {
		if _, p := parseScalar(c, rest); p == "" {
			return 0, "negative amount"
		}
	}
	if c == USD {
		m, err := ParseUSD(s)
		if err != nil {
			return 0, "not a dollar amount (digits, a point and at most six decimal places)"
		}
		return int64(m), ""
	}
	if !allDigits(s) {
		return 0, "not a whole number"
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, "too large"
	}
	return v, ""
}

// FromMap reads a Config from what a YAML or JSON decoder made of a
// document: a map with the keys "session" and "question", each a map of
// the five components. An amount may be a string (a scalar's text as
// written, read exactly), an integer, or a float64 that is whole (usd: any float64, read by
// its shortest decimal form, so 0.1 is exactly 100000 micro-dollars).
// Errors are *ConfigError with Line 0, the first in key order.
func FromMap(m map[string]any) (Config, error) {
	var cfg Config
	if err := unknownKeys("", m, allSections); err != nil {
		return Config{}, err
	}
	for _, s := range sectionNames {
		raw, ok := m[s]
		if !ok {
			return Config{}, &ConfigError{Path: s, Problem: "missing"}
		}
		sec, ok := raw.(map[string]any)
		if !ok {
			return Config{}, &ConfigError{Path: s, Problem: "expected a mapping of the five components"}
		}
		if err := unknownKeys(s, sec, componentNames[:]); err != nil {
			return Config{}, err
		}
		seen := map[Component]bool{}
		var a Amount
		for _, c := range Components() {
			v, ok := sec[c.String()]
			if !ok {
				continue
			}
			seen[c] = true
			n, problem := mapScalar(c, v)
			if problem != "" {
				return Config{}, &ConfigError{Path: s + "." + c.String(), Problem: problem}
			}
			a = a.With(c, n)
		}
		if miss := missing(seen); miss != "" {
			return Config{}, &ConfigError{Path: s, Problem: "missing " + miss}
		}
		if s == "session" {
			cfg.Session = a
		} else {
			cfg.Question = a
		}
	}
	if raw, ok := m["prices"]; ok {
		prices, err := pricesFromMap(raw)
		if err != nil {
			return Config{}, err
		}
		cfg.Prices = prices
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// pricesFromMap reads the prices section: a map of model names (each
// ValidModel) to a map of input and output, dollars per million tokens,
// both required. A model name that is not valid is never repeated.
func pricesFromMap(raw any) (map[string]Price, error) {
	sec, ok := raw.(map[string]any)
	if !ok {
		if raw == nil {
			return nil, nil // "prices:" with nothing under it
		}
		return nil, &ConfigError{Path: "prices", Problem: "expected a mapping of model names to prices"}
	}
	models := make([]string, 0, len(sec))
	for model := range sec {
		if !ValidModel(model) {
			return nil, &ConfigError{Path: "prices", Problem: "not a model name (a letter or digit, then letters, digits and ._:/@+-, at most 128)"}
		}
		models = append(models, model)
	}
	slices.Sort(models)
	out := make(map[string]Price, len(models))
	for _, model := range models {
		path := "prices." + model
		pm, ok := sec[model].(map[string]any)
		if !ok {
			return nil, &ConfigError{Path: path, Problem: "expected a mapping of input and output"}
		}
		if err := unknownKeys(path, pm, priceNames); err != nil {
			return nil, err
		}
		var v [2]int64
		for i, k := range priceNames {
			x, ok := pm[k]
			if !ok {
				return nil, &ConfigError{Path: path, Problem: "missing " + k}
			}
			n, problem := mapScalar(USD, x)
			if problem != "" {
				return nil, &ConfigError{Path: path + "." + k, Problem: problem}
			}
			v[i] = n
		}
		out[model] = Price{Input: Micros(v[0]), Output: Micros(v[1])}
	}
	return out, nil
}

func unknownKeys(path string, m map[string]any, valid []string) error {
	var unknown []string
	for k := range m {
		if !slices.Contains(valid, k) {
			unknown = append(unknown, k)
		}
	}
	if unknown == nil {
		return nil
	}
	slices.Sort(unknown)
	return &ConfigError{Path: path, Problem: "unknown key", Nearest: nearest(unknown[0], valid)}
}

func mapScalar(c Component, v any) (int64, string) {
	switch x := v.(type) {
	case string:
		return parseScalar(c, x)
	case int:
		return mapInt(c, int64(x))
	case int64:
		return mapInt(c, x)
	case int32:
		return mapInt(c, int64(x))
	case uint64:
		if x > math.MaxInt64 {
			return 0, "too large"
		}
		return mapInt(c, int64(x))
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, "too large"
		}
		return mapInt(c, int64(x))
	case uint32:
		return mapInt(c, int64(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, "not a number"
		}
		if x < 0 {
			return 0, "negative amount"
		}
		if c == USD {
			return parseScalar(c, strconv.FormatFloat(x, 'f', -1, 64))
		}
		if x != math.Trunc(x) {
			return 0, "not a whole number"
		}
		if x >= 1<<63 {
			return 0, "too large"
		}
		return int64(x), ""
	}
	return 0, "expected a number"
}

func mapInt(c Component, v int64) (int64, string) {
	if v < 0 {
		return 0, "negative amount"
	}
	if c == USD {
		if v > math.MaxInt64/int64(Dollar) {
			return 0, "too large"
		}
		return v * int64(Dollar), ""
	}
	return v, ""
}

// Validate checks that neither budget is negative and that a question's
// budget fits inside a session's on every component.
func (c Config) Validate() error {
	for _, s := range []struct {
		name string
		a    Amount
	}{{"session", c.Session}, {"question", c.Question}} {
		if neg := s.a.Negative(); neg != nil {
			return &ConfigError{Path: s.name + "." + neg[0].String(), Problem: "negative amount"}
		}
	}
	for model, p := range c.Prices {
		if !ValidModel(model) {
			return &ConfigError{Path: "prices", Problem: "not a model name"}
		}
		if p.Input < 0 || p.Output < 0 {
			return &ConfigError{Path: "prices." + model, Problem: "negative amount"}
		}
	}
	if over := c.Question.Exceeding(c.Session); over != nil {
		return &ConfigError{Path: "question." + over[0].String(), Problem: "larger than the session's"}
	}
	return nil
}

// nearest returns the name in valid closest to s by edit distance (the
// first of equals).
func nearest(s string, valid []string) string {
	if len(s) > 64 {
		s = s[:64] // a long key is far from every name anyway; bound the work
	}
	best, bestD := "", math.MaxInt
	for _, v := range valid {
		if d := editdist.Distance(strings.ToLower(s), v); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}
