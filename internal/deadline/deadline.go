// Package deadline lets long loops honour a request's context cheaply: a
// loop looks at ctx.Err() once every Every iterations, so a deadline or a
// cancellation stops it within Every iterations of passing, at the cost of
// one integer test per iteration.
//
// A deadline aborts work; it never changes an answer. Code that checks
// returns the context's error, and the pipeline turns that into the
// timeout outcome, so wall-clock time decides only whether an answer
// arrives, not what it says.
package deadline

import "context"

// Every is the number of iterations between two looks at the context.
const Every = 1024

// Check returns ctx.Err() when i is a multiple of Every (including 0, so a
// loop's first iteration sees an already-expired context), nil otherwise.
func Check(ctx context.Context, i int) error {
	if i%Every != 0 {
		return nil
	}
	return ctx.Err()
}
