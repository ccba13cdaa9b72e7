// Package memstore implements retail.EventStore in memory over validity
// intervals: each event with the time of its pair's next scan. In the
// engine the intervals come from the database (store/duckdb derives them
// with SQL at load), so the resolver re-derives every answer through a
// relation computed by a different engine than the executor's index,
// without paying a database round trip per question.
//
// Cost per Select: a (store, product) question scans that pair's intervals;
// an as-of question over many pairs scans one time bucket, which holds
// about one interval per pair (plus those crossing the bucket), so cost
// grows with the number of pairs, not the number of events; a window scans
// one store's intervals between two binary searches.
package memstore

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/retail"
)

var _ retail.EventStore = (*Store)(nil)

// buckets is the number of time buckets the as-of index divides the data
// span into.
const buckets = 256

type interval struct {
	e           retail.Event
	from, until int64 // unix seconds; until is math.MaxInt64 for a pair's last scan
}

type pairKey struct{ store, product string }

// Store is an in-memory event store. Safe for concurrent use.
type Store struct {
	info    retail.Info
	ivs     []interval
	byID    map[string]int32
	byPair  map[pairKey][]int32
	byStore map[string][]int32 // sorted by (from, event id)
	t0, t1  int64              // first and last scan time
	width   int64
	bucket  [][]int32 // intervals overlapping each bucket of [t0, t1]
	tail    []int32   // intervals open after t1: each pair's last scan
}

// New builds a store from intervals (as store/duckdb's Intervals returns
// them). It checks each interval's timestamps.
func New(info retail.Info, intervals []retail.Interval) (*Store, error) {
	s := &Store{
		info:    info,
		ivs:     make([]interval, len(intervals)),
		byID:    make(map[string]int32, len(intervals)),
		byPair:  map[pairKey][]int32{},
		byStore: map[string][]int32{},
	}
	for i, in := range intervals {
		from, err := unix(in.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("build memstore: event %s: %w", in.ID, err)
		}
		until := int64(math.MaxInt64)
		if in.Until != "" {
			if until, err = unix(in.Until); err != nil || until < from {
				return nil, fmt.Errorf("build memstore: event %s: bad interval end", in.ID)
			}
		}
		if _, dup := s.byID[in.ID]; dup {
			return nil, fmt.Errorf("build memstore: duplicate event %s", in.ID)
		}
		s.ivs[i] = interval{in.Event, from, until}
		s.byID[in.ID] = int32(i)
		k := pairKey{in.StoreID, in.ProductID}
		s.byPair[k] = append(s.byPair[k], int32(i))
		s.byStore[in.StoreID] = append(s.byStore[in.StoreID], int32(i))
		if i == 0 || from < s.t0 {
			s.t0 = from
		}
		if i == 0 || from > s.t1 {
			s.t1 = from
		}
	}
	for _, idx := range s.byStore {
		slices.SortFunc(idx, func(a, b int32) int {
			x, y := s.ivs[a], s.ivs[b]
			return cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.e.ID, y.e.ID))
		})
	}
	s.width = max(1, (s.t1-s.t0+buckets)/buckets)
	s.bucket = make([][]int32, buckets)
	for i, iv := range s.ivs {
		if iv.until <= iv.from {
			continue // lost a timestamp tie: never the latest
		}
		if iv.until == math.MaxInt64 {
			s.tail = append(s.tail, int32(i))
		}
		last := min(iv.until-1, s.t1)
		for b := (iv.from - s.t0) / s.width; b <= (last-s.t0)/s.width; b++ {
			s.bucket[b] = append(s.bucket[b], int32(i))
		}
	}
	return s, nil
}

// IntervalSource is a database that derives validity intervals itself
// (store/duckdb does, with SQL).
type IntervalSource interface {
	Intervals(ctx context.Context) ([]retail.Interval, error)
	Info(ctx context.Context) (retail.Info, error)
}

// Load builds a store from the intervals and summary a database derives.
func Load(ctx context.Context, src IntervalSource) (*Store, error) {
	info, err := src.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("load memstore: %w", err)
	}
	ivs, err := src.Intervals(ctx)
	if err != nil {
		return nil, fmt.Errorf("load memstore: %w", err)
	}
	return New(info, ivs)
}

