// Package executor answers validated tool calls from an in-memory index
// built once at load. It is the fast path; the resolver re-derives every
// answer independently through the event store, and must not import this
// package.
package executor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

type pair struct{ store, product string }

type storeState struct {
	store string
	state retail.State
}

// Index is the executor's read-only view of a dataset. Safe for concurrent
// use. Events are held once, in global time order; every other structure
// refers to them by position, in pointer-free slices the garbage collector
// need not scan.
type Index struct {
	version string
	// events holds every event sorted by (timestamp, id); times holds
	// their unix seconds.
	events []retail.Event
	times  []int64
	// pairs lists every pair with events, sorted by store then product;
	// histories[i] holds the positions of pairs[i]'s events in time order
	// and pairTimes[i] their unix seconds, contiguous so that a binary
	// search stays in a few cache lines.
	pairs     []pair
	histories [][]int32
	pairTimes [][]int64
	// pairIndex maps a pair to its position in pairs.
	pairIndex map[pair]int
	// byStore holds, per store, the index range of its pairs in pairs.
	byStore map[string][2]int
	// byStoreState holds the positions of each (store, state)'s events.
	byStoreState map[storeState][]int32
	// sweep answers global as-of questions.
	sweep *sweep
}

// Options tunes an Index; nil or the zero value means defaults.
type Options struct {
	// CheckpointEvery is the global sweep's checkpoint interval in events
	// (default: about a sixteenth of the (store, product) pairs, from 64 to
	// 4096). Smaller means less replay per question and more memory.
	CheckpointEvery int
}

// New builds the index over d; nil opts means defaults. Cost: O(n log n)
// in the number of events, plus O(n/CheckpointEvery * pairs) for the
// sweep's checkpoints.
func New(d *retail.Dataset, opts *Options) *Index {
	x := &Index{
		version:      d.Version,
		events:       slices.Clone(d.Events),
		pairIndex:    map[pair]int{},
		byStore:      map[string][2]int{},
		byStoreState: map[storeState][]int32{},
	}
	slices.SortFunc(x.events, func(a, b retail.Event) int {
		switch {
		case a.Before(b):
			return -1
		case b.Before(a):
			return 1
		}
		return 0
	})
	// Appending in global time order leaves every list time-sorted.
	x.times = make([]int64, len(x.events))
	history := map[pair][]int32{}
	for i, e := range x.events {
		x.times[i] = unix(e.Timestamp)
		k := pair{e.StoreID, e.ProductID}
		history[k] = append(history[k], int32(i))
		ss := storeState{e.StoreID, e.State}
		x.byStoreState[ss] = append(x.byStoreState[ss], int32(i))
	}
	for k := range history {
		x.pairs = append(x.pairs, k)
	}
	slices.SortFunc(x.pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(a.store, b.store), cmp.Compare(a.product, b.product))
	})
	x.histories = make([][]int32, len(x.pairs))
	x.pairTimes = make([][]int64, len(x.pairs))
	for i, p := range x.pairs {
		h := history[p]
		x.histories[i] = h
		x.pairTimes[i] = make([]int64, len(h))
		for j, pos := range h {
			x.pairTimes[i][j] = x.times[pos]
		}
		x.pairIndex[p] = i
		r, ok := x.byStore[p.store]
		if !ok {
			r[0] = i
		}
		r[1] = i + 1
		x.byStore[p.store] = r
	}
	every := 0
	if opts != nil {
		every = opts.CheckpointEvery
	}
	if every <= 0 {
		every = defaultCheckpointEvery(len(x.pairs))
	}
	x.sweep = newSweep(x, every)
	return x
}

// latest returns the latest event at or before asOf (unix seconds) in the
// i-th pair's history. Cost: O(log k) in the history's length.
func (x *Index) latest(i int, asOf int64) (retail.Event, bool) {
	// The first index whose time is after asOf; a plain loop, as this runs
	// once per pair in a store-wide question.
	ts := x.pairTimes[i]
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
	return x.events[x.histories[i][j-1]], true
}

