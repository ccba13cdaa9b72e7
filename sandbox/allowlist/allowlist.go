// Package allowlist derives the sandbox's read allowlist from a catalog:
// the catalog's own derived allowlist (catalog.Catalog.Allowlist: the
// union of the tables its datasets, their references and its metrics
// declare, minus the `sql.deny` list) minus a further deny list (a
// command's --deny flag). Datasets and references declared with files:
// are not tables and are not listed (the sandbox reads a snapshot of
// tables only).
package allowlist

import (
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/sandbox"
)

// Tables returns the tables cat declares, in declaration order, each
// once: every dataset's table, then its entities' reference tables
// (catalog.Catalog.Tables).
func Tables(cat *catalog.Catalog) []string { return cat.Tables() }

// FromCatalog is the read allowlist of cat minus deny, folded and sorted:
// the catalog's `sql.deny` always applies, and deny adds to it.
func FromCatalog(cat *catalog.Catalog, deny []string) []string {
	return sandbox.Allowlist(deny, cat.Allowlist())
}
