package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// The paging errors (package pipeline's).
var (
	ErrUnknownResult = pipeline.ErrUnknownResult
	ErrDataChanged   = pipeline.ErrDataChanged
	ErrNoSuchPage    = pipeline.ErrNoSuchPage
	ErrNoPaging      = pipeline.ErrNoPaging
)

var _ pipeline.RowPager = (*Engine)(nil)

// RowPager returns e as a pipeline.RowPager when it pages provenance (a
// catalog engine), else nil: what a surface serves the rows resource from.
func (e *Engine) RowPager() pipeline.RowPager {
	if e.runner == nil {
		return nil
	}
	return e
}

// keptResults is how many results listed in part an engine remembers
// for each scope: the oldest is forgotten first. Each scope keeps its own,
// so that one principal's calls cannot push another's results out.
const keptResults = 1024

// keptScopes is how many scopes' results an engine remembers: the scope
// that kept a result least recently is forgotten first. Together with
// keptResults it bounds the keeper's memory.
const keptScopes = 64

// RowsPage is one page of the event ids behind a result: ids sorted
// bytewise, page numbered from 1, Pages in all.
type RowsPage struct {
	ResultID    string   `json:"result_id"`
	Page        int      `json:"page"`
	Pages       int      `json:"pages"`
	EventCount  int      `json:"event_count"`
	EventDigest string   `json:"event_digest"`
	DataVersion string   `json:"data_version"`
	EventIDs    []string `json:"event_ids"`
}

// kept is a remembered result.
type kept struct {
	call    tool.Call
	version string
	total   int
	digest  string
}

// keeper remembers results listed in part (pipeline.Keeper), by the
// scope of the call that made each.
type keeper struct {
	mu     sync.Mutex
	scopes map[string]*keptScope
	order  []string // scope keys, the least recently kept first
}

// keptScope is one scope's remembered results, the oldest first.
type keptScope struct {
	m     map[string]kept
	order []string
}

// scopeKey names a scope as sameScope compares them.
func scopeKey(s tool.Scope) string {
	if s.All() {
		return "*"
	}
	return "=" + strings.Join(s.Stores(), "\x00")
}

func (k *keeper) Keep(id string, c tool.Call, r fact.Result) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.scopes == nil {
		k.scopes = map[string]*keptScope{}
	}
	key := scopeKey(c.Scope())
	ks := k.scopes[key]
	if ks == nil {
		ks = &keptScope{m: map[string]kept{}}
		k.scopes[key] = ks
	} else {
		k.order = slices.DeleteFunc(k.order, func(o string) bool { return o == key })
	}
	k.order = append(k.order, key)
	for len(k.order) > keptScopes {
		delete(k.scopes, k.order[0])
		k.order = k.order[1:]
	}
	if _, ok := ks.m[id]; !ok {
		ks.order = append(ks.order, id)
	}
	ks.m[id] = kept{call: c, version: r.DataVersion, total: r.Provenance.NumEvents(), digest: r.Provenance.EventDigest()}
	for len(ks.order) > keptResults {
		delete(ks.m, ks.order[0])
		ks.order = ks.order[1:]
	}
}

// get returns the result id names if the caller's scope kept it.
func (k *keeper) get(id string, scope tool.Scope) (kept, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	ks := k.scopes[scopeKey(scope)]
	if ks == nil {
		return kept{}, false
	}
	r, ok := ks.m[id]
	return r, ok && sameScope(r.call.Scope(), scope)
}

// Rows returns page (from 1) of the event ids behind a result as JSON
// (a RowsPage), for the caller whose scope ctx carries (pipeline.Scope).
func (e *Engine) Rows(ctx context.Context, resultID string, page int) (json.RawMessage, error) {
	rp, err := e.RowsPage(ctx, resultID, page, e.Pipeline.Scope(ctx))
	if err != nil {
		return nil, err
	}
	return json.Marshal(rp)
}

// RowsPage returns page (from 1) of the event ids behind a result whose
// provenance the answer listed in part, for a caller with scope: the call
// is run again on a new snapshot, which must be the same data version and
// give the same count and digest. Pages hold the engine's provenance limit
// of ids each.
func (e *Engine) RowsPage(ctx context.Context, resultID string, page int, scope tool.Scope) (RowsPage, error) {
	if e.runner == nil {
		return RowsPage{}, ErrNoPaging
	}
	k, ok := e.runner.kept.get(resultID, scope)
	if !ok {
		return RowsPage{}, ErrUnknownResult
	}
	limit := e.runner.limit
	pages := (k.total + limit - 1) / limit
	if page < 1 || page > pages {
		return RowsPage{}, ErrNoSuchPage
	}
	var res shape.Result
	var err error
	if k.call.Tool() == shape.QueryMetric {
		res, err = e.runner.metricRows(ctx, k.call)
	} else {
		err = e.runner.with(ctx, func(s *shape.Snapshot) error {
			var err error
			res, err = s.ExecuteAll(ctx, shapeCall(k.call))
			return err
		})
	}
	if err != nil {
		return RowsPage{}, err
	}
	// A metric's large provenance carries the lthash of its keys
	// (fact.LtHashScheme): the pages' keys recompute it.
	if strings.HasPrefix(k.digest, fact.LtHashScheme) {
		h := lthash.Of(res.Keys...)
		res.Digest = h.Digest()
	}
	if res.DataVersion != k.version || res.Rows != k.total || res.Digest != k.digest {
		return RowsPage{}, ErrDataChanged
	}
	lo, hi := (page-1)*limit, min(page*limit, len(res.Keys))
	return RowsPage{ResultID: resultID, Page: page, Pages: pages, EventCount: k.total, EventDigest: k.digest,
		DataVersion: k.version, EventIDs: slices.Clone(res.Keys[lo:hi])}, nil
}

func sameScope(a, b tool.Scope) bool {
	return a.All() == b.All() && slices.Equal(a.Stores(), b.Stores())
}
