package shape_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

var update = flag.Bool("update", false, "rewrite testdata/retail-defs.json from the derivation")

// TestDefs_Retail: the menu derived from catalogs/retail.yaml (names,
// descriptions, parameter order, domains and descriptions, value shapes)
// is testdata/retail-defs.json, field for field, so every schema derived
// from it stays byte-identical to the one the README documents. The
// golden was first written from the Go definitions the derivation
// replaced; a change to the catalog's menu shows here as a diff
// (go test ./shape -run TestDefs_Retail -update rewrites it).
func TestDefs_Retail(t *testing.T) {
	cat, err := catalogs.Load("retail")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := shape.Defs(cat)
	if err != nil {
		t.Fatal(err)
	}
	got := renderMenu(t, defs)
	const path = "testdata/retail-defs.json"
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./shape -run TestDefs_Retail -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("derived retail menu differs from %s (go test ./shape -run TestDefs_Retail -update if intended):\n%s", path, got)
	}
	if _, err := shape.NewRegistry(cat); err != nil {
		t.Errorf("NewRegistry: %v", err)
	}
}

// renderMenu renders defs as indented JSON, parameter kinds by name. What
// a menu lacked (how people ask, how an answer reads) is left out: the
// rules provider checks it (TestSentences_Retail, TestPhrasings_Retail).
// The outer fields of def and param shadow the embedded ones of the same
// name in encoding/json, which is how they are replaced or dropped.
func renderMenu(t *testing.T, defs []tool.Def) []byte {
	t.Helper()
	type param struct {
		tool.Param
		Kind string
	}
	type def struct {
		tool.Def
		Params                        []param
		Class, Answer, None, Currency string   `json:",omitempty"`
		Phrasings                     []string `json:",omitempty"`
	}
	out := make([]def, len(defs))
	for i, d := range defs {
		out[i].Def = d
		for _, p := range d.Params {
			out[i].Params = append(out[i].Params, param{Param: p, Kind: p.Kind.String()})
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
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
