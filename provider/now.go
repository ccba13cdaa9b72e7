package provider

import (
	"context"
	"time"
)

type nowKey struct{}

// WithNow returns ctx carrying now, the clock a request's relative time
// ("today", "last week", a question naming no time) is resolved against.
// The caller reads the clock once, at the edge (a command's --now, or the
// wall clock when a request arrives), and every decision below sees that
// one value; a provider never reads the wall clock itself.
func WithNow(ctx context.Context, now time.Time) context.Context {
	return context.WithValue(ctx, nowKey{}, now.UTC())
}

// NowFrom returns the clock ctx carries, if any.
func NowFrom(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(nowKey{}).(time.Time)
	return t, ok
}
