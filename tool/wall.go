package tool

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Proposal is a tool call as a model proposed it: untrusted in every field.
// Params hold decoded JSON values of any type.
type Proposal struct {
	Tool   string
	Params map[string]any
	// Asked is, for a yes/no question, the value it asks about; it
	// chooses the sentence, never the call, and the pipeline keeps it
	// only when it is one of the tool's values.
	Asked string `json:",omitempty"`
}

// RejectKind names one of the three disjoint rejections.
type RejectKind string

// The rejection kinds.
const (
	Unregistered RejectKind = "unregistered" // the tool is not on the menu
	Invalid      RejectKind = "invalid"      // wrong parameter set, out-of-domain value, reversed window
	RawQuery     RejectKind = "raw_query"    // a value carries query syntax
	OutOfScope   RejectKind = "out_of_scope" // a store outside the caller's scope, or one that does not exist
)

// Rejection is the wall's typed refusal. Param names the registered
// parameter at fault, if any; no field ever holds the rejected value.
type Rejection struct {
	Kind   RejectKind
	Param  string
	Reason string
}

func (r *Rejection) Error() string {
	return fmt.Sprintf("reject call: %s: %s", r.Kind, r.Detail())
}

// Detail is the rejection's text without its kind: "parameter P reason",
// or the reason alone when no parameter is at fault.
func (r *Rejection) Detail() string {
	if r.Param != "" {
		return "parameter " + r.Param + " " + r.Reason
	}
	return r.Reason
}

// Wall validates proposals against a registry and the declared ids.
type Wall struct {
	reg    *Registry
	ids    map[string]map[string]bool
	checks map[string]CallCheck
}

// CallCheck is a tool's own check of a call whose every argument is in
// its domain: the relations between arguments the parameter domains
// cannot say (a metric's allowed dimensions, a filter's operator and
// values). It returns nil or the rejection, which never holds a value.
type CallCheck func(c Call) *Rejection

// WithCheck returns a copy of w that also runs check on every call of
// the named tool, after the parameter checks.
func (w *Wall) WithCheck(tool string, check CallCheck) *Wall {
	c := *w
	c.checks = maps.Clone(w.checks)
	if c.checks == nil {
		c.checks = map[string]CallCheck{}
	}
	c.checks[tool] = check
	return &c
}

// NewWall returns a wall over reg and the declared ids of each entity
// (entity name → id → true): metadata known at load, not events. An
// entity whose id set is nil (absent, or ids nil) is checked by its
// pattern only. The wall keeps ids; do not modify them afterwards.
func NewWall(reg *Registry, ids map[string]map[string]bool) *Wall {
	return &Wall{reg: reg, ids: ids}
}

// Registry returns the registry the wall checks against.
func (w *Wall) Registry() *Registry { return w.reg }

// Call is a validated tool call. The only way to obtain one is Wall.Check
// or Wall.CheckScoped.
type Call struct {
	def   Def
	args  map[string]string
	scope Scope
}

// Scope returns the scope-entity ids (stores) the call may see. The
// executor and the resolver both restrict what they read to it.
func (c Call) Scope() Scope { return c.scope }

// Def returns the called tool's definition. It shares the registry's
// slices (Params, Values): read it, do not write into it.
func (c Call) Def() Def { return c.def }

// Tool returns the called tool's name.
func (c Call) Tool() string { return c.def.Name }

// Arg returns a validated argument ("" if the tool has no such parameter,
// or the call left an optional one out). An array or object argument is
// its canonical JSON (keys sorted, no spaces); an integer is in decimal,
// a boolean true or false.
func (c Call) Arg(name string) string { return c.args[name] }

// Args returns a copy of the validated arguments, but for a Statement's
// text, which is replaced by StatementRef of it: a statement leaves a call
// only through Arg (the executor's read), so an answer, a log line or a
// ledger built from Args never carries it.
func (c Call) Args() map[string]string {
	out := maps.Clone(c.args)
	for _, q := range c.def.Params {
		if s, ok := out[q.Name]; ok && q.Kind == Statement {
			out[q.Name] = StatementRef(s)
		}
	}
	return out
}

// StatementRef is how a statement is named where its text must not go:
// "sha256:" and its SHA-256 in lowercase hex.
func StatementRef(stmt string) string {
	h := sha256.Sum256([]byte(stmt))
	return "sha256:" + hex.EncodeToString(h[:])
}

// Check validates p for a caller who may see every scope-entity id (the
// single local user).
func (w *Wall) Check(p Proposal) (Call, error) { return w.CheckScoped(p, AllStores()) }

