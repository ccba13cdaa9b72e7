// Package catalogstest gives tests the registries of the embedded example
// catalogs.
package catalogstest

import (
	"sync"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// Retail returns the registry derived from catalogs/retail.yaml. The
// catalog is fixed data; it panics if it does not load. The registry is
// built once per test binary and shared: a Registry is not changed in
// place (its With methods return copies).
func Retail() *tool.Registry { return retail() }

// Warehouse returns the registry derived from catalogs/warehouse.yaml; it
// panics if the catalog does not load. Built once, as Retail.
func Warehouse() *tool.Registry { return warehouse() }

// RetailMenu returns the registry a catalog engine over
// catalogs/retail.yaml serves: Retail's tools and query_metric
// (shape.NewMenuRegistry). Built once, as Retail.
func RetailMenu() *tool.Registry { return retailMenu() }

// WarehouseMenu is RetailMenu for catalogs/warehouse.yaml.
func WarehouseMenu() *tool.Registry { return warehouseMenu() }

var (
	retail        = sync.OnceValue(func() *tool.Registry { return must("retail", shape.NewRegistry) })
	warehouse     = sync.OnceValue(func() *tool.Registry { return must("warehouse", shape.NewRegistry) })
	retailMenu    = sync.OnceValue(func() *tool.Registry { return must("retail", shape.NewMenuRegistry) })
	warehouseMenu = sync.OnceValue(func() *tool.Registry { return must("warehouse", shape.NewMenuRegistry) })
)

func must(name string, derive func(*catalog.Catalog) (*tool.Registry, error)) *tool.Registry {
	cat, err := catalogs.Load(name)
	if err != nil {
		panic(err)
	}
	reg, err := derive(cat)
	if err != nil {
		panic(err)
	}
	return reg
}
