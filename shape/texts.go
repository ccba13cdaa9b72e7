package shape

import (
	"sync"
	"sync/atomic"
)

// A formulation's SQL text depends on the plan and on the shape of the
// call's arguments (how many scope values, which condition), never on
// their values, which are bound. A pipelined point call renders each of
// its two formulations four times (collected for the pipeline, replayed,
// and the resolver's again when it judges), about a tenth of the engine's
// CPU a call (bench/results/pgpoint-profile-before.md): the texts a plan
// renders are kept, by textKey, and a formulation binds its arguments in
// the text's order and renders the text only the first time.

// textForm names a formulation whose text is kept.
type textForm uint8

const (
	formExecLatest  textForm = iota + 1 // execLatest
	formResolveLive                     // resolveLive
)

// textKey names one kept text: the plan and formulation, and what else
// shapes the text. scope is the scope's shape (scopeAll, scopeNone or
// the number of values); shape is any further text the formulation's
// text depends on (resolveLive's flag, placeholders included), rendered
// per call because it is short.
type textKey struct {
	p     *plan
	form  textForm
	scope int
	shape string
}

// maxTexts bounds the texts an Engine keeps: a catalog's are few (a
// formulation per tool, condition and scope size); the bound only guards
// against a caller varying scopes without end. Past it a text is
// rendered on every call, as before the cache.
const maxTexts = 1024

// texts keeps formulations' texts (Engine.text).
type texts struct {
	m sync.Map // textKey → string
	n atomic.Int32
	// off: render every time (tests compare the kept texts with fresh
	// ones).
	off bool
}

// text returns the kept text of k, rendering and keeping it the first
// time. render must depend on nothing but what k names.
func (e *Engine) text(k textKey, render func() string) string {
	if e.texts.off {
		return render()
	}
	if t, ok := e.texts.m.Load(k); ok {
		return t.(string)
	}
	t := render()
	if e.texts.n.Load() < maxTexts && e.texts.n.Add(1) <= maxTexts {
		e.texts.m.Store(k, t)
	}
	return t
}
