package archtest

import (
	"slices"
	"testing"
)

// TestGovernanceLibraries keeps the budget and register libraries to the
// standard library (the budget also to internal/editdist, its
// did-you-mean distance), and the register to it and the one RFC 8785
// canonicaliser: both can be copied into another project alone (with
// internal/editdist).
func TestGovernanceLibraries(t *testing.T) {
	allowed := map[string][]string{
		"budget":   {"internal/editdist"},
		"register": {"github.com/gowebpki/jcs"},
	}
	for pkg, extra := range allowed {
		t.Run(pkg, func(t *testing.T) {
			for _, d := range closure(t, pkg) {
				if !isStd(d) && !slices.Contains(extra, d) {
					t.Errorf("%s imports %s: it may import the standard library and %v only", pkg, d, extra)
				}
			}
		})
	}
}
