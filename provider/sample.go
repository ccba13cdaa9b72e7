package provider

import "context"

type sampleKey struct{}

// WithSample returns ctx carrying the sample index i: the nonce of one of
// n independent proposals a caller draws for one question
// (self-consistency voting). A provider that samples (a model at a
// temperature, the noisy instrument) should make proposals with different
// indexes independent draws, and the same index the same draw, so that a
// run replays. A deterministic provider may ignore it. Index 0 is the
// first proposal, the one a caller that does not vote would get.
func WithSample(ctx context.Context, i int) context.Context {
	return context.WithValue(ctx, sampleKey{}, i)
}

// SampleFrom returns the sample index ctx carries, if any.
func SampleFrom(ctx context.Context) (int, bool) {
	i, ok := ctx.Value(sampleKey{}).(int)
	return i, ok
}
