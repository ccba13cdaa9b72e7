// Package executor answers validated tool calls from an in-memory index
// built once at load. It is the fast path; the resolver re-derives every
// answer independently through the event store, and must not import this
// package.
package executor

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sort"
	"time"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

type pair struct{ store, product string }

type storeState struct {
	store string
	state retail.State
}

// Index is the executor's read-only view of a dataset. Safe for concurrent
// use.
type Index struct {
	version string
	// pairs lists every pair with events, sorted by store then product;
	// histories[i] holds pairs[i]'s events in time order and times[i]
	// their timestamps as unix seconds, contiguous so that the binary
	// search of a global as-of question stays in a few cache lines.
	pairs     []pair
	histories [][]retail.Event
	times     [][]int64
	// pairIndex maps a pair to its position in pairs.
	pairIndex map[pair]int
	// byStore holds, per store, the index range of its pairs in pairs.
	byStore map[string][2]int
	// byStoreState holds each (store, state)'s events in time order.
	byStoreState map[storeState][]retail.Event
	// sweep answers global as-of questions.
	sweep *sweep
}

// Options tunes an Index. The zero value means defaults.
type Options struct {
	// CheckpointEvery is the global sweep's checkpoint interval in events
	// (default: about a sixteenth of the (store, product) pairs, from 64 to
	// 4096). Smaller means less replay per question and more memory.
	CheckpointEvery int
}

// New builds the index with default options.
func New(d *retail.Dataset) *Index { return NewWithOptions(d, nil) }

// NewWithOptions builds the index; nil opts means defaults. Cost:
// O(n log n) in the number of events, plus O(n/CheckpointEvery * pairs)
// for the sweep's checkpoints.
func NewWithOptions(d *retail.Dataset, opts *Options) *Index {
	every := 0
	if opts != nil {
		every = opts.CheckpointEvery
	}
	history := map[pair][]retail.Event{}
	x := &Index{
		version:      d.Version,
		pairIndex:    map[pair]int{},
		byStore:      map[string][2]int{},
		byStoreState: map[storeState][]retail.Event{},
	}
	for _, e := range d.Events {
		k := pair{e.StoreID, e.ProductID}
		history[k] = append(history[k], e)
		ss := storeState{e.StoreID, e.State}
		x.byStoreState[ss] = append(x.byStoreState[ss], e)
	}
	byTime := func(a, b retail.Event) int {
		if a.Before(b) {
			return -1
		}
		if b.Before(a) {
			return 1
		}
		return 0
	}
	for k, h := range history {
		slices.SortFunc(h, byTime)
		x.pairs = append(x.pairs, k)
	}
	for _, h := range x.byStoreState {
		slices.SortFunc(h, byTime)
	}
	slices.SortFunc(x.pairs, func(a, b pair) int {
		if a.store != b.store {
			return cmp.Compare(a.store, b.store)
		}
		return cmp.Compare(a.product, b.product)
	})
	x.histories = make([][]retail.Event, len(x.pairs))
	x.times = make([][]int64, len(x.pairs))
	for i, p := range x.pairs {
		x.histories[i] = history[p]
		x.times[i] = make([]int64, len(history[p]))
		for j, e := range history[p] {
			x.times[i][j] = unix(e.Timestamp)
		}
		x.pairIndex[p] = i
		r, ok := x.byStore[p.store]
		if !ok {
			r[0] = i
		}
		r[1] = i + 1
		x.byStore[p.store] = r
	}
	if every <= 0 {
		every = defaultCheckpointEvery(len(x.pairs))
	}
	x.sweep = newSweep(x, d, every)
	return x
}

// latest returns the latest event at or before asOf (unix seconds) in the
// i-th pair's history. Cost: O(log k) in the history's length.
func (x *Index) latest(i int, asOf int64) (retail.Event, bool) {
	// The first index whose time is after asOf; a plain loop, as this runs
	// once per pair in a global as-of question.
	ts := x.times[i]
	j, hi := 0, len(ts)
	for j < hi {
		m := int(uint(j+hi) >> 1)
		if ts[m] <= asOf {
			j = m + 1
		} else {
			hi = m
		}
	}
	if j == 0 {
		return retail.Event{}, false
	}
	return x.histories[i][j-1], true
}

