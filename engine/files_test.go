package engine_test

import (
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/tool"
)

// TestFiles_ChangedWhileServed: an engine over files read in place
// answers under the version the files opened at; once a file is
// rewritten, a call is an error at the resolve stage with reason
// internal, never an answer under the old version.
func TestFiles_ChangedWhileServed(t *testing.T) {
	ctx := t.Context()
	dir, change := ingesttest.ChangingFiles(t, 3000)
	cat := ingesttest.FilesCatalog(t, "events.csv")
	files, err := duckdb.OpenFiles(ctx, cat, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	e, err := engine.OpenCatalog(ctx, cat, files.Source(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	call := tool.Proposal{Tool: "count_status_events_in_window", Params: map[string]any{"zone_id": "zone-01", "status": "IDLE",
		"start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}}
	if a := e.Pipeline.Call(ctx, call); a.Outcome() != answer.Answered {
		t.Fatalf("before the change: %s %s", a.Outcome(), a.Reason())
	}
	change()
	a := e.Pipeline.Call(ctx, call)
	if a.Outcome() != answer.Error || a.Reason().Kind != answer.ReasonInternal || a.Stage() != answer.StageResolve {
		t.Errorf("after the change: %s %s at %s, want an internal error at the resolve stage", a.Outcome(), a.Reason(), a.Stage())
	}
	if _, ok := a.Provenance(); ok {
		t.Error("the error carries provenance")
	}
}