// CheckScoped runs the wall's checks in order: registered tool name, exact
// parameter set (an optional parameter may be left out), query syntax in
// any value (in any string or key inside an array or object), each
// scope-entity id (a store) against the caller's scope (and a free SQL
// statement, which reads every row, refused to a limited scope), each value's
// domain (an array's items and an object's fields recursively, a
// rejection naming the item: "filters[0].op"), window order, then the
// tool's own check (WithCheck), if any. It returns a *Rejection for the
// first that fails; it reads no event data. An id outside a limited scope is rejected before the domain
// check, so a scoped caller cannot tell an id it may not see from one
// that does not exist.
func (w *Wall) CheckScoped(p Proposal, scope Scope) (Call, error) {
	def, ok := w.reg.lookup(p.Tool)
	if !ok {
		return Call{}, &Rejection{Kind: Unregistered, Reason: "tool is not on the menu"}
	}
	for name := range p.Params {
		if !slices.ContainsFunc(def.Params, func(q Param) bool { return q.Name == name }) {
			return Call{}, &Rejection{Kind: Invalid, Reason: "unexpected parameter for " + def.Name}
		}
	}
	for _, q := range def.Params {
		if _, ok := p.Params[q.Name]; !ok && !q.Optional {
			return Call{}, &Rejection{Kind: Invalid, Param: q.Name, Reason: "is missing"}
		}
	}
	// Query syntax is judged on every value before any domain check, so a
	// value that is both is always reported as a raw query.
	for _, q := range def.Params {
		if v, ok := p.Params[q.Name]; ok && carriesQueryIn(q, v) {
			return Call{}, &Rejection{Kind: RawQuery, Param: q.Name, Reason: "carries query syntax"}
		}
	}
	if !scope.All() {
		for _, q := range def.Params {
			if q.Kind == Statement {
				// The sandbox reads every row of the allowlisted tables: it
				// has no scope to apply.
				return Call{}, &Rejection{Kind: OutOfScope, Param: q.Name, Reason: "reads every row of the allowlisted tables; the caller's scope is limited"}
			}
			if s, ok := p.Params[q.Name].(string); q.Kind == EntityID && q.Entity == w.reg.scope && (!ok || !scope.Allows(s)) {
				return Call{}, &Rejection{Kind: OutOfScope, Param: q.Name, Reason: "is outside the caller's scope"}
			}
		}
	}
	args := make(map[string]string, len(def.Params))
	for _, q := range def.Params {
		v, present := p.Params[q.Name]
		if !present {
			continue // optional, left out
		}
		if !q.Kind.Structured() && q.Kind != Integer && q.Kind != Boolean {
			s, ok := v.(string)
			if !ok {
				return Call{}, &Rejection{Kind: Invalid, Param: q.Name, Reason: "must be a string"}
			}
			if reason := w.outOfDomain(q, s); reason != "" {
				return Call{}, &Rejection{Kind: Invalid, Param: q.Name, Reason: reason}
			}
			args[q.Name] = s
			continue
		}
		canon, rej := w.judge(q, v, q.Name)
		if rej != nil {
			return Call{}, rej
		}
		b, err := json.Marshal(canon)
		if err != nil {
			return Call{}, &Rejection{Kind: Invalid, Param: q.Name, Reason: "is not representable"}
		}
		args[q.Name] = string(b)
	}
	if start, end := args["start"], args["end"]; start != "" && start > end {
		return Call{}, &Rejection{Kind: Invalid, Param: "start", Reason: "is after end"}
	}
	c := Call{def: def, args: args, scope: scope}
	if check := w.checks[def.Name]; check != nil {
		if rej := check(c); rej != nil {
			return Call{}, rej
		}
	}
	return c, nil
}

// judge checks a value of any kind against q's domain, recursively, and
// returns it in canonical form (integers as int64, objects as maps with
// only declared keys). path names the value in a rejection
// ("filters[1].op"); the rejection never holds the value.
func (w *Wall) judge(q Param, v any, path string) (any, *Rejection) {
	bad := func(reason string) (any, *Rejection) {
		return nil, &Rejection{Kind: Invalid, Param: path, Reason: reason}
	}
	switch q.Kind {
	case Integer:
		var n float64
		switch x := v.(type) {
		case float64:
			n = x
		case int:
			n = float64(x)
		case int64:
			n = float64(x)
		case json.Number:
			f, err := x.Float64()
			if err != nil {
				return bad("must be an integer")
			}
			n = f
		default:
			return bad("must be an integer")
		}
		if n != math.Trunc(n) || math.IsInf(n, 0) {
			return bad("must be an integer")
		}
		if n < float64(q.Min) || n > float64(q.Max) {
			return bad(fmt.Sprintf("must be between %d and %d", q.Min, q.Max))
		}
		return int64(n), nil
	case Boolean:
		b, ok := v.(bool)
		if !ok {
			return bad("must be true or false")
		}
		return b, nil
	case Array:
		xs, ok := v.([]any)
		if !ok {
			return bad("must be an array")
		}
		if len(xs) > q.MaxItems {
			return bad(fmt.Sprintf("has more than %d items", q.MaxItems))
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			c, rej := w.judge(*q.Items, x, fmt.Sprintf("%s[%d]", path, i))
			if rej != nil {
				return nil, rej
			}
			out[i] = c
		}
		return out, nil
	case Object:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("must be an object")
		}
		for k := range m {
			if !slices.ContainsFunc(q.Fields, func(f Param) bool { return f.Name == k }) {
				return bad("has an unexpected key")
			}
		}
		out := make(map[string]any, len(q.Fields))
		for _, f := range q.Fields {
			x, ok := m[f.Name]
			if !ok {
				if f.Optional {
					continue
				}
				return nil, &Rejection{Kind: Invalid, Param: path + "." + f.Name, Reason: "is missing"}
			}
			c, rej := w.judge(f, x, path+"."+f.Name)
			if rej != nil {
				return nil, rej
			}
			out[f.Name] = c
		}
		return out, nil
	}
	s, ok := v.(string)
	if !ok {
		return bad("must be a string")
	}
	if reason := w.outOfDomain(q, s); reason != "" {
		return bad(reason)
	}
	return s, nil
}