// unix converts a validated timestamp; the loader and the wall admit only
// TimestampLayout, so a parse failure cannot happen here.
func unix(ts string) int64 {
	t, _ := time.Parse(retail.TimestampLayout, ts)
	return t.Unix()
}

// Execute answers a validated call.
func (x *Index) Execute(ctx context.Context, c tool.Call) (fact.Result, error) {
	if err := ctx.Err(); err != nil {
		return fact.Result{}, err
	}
	var (
		v      fact.Value
		events []string
	)
	switch c.Tool() {
	case tool.GetStockState, tool.GetPrice, tool.GetComplianceFlag:
		kind := c.Def().Value
		var (
			e  retail.Event
			ok bool
		)
		if i, found := x.pairIndex[pair{c.Arg("store_id"), c.Arg("product_id")}]; found {
			e, ok = x.latest(i, unix(c.Arg("as_of")))
		}
		switch {
		case !ok:
			v = fact.NoObservation(kind)
		case kind == fact.KindState:
			v = fact.State(string(e.State))
		case kind == fact.KindPrice:
			v = fact.Price(e.PriceCents)
		default:
			v = fact.Flag(string(e.Flag))
		}
		if ok {
			events = []string{e.ID}
		}
	case tool.CountStoresWithCondition:
		cond := slices.Index(retail.Conditions, retail.Condition(c.Arg("condition")))
		var stores []string
		for _, e := range x.sweep.latestMeeting(cond, unix(c.Arg("as_of"))) {
			events = append(events, e.ID)
			stores = append(stores, e.StoreID)
		}
		slices.Sort(stores)
		v = fact.StoreCount(slices.Compact(stores))
	case tool.ListProductsInState:
		state := retail.State(c.Arg("state"))
		asOf := unix(c.Arg("as_of"))
		r := x.byStore[c.Arg("store_id")]
		var products []string
		for i := r[0]; i < r[1]; i++ {
			if e, ok := x.latest(i, asOf); ok && e.State == state {
				k := x.pairs[i]
				events = append(events, e.ID)
				products = append(products, k.product)
			}
		}
		v = fact.ProductList(products)
	case tool.CountEventsInWindow:
		h := x.byStoreState[storeState{c.Arg("store_id"), retail.State(c.Arg("state"))}]
		lo := sort.Search(len(h), func(i int) bool { return h[i].Timestamp >= c.Arg("start") })
		hi := sort.Search(len(h), func(i int) bool { return h[i].Timestamp >= c.Arg("end") })
		for _, e := range h[lo:max(lo, hi)] {
			events = append(events, e.ID)
		}
		v = fact.EventCount(len(events))
	default:
		return fact.Result{}, errUnknownTool
	}
	return x.result(c, v, events)
}

func (x *Index) result(c tool.Call, v fact.Value, events []string) (fact.Result, error) {
	var p fact.Provenance
	if len(events) == 0 {
		p = fact.Absent(Attestation(c, x.version))
	} else {
		var err error
		if p, err = fact.Events(events); err != nil {
			return fact.Result{}, err
		}
	}
	return fact.NewResult(c.Tool(), c.Args(), v, p)
}

// Attestation describes the search behind an absence: the filter and
// window searched and the dataset version. EnumeratedCount is filled in
// from the independent re-enumeration before the answer ships.
func Attestation(c tool.Call, version string) fact.Absence {
	a := fact.Absence{Tool: c.Tool(), Filter: map[string]string{}, DatasetVersion: version}
	for name, val := range c.Args() {
		switch name {
		case "as_of":
			a.Window = []string{val}
		case "start", "end":
		default:
			a.Filter[name] = val
		}
	}
	if c.Arg("start") != "" {
		a.Window = []string{c.Arg("start"), c.Arg("end")}
	}
	return a
}

var errUnknownTool = errors.New("execute call: tool has no executor")
