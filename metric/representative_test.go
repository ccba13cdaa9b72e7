package metric

import (
	"regexp"
	"testing"

	"github.com/provenant/provenant/catalog"
)

// TestRepresentative: every representative request of every example
// metric compiles, and together they group by each allowed dimension,
// filter on each, and ask every grain the metric allows.
func TestRepresentative(t *testing.T) {
	for _, name := range []string{"retail", "warehouse"} {
		cat := loadCatalog(t, name)
		for _, m := range cat.Metrics {
			t.Run(name+"/"+m.Name.Value, func(t *testing.T) {
				reqs := Representative(cat, m)
				grouped, filtered, grains := map[string]bool{}, map[string]bool{}, map[string]bool{}
				for _, r := range reqs {
					if _, err := Compile(cat, r, nil); err != nil {
						t.Errorf("Compile(%+v) = %v", r, err)
					}
					for _, d := range r.Dimensions {
						grouped[d] = true
					}
					for _, f := range r.Filters {
						filtered[f.Dimension] = true
					}
					grains[r.Grain] = true
				}
				for _, d := range m.Dimensions {
					if !grouped[d.Value] || !filtered[d.Value] {
						t.Errorf("dimension %s: grouped %v, filtered %v", d.Value, grouped[d.Value], filtered[d.Value])
					}
				}
				for i, g := range catalog.Grains() {
					want := g == catalog.GrainNone || catalog.GrainRank(m.Grain.Value) > 0 && i >= catalog.GrainRank(m.Grain.Value)
					if grains[g] != want {
						t.Errorf("grain %s asked %v, want %v", g, grains[g], want)
					}
				}
			})
		}
	}
}

func TestPatternExample(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // "" when none is made
	}{
		{`^st-[0-9]{3}$`, "st-000"},
		{`^zone-[0-9]{2}$`, "zone-00"},
		{`^(ab|cd)+x?$`, "ab"},
		{`^[A-Z][a-z]*\.$`, "A."},
		{`^a\b$`, ""},    // a word boundary is not made
		{`^$`, ""},       // the empty string is no value
		{`^[`, ""},       // not a pattern
		{`^a{0,2}$`, ""}, // only the empty string is made
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			got, ok := patternExample(tt.pattern)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("patternExample = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

// FuzzPatternExample: whatever the pattern, an example made matches it,
// and nothing panics.
func FuzzPatternExample(f *testing.F) {
	for _, s := range []string{`^st-[0-9]{3}$`, `^(a|b)+$`, `x{1000}`, `[^a]`, `(?i)Ab`, `\pL+`, `a{2,5}?b*`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		v, ok := patternExample(pattern)
		if !ok {
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil || !re.MatchString(v) || v == "" || len(v) > MaxValueLength {
			t.Fatalf("patternExample(%q) = %q", pattern, v)
		}
	})
}
