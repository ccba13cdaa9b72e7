package loadgen_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/eval/loadgen"
	"github.com/provenant/provenant/retail/demo"
)

func TestQuestions_Deterministic(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	a, b := loadgen.Questions(d, 7, 200), loadgen.Questions(d, 7, 200)
	if !slices.Equal(a, b) {
		t.Error("the same seed gave two question mixes")
	}
	if slices.Equal(a, loadgen.Questions(d, 8, 200)) {
		t.Error("two seeds gave the same question mix")
	}
}

func TestRun_CountersAddUp(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := loadgen.Run(t.Context(), d, enginetest.OpenDuckDB, loadgen.Config{Workers: 4, QuestionsPerWorker: 25, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range rep.Outcomes {
		sum += n
	}
	if rep.Requests != 100 || sum != 100 || !rep.Metrics.OK || rep.Outcomes["error"] != 0 {
		t.Errorf("requests %d, outcome sum %d, metrics %+v, errors %d", rep.Requests, sum, rep.Metrics, rep.Outcomes["error"])
	}
	if _, err := loadgen.Run(t.Context(), d, enginetest.OpenDuckDB, loadgen.Config{Workers: 0, QuestionsPerWorker: 1}); !errors.Is(err, loadgen.ErrConfig) {
		t.Errorf("zero workers: %v, want ErrConfig", err)
	}
}
