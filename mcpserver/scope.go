package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// scopeOf returns the scope of a request that carries a principal's
// token, and whether it is limited (not every store). A token without a
// scope sees no store. The local stdio user has no token: every store.
func scopeOf(extra *mcp.RequestExtra) (tool.Scope, bool) {
	if extra == nil || extra.TokenInfo == nil {
		return tool.AllStores(), false
	}
	s, ok := extra.TokenInfo.Extra[pipeline.TokenInfoScopeKey].(tool.Scope)
	if !ok {
		return tool.StoresOnly(), true
	}
	return s, !s.All()
}

// eventIndex places every event id in its store, and summarises each
// store, from one read of the store's event list. A limited caller's
// event read and dataset view are decided from it in memory: an event of
// another store and an id that does not exist take the same path and
// never reach the store (whose work differs between a row found and none,
// which a caller could time), and every aggregate is over the caller's
// stores only. Built on the first limited request; unlimited callers
// never need it.
type eventIndex struct {
	mu       sync.Mutex
	built    bool
	storeOf  []uint16 // by the id's number: 0 for none, else 1 + index into stores
	stores   []string
	summary  map[string]storeSummary
	building func() // test hook: called once per build
}

type storeSummary struct {
	events      int
	first, last string
}

func (x *eventIndex) load(ctx context.Context, events Events) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.built {
		return nil
	}
	if x.building != nil {
		x.building()
	}
	all, err := events.Intervals(ctx)
	if err != nil {
		return fmt.Errorf("index events: %w", err)
	}
	pos := map[string]uint16{}
	x.summary = map[string]storeSummary{}
	for _, e := range all {
		n, ok := eventNumber(e.ID)
		if !ok {
			continue
		}
		p, seen := pos[e.StoreID]
		if !seen {
			x.stores = append(x.stores, e.StoreID)
			p = uint16(len(x.stores))
			pos[e.StoreID] = p
		}
		if n >= len(x.storeOf) {
			x.storeOf = append(x.storeOf, make([]uint16, n+1-len(x.storeOf))...)
		}
		x.storeOf[n] = p
		s := x.summary[e.StoreID]
		s.events++
		if s.first == "" || e.Timestamp < s.first {
			s.first = e.Timestamp
		}
		if e.Timestamp > s.last {
			s.last = e.Timestamp
		}
		x.summary[e.StoreID] = s
	}
	x.built = true
	return nil
}

// eventNumber is the number in an event id (evt- and 6 digits).
func eventNumber(id string) (int, bool) {
	if !retail.IsEventID(id) {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(id, "evt-"))
	return n, err == nil
}

// store returns the store of an event id, "" when there is no such event.
func (x *eventIndex) store(id string) string {
	n, ok := eventNumber(id)
	if !ok || n >= len(x.storeOf) || x.storeOf[n] == 0 {
		return ""
	}
	return x.stores[x.storeOf[n]-1]
}

// within summarises the stores s allows.
func (x *eventIndex) within(s tool.Scope) storeSummary {
	var out storeSummary
	for _, id := range x.stores {
		if !s.Allows(id) {
			continue
		}
		sum := x.summary[id]
		out.events += sum.events
		if out.first == "" || sum.first < out.first {
			out.first = sum.first
		}
		if sum.last > out.last {
			out.last = sum.last
		}
	}
	return out
}

func (h *handlers) readEvent(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, ok := strings.CutPrefix(req.Params.URI, eventURIPrefix)
	if !ok || !retail.IsEventID(id) {
		return nil, errNotFound
	}
	scope, limited := scopeOf(req.Extra)
	if limited {
		// An event of a store outside the caller's scope does not exist
		// for it: decided in memory, the same way as an id that does not
		// exist at all.
		if err := h.index.load(ctx, h.events); err != nil {
			return nil, fmt.Errorf("read event: %w", err)
		}
		if !scope.Allows(h.index.store(id)) {
			return nil, errNotFound
		}
	}
	found, err := h.events.Lookup(ctx, []string{id})
	if err != nil {
		return nil, fmt.Errorf("read event: %w", err)
	}
	if len(found) != 1 || !scope.Allows(found[0].StoreID) {
		return nil, errNotFound
	}
	return contents(eventURIPrefix+id, "private", found[0])
}

// scopedDataset is the dataset view of a limited caller: every figure is
// computed over its own stores.
type scopedDataset struct {
	Version string   `json:"dataset_version"`
	Events  int      `json:"events_in_scope"`
	First   string   `json:"first_timestamp,omitempty"`
	Last    string   `json:"last_timestamp,omitempty"`
	Stores  []string `json:"stores_in_scope"`
}

func (h *handlers) readDataset(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	in, err := h.events.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("read dataset: %w", err)
	}
	scope, limited := scopeOf(req.Extra)
	if !limited {
		return contents(DatasetURI, "private", in)
	}
	if err := h.index.load(ctx, h.events); err != nil {
		return nil, fmt.Errorf("read dataset: %w", err)
	}
	sum := h.index.within(scope)
	return contents(DatasetURI, "private", scopedDataset{
		Version: in.Version, Events: sum.events, First: sum.first, Last: sum.last,
		Stores: append([]string{}, scope.Stores()...),
	})
}
