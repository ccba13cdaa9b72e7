// Package catalogs embeds the example catalogs (retail.yaml, the demo's;
// warehouse.yaml, the warehouse-equipment domain's), so that the binary
// serves them with no file beside it.
package catalogs

import (
	"embed"
	"fmt"

	"github.com/provenant/provenant/catalog"
)

//go:embed *.yaml
var files embed.FS

// Names are the embedded catalogs, by the name --catalog takes.
var Names = []string{"retail", "warehouse"}

// Load returns an embedded catalog by name ("retail", "warehouse"),
// validated.
func Load(name string) (*catalog.Catalog, error) {
	f, err := files.Open(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("load catalog %s: no such embedded catalog", name)
	}
	defer f.Close()
	return catalog.Load(f, name+".yaml")
}
