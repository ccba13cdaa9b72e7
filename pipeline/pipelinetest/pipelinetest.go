// Package pipelinetest holds fakes of the pipeline's interfaces for the
// tests of the surfaces built on it.
package pipelinetest

import (
	"context"
	"encoding/json"

	"github.com/provenant/provenant/pipeline"
)

// Pager is a fake pipeline.RowPager: result "res-a" has two pages, each
// {"page":N}; "res-old" has changed (ErrDataChanged); any other id is
// unknown.
type Pager struct{}

// Rows returns page of result id.
func (Pager) Rows(_ context.Context, id string, page int) (json.RawMessage, error) {
	switch {
	case id == "res-old":
		return nil, pipeline.ErrDataChanged
	case id != "res-a":
		return nil, pipeline.ErrUnknownResult
	case page < 1 || page > 2:
		return nil, pipeline.ErrNoSuchPage
	}
	return json.RawMessage(`{"page":` + string(rune('0'+page)) + `}`), nil
}
