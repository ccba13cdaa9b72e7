package editdist

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"attribute", "attribute", 0},
		{"atribute", "attribute", 1},
		{"kitten", "sitting", 3},
		{"sim_secnds", "sim_seconds", 1},
		{"flaw", "lawn", 2},
		{"café", "cafe", 1}, // one rune, not two bytes
		{"ab", "ba", 2},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.a, tc.b), func(t *testing.T) {
			if got := Distance(tc.a, tc.b); got != tc.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestDistance_Metric checks the laws of a metric and the bounds every
// edit distance keeps, on arbitrary strings.
func TestDistance_Metric(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.StringN(0, 12, -1).Draw(t, "a")
		b := rapid.StringN(0, 12, -1).Draw(t, "b")
		c := rapid.StringN(0, 12, -1).Draw(t, "c")
		ab, ba := Distance(a, b), Distance(b, a)
		if ab != ba {
			t.Fatalf("not symmetric: %d, %d", ab, ba)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("zero distance %d for a != b or the reverse", ab)
		}
		if ab > Distance(a, c)+Distance(c, b) {
			t.Fatalf("triangle inequality broken")
		}
		la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
		if ab < abs(la-lb) || ab > max(la, lb) {
			t.Fatalf("distance %d outside [%d, %d]", ab, abs(la-lb), max(la, lb))
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func ExampleDistance() {
	fmt.Println(Distance("atribute", "attribute"))
	// Output: 1
}
