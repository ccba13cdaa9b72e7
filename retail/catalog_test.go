package retail_test

import (
	"slices"
	"testing"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/retail"
)

// TestEnumerations_AgreeWithCatalog: the shelf states, compliance flags and
// store conditions the loader and the demo generator know are those
// catalogs/retail.yaml declares for the scans dataset, in its order, and
// each condition's Match accepts exactly the scans the catalog's predicate
// does, over every (state, flag) pair. The catalog is what the tools are
// derived from; a store file the loader accepts must mean the same to them.
func TestEnumerations_AgreeWithCatalog(t *testing.T) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	ds := cat.Dataset("scans")
	if ds == nil {
		t.Fatal("retail catalog has no scans dataset")
	}
	values := func(attr string) []string {
		a := ds.Attribute(attr)
		if a == nil {
			t.Fatalf("scans has no attribute %s", attr)
		}
		var out []string
		for _, v := range a.Values {
			out = append(out, v.Value)
		}
		return out
	}
	if got, want := strs(retail.States), values("state"); !slices.Equal(got, want) {
		t.Errorf("States = %v, catalog's state values %v", got, want)
	}
	if got, want := strs(retail.Flags), values("compliance_flag"); !slices.Equal(got, want) {
		t.Errorf("Flags = %v, catalog's compliance_flag values %v", got, want)
	}
	var names []string
	for _, c := range ds.Conditions {
		names = append(names, c.Name.Value)
	}
	if got := strs(retail.Conditions); !slices.Equal(got, names) {
		t.Fatalf("Conditions = %v, catalog's %v", got, names)
	}
	for _, c := range retail.Conditions {
		p := &ds.Condition(string(c)).Predicate
		for _, s := range retail.States {
			for _, f := range retail.Flags {
				e := retail.Event{State: s, Flag: f}
				want, ok := accepts(p, map[string]string{"state": string(s), "compliance_flag": string(f)})
				if !ok {
					t.Fatalf("%s: predicate beyond this test's evaluator (op %q)", c, p.Op.Value)
				}
				if got := c.Match().Accepts(e); got != want {
					t.Errorf("%s on (%s, %s): Match accepts %t, catalog %t", c, s, f, got, want)
				}
			}
		}
	}
}

// accepts evaluates a predicate over enumerated attributes (eq, ne, in,
// not_in; any, all); ok is false for an operator it does not know.
func accepts(p *catalog.Predicate, row map[string]string) (yes, ok bool) {
	switch {
	case p.Any != nil || p.All != nil:
		all := p.All != nil
		for _, q := range append(p.Any, p.All...) {
			y, ok := accepts(q, row)
			if !ok {
				return false, false
			}
			if y != all {
				return y, true
			}
		}
		return all, true
	case p.Value == nil:
		return false, false
	}
	var in bool
	for _, v := range p.Value.Items {
		in = in || v.Str == row[p.Attribute.Value]
	}
	switch p.Op.Value {
	case "eq", "in":
		return in, true
	case "ne", "not_in":
		return !in, true
	}
	return false, false
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
