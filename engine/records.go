package engine

import (
	"context"
	"errors"

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

// Summary describes the data within the caller's scope.
func (e *Engine) Summary(ctx context.Context, scope tool.Scope) (shape.Summary, error) {
	if e.runner == nil {
		return shape.Summary{}, ErrNoRecords
	}
	var sum shape.Summary
	err := e.runner.with(ctx, func(s *shape.Snapshot) error {
		var err error
		sum, err = s.Summary(ctx, shapeScope(scope))
		return err
	})
	return sum, err
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
