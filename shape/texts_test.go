package shape

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
)

// textsEngine is an engine over the warehouse catalog that runs no
// query: its plans compiled (derived, with a checkpoint index kept, or
// plain), for collecting the formulations' statements.
func textsEngine(t *testing.T, derived, off bool) *Engine {
	t.Helper()
	const path = "../catalogs/warehouse.yaml"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cat, err := catalog.Load(f, path)
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{cat: cat, plans: map[string]*plan{}, maxKeys: DefaultMaxKeys, cps: map[string]*checkpoints{}}
	e.texts.off = off
	for _, tool := range cat.ReadTools() {
		p, err := compile(cat, tool, Source{})
		if err != nil {
			t.Fatal(err)
		}
		if derived {
			name := tableName(p.ds, Source{})
			p.derived = true
			p.cpRel, p.cpiRel, p.censusRel = quoteName(name+cpSuffix), quoteName(name+cpiSuffix), quoteName(name+seriesSuffix)
			t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
			e.cps[p.cpiRel] = &checkpoints{version: "seq:9", ids: []int64{1, 2}, times: []time.Time{t0, t0.Add(48 * time.Hour)},
				texts: []string{"2026-01-05 00:00:00", "2026-01-07 00:00:00"}}
		}
		e.plans[tool.Name.Value] = p
	}
	return e
}

// collect returns the statement a formulation sends for c, collected as
// for a pipeline (no query runs).
func collect(t *testing.T, e *Engine, c Call, resolver bool) Stmt {
	t.Helper()
	p, err := e.plan(c)
	if err != nil {
		t.Fatal(err)
	}
	s := &Snapshot{e: e, versions: map[string]string{}, collecting: true, fold: true}
	if resolver {
		_, _, _, _, err = s.resolveLive(context.Background(), p, c)
	} else {
		_, _, err = s.execLatest(context.Background(), p, c)
	}
	if !errors.Is(err, errPending) || len(s.pending) != 1 {
		t.Fatalf("collect %s: %v, %d statements", c.Tool, err, len(s.pending))
	}
	return s.pending[0]
}

// TestText_KeptEqualsRendered: a formulation's kept text (Engine.text)
// with the arguments bound for it is the statement the formulation
// renders afresh, call after call of other tools, scopes (all, none, one
// value, two), conditions and instants, so that no text is kept under a
// key that another call's text shares.
func TestText_KeptEqualsRendered(t *testing.T) {
	const asOf, early = "2026-01-09T12:00:00Z", "2026-01-01T00:00:00Z"
	scopes := []struct {
		name  string
		scope Scope
	}{{"all", All()}, {"none", Only()}, {"one", Only("zone-01")}, {"two", Only("zone-01", "zone-02")}, {"other one", Only("zone-03")}}
	type call struct {
		name     string
		c        Call
		resolver bool // resolveLive, else execLatest
	}
	var calls []call
	for _, sc := range scopes {
		for _, at := range []string{asOf, early} {
			for _, tool := range []string{"get_device_status", "get_temperature"} {
				c := Call{Tool: tool, Args: map[string]string{"device_id": "dev-0001", "as_of": at}, Scope: sc.scope}
				calls = append(calls, call{tool + " " + sc.name + " " + at, c, false}, call{tool + " " + sc.name + " " + at + " resolver", c, true})
			}
			for _, cond := range []string{"FAULTED", "LOW_BATTERY", "NEEDS_ATTENTION"} {
				c := Call{Tool: "count_devices_with_condition", Args: map[string]string{"condition": cond, "as_of": at}, Scope: sc.scope}
				calls = append(calls, call{"count " + cond + " " + sc.name + " " + at + " resolver", c, true})
			}
			for _, zone := range []string{"zone-01", "zone-02"} {
				c := Call{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": zone, "status": "RUNNING", "as_of": at}, Scope: sc.scope}
				calls = append(calls, call{"list " + zone + " " + sc.name + " " + at + " resolver", c, true})
			}
		}
	}
	for _, derived := range []bool{true, false} {
		kept, fresh := textsEngine(t, derived, false), textsEngine(t, derived, true)
		for round := range 2 { // the second round reads every text kept
			for _, tt := range calls {
				if tt.resolver && !derived {
					continue // resolveLive reads the derived structures
				}
				t.Run(tt.name, func(t *testing.T) {
					got, want := collect(t, kept, tt.c, tt.resolver), collect(t, fresh, tt.c, tt.resolver)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("derived %v, round %d:\nkept  %q %v\nfresh %q %v", derived, round, got.SQL, got.Args, want.SQL, want.Args)
					}
				})
			}
		}
	}
}

// TestText_Bound: past maxTexts a text is rendered on every call and not
// kept; one kept before stays.
func TestText_Bound(t *testing.T) {
	e := &Engine{}
	renders := 0
	render := func(s string) func() string { return func() string { renders++; return s } }
	kept := textKey{form: formExecLatest, scope: 1}
	if got := e.text(kept, render("a")); got != "a" {
		t.Fatalf("text = %q, want a", got)
	}
	e.texts.n.Store(maxTexts)
	past := textKey{form: formExecLatest, scope: 2}
	for range 3 {
		if got := e.text(past, render("b")); got != "b" {
			t.Fatalf("text past the bound = %q, want b", got)
		}
		if got := e.text(kept, render("x")); got != "a" {
			t.Fatalf("kept text = %q, want a", got)
		}
	}
	if renders != 4 {
		t.Errorf("%d renders, want 4 (one kept, three past the bound)", renders)
	}
	if n := e.texts.n.Load(); n != maxTexts {
		t.Errorf("count %d past the bound, want %d", n, maxTexts)
	}
}
