// Package catalogstest gives tests the registries of the embedded example
// catalogs.
package catalogstest

import (
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// Retail returns the registry derived from catalogs/retail.yaml. The
// catalog is fixed data; it panics if it does not load.
func Retail() *tool.Registry { return must("retail") }

// Warehouse returns the registry derived from catalogs/warehouse.yaml; it
// panics if the catalog does not load.
func Warehouse() *tool.Registry { return must("warehouse") }

func must(name string) *tool.Registry {
	cat, err := catalogs.Load(name)
	if err != nil {
		panic(err)
	}
	reg, err := shape.NewRegistry(cat)
	if err != nil {
		panic(err)
	}
	return reg
}
