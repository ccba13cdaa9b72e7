package fact_test

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/fact"
)

// digestDefinition is Digest as documented: SHA-256 over the ids sorted
// bytewise, each followed by a newline, in lowercase hex.
func digestDefinition(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	return hex.EncodeToString(func() []byte { h := sha256.Sum256([]byte(strings.Join(append(s, ""), "\n"))); return h[:] }())
}

// TestDigest_Definition: Digest, which hashes through a buffer and skips
// the sort of sorted ids, equals the definition on any ids (sorted or
// not, with duplicates, empty ones and ones longer than its buffer), and
// leaves its argument as it was.
func TestDigest_Definition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		id := rapid.OneOf(rapid.StringN(0, 40, -1), rapid.StringN(16<<10-2, 16<<10+2, -1), rapid.SampledFrom([]string{"a", "b", "ev-1"}))
		ids := rapid.SliceOfN(id, 0, 300).Draw(t, "ids")
		if rapid.Bool().Draw(t, "sorted") {
			slices.Sort(ids)
		}
		before := slices.Clone(ids)
		if got, want := fact.Digest(ids), digestDefinition(ids); got != want {
			t.Fatalf("Digest = %s, want %s", got, want)
		}
		if !slices.Equal(ids, before) {
			t.Fatalf("Digest changed its argument")
		}
	})
	if got, want := fact.Digest(nil), digestDefinition(nil); got != want {
		t.Errorf("Digest(nil) = %s, want %s", got, want)
	}
}
