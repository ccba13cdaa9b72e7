// Package allowlist derives the sandbox's read allowlist from a catalog:
// the union of the tables its datasets declare (a dataset's table and
// its entities' reference tables) minus a deny list. Datasets and
// references declared with files: are not tables and are not listed (the
// sandbox reads a snapshot of tables only).
//
// The governed metric layer's tables (metric.Tables: each semantic
// model's dataset and the reference tables its dimensions join) are a
// further list of the same union.
package allowlist

import (
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/sandbox"
)

// Tables returns the tables cat declares, in declaration order, each
// once: every dataset's table, then its entities' reference tables.
func Tables(cat *catalog.Catalog) []string {
	var out []string
	add := func(t string) {
		for _, o := range out {
			if o == t {
				return
			}
		}
		if t != "" {
			out = append(out, t)
		}
	}
	for _, ds := range cat.Datasets {
		add(ds.Table.Value)
		for _, e := range ds.Entities {
			if e.Reference != nil {
				add(e.Reference.Table.Value)
			}
		}
	}
	return out
}

// FromCatalog is the read allowlist of cat: the union of Tables and the
// tables its metrics read (metric.Tables), minus deny, folded and sorted.
func FromCatalog(cat *catalog.Catalog, deny []string) []string {
	return sandbox.Allowlist(deny, Tables(cat), metric.Tables(cat))
}
