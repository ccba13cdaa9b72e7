package eventlog

import (
	"strings"
	"testing"
)

var patterns = map[string]pattern{
	"id": idPattern, "name": namePattern, "producer": producerPattern, "tool": toolPattern,
	"token": tokenPattern, "hex": hexPattern, "wall": wallPattern, "host": hostPattern,
}

// patternSeeds are strings at the edges of every pattern: each length
// bound, each class's first and last byte and its neighbours, non-ASCII.
var patternSeeds = []string{
	"", "a", "A", "0", "_", "-", ".", ":", "z", "Z", "9", "`", "{", "@", "[", "/", "é", "aé", "a\x00", "a\n", "\na",
	"evt-" + strings.Repeat("0", 32), "evt-" + strings.Repeat("f", 32), "evt-" + strings.Repeat("g", 32),
	"evt-" + strings.Repeat("A", 32), "evt-" + strings.Repeat("0", 31), "evt-" + strings.Repeat("0", 33), "EVT-" + strings.Repeat("0", 32),
	strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("a", 128), strings.Repeat("a", 129),
	strings.Repeat("a", 255), strings.Repeat("a", 256), strings.Repeat("0", 64), strings.Repeat("f", 63),
	"a.b:c-d_e", "a.b-c_d", "a_b9", "9a", "Aa", "a:b", "a.b",
	"2026-01-05T00:00:00Z", "2026-01-05T00:00:00.1Z", "2026-01-05T00:00:00.123456789Z", "2026-01-05T00:00:00.1234567890Z",
	"2026-01-05T00:00:00.Z", "2026-01-05T00:00:00", "2026-01-05 00:00:00Z", "2026-1-05T00:00:00Z", "2026-01-05T00:00:00+01:00",
	"2026-01-05T00:00:00ZZ", "x2026-01-05T00:00:00Z", "2026-01-05T00:00:00.1aZ", "２026-01-05T00:00:00Z",
}

// TestPatterns_MatchRegexp: every pattern's matcher accepts exactly what
// its regular expression does, on the edge cases.
func TestPatterns_MatchRegexp(t *testing.T) {
	for name, p := range patterns {
		for _, s := range patternSeeds {
			if got, want := p.MatchString(s), p.Regexp.MatchString(s); got != want {
				t.Errorf("%s pattern on %q: matcher %v, regexp %v", name, s, got, want)
			}
		}
	}
}

// FuzzPatterns holds every pattern's matcher to its regular expression.
func FuzzPatterns(f *testing.F) {
	for _, s := range patternSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, p := range patterns {
			if got, want := p.MatchString(s), p.Regexp.MatchString(s); got != want {
				t.Errorf("%s pattern on %q: matcher %v, regexp %v", name, s, got, want)
			}
		}
	})
}
