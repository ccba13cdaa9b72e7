package adversarial_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestResultIDs_UniqueAcrossRestartsAndReplicas: a citation made before a
// restart, or against another replica, never names a different result.
// Two replicas run at once, then one of them is stopped and a new process
// (a restart: a new engine and server over the same data) takes its place;
// the same questions asked of each give result ids that never repeat, and
// within one process they sort in the order the results were made.
func TestResultIDs_UniqueAcrossRestartsAndReplicas(t *testing.T) {
	questions := []string{
		goodQuestion,
		`{"question":"How many stores have condition OUT_OF_STOCK as of 2026-01-06T08:00:00Z?"}`,
		`{"question":"Which products are in state LOW_STOCK at st-003 as of 2026-01-06T08:00:00Z?"}`,
	}
	ask := func(t *testing.T, s stack) []string {
		t.Helper()
		var ids []string
		for _, q := range questions {
			r := s.do(t, "POST", "/v1/ask", q, nil)
			var a struct {
				ResultIDs []string `json:"result_ids"`
			}
			if err := json.Unmarshal([]byte(r.body), &a); err != nil || len(a.ResultIDs) == 0 {
				t.Fatalf("/v1/ask: %d, no result ids: %s", r.status, r.body)
			}
			ids = append(ids, a.ResultIDs...)
		}
		if !slices.IsSorted(ids) {
			t.Errorf("ids of one process are not in creation order: %v", ids)
		}
		return ids
	}

	var all []string
	t.Run("replicas", func(t *testing.T) {
		a, b := start(t, config{}), start(t, config{})
		all = append(all, ask(t, a)...)
		all = append(all, ask(t, b)...)
	}) // both stop here
	t.Run("restart", func(t *testing.T) {
		all = append(all, ask(t, start(t, config{}))...)
	})

	seen := map[string]bool{}
	for _, id := range all {
		if seen[id] {
			t.Errorf("result id %s was handed out twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 3*len(questions) {
		t.Errorf("got %d distinct ids, want %d", len(seen), 3*len(questions))
	}
}
