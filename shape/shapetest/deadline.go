package shapetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/shape"
)

// RunDeadline checks that every read takes the caller's context: a
// snapshot begun, a call executed or resolved, rows looked up or the data
// summarised with a cancelled context fails with an error wrapping
// context.Canceled and no result, on a derived and on a plain table.
func RunDeadline(t *testing.T, b Backend) {
	fx := Fixtures[0]
	cat := LoadCatalog(t, fx.File)
	ds := cat.Datasets[0]
	db, opts := b.Open(t)
	ctx := context.Background()
	for _, derived := range []bool{false, true} {
		t.Run(fmt.Sprintf("derived=%t", derived), func(t *testing.T) {
			rel := fmt.Sprintf("deadline_%t", derived)
			if err := Load(ctx, db, ds, rel, nil); err != nil {
				t.Fatal(err)
			}
			if derived {
				if err := derive(ctx, db, ds, rel, 1000); err != nil {
					t.Fatal(err)
				}
			}
			eng, err := shape.New(ctx, cat, shape.Source{DB: db, Snapshot: opts, Pipeline: b.pipeline(db), Relations: map[string]string{ds.Name.Value: rel}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if snap, err := eng.Begin(cancelled); !errors.Is(err, context.Canceled) {
				if snap != nil {
					snap.Close()
				}
				t.Errorf("Begin(cancelled) = %v, want an error wrapping context.Canceled", err)
			}
			snap, err := eng.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			for _, tl := range cat.ReadTools() {
				call := shape.Call{Tool: tl.Name.Value, Args: fixedArgs(cat, tl.Name.Value, fx.Pools), Scope: shape.All()}
				if r, err := snap.Execute(cancelled, call); !errors.Is(err, context.Canceled) || r.Value.Observed {
					t.Errorf("%s: Execute(cancelled) = %+v, %v; want no value and an error wrapping context.Canceled", tl.Name.Value, r.Value, err)
				}
				if _, err := snap.Resolve(cancelled, call, shape.Result{Tool: tl.Name.Value, Digest: shape.Digest(nil)}); !errors.Is(err, context.Canceled) {
					t.Errorf("%s: Resolve(cancelled) = %v, want an error wrapping context.Canceled", tl.Name.Value, err)
				}
			}
			if _, err := snap.Records(cancelled, []string{"k"}, shape.All()); !errors.Is(err, context.Canceled) {
				t.Errorf("Records(cancelled) = %v, want an error wrapping context.Canceled", err)
			}
			if _, err := snap.Summary(cancelled, shape.All()); !errors.Is(err, context.Canceled) {
				t.Errorf("Summary(cancelled) = %v, want an error wrapping context.Canceled", err)
			}
		})
	}
}

// fixedArgs are valid arguments for a tool: the first id of each pool,
// instants inside the fixtures' span, the first filter value.
func fixedArgs(c *catalog.Catalog, tool string, pools map[string][]string) map[string]string {
	tl := c.Tool(tool)
	ds := c.Dataset(tl.Dataset.Value)
	args := map[string]string{}
	for _, p := range tl.Params(ds) {
		switch {
		case p == "as_of" || p == "end":
			args[p] = stamp(instant(6))
		case p == "start":
			args[p] = stamp(instant(0))
		case tl.Filter != nil && p == tl.Filter.Param.Value:
			args[p] = tl.FilterValues(ds)[0]
		default:
			for _, e := range ds.Entities {
				if e.Column.Value == p {
					args[p] = pools[e.Name.Value][0]
				}
			}
		}
	}
	return args
}
