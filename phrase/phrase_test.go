package phrase

import (
	"errors"
	"maps"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		phrasing string
		question string
		want     map[string]string // nil: no match
	}{
		{"what('s| is| was) the (stock|shelf) state (of|for) {product_id} (at|in|for|from) {store_id} as of {as_of}",
			"What is the stock state of pr-001 at st-002 as of 2026-01-06T08:00:00Z?",
			map[string]string{"product_id": "pr-001", "store_id": "st-002", "as_of": "2026-01-06T08:00:00Z"}},
		{"what('s| is| was) the (stock|shelf) state (of|for) {product_id} (at|in|for|from) {store_id} as of {as_of}",
			"  what's   THE shelf state for pr 1 in st-002 as of yesterday  ",
			map[string]string{"product_id": "pr 1", "store_id": "st-002", "as_of": "yesterday"}},
		{"what('s| is| was) the (stock|shelf) state (of|for) {product_id} (at|in|for|from) {store_id} as of {as_of}",
			"whatis the stock state of pr-001 at st-002 as of x", nil},
		{"what('s| is| was) the (stock|shelf) state (of|for) {product_id} (at|in|for|from) {store_id} as of {as_of}",
			"Tell me the stock state of pr-001 at st-002 as of x", nil},
		{"how many stores (have|had) (the )?condition {condition} as of {as_of}",
			"How many stores have the condition OUT_OF_STOCK as of t?", map[string]string{"condition": "OUT_OF_STOCK", "as_of": "t"}},
		{"how many stores (have|had) (the )?condition {condition} as of {as_of}",
			"How many stores had condition low_stock as of t.", map[string]string{"condition": "low_stock", "as_of": "t"}},
		{"how many stores (have|had) (the )?condition {condition} as of {as_of}",
			"How many stores have thecondition X as of t", nil},
		{`how many {state} (events|scans) (were|was) recorded (at|for) {store_id} in \[{start}, {end}\)`,
			"How many OUT_OF_STOCK scans were recorded at st-001 in [ 2026-01-01T00:00:00Z ,2026-01-02T00:00:00Z )?",
			map[string]string{"state": "OUT_OF_STOCK", "store_id": "st-001", "start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z"}},
		{`how many {state} (events|scans) (were|was) recorded (at|for) {store_id} in [{start}, {end})`,
			"How many X scans were recorded at st-001 in[a, b)", nil},
		{"what is) {a} | b", "what is) q | b", map[string]string{"a": "q"}},
		{"what is {a}", "what is\nthis", map[string]string{"a": "this"}},
		{"what is {a}", "what is", nil},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			p, err := Compile(tt.phrasing)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := p.Match(tt.question)
			if ok != (tt.want != nil) || !maps.Equal(got, tt.want) {
				t.Errorf("Match = %v, %v; want %v", got, ok, tt.want)
			}
		})
	}
}

func TestCompile_Errors(t *testing.T) {
	tests := []struct {
		phrasing string
		offset   int
	}{
		{"what (is", 5},
		{"what {Name}", 5},
		{"what {a", 5},
		{"what }", 5},
		{"{a} and {a}", 8},
		{`end \`, 4},
	}
	for _, tt := range tests {
		t.Run(tt.phrasing, func(t *testing.T) {
			_, err := Compile(tt.phrasing)
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("Compile = %v, want a *SyntaxError", err)
			}
			if se.Offset != tt.offset {
				t.Errorf("offset = %d, want %d (%v)", se.Offset, tt.offset, err)
			}
		})
	}
}

func TestTemplate(t *testing.T) {
	tests := []struct {
		template string
		fill     Fill
		want     string
	}{
		{"{count:store has|stores have} condition {condition} as of {as_of}: {ids}.",
			Fill{Args: map[string]string{"condition": "LOW", "as_of": "t"}, IDs: []string{"a", "b"}, Count: 2},
			"2 stores have condition LOW as of t: a, b."},
		{"{count:store has|stores have} condition {condition}: {ids}.",
			Fill{Args: map[string]string{"condition": "LOW"}, IDs: []string{"a"}, Count: 1},
			"1 store has condition LOW: a."},
		{"{count:scan|scans} {count?was|were} recorded for {store_id} in [{start}, {end}).",
			Fill{Args: map[string]string{"store_id": "s", "start": "a", "end": "b"}, Count: 0},
			"0 scans were recorded for s in [a, b)."},
		{"The price is {value}.", Fill{Value: "$1.25 (125 cents)"}, "The price is $1.25 (125 cents)."},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			tp, err := ParseTemplate(tt.template)
			if err != nil {
				t.Fatal(err)
			}
			if got := tp.Render(tt.fill); got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"{count:one}", "{Value}", "open {", "{count?|x}"} {
		if _, err := ParseTemplate(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTemplate(%q) = %v, want ErrSyntax", bad, err)
		}
	}
}

func FuzzCompile(f *testing.F) {
	f.Add("what('s| is) the {a} (of|for)? x", "what is the q of x")
	f.Add(`in \[{start}, {end}\)`, "in [a, b)")
	f.Fuzz(func(t *testing.T, phrasing, question string) {
		p, err := Compile(phrasing)
		if err != nil {
			return
		}
		if got, ok := p.Match(question); ok && len(got) != len(p.Params()) {
			t.Fatalf("Match captured %d params, pattern has %d", len(got), len(p.Params()))
		}
	})
}
