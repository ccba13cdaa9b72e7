// Package catalogs embeds the example catalogs (retail.yaml, the demo's;
// warehouse.yaml, the warehouse-equipment domain's) and their metrics'
// fixtures (fixtures/), so that the binary serves them with no file beside
// it.
package catalogs

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/provenant/provenant/catalog"
)

//go:embed *.yaml fixtures
var files embed.FS

// Files are the embedded catalogs and fixtures, as catalog.LoadFS reads
// them.
func Files() fs.FS { return files }

// Names are the embedded catalogs, by the name --catalog takes.
var Names = []string{"retail", "warehouse"}

// Load returns an embedded catalog by name ("retail", "warehouse"),
// validated.
func Load(name string) (*catalog.Catalog, error) {
	if _, err := fs.Stat(files, name+".yaml"); err != nil {
		return nil, fmt.Errorf("load catalog %s: no such embedded catalog", name)
	}
	return catalog.LoadFS(files, name+".yaml")
}
