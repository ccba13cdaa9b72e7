package eval_test

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/eval"
)

// whItem is a valid answered count_devices_with_condition item; tests
// replace parts of it.
const whItem = `  - id: cond-1
    question: How many devices have condition NEEDS_ATTENTION as of 2026-01-08T12:00:00Z?
    coverage: in
    expect:
      outcome: answered
      tool: count_devices_with_condition
      params: {condition: NEEDS_ATTENTION, as_of: "2026-01-08T12:00:00Z"}
      value: {count: 2, device_ids: [dev-0005, dev-0032]}
      event_ids: [wh-evt-00010062, wh-evt-00010076]
`

const whHead = "suite_version: s1\ncatalog: warehouse\ndataset_version: warehouse-demo-v1\nitems:\n"

// TestValidateCatalog checks a catalog gold set is validated against the
// catalog's own tools and value shapes, with row keys for event ids, and
// that each error names its field without echoing the value.
func TestValidateCatalog(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		src  string
		want string // "" for valid; else a substring of the error
	}{
		{"valid", whHead + whItem, ""},
		{"valid zero", whHead + strings.NewReplacer("outcome: answered", "outcome: absence",
			"{count: 2, device_ids: [dev-0005, dev-0032]}", "{count: 0, device_ids: []}",
			"      event_ids: [wh-evt-00010062, wh-evt-00010076]\n", "").Replace(whItem), ""},
		{"no catalog", strings.Replace(whHead, "catalog: warehouse\n", "", 1) + whItem, "validate gold set: field catalog: is required"},
		{"another catalog", strings.Replace(whHead, "catalog: warehouse", "catalog: retail", 1) + whItem,
			"line 2 column 1: field catalog: names another catalog than the engine's"},
		{"bad catalog name", strings.Replace(whHead, "catalog: warehouse", "catalog: Ware House", 1) + whItem, "field catalog: must be a catalog name"},
		{"retail value shape", whHead + strings.Replace(whItem, "device_ids:", "store_ids:", 1),
			`field expect.value: must be {"count": n, "device_ids": [...]}`},
		{"count disagrees", whHead + strings.Replace(whItem, "count: 2", "count: 3", 1), "field expect.value: count must equal the number of device ids"},
		{"id off pattern", whHead + strings.Replace(whItem, "dev-0032]", "dev-32]", 1), "field expect.value: must hold a non-negative integer count and sorted, unique device ids"},
		{"key off pattern", whHead + strings.Replace(whItem, "wh-evt-00010076]", "wh evt]", 1),
			"field expect.event_ids[1]: is not a row key"},
		{"unknown condition", whHead + strings.Replace(whItem, "condition: NEEDS_ATTENTION", "condition: ON_FIRE", 1),
			"field expect.params.condition"},
		{"retail tool", whHead + strings.Replace(whItem, "tool: count_devices_with_condition", "tool: count_stores_with_condition", 1),
			"field expect.tool: is not a registered tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := eval.Parse(strings.NewReader(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			err = g.ValidateCatalog(cat)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("ValidateCatalog() = %v, want nil", err)
			case tt.want == "":
				return
			case err == nil || !strings.Contains(err.Error(), tt.want):
				t.Fatalf("ValidateCatalog() = %v, want an error containing %q", err, tt.want)
			}
			for _, secret := range []string{"Ware House", "ON_FIRE", "dev-32", "wh evt"} {
				if strings.Contains(tt.src, secret) && strings.Contains(err.Error(), secret) {
					t.Errorf("error echoes the rejected value %q: %v", secret, err)
				}
			}
		})
	}
}

// TestCatalogGold checks the embedded gold sets load by catalog name, and
// a catalog without one is an error.
func TestCatalogGold(t *testing.T) {
	g, err := eval.CatalogGold("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	if g.Catalog != "warehouse" || len(g.Items) < 40 {
		t.Errorf("warehouse gold: catalog %q, %d items", g.Catalog, len(g.Items))
	}
	if _, err := eval.CatalogGold("retail"); err == nil {
		t.Error("CatalogGold(retail) = nil error, want no embedded gold set")
	}
	if _, ok := eval.CatalogGoldFile("retail"); ok {
		t.Error("CatalogGoldFile(retail) found a file")
	}
}