// unix converts a validated timestamp; the loader and the wall admit only
// TimestampLayout, so a parse failure cannot happen here.
func unix(ts string) int64 {
	t, _ := time.Parse(retail.TimestampLayout, ts)
	return t.Unix()
}

// Execute answers a validated call. Its loops look at ctx every
// deadline.Every steps; when ctx is done it returns an error wrapping
// ctx.Err(), never a partial result.
func (x *Index) Execute(ctx context.Context, c tool.Call) (fact.Result, error) {
	if err := ctx.Err(); err != nil {
		return fact.Result{}, fmt.Errorf("execute %s: %w", c.Tool(), err)
	}
	var (
		v      fact.Value
		events []string
	)
	// The retail tools, one per value shape (issue 8 replaces this switch
	// with the catalog's generic shapes).
	switch kind := c.Def().Value; kind {
	case fact.KindText, fact.KindInteger, fact.KindNumber:
		var (
			e  retail.Event
			ok bool
		)
		if i, found := x.pairIndex[pair{c.Arg("store_id"), c.Arg("product_id")}]; found {
			e, ok = x.latest(i, unix(c.Arg("as_of")))
		}
		v = fact.NoObservation(kind)
		if ok {
			v = retail.Scalar(c.Def(), e)
			events = []string{e.ID}
		}
	case fact.KindEntityCount:
		cond := slices.Index(retail.Conditions, retail.Condition(c.Arg("condition")))
		var stores []string
		scope := c.Scope()
		meeting, err := x.sweep.latestMeeting(ctx, cond, unix(c.Arg("as_of")))
		if err != nil {
			return fact.Result{}, fmt.Errorf("execute %s: %w", c.Tool(), err)
		}
		for k, e := range meeting {
			if err := deadline.Check(ctx, k+1); err != nil {
				return fact.Result{}, fmt.Errorf("execute %s: %w", c.Tool(), err)
			}
			if !scope.Allows(e.StoreID) {
				continue
			}
			events = append(events, e.ID)
			stores = append(stores, e.StoreID)
		}
		slices.Sort(stores)
		v = fact.EntityCount(c.Def().IDsField, slices.Compact(stores))
	case fact.KindEntityList:
		state := retail.State(c.Arg("state"))
		asOf := unix(c.Arg("as_of"))
		r := x.byStore[c.Arg("store_id")]
		var products []string
		for i := r[0]; i < r[1]; i++ {
			if err := deadline.Check(ctx, i-r[0]); err != nil {
				return fact.Result{}, fmt.Errorf("execute %s: %w", c.Tool(), err)
			}
			if e, ok := x.latest(i, asOf); ok && e.State == state {
				k := x.pairs[i]
				events = append(events, e.ID)
				products = append(products, k.product)
			}
		}
		v = fact.EntityList(c.Def().IDsField, products)
	case fact.KindRowCount:
		h := x.byStoreState[storeState{c.Arg("store_id"), retail.State(c.Arg("state"))}]
		start, end := unix(c.Arg("start")), unix(c.Arg("end"))
		lo := sort.Search(len(h), func(i int) bool { return x.times[h[i]] >= start })
		hi := sort.Search(len(h), func(i int) bool { return x.times[h[i]] >= end })
		for k, pos := range h[lo:max(lo, hi)] {
			if err := deadline.Check(ctx, k); err != nil {
				return fact.Result{}, fmt.Errorf("execute %s: %w", c.Tool(), err)
			}
			events = append(events, x.events[pos].ID)
		}
		v = fact.RowCount(len(events))
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

// Attestation describes the search behind an absence (fact.Attest).
func Attestation(c tool.Call, version string) fact.Absence {
	return fact.Attest(c.Tool(), c.Args(), version)
}

var errUnknownTool = errors.New("execute call: tool has no executor")
