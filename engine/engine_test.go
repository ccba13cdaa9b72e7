package engine_test

import (
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/duckdb"
)

// openDuckDB is the command's opener (cmd/provenant), for the engine's
// own tests: the one test binary besides the store's and the command's
// that links DuckDB.
var openDuckDB = engine.OpenerOf(duckdb.Open)

// TestOpen answers the same question over every store and verification
// mode an engine can be opened with.
func TestOpen(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	openers := map[string]engine.Opener{"duckdb": openDuckDB, "memory": engine.OpenMemory}
	for name, open := range openers {
		for _, verify := range []string{engine.VerifySnapshot, engine.VerifySQL} {
			t.Run(name+"/"+verify, func(t *testing.T) {
				e, err := engine.Open(t.Context(), d, open, &engine.Options{Verify: verify})
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close()
				a := e.Pipeline.Ask(t.Context(), "What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?")
				if v, _ := a.Value(); a.Outcome() != answer.Answered || v.Int != 781 {
					t.Errorf("Ask() = %s %+v, want answered 781", a.Outcome(), v)
				}
				if e.Info.Events != len(d.Events) {
					t.Errorf("Info.Events = %d, want %d", e.Info.Events, len(d.Events))
				}
			})
		}
	}
	if _, err := engine.Open(t.Context(), d, engine.OpenMemory, &engine.Options{Verify: "nope"}); err == nil {
		t.Error("an unknown verify mode was accepted")
	}
}
