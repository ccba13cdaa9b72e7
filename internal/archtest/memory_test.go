package archtest

import (
	"slices"
	"testing"
)

// TestMemoryIsPure keeps agent memory copyable alone: package memory, its
// in-memory store and its test support import only the standard library,
// github.com/gowebpki/jcs (the canonical JSON of a sheet), internal/editdist
// (the policy's did-you-mean distance) and each other.
// Persistent stores implement memory.Store in leaf packages of their own.
func TestMemoryIsPure(t *testing.T) {
	own := []string{"memory", "memory/memstore", "memory/memorytest", "memory/internal/sqljournal", "memory/memapi"}
	for _, pkg := range own {
		t.Run(pkg, func(t *testing.T) {
			for _, d := range closure(t, pkg) {
				if !isStd(d) && !slices.Contains(own, d) && d != "github.com/gowebpki/jcs" && d != "internal/editdist" {
					t.Errorf("%s imports %s: memory is the standard library and jcs only", pkg, d)
				}
			}
		})
	}
}
