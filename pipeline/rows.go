package pipeline

import (
	"context"
	"encoding/json"
	"errors"
)

// Paging errors, shared by the engines that page provenance and the
// surfaces that serve the pages. A surface shows ErrUnknownResult as not
// found, the same for a result of another caller's scope, so that one
// caller learns nothing of another's; ErrDataChanged as gone; ErrNoSuchPage
// as not found; ErrNoPaging as not found.
var (
	ErrUnknownResult = errors.New("no such result with provenance listed in part")
	ErrDataChanged   = errors.New("the data changed since the result was computed")
	ErrNoSuchPage    = errors.New("no such page")
	ErrNoPaging      = errors.New("this engine does not page provenance")
)

// RowPager pages through the event ids behind a result whose provenance
// an answer listed in part, for the caller whose scope ctx carries. The
// page is a JSON object.
type RowPager interface {
	Rows(ctx context.Context, resultID string, page int) (json.RawMessage, error)
}
