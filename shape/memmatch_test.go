package shape

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/catalog"
)

// TestMemMatch_AsMeetsRow: the executor's compiled condition (memMatch)
// accepts exactly the rows meetsRow accepts, on random rows (nulls and
// values no attribute declares among them), for every condition the
// example catalogs declare and for random predicates over their
// attributes: every operator, lists, nesting of any and all, numeric
// leaves (which compile to nothing: meetsRow decides then).
func TestMemMatch_AsMeetsRow(t *testing.T) {
	for _, file := range []string{"../catalogs/warehouse.yaml", "../catalogs/retail.yaml"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			cat, err := catalog.Load(f, file)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			ds := cat.Datasets[0]
			var enums, nums []*catalog.Attribute
			for _, a := range ds.Attributes {
				if a.Enumerated() {
					enums = append(enums, a)
				} else {
					nums = append(nums, a)
				}
			}
			rapid.Check(t, func(rt *rapid.T) {
				m := &memData{str: map[string]*strColumn{}, num: map[string][]sql.NullFloat64{}}
				n := rapid.IntRange(0, 30).Draw(rt, "rows")
				for _, a := range enums {
					col := newStrColumn()
					vals := append([]string{"NOT-DECLARED"}, refValues(a)...)
					for range n {
						if rapid.IntRange(0, 5).Draw(rt, "null") == 0 {
							col.add(sql.NullString{})
							continue
						}
						col.add(sql.NullString{String: rapid.SampledFrom(vals).Draw(rt, a.Column.Value), Valid: true})
					}
					m.str[a.Column.Value] = col
				}
				for _, a := range nums {
					for range n {
						v := sql.NullFloat64{Float64: float64(rapid.IntRange(-10, 110).Draw(rt, a.Column.Value)), Valid: rapid.IntRange(0, 5).Draw(rt, "null") > 0}
						m.num[a.Column.Value] = append(m.num[a.Column.Value], v)
					}
				}
				m.keys = make([]string, n)
				p := &plan{ds: ds, mem: m}
				var preds []*catalog.Predicate
				for _, c := range ds.Conditions {
					preds = append(preds, &c.Predicate)
				}
				preds = append(preds, genPredicate(rt, enums, nums, 2))
				for _, pr := range preds {
					match, compiled := p.memMatch(pr)
					if !compiled {
						continue
					}
					for i := range int32(n) {
						if got, want := match(i), meetsRow(p, pr, memRow{m, i}); got != want {
							rt.Fatalf("row %d: memMatch = %v, meetsRow = %v", i, got, want)
						}
					}
				}
			})
		})
	}
}

func refValues(a *catalog.Attribute) []string {
	var out []string
	for _, v := range a.Values {
		out = append(out, v.Value)
	}
	return out
}

// genPredicate draws a predicate over the attributes, nested at most depth
// levels of any and all.
func genPredicate(t *rapid.T, enums, nums []*catalog.Attribute, depth int) *catalog.Predicate {
	kind := rapid.IntRange(0, 3).Draw(t, "kind")
	if depth > 0 && kind >= 2 {
		subs := make([]*catalog.Predicate, rapid.IntRange(1, 3).Draw(t, "subs"))
		for j := range subs {
			subs[j] = genPredicate(t, enums, nums, depth-1)
		}
		if kind == 2 {
			return &catalog.Predicate{Any: subs}
		}
		return &catalog.Predicate{All: subs}
	}
	if len(nums) > 0 && rapid.IntRange(0, 4).Draw(t, "numeric") == 0 {
		a := rapid.SampledFrom(nums).Draw(t, "attribute")
		return &catalog.Predicate{Attribute: catalog.Ref{Value: a.Name.Value}, Op: catalog.Ref{Value: rapid.SampledFrom([]string{"lt", "le", "gt", "ge", "eq", "ne"}).Draw(t, "op")},
			Value: &catalog.Value{Items: []catalog.Scalar{{IsNum: true, Num: float64(rapid.IntRange(0, 100).Draw(t, "number"))}}}}
	}
	a := rapid.SampledFrom(enums).Draw(t, "attribute")
	vals := append([]string{"NOT-DECLARED"}, refValues(a)...)
	items := make([]catalog.Scalar, rapid.IntRange(1, 3).Draw(t, "items"))
	for j := range items {
		items[j] = catalog.Scalar{Str: rapid.SampledFrom(vals).Draw(t, "value")}
	}
	pr := &catalog.Predicate{Attribute: catalog.Ref{Value: a.Name.Value}, Op: catalog.Ref{Value: rapid.SampledFrom([]string{"eq", "in", "ne", "not_in", "lt"}).Draw(t, "op")},
		Value: &catalog.Value{IsList: len(items) > 1, Items: items}}
	if rapid.IntRange(0, 9).Draw(t, "no value") == 0 {
		pr.Value = nil
	}
	return pr
}
