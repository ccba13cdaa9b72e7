package executor

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/provenant/provenant/internal/deadline"
	"github.com/provenant/provenant/retail"
)

// defaultCheckpointEvery picks the sweep's checkpoint interval: about a
// sixteenth of the pairs, so a question's replay costs about what reading
// a checkpoint does, bounded so small stores still replay little and large
// ones keep checkpoint memory near one int32 per event per condition.
func defaultCheckpointEvery(pairs int) int { return min(max(pairs/16, 64), 4096) }

// sweep answers "which pairs' latest scan at T meets condition c" without
// visiting every pair. Events are kept in global time order; every `every`
// events a checkpoint records, per condition, the positions of the
// satisfying latest scans so far. A question at T starts from the last
// checkpoint at or before T and replays at most `every` events, so it costs
// O(satisfying pairs + every), however many events and pairs there are.
type sweep struct {
	every  int
	events []retail.Event // the Index's events, sorted by (timestamp, id)
	times  []int64        // their unix seconds
	pairOf []int32        // their pair's index in Index.pairs
	meets  []uint8        // their conditions, one bit per retail.Conditions entry
	// checkpoints[c][k] lists, sorted, the positions of the satisfying
	// latest scans among events[:k*every], for condition retail.Conditions[c].
	checkpoints [][][]int32
	// marks pools per-pair scratch flags for the replay: a flag is set for
	// a pair replayed in this question and cleared before the slice returns
	// to the pool.
	marks sync.Pool
}

func newSweep(x *Index, every int) *sweep {
	s := &sweep{every: every, events: x.events, times: x.times}
	s.marks.New = func() any { b := make([]bool, len(x.pairs)); return &b }
	n := len(s.events)
	s.pairOf, s.meets = make([]int32, n), make([]uint8, n)
	for i, e := range s.events {
		s.pairOf[i] = int32(x.pairIndex[pair{e.StoreID, e.ProductID}])
		for c, cond := range retail.Conditions {
			if cond.Match().Accepts(e) {
				s.meets[i] |= 1 << c
			}
		}
	}
	s.checkpoints = make([][][]int32, len(retail.Conditions))
	latest := make([]int32, len(x.pairs))
	for i := range latest {
		latest[i] = -1
	}
	for pos := 0; ; pos++ {
		if pos%every == 0 {
			for c := range retail.Conditions {
				var sat []int32
				for _, q := range latest {
					if q >= 0 && s.meets[q]&(1<<c) != 0 {
						sat = append(sat, q)
					}
				}
				slices.Sort(sat)
				s.checkpoints[c] = append(s.checkpoints[c], sat)
			}
		}
		if pos == n {
			break
		}
		latest[s.pairOf[pos]] = int32(pos)
	}
	return s
}

// latestMeeting returns the latest scan at or before asOf of every pair
// whose latest scan meets condition c (an index into retail.Conditions).
// It looks at ctx every deadline.Every steps and returns ctx's error when
// it is done.
func (s *sweep) latestMeeting(ctx context.Context, c int, asOf int64) ([]retail.Event, error) {
	p := sort.Search(len(s.times), func(i int) bool { return s.times[i] > asOf })
	k := p / s.every
	marksp := s.marks.Get().(*[]bool)
	marks := *marksp
	// Replay backwards: a pair's first scan met is its latest.
	var out []retail.Event
	var replayed []int32
	release := func() {
		for _, pi := range replayed {
			marks[pi] = false
		}
		s.marks.Put(marksp)
	}
	for q := p - 1; q >= k*s.every; q-- {
		if err := deadline.Check(ctx, p-1-q); err != nil {
			release()
			return nil, err
		}
		pi := s.pairOf[q]
		if marks[pi] {
			continue
		}
		marks[pi] = true
		replayed = append(replayed, pi)
		if s.meets[q]&(1<<c) != 0 {
			out = append(out, s.events[q])
		}
	}
	for i, q := range s.checkpoints[c][k] {
		if err := deadline.Check(ctx, i+1); err != nil {
			release()
			return nil, err
		}
		if !marks[s.pairOf[q]] {
			out = append(out, s.events[q])
		}
	}
	release()
	return out, nil
}
