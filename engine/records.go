package engine

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// ErrNoRecords: an engine without a database has no rows to read.
var ErrNoRecords = errors.New("engine reads no records")

// shapeScope maps a caller's scope onto the shapes'.
func shapeScope(s tool.Scope) shape.Scope {
	if s.All() {
		return shape.All()
	}
	return shape.Only(s.Stores()...)
}

// Record returns the row a provenance key names, if the caller's scope
// allows it. A row outside the scope and a key that names nothing are
// the same: not found, after the same one query (the scope is in its
// WHERE clause).
func (e *Engine) Record(ctx context.Context, key string, scope tool.Scope) (shape.Record, bool, error) {
	if e.runner == nil {
		return shape.Record{}, false, ErrNoRecords
	}
	var recs []shape.Record
	err := e.runner.with(ctx, func(s *shape.Snapshot) error {
		var err error
		recs, err = s.Records(ctx, []string{key}, shapeScope(scope))
		return err
	})
	if err != nil || len(recs) != 1 {
		return shape.Record{}, false, err
	}
	return recs[0], true, nil
}

// Summary describes the data within the caller's scope. A summary reads
// every row of every dataset, so it is kept per data version and scope
// (the data of a version does not change): a client that reads the
// dataset resource again costs one version read.
func (e *Engine) Summary(ctx context.Context, scope tool.Scope) (shape.Summary, error) {
	if e.runner == nil {
		return shape.Summary{}, ErrNoRecords
	}
	var sum shape.Summary
	err := e.runner.with(ctx, func(s *shape.Snapshot) error {
		key, err := summaryKey(ctx, e, s, scope)
		if err != nil {
			return err
		}
		if cached, ok := e.summaries.get(key); ok {
			sum = cached
			return nil
		}
		if sum, err = s.Summary(ctx, shapeScope(scope)); err != nil {
			return err
		}
		e.summaries.put(key, sum)
		return nil
	})
	return sum, err
}

// summaryKey names a snapshot's data versions and a scope.
func summaryKey(ctx context.Context, e *Engine, s *shape.Snapshot, scope tool.Scope) (string, error) {
	var b strings.Builder
	for _, ds := range e.Catalog.Datasets {
		v, err := s.DataVersion(ctx, ds.Name.Value)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		b.WriteByte(0)
	}
	if scope.All() {
		b.WriteString("*")
	} else {
		b.WriteString(strings.Join(shapeScope(scope).Values(), "\x00"))
	}
	return b.String(), nil
}

// summaryCacheSize bounds the summaries an engine keeps (one per data
// version and scope); the oldest goes first.
const summaryCacheSize = 64

type summaryCache struct {
	mu    sync.Mutex
	m     map[string]shape.Summary
	order []string
}

func (c *summaryCache) get(key string) (shape.Summary, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sum, ok := c.m[key]
	return sum, ok
}

func (c *summaryCache) put(key string, sum shape.Summary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]shape.Summary{}
	}
	if _, ok := c.m[key]; !ok {
		c.order = append(c.order, key)
	}
	c.m[key] = sum
	for len(c.order) > summaryCacheSize {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}

// Known returns those of keys that name rows, sorted: what eval checks a
// provenance pointer against. At most shape.MaxRecordKeys at a time.
func (e *Engine) Known(ctx context.Context, keys []string) ([]string, error) {
	if e.runner == nil {
		return nil, ErrNoRecords
	}
	var out []string
	err := e.runner.with(ctx, func(s *shape.Snapshot) error {
		for lo := 0; lo < len(keys); lo += shape.MaxRecordKeys {
			recs, err := s.Records(ctx, keys[lo:min(lo+shape.MaxRecordKeys, len(keys))], shape.All())
			if err != nil {
				return err
			}
			for _, r := range recs {
				out = append(out, r.Key)
			}
		}
		return nil
	})
	return out, err
}
