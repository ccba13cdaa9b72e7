package engine_test

import (
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/retail/demo"
)

// TestOpen answers a question over the demo store file imported into
// DuckDB, and reads the row behind it.
func TestOpen(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(t.Context(), d, enginetest.OpenDuckDB, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a := e.Pipeline.Ask(t.Context(), "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?")
	if v, _ := a.Value(); a.Outcome() != answer.Answered || v.Int != 781 {
		t.Errorf("Ask() = %s %+v, want answered 781", a.Outcome(), v)
	}
	if e.DatasetVersion != d.Version {
		t.Errorf("DatasetVersion = %q, want %q", e.DatasetVersion, d.Version)
	}
	known, err := e.Known(t.Context(), []string{"evt-002357", "evt-999999", d.Events[0].ID})
	if err != nil || len(known) != 2 {
		t.Errorf("Known() = %v, %v; want the two real ids", known, err)
	}
}
