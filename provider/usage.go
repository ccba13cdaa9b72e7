package provider

import (
	"context"
	"sync/atomic"
)

// Meter counts the model tokens a request's provider calls used, as the
// model's server reported them (prompt and completion together). The
// pipeline puts one in each request's context (WithMeter) and charges
// what it counts to the request's budget; a provider reports each reply's
// usage with Report. A provider that uses no model (rules) reports
// nothing, and a server that reports no usage counts 0. Safe for
// concurrent use.
type Meter struct{ tokens atomic.Int64 }

// Tokens returns the tokens reported so far.
func (m *Meter) Tokens() int64 { return m.tokens.Load() }

type meterKey struct{}

// WithMeter returns ctx carrying m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// Report adds tokens to the meter ctx carries, if any. A negative count
// (a server's nonsense) is ignored.
func Report(ctx context.Context, tokens int64) {
	if m, ok := ctx.Value(meterKey{}).(*Meter); ok && m != nil && tokens > 0 {
		m.tokens.Add(tokens)
	}
}
