package tool

import (
	"errors"
	"fmt"
	"maps"
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
	reg *Registry
	ids map[string]map[string]bool
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

// Arg returns a validated argument ("" if the tool has no such parameter).
func (c Call) Arg(name string) string { return c.args[name] }

// Args returns a copy of the validated arguments.
func (c Call) Args() map[string]string { return maps.Clone(c.args) }

// Check validates p for a caller who may see every scope-entity id (the
// single local user).
func (w *Wall) Check(p Proposal) (Call, error) { return w.CheckScoped(p, AllStores()) }

// CheckScoped runs the wall's checks in order: registered tool name, exact
// parameter set, query syntax in any value, each scope-entity id (a
// store) against the caller's scope, each value's domain, window order.
// It returns a *Rejection for the first that fails; it reads no event
// data. An id outside a limited scope is rejected before the domain
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
		if _, ok := p.Params[q.Name]; !ok {
			return Call{}, &Rejection{Kind: Invalid, Param: q.Name, Reason: "is missing"}
		}
	}
	// Query syntax is judged on every value before any domain check, so a
	// value that is both is always reported as a raw query.
	for _, q := range def.Params {
		if carriesQuery(p.Params[q.Name]) {
			return Call{}, &Rejection{Kind: RawQuery, Param: q.Name, Reason: "carries query syntax"}
		}
	}
	if !scope.All() {
		for _, q := range def.Params {
			if s, ok := p.Params[q.Name].(string); q.Kind == EntityID && q.Entity == w.reg.scope && (!ok || !scope.Allows(s)) {
				return Call{}, &Rejection{Kind: OutOfScope, Param: q.Name, Reason: "is outside the caller's scope"}
			}
		}
	}
	args := make(map[string]string, len(def.Params))
	for _, q := range def.Params {
		s, ok := p.Params[q.Name].(string)
		if !ok {
			return Call{}, &Rejection{Kind: Invalid, Param: q.Name, Reason: "must be a string"}
		}
		if reason := w.outOfDomain(q, s); reason != "" {
			return Call{}, &Rejection{Kind: Invalid, Param: q.Name, Reason: reason}
		}
		args[q.Name] = s
	}
	if start, end := args["start"], args["end"]; start != "" && start > end {
		return Call{}, &Rejection{Kind: Invalid, Param: "start", Reason: "is after end"}
	}
	return Call{def: def, args: args, scope: scope}, nil
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