// FromDataset builds a store from a dataset, deriving the intervals itself.
// The engine builds from the database's intervals instead; this is for
// tools and tests that have no database.
func FromDataset(d *retail.Dataset) (*Store, error) {
	events := slices.Clone(d.Events)
	slices.SortFunc(events, func(a, b retail.Event) int {
		return cmp.Or(cmp.Compare(a.StoreID, b.StoreID), cmp.Compare(a.ProductID, b.ProductID),
			cmp.Compare(a.Timestamp, b.Timestamp), cmp.Compare(a.ID, b.ID))
	})
	ivs := make([]retail.Interval, len(events))
	for i, e := range events {
		ivs[i].Event = e
		if i+1 < len(events) && events[i+1].StoreID == e.StoreID && events[i+1].ProductID == e.ProductID {
			ivs[i].Until = events[i+1].Timestamp
		}
	}
	return New(d.Info(), ivs)
}

// Select enumerates the events of sel, sorted by event id.
func (s *Store) Select(ctx context.Context, sel retail.Selection) ([]retail.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		candidates []int32
		keep       func(iv interval) bool
	)
	if sel.Latest {
		t, err := unix(sel.AsOf)
		if err != nil {
			return nil, fmt.Errorf("select events: as_of: %w", err)
		}
		switch {
		case sel.StoreID != "" && sel.ProductID != "":
			candidates = s.byPair[pairKey{sel.StoreID, sel.ProductID}]
		case len(s.ivs) == 0 || t < s.t0:
		case t > s.t1:
			candidates = s.tail
		default:
			candidates = s.bucket[(t-s.t0)/s.width]
		}
		keep = func(iv interval) bool { return iv.from <= t && t < iv.until }
	} else {
		start, err1 := unix(sel.Start)
		end, err2 := unix(sel.End)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("select events: window: bad timestamp")
		}
		if sel.StoreID != "" {
			idx := s.byStore[sel.StoreID]
			lo := sort.Search(len(idx), func(i int) bool { return s.ivs[idx[i]].from >= start })
			hi := sort.Search(len(idx), func(i int) bool { return s.ivs[idx[i]].from >= end })
			candidates = idx[lo:max(lo, hi)]
		} else {
			candidates = nil // every interval
		}
		keep = func(iv interval) bool { return start <= iv.from && iv.from < end }
	}
	n := len(candidates)
	if !sel.Latest && sel.StoreID == "" {
		n = len(s.ivs)
	}
	var out []retail.Event
	for k := range n {
		if err := deadline.Check(ctx, k); err != nil {
			return nil, fmt.Errorf("select events: %w", err)
		}
		i := int32(k)
		if candidates != nil {
			i = candidates[k]
		}
		iv := s.ivs[i]
		if sel.Stores != nil && !slices.Contains(sel.Stores, iv.e.StoreID) {
			continue
		}
		if keep(iv) && (sel.StoreID == "" || iv.e.StoreID == sel.StoreID) &&
			(sel.ProductID == "" || iv.e.ProductID == sel.ProductID) && sel.Match.Accepts(iv.e) {
			out = append(out, iv.e)
		}
	}
	slices.SortFunc(out, func(a, b retail.Event) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Lookup returns those of ids that exist, sorted by event id.
func (s *Store) Lookup(ctx context.Context, ids []string) ([]retail.Event, error) {
	var out []retail.Event
	for k, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if err := deadline.Check(ctx, k); err != nil {
			return nil, fmt.Errorf("look up events: %w", err)
		}
		if i, ok := s.byID[id]; ok {
			out = append(out, s.ivs[i].e)
		}
	}
	return out, nil
}

// Intervals returns every event with its pair's next scan time, sorted by
// event id: the relation the store was built from, so that a store can be
// rebuilt from another.
func (s *Store) Intervals(ctx context.Context) ([]retail.Interval, error) {
	out := make([]retail.Interval, len(s.ivs))
	for i, iv := range s.ivs {
		if err := deadline.Check(ctx, i); err != nil {
			return nil, fmt.Errorf("list intervals: %w", err)
		}
		out[i].Event = iv.e
		if iv.until != math.MaxInt64 {
			out[i].Until = time.Unix(iv.until, 0).UTC().Format(retail.TimestampLayout)
		}
	}
	slices.SortFunc(out, func(a, b retail.Interval) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Close releases nothing: the store is memory the collector reclaims. It
// lets a Store stand where a database that must be closed does.
func (s *Store) Close() error { return nil }

// Info summarises the dataset the store was built from.
func (s *Store) Info(ctx context.Context) (retail.Info, error) {
	if err := ctx.Err(); err != nil {
		return retail.Info{}, fmt.Errorf("read info: %w", err)
	}
	return s.info, nil
}

func unix(ts string) (int64, error) {
	t, err := time.Parse(retail.TimestampLayout, ts)
	if err != nil {
		return 0, fmt.Errorf("parse timestamp: %w", err)
	}
	return t.Unix(), nil
}
