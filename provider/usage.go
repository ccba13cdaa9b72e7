package provider

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// Usage is the tokens of one or more model replies, as the model's server
// reported them, with the model they were asked of.
type Usage struct {
	// Model is the model the request named (the configured --model, not
	// the versioned name a server may answer with), so that a price
	// configured for it applies.
	Model string
	// Input is the prompt tokens; Output the completion tokens.
	Input, Output int64
}

// Tokens returns Input + Output.
func (u Usage) Tokens() int64 { return u.Input + u.Output }

// Meter counts the model tokens a request's provider calls used, input
// and output apart and by model, as the model's server reported them.
// The pipeline puts one in each request's context (WithMeter) and charges
// what it counts to the request's budget (tokens, and usd at the model's
// price); a provider reports each reply's usage with Report. A provider
// that uses no model (rules) reports nothing, and a server that reports
// no usage counts 0. Safe for concurrent use.
type Meter struct {
	mu      sync.Mutex
	byModel map[string]Usage
}

// Tokens returns the tokens reported so far, input and output, of every
// model.
func (m *Meter) Tokens() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, u := range m.byModel {
		n += u.Tokens()
	}
	return n
}

// Usage returns the tokens reported so far, one Usage per model, in the
// order of the models' names.
func (m *Meter) Usage() []Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Usage, 0, len(m.byModel))
	for _, u := range m.byModel {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b Usage) int { return cmp.Compare(a.Model, b.Model) })
	return out
}

type meterKey struct{}

// WithMeter returns ctx carrying m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// Report adds a reply's usage to the meter ctx carries, if any. A
// negative count (a server's nonsense) counts 0.
func Report(ctx context.Context, u Usage) {
	m, ok := ctx.Value(meterKey{}).(*Meter)
	if !ok || m == nil {
		return
	}
	u.Input, u.Output = max(u.Input, 0), max(u.Output, 0)
	if u.Tokens() == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byModel == nil {
		m.byModel = map[string]Usage{}
	}
	t := m.byModel[u.Model]
	t.Model = u.Model
	t.Input += u.Input
	t.Output += u.Output
	m.byModel[u.Model] = t
}
