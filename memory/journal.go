package memory

import (
	"context"
	"errors"
)

// Journal is a Store that can be appended to: what the surfaces that
// write memory (remember, annotate) need. memstore, and the DuckDB and
// PostgreSQL stores, implement it.
type Journal interface {
	Store
	// Append adds a record with its visibility. It validates both
	// (Validate, Visibility.Validate); a key already in the journal is
	// ErrDuplicateKey, an annotation whose target is not in it
	// ErrUnknownTarget.
	Append(ctx context.Context, r Record, v Visibility) error
}

// Errors of an append, wrapped by every Journal.
var (
	// ErrDuplicateKey: the key is already in the journal.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrUnknownTarget: an annotation's target is not in the journal.
	ErrUnknownTarget = errors.New("unknown target")
)
