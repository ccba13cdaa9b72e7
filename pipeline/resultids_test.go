package pipeline_test

import (
	"github.com/provenant/provenant/engine/enginetest"
	"slices"
	"sync"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/retail/storetest"
)

// newProcess builds a pipeline as a fresh process would: nothing shared
// with any other but the dataset.
func newProcess(t *testing.T, ids ledger.IDSource) *pipeline.Pipeline {
	t.Helper()
	wall, exec, res := enginetest.Parts(t, storetest.Fixture())
	return pipeline.New(fakeProvider{}, wall, exec, res, &pipeline.Options{ResultIDs: ids})
}

// callIDs makes n direct calls in sequence and returns their result ids.
func callIDs(t *testing.T, p *pipeline.Pipeline, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		a := p.Call(t.Context(), *stateCall)
		if a.Outcome() != answer.Answered || len(a.ResultIDs()) != 1 {
			t.Fatalf("Call() = %s %v", a.Outcome(), a.ResultIDs())
		}
		ids = append(ids, a.ResultIDs()...)
	}
	return ids
}

// TestResultIDs_NeverReused: a citation made before a restart, or against
// another replica, never names a different result: ids never repeat
// across processes, and each process's ids sort in the order it created
// them.
func TestResultIDs_NeverReused(t *testing.T) {
	const n = 200
	t.Run("restart", func(t *testing.T) {
		before := callIDs(t, newProcess(t, nil), n)
		after := callIDs(t, newProcess(t, nil), n)
		noneShared(t, before, after)
	})
	t.Run("two replicas", func(t *testing.T) {
		a, b := newProcess(t, nil), newProcess(t, nil)
		var ida, idb []string
		var wg sync.WaitGroup
		wg.Go(func() { ida = callIDs(t, a, n) })
		wg.Go(func() { idb = callIDs(t, b, n) })
		wg.Wait()
		noneShared(t, ida, idb)
	})
	t.Run("an injected source is used", func(t *testing.T) {
		if got := callIDs(t, newProcess(t, &ledger.Sequence{}), 2); !slices.Equal(got, []string{"res-000001", "res-000002"}) {
			t.Errorf("ids %v, want the sequence's", got)
		}
	})
}

func noneShared(t *testing.T, procs ...[]string) {
	t.Helper()
	seen := map[string]int{}
	for p, ids := range procs {
		if !slices.IsSorted(ids) {
			t.Errorf("process %d: ids do not sort in creation order: %v", p, ids)
		}
		for _, id := range ids {
			if q, dup := seen[id]; dup {
				t.Fatalf("id %s handed out by process %d and process %d", id, q, p)
			}
			seen[id] = p
		}
	}
}
