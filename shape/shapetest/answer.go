package shapetest

import (
	"testing"

	"github.com/provenant/provenant/shape"
)

// Answer executes c on a snapshot of eng and resolves it on the same
// snapshot, as a serving pipeline does, failing tb on an error (not on a
// verdict that fails: the caller judges it).
func Answer(tb testing.TB, eng *shape.Engine, c shape.Call) (shape.Result, shape.Verdict) {
	tb.Helper()
	snap, err := eng.Begin(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	defer snap.Close()
	r, err := snap.Execute(tb.Context(), c)
	if err != nil {
		tb.Fatalf("Execute %s: %v", c.Tool, err)
	}
	v, err := snap.Resolve(tb.Context(), c, r)
	if err != nil {
		tb.Fatalf("Resolve %s: %v", c.Tool, err)
	}
	return r, v
}
