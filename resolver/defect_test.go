package resolver_test

import (
	"testing"

	"github.com/provenant/provenant/resolver/resolvertest"
	"github.com/provenant/provenant/retail/demo"
	"github.com/provenant/provenant/store/memstore"
)

// TestResolve_DefectInjection runs the defect suite over the memstore
// (intervals derived in Go); engine's tests run it over DuckDB.
func TestResolve_DefectInjection(t *testing.T) {
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	snap, err := memstore.FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	resolvertest.RunDefects(t, d, snap)
}
