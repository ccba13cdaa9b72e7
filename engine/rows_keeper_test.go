package engine

import (
	"fmt"
	"testing"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// TestKeeper_PerScope: each scope keeps its own results, so a caller
// that keeps many cannot push out another scope's (they were one list of
// keptResults shared by every caller); a result is found only under the
// scope that kept it; past keptScopes scopes, the one that kept a result
// least recently is forgotten first.
func TestKeeper_PerScope(t *testing.T) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := shape.NewMenuRegistry(cat)
	if err != nil {
		t.Fatal(err)
	}
	wall := tool.NewWall(reg, nil)
	call := func(t *testing.T, store string, scope tool.Scope) tool.Call {
		t.Helper()
		c, err := wall.CheckScoped(tool.Proposal{Tool: "get_price", Params: map[string]any{
			"store_id": store, "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}}, scope)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	st1, st2, all := tool.StoresOnly("st-001"), tool.StoresOnly("st-002"), tool.AllStores()
	var k keeper
	k.Keep("theirs", call(t, "st-002", st2), fact.Result{})
	mine := call(t, "st-001", st1)
	for i := range keptResults + 10 {
		k.Keep(fmt.Sprintf("mine-%d", i), mine, fact.Result{})
	}
	if _, ok := k.get("theirs", st2); !ok {
		t.Error("another scope's many results pushed this scope's out")
	}
	if _, ok := k.get("mine-0", st1); ok {
		t.Error("a scope's oldest result kept past keptResults")
	}
	if _, ok := k.get(fmt.Sprintf("mine-%d", keptResults+9), st1); !ok {
		t.Error("a scope's newest result forgotten")
	}
	for _, other := range []tool.Scope{st2, all} {
		if _, ok := k.get("mine-20", other); ok {
			t.Errorf("a result found under a scope (%v) that did not keep it", other.All())
		}
	}
	// Past keptScopes scopes: the scope that kept least recently goes.
	k.Keep("everyone", call(t, "st-003", all), fact.Result{})
	for i := range keptScopes - 1 {
		s := fmt.Sprintf("st-%03d", 10+i)
		k.Keep("r-"+s, call(t, s, tool.StoresOnly(s)), fact.Result{})
	}
	if _, ok := k.get("theirs", st2); ok {
		t.Error("the scope that kept least recently was not forgotten")
	}
	if _, ok := k.get("everyone", all); !ok {
		t.Error("a scope kept more recently was forgotten")
	}
	if n := len(k.scopes); n != keptScopes {
		t.Errorf("%d scopes kept, want %d", n, keptScopes)
	}
}
