// Package allowlist derives the sandbox's read allowlist from a catalog:
// the catalog's own derived allowlist (catalog.Catalog.Allowlist: the
// union of the tables its datasets, their references and its metrics
// declare, minus the `sql.deny` list) minus a further deny list (a
// command's --deny flag). Datasets and references declared with files:
// are not tables and are not listed (the sandbox reads a snapshot of
// tables only). Limits reads the catalog's `sql.limits` over the
// sandbox's defaults.
package allowlist

import (
	"math"

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

// Limits are the limits of cat's free SQL: sandbox.DefaultLimits with
// each limit its `sql.limits` sets in place of the default.
func Limits(cat *catalog.Catalog) sandbox.Limits {
	l := sandbox.DefaultLimits()
	if cat.SQL == nil || cat.SQL.Limits == nil {
		return l
	}
	c := cat.SQL.Limits
	if c.RowBudget > 0 {
		l.RowBudget = c.RowBudget
	}
	if c.MaxRows > 0 {
		l.MaxRows = int(min(c.MaxRows, math.MaxInt32))
	}
	if c.MaxBytes > 0 {
		l.MaxBytes = int(min(c.MaxBytes, math.MaxInt32))
	}
	if c.MemoryMB > 0 {
		l.MemoryBytes = min(c.MemoryMB, math.MaxInt64>>20) << 20
	}
	if c.Timeout > 0 {
		l.WallClock = c.Timeout
	}
	return l
}
