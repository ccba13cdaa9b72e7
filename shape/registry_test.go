package shape_test

import (
	"reflect"
	"testing"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/shape"
)

// TestDefs_Retail: the registry derived from catalogs/retail.yaml is the
// retail menu, field for field (names, descriptions, parameter order,
// domains and descriptions, value shapes), so every schema derived from it
// is byte-identical to the one the README documents.
func TestDefs_Retail(t *testing.T) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	got, err := shape.Defs(cat)
	if err != nil {
		t.Fatal(err)
	}
	want := retail.Defs()
	if len(got) != len(want) {
		t.Fatalf("%d tools, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("tool %d:\n got  %+v\n want %+v", i, got[i], want[i])
		}
	}
	if _, err := shape.NewRegistry(cat); err != nil {
		t.Errorf("NewRegistry: %v", err)
	}
}

// TestDefs_Warehouse: the warehouse catalog derives a valid registry.
func TestDefs_Warehouse(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := shape.NewRegistry(cat)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(reg.Menu()); n != 6 {
		t.Errorf("%d tools, want 6", n)
	}
}
