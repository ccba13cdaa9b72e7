// Package memorytest holds test support for package memory: a Store
// wrapper that counts a read's calls, so a test can hold a read to its
// I/O budget. It imports only the standard library and package memory.
package memorytest

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/provenant/provenant/memory"
)

var (
	_ memory.Store          = (*Counting)(nil)
	_ memory.EntryRetriever = (*Counting)(nil)
)

// Counting passes every call to Store and counts it.
type Counting struct {
	Store memory.Store

	retrievals, visibility, chains atomic.Int64
}

// NewCounting wraps st.
func NewCounting(st memory.Store) *Counting { return &Counting{Store: st} }

// Calls are the counts of a Counting store's calls.
type Calls struct {
	Retrievals int // Retrieve calls
	Visibility int // Visibility calls (each a batch)
	Chains     int // Chain calls
}

// Calls returns the counts so far.
func (c *Counting) Calls() Calls {
	return Calls{int(c.retrievals.Load()), int(c.visibility.Load()), int(c.chains.Load())}
}

// Reset sets the counts to zero.
func (c *Counting) Reset() {
	c.retrievals.Store(0)
	c.visibility.Store(0)
	c.chains.Store(0)
}

// Retrieve counts one retrieval.
func (c *Counting) Retrieve(ctx context.Context, q memory.Retrieval) ([]memory.Record, error) {
	c.retrievals.Add(1)
	return c.Store.Retrieve(ctx, q)
}

// RetrieveEntries counts one retrieval when the wrapped store reads
// visibility with its records (memory.EntryRetriever); over one that
// does not, it is a retrieval and a batched visibility read, counted as
// such.
func (c *Counting) RetrieveEntries(ctx context.Context, q memory.Retrieval) ([]memory.Entry, error) {
	if er, ok := c.Store.(memory.EntryRetriever); ok {
		c.retrievals.Add(1)
		return er.RetrieveEntries(ctx, q)
	}
	recs, err := c.Retrieve(ctx, q)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = r.Key
	}
	vis, err := c.Visibility(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("retrieve entries: %w", memory.ErrUndecided)
	}
	es := make([]memory.Entry, 0, len(recs))
	for _, r := range recs {
		v, ok := vis[r.Key]
		if !ok {
			return nil, fmt.Errorf("retrieve entries: %w", memory.ErrUndecided)
		}
		es = append(es, memory.Entry{Record: r, Visibility: v})
	}
	return es, nil
}

// Visibility counts one batched visibility read.
func (c *Counting) Visibility(ctx context.Context, keys []string) (map[string]memory.Visibility, error) {
	c.visibility.Add(1)
	return c.Store.Visibility(ctx, keys)
}

// Chain counts one chain read.
func (c *Counting) Chain(ctx context.Context, key string) ([]memory.Entry, error) {
	c.chains.Add(1)
	return c.Store.Chain(ctx, key)
}
