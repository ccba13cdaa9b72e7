package ledger_test

import (
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/ledger"
)

// idPattern is the documented result id: res-, a 15-digit millisecond
// timestamp and a 20-digit random suffix.
var idPattern = regexp.MustCompile(`^res-[0-9]{35}$`)

// fixedClock returns the same instant forever: the worst case, every id
// in one millisecond.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// TestAllocator_UniqueAcrossProcesses: allocators that share nothing (a
// restart, or two replicas) never hand out the same id, even in the same
// millisecond; each one's ids have the documented fixed-length form and
// sort in the order it handed them out; and a later process's ids sort
// after an earlier one's.
func TestAllocator_UniqueAcrossProcesses(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const n = 5000
	draw := func(a *ledger.Allocator) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = a.Next()
		}
		return ids
	}
	t.Run("restart in the same millisecond", func(t *testing.T) {
		before := draw(ledger.NewAllocator(&ledger.AllocatorOptions{Now: fixedClock(t0)}))
		after := draw(ledger.NewAllocator(&ledger.AllocatorOptions{Now: fixedClock(t0)}))
		checkIDs(t, before, after)
	})
	t.Run("two replicas at once", func(t *testing.T) {
		var a, b []string
		var wg sync.WaitGroup
		wg.Go(func() { a = draw(ledger.NewAllocator(&ledger.AllocatorOptions{Now: fixedClock(t0)})) })
		wg.Go(func() { b = draw(ledger.NewAllocator(&ledger.AllocatorOptions{Now: fixedClock(t0)})) })
		wg.Wait()
		checkIDs(t, a, b)
	})
	t.Run("a later process sorts after", func(t *testing.T) {
		before := draw(ledger.NewAllocator(&ledger.AllocatorOptions{Now: fixedClock(t0)}))
		after := draw(ledger.NewAllocator(&ledger.AllocatorOptions{Now: fixedClock(t0.Add(time.Millisecond))}))
		if before[n-1] >= after[0] {
			t.Errorf("last id before the restart %s sorts after the first one after it %s", before[n-1], after[0])
		}
	})
	t.Run("the default clock and randomness", func(t *testing.T) {
		checkIDs(t, draw(ledger.NewAllocator(nil)), draw(ledger.NewAllocator(nil)))
	})
}

// checkIDs checks the form and order of each process's ids and that no id
// appears twice over both.
func checkIDs(t *testing.T, procs ...[]string) {
	t.Helper()
	seen := map[string]bool{}
	for p, ids := range procs {
		for i, id := range ids {
			if !idPattern.MatchString(id) {
				t.Fatalf("process %d: id %q is not res- and 35 digits", p, id)
			}
			if seen[id] {
				t.Fatalf("process %d: id %s reused", p, id)
			}
			seen[id] = true
			if i > 0 && ids[i-1] >= id {
				t.Fatalf("process %d: id %s handed out after %s sorts before it", p, id, ids[i-1])
			}
		}
	}
}

// TestAllocator_ClockGoesBack: ids keep sorting in creation order when the
// wall clock steps back (the clock orders ids; it decides nothing else).
func TestAllocator_ClockGoesBack(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	times := []time.Time{t0, t0.Add(time.Second), t0, t0.Add(-time.Hour), t0.Add(2 * time.Second)}
	i := 0
	a := ledger.NewAllocator(&ledger.AllocatorOptions{Now: func() time.Time { i++; return times[i-1] }})
	var ids []string
	for range times {
		ids = append(ids, a.Next())
	}
	checkIDs(t, ids)
	if !slices.IsSorted(ids) {
		t.Errorf("ids %v are not sorted", ids)
	}
}

// TestSequence is the deterministic source tests and golden files use.
func TestSequence(t *testing.T) {
	var s ledger.Sequence
	if got := []string{s.Next(), s.Next()}; !slices.Equal(got, []string{"res-000001", "res-000002"}) {
		t.Errorf("Sequence = %v", got)
	}
}
