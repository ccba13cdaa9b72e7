package ledger

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestResultID_Sprintf: a result id is fmt's rendering of its
// millisecond (modulo 10^15, 15 digits) and suffix (20 digits), for the
// edges and any values.
func TestResultID_Sprintf(t *testing.T) {
	want := func(ms, suffix uint64) string { return fmt.Sprintf("res-%015d%020d", ms%1e15, suffix) }
	for _, tt := range []struct {
		name       string
		ms, suffix uint64
	}{
		{"zero", 0, 0},
		{"now", 1_764_633_600_000, 12_345},
		{"largest", 1e15 - 1, math.MaxUint64},
		{"millisecond past 15 digits", 1e15 + 7, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := resultID(tt.ms, tt.suffix); got != want(tt.ms, tt.suffix) {
				t.Errorf("resultID = %q, want %q", got, want(tt.ms, tt.suffix))
			}
		})
	}
	rapid.Check(t, func(t *rapid.T) {
		ms, suffix := rapid.Uint64().Draw(t, "ms"), rapid.Uint64().Draw(t, "suffix")
		if got := resultID(ms, suffix); got != want(ms, suffix) {
			t.Fatalf("resultID(%d, %d) = %q, want %q", ms, suffix, got, want(ms, suffix))
		}
	})
}
