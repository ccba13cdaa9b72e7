// Package deadlinetest provides contexts that expire deterministically, so
// tests of deadline handling need no timer.
package deadlinetest

import (
	"context"
	"sync/atomic"
)

// Context is a context whose Err reports context.DeadlineExceeded from its
// n-th call on (nil before). Done never closes: code under test must look
// at Err, as deadline.Check does. Checks counts the calls to Err.
type Context struct {
	context.Context
	n      int64
	checks atomic.Int64
}

// AfterChecks returns a context that expires at its n-th look (n >= 1).
func AfterChecks(n int) *Context {
	return &Context{Context: context.Background(), n: int64(n)}
}

// Err counts the call and reports the deadline from the n-th call on.
func (c *Context) Err() error {
	if c.checks.Add(1) >= c.n {
		return context.DeadlineExceeded
	}
	return nil
}

// Checks returns the number of calls to Err so far.
func (c *Context) Checks() int { return int(c.checks.Load()) }