// carriesQueryIn reports whether a value of q carries query syntax: for
// an array or object parameter, whether any string inside it does (or a
// key it does not declare looks like one); for any other parameter, as
// carriesQuery.
func carriesQueryIn(q Param, v any) bool {
	if q.Kind == Statement {
		// Query syntax is what a statement is made of; a non-string is
		// judged by its domain.
		_, ok := v.(string)
		return !ok && carriesQuery(v)
	}
	if !q.Kind.Structured() {
		if q.Kind == Integer || q.Kind == Boolean {
			_, structured := v.(map[string]any)
			_, list := v.([]any)
			return structured || list || carriesQuery(v)
		}
		return carriesQuery(v)
	}
	return leafQuery(v, 0)
}

// leafQuery reports whether any string or key in a JSON value carries
// query syntax; nesting beyond a few levels is query syntax too (no
// parameter nests that deep).
func leafQuery(v any, depth int) bool {
	if depth > 4 {
		return true
	}
	switch x := v.(type) {
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return leafQuery(e, depth+1) })
	case map[string]any:
		for k, e := range x {
			if carriesQuery(k) || leafQuery(e, depth+1) {
				return true
			}
		}
		return false
	}
	return carriesQuery(v)
}

func (w *Wall) outOfDomain(q Param, s string) string {
	if reason := w.reg.OutOfDomain(q, s); reason != "" {
		return reason
	}
	if declared := w.ids[q.Entity]; q.Kind == EntityID && declared != nil && !declared[s] {
		return "is not a declared " + q.Entity
	}
	return ""
}

// TimestampLayout is the one timestamp format of every parameter: UTC, to
// the second, trailing Z.
const TimestampLayout = "2006-01-02T15:04:05Z"

// LastInstant is the latest instant a Timestamp parameter admits. The
// engines mark a series' latest row valid until 9999-12-31 00:00:00
// (shape.OpenEnd): an instant at or past that mark is read against the
// mark rather than the data, the executor and the re-derivation disagree,
// and the answer failed verification as our error (a 500) where the
// caller had asked for a time no data can have.
const LastInstant = "9999-12-30T23:59:59Z"

// FirstInstant is the earliest instant a Timestamp parameter admits.
// PostgreSQL has no year 0 (the year before 1 is 1 BC), so it refuses
// the literal "0000-01-01 00:00:00" every engine writes for an instant
// in year 0000: such a call was an internal error (a 500) on PostgreSQL
// where DuckDB answered it. Refused by the wall, every backend answers
// the same domain.
const FirstInstant = "0001-01-01T00:00:00Z"

// IsTimestamp reports whether s is a valid instant in TimestampLayout,
// written exactly as the layout writes it.
func IsTimestamp(s string) bool {
	if len(s) != len(TimestampLayout) {
		return false
	}
	t, err := time.Parse(TimestampLayout, s)
	return err == nil && t.Format(TimestampLayout) == s
}

// sqlWords are the statement heads, clause keywords and boolean operators
// that mark a value as an attempted query rather than a mistaken token.
// Common English words that are not operators (null, limit, values, ...)
// are left out: "null" from a model is a bad value, not an injection.
var sqlWords = map[string]bool{
	"select": true, "insert": true, "update": true, "delete": true, "drop": true,
	"union": true, "from": true, "where": true, "and": true, "or": true, "not": true,
	"xor": true, "like": true, "between": true, "exists": true, "join": true,
	"exec": true, "execute": true, "truncate": true, "alter": true, "create": true,
	"grant": true, "having": true, "pragma": true, "attach": true,
}

// querySymbols are quotes, comparison and boolean operators, statement
// separators, grouping and wildcards.
const querySymbols = "'\"`;(){}[]=<>!|&%*\\"

// carriesQuery reports whether a proposed value looks like query syntax.
// Structured values (objects, arrays) are query syntax too: a model that
// sends {"$gt": ...} is writing a query.
func carriesQuery(v any) bool {
	switch v := v.(type) {
	case string:
		if strings.ContainsAny(v, querySymbols) || strings.Contains(v, "--") || strings.Contains(v, "/*") {
			return true
		}
		words := strings.FieldsFunc(v, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
		})
		for _, w := range words {
			if sqlWords[strings.ToLower(w)] {
				return true
			}
		}
		return false
	case map[string]any, []any:
		return true
	}
	return false
}

// IsRejection reports whether err is a wall rejection and returns it.
func IsRejection(err error) (*Rejection, bool) {
	var r *Rejection
	ok := errors.As(err, &r)
	return r, ok
}
