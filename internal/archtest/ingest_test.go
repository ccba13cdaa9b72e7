package archtest

import (
	"slices"
	"testing"
)

// TestIngestIsPure keeps package ingest (the stored layout and the strict
// readers) free of cgo and drivers: the standard library and the catalog
// only, so the same validation serves every backend.
func TestIngestIsPure(t *testing.T) {
	allowed := append([]string{"catalog"}, closure(t, "catalog")...)
	for _, d := range closure(t, "ingest") {
		if !isStd(d) && !slices.Contains(allowed, d) {
			t.Errorf("ingest imports %s, which is neither the standard library nor the catalog", d)
		}
	}
}
