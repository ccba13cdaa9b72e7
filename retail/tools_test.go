package retail_test

import (
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

// TestRegistry: the retail definitions make a valid registry (Registry
// panics otherwise), six tools in menu order.
func TestRegistry(t *testing.T) {
	reg := retail.Registry()
	var names []string
	for _, d := range reg.Menu() {
		names = append(names, d.Name)
	}
	want := []string{retail.GetStockState, retail.GetPrice, retail.GetComplianceFlag,
		retail.CountStoresWithCondition, retail.ListProductsInState, retail.CountEventsInWindow}
	if !slices.Equal(names, want) {
		t.Errorf("menu = %v, want %v", names, want)
	}
	if reg.ScopeEntity() != "store" {
		t.Errorf("scope entity = %q, want store", reg.ScopeEntity())
	}
}

// TestDefs_AgreeWithCatalog pins the temporary Go definitions to
// catalogs/retail.yaml, from which issue 8 derives them: the same tools in
// the same order, the same parameter sets, entity patterns, enumerations,
// value shapes and units. What the two do not share yet (parameter order,
// descriptions) is left to the derivation, which must keep today's bytes.
func TestDefs_AgreeWithCatalog(t *testing.T) {
	f, err := os.Open("../catalogs/retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cat, err := catalog.Load(f, "retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defs := retail.Defs()
	if len(cat.Tools) != len(defs) {
		t.Fatalf("catalog has %d tools, Defs %d", len(cat.Tools), len(defs))
	}
	if cat.ScopeEntity.Value != retail.ScopeEntity {
		t.Errorf("scope entity: catalog %q, Defs %q", cat.ScopeEntity.Value, retail.ScopeEntity)
	}
	kinds := map[string]fact.Kind{
		catalog.ShapeCountEntitiesWhere:  fact.KindEntityCount,
		catalog.ShapeListEntitiesInState: fact.KindEntityList,
		catalog.ShapeCountRowsInWindow:   fact.KindRowCount,
	}
	for i, ct := range cat.Tools {
		d := defs[i]
		t.Run(ct.Name.Value, func(t *testing.T) {
			if d.Name != ct.Name.Value {
				t.Fatalf("tools[%d]: catalog %s, Defs %s", i, ct.Name.Value, d.Name)
			}
			ds := cat.Dataset(ct.Dataset.Value)
			params := map[string]tool.Param{}
			for _, p := range d.Params {
				params[p.Name] = p
			}
			if got, want := slices.Sorted(maps.Keys(params)), slices.Sorted(slices.Values(ct.Params(ds))); !slices.Equal(got, want) {
				t.Errorf("parameters: Defs %v, catalog %v", got, want)
			}
			for _, e := range ds.Entities {
				if p, ok := params[e.Column.Value]; ok {
					if p.Kind != tool.EntityID || p.Entity != e.Name.Value || p.Pattern != e.Pattern.Value {
						t.Errorf("%s: Defs %+v, catalog entity %s pattern %s", p.Name, p, e.Name.Value, e.Pattern.Value)
					}
				}
			}
			if ct.Filter != nil {
				p := params[ct.Filter.Param.Value]
				if p.Kind != tool.Enum || !slices.Equal(p.Values, ct.FilterValues(ds)) {
					t.Errorf("filter %s: Defs %v, catalog %v", ct.Filter.Param.Value, p.Values, ct.FilterValues(ds))
				}
			}
			if ct.Shape.Value == catalog.ShapeLatestValue {
				a := ds.Attribute(ct.Attribute.Value)
				switch {
				case d.Attribute != a.Name.Value:
					t.Errorf("attribute: Defs %s, catalog %s", d.Attribute, a.Name.Value)
				case a.Enumerated() && (d.Value != fact.KindText || !slices.Equal(d.Values, refs(a.Values))):
					t.Errorf("value: Defs %s %v, catalog values %v", d.Value, d.Values, refs(a.Values))
				case !a.Enumerated() && (d.Value != fact.KindInteger || d.Unit != a.Unit.Value || a.Type.Value != "integer"):
					t.Errorf("value: Defs %s in %q, catalog %s in %q", d.Value, d.Unit, a.Type.Value, a.Unit.Value)
				}
				return
			}
			if d.Value != kinds[ct.Shape.Value] {
				t.Errorf("value kind: Defs %s, catalog shape %s", d.Value, ct.Shape.Value)
			}
			if d.Value.HasIDs() {
				e := ds.Entity(ct.Entity.Value)
				if d.IDsField != e.Name.Value+"_ids" || d.IDsPattern != e.Pattern.Value {
					t.Errorf("ids: Defs %s %s, catalog entity %s pattern %s", d.IDsField, d.IDsPattern, e.Name.Value, e.Pattern.Value)
				}
			}
		})
	}
}

func refs(rs []catalog.Ref) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Value
	}
	return out
}

func TestDeclaredIDsAndScalar(t *testing.T) {
	d := &retail.Dataset{
		Stores:   []retail.Store{{ID: "st-004"}},
		Products: []retail.Product{{ID: "pr-009"}},
	}
	ids := retail.DeclaredIDs(d)
	if !ids["store"]["st-004"] || !ids["product"]["pr-009"] || len(ids["store"]) != 1 || len(ids["product"]) != 1 {
		t.Errorf("DeclaredIDs = %v", ids)
	}
	e := retail.Event{State: retail.LowStock, PriceCents: 349, Flag: retail.Compliant}
	reg := retail.Registry()
	for name, want := range map[string]fact.Value{
		retail.GetStockState:     fact.Text("LOW_STOCK"),
		retail.GetPrice:          fact.Integer(349, "cents"),
		retail.GetComplianceFlag: fact.Text("COMPLIANT"),
	} {
		def, _ := reg.Lookup(name)
		if got := retail.Scalar(def, e); !got.Equal(want) {
			t.Errorf("Scalar(%s) = %+v, want %+v", name, got, want)
		}
	}
}
