package memory

import (
	"slices"
	"strings"
	"testing"
)

// rec builds a record for tests: kind, key, target and logical time; the
// options set the rest.
func rec(kind Kind, key, target string, time int64, opts ...func(*Record)) Record {
	r := Record{Key: key, Agent: "bot", Kind: kind, Target: target, Text: "text of " + key, Time: time}
	if kind == KindConfirm || kind == KindRetract {
		r.Text = ""
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func stated(r *Record)             { r.Stated = true }
func class(c string) func(*Record) { return func(r *Record) { r.Class = c } }
func relevance(s float64, half int64) func(*Record) {
	return func(r *Record) { r.Relevance = &Relevance{Score: s, HalfLife: half} }
}

// want is what a test expects of one claim.
type want struct {
	key           string
	supersedes    []string
	outranked     []string
	disjunct      []string
	confirmations int
}

func TestResolve_Rules(t *testing.T) {
	claim := func(k string, tm int64, o ...func(*Record)) Record { return rec(KindClaim, k, "", tm, o...) }
	tests := []struct {
		name     string
		prefer   Prefer
		selected []Record
		chains   map[string][]Record
		want     []want
		counts   Counts // only the resolution counts are compared
		warnings []string
	}{
		{
			name:     "claims in rank order: score, then recency, then key",
			selected: []Record{claim("a", 1, relevance(0.2, 0)), claim("b", 2), claim("c", 1, relevance(0.9, 0)), claim("d", 2)},
			want:     []want{{key: "c"}, {key: "a"}, {key: "b"}, {key: "d"}},
			counts:   Counts{Selected: 4, Claims: 4},
		},
		{
			name:     "retract wins over an earlier confirm",
			selected: []Record{claim("a", 1), claim("b", 1)},
			chains:   map[string][]Record{"a": {rec(KindConfirm, "c1", "a", 2), rec(KindRetract, "r1", "a", 3)}},
			want:     []want{{key: "b"}},
			counts:   Counts{Selected: 2, Retracted: 1, Claims: 1},
		},
		{
			name:     "retract wins over a later confirm",
			selected: []Record{claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindConfirm, "c1", "a", 5), rec(KindRetract, "r1", "a", 3)}},
			want:     nil,
			counts:   Counts{Selected: 1, Retracted: 1},
		},
		{
			name:     "confirmations are counted; a retracted confirm is not",
			selected: []Record{claim("a", 1)},
			chains: map[string][]Record{"a": {rec(KindConfirm, "c1", "a", 2), rec(KindConfirm, "c2", "a", 3),
				rec(KindConfirm, "c3", "a", 4), rec(KindRetract, "r3", "c3", 5)}},
			want:   []want{{key: "a", confirmations: 2}},
			counts: Counts{Selected: 1, Claims: 1},
		},
		{
			name:     "a supersede collapses its target onto itself",
			selected: []Record{claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 2)}},
			want:     []want{{key: "s1", supersedes: []string{"a"}}},
			counts:   Counts{Selected: 1, Superseded: 1, Claims: 1},
		},
		{
			name:     "corrections of corrections are followed to the last",
			selected: []Record{claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s2", "s1", 3), rec(KindSupersede, "s1", "a", 2)}},
			want:     []want{{key: "s2", supersedes: []string{"a", "s1"}}},
			counts:   Counts{Selected: 1, Superseded: 1, Claims: 1},
		},
		{
			name:     "a retracted supersede does not replace its target",
			selected: []Record{claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 2), rec(KindRetract, "r1", "s1", 3)}},
			want:     []want{{key: "a"}},
			counts:   Counts{Selected: 1, Claims: 1},
		},
		{
			name:     "prefer self-stated: the stated correction wins though older",
			prefer:   PreferSelfStated,
			selected: []Record{claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 2, stated), rec(KindSupersede, "s2", "a", 3)}},
			want:     []want{{key: "s1", supersedes: []string{"a"}, outranked: []string{"s2"}}},
			counts:   Counts{Selected: 1, Superseded: 1, Claims: 1},
		},
		{
			name:     "prefer confirmed: the most confirmed wins though unstated and older",
			prefer:   PreferConfirmed,
			selected: []Record{claim("a", 1)},
			chains: map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 2), rec(KindSupersede, "s2", "a", 3, stated),
				rec(KindConfirm, "c1", "s1", 4)}},
			want:   []want{{key: "s1", supersedes: []string{"a"}, outranked: []string{"s2"}, confirmations: 1}},
			counts: Counts{Selected: 1, Superseded: 1, Claims: 1},
		},
		{
			name:     "prefer recent: the latest wins though unstated and unconfirmed",
			prefer:   PreferRecent,
			selected: []Record{claim("a", 1)},
			chains: map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 2, stated), rec(KindSupersede, "s2", "a", 3),
				rec(KindConfirm, "c1", "s1", 4)}},
			want:   []want{{key: "s2", supersedes: []string{"a"}, outranked: []string{"s1"}}},
			counts: Counts{Selected: 1, Superseded: 1, Claims: 1},
		},
		{
			name:     "prefer self-stated with neither stated falls to confirmations",
			prefer:   PreferSelfStated,
			selected: []Record{claim("a", 1)},
			chains: map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 3), rec(KindSupersede, "s2", "a", 2),
				rec(KindConfirm, "c1", "s2", 4)}},
			want:   []want{{key: "s2", supersedes: []string{"a"}, outranked: []string{"s1"}, confirmations: 1}},
			counts: Counts{Selected: 1, Superseded: 1, Claims: 1},
		},
		{
			name:     "a complete tie is an unresolved contradiction: both shown, disjunct, warned",
			prefer:   PreferRecent,
			selected: []Record{claim("a", 1), claim("z", 0)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s2", "a", 2), rec(KindSupersede, "s1", "a", 2), rec(KindSupersede, "s0", "a", 1)}},
			want: []want{
				{key: "s1", supersedes: []string{"a"}, outranked: []string{"s0"}, disjunct: []string{"s2"}},
				{key: "s2", supersedes: []string{"a"}, outranked: []string{"s0"}, disjunct: []string{"s1"}},
				{key: "z"},
			},
			counts:   Counts{Selected: 2, Superseded: 1, Contradictions: 1, Claims: 3},
			warnings: []string{"unresolved_contradiction: corrections of a are tied under prefer recent: s1, s2; none is chosen"},
		},
		{
			name:     "a selected supersede whose target never ranked is a winner of its own",
			selected: []Record{rec(KindSupersede, "s1", "gone", 5)},
			want:     []want{{key: "s1"}},
			counts:   Counts{Selected: 1, Claims: 1},
		},
		{
			name:     "a selected supersede whose target ranked is resolved with it",
			selected: []Record{rec(KindSupersede, "s1", "a", 5), claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 5)}},
			want:     []want{{key: "s1", supersedes: []string{"a"}}},
			counts:   Counts{Selected: 2, Superseded: 1, Claims: 1},
		},
		{
			name:     "a selected supersede that lost to another is outranked, not shown",
			prefer:   PreferSelfStated,
			selected: []Record{rec(KindSupersede, "s2", "a", 5), claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s2", "a", 5), rec(KindSupersede, "s1", "a", 2, stated)}},
			want:     []want{{key: "s1", supersedes: []string{"a"}, outranked: []string{"s2"}}},
			counts:   Counts{Selected: 2, Superseded: 1, Outranked: 1, Claims: 1},
		},
		{
			name:     "a selected supersede whose ranked target was retracted stands alone",
			selected: []Record{rec(KindSupersede, "s1", "a", 5), claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindSupersede, "s1", "a", 5), rec(KindRetract, "r", "a", 6)}},
			want:     []want{{key: "s1"}},
			counts:   Counts{Selected: 2, Retracted: 1, Claims: 1},
		},
		{
			name: "claims sharing a class surface together, each disjunct with the others",
			selected: []Record{claim("a", 1, class("q"), relevance(0.9, 0)), claim("b", 1, relevance(0.5, 0)),
				claim("c", 1, class("q"), relevance(0.1, 0)), claim("d", 1, class("q"))},
			want: []want{
				{key: "a", disjunct: []string{"c", "d"}},
				{key: "c", disjunct: []string{"a", "d"}},
				{key: "d", disjunct: []string{"a", "c"}},
				{key: "b"},
			},
			counts: Counts{Selected: 4, Claims: 4},
		},
		{
			name: "corrupt targeted records without a target are counted and warned, never shown",
			selected: []Record{rec(KindConfirm, "c", "", 1), rec(KindRetract, "r", "", 1), rec(KindSupersede, "s", "", 1),
				{Key: "u", Agent: "bot", Kind: "rumour", Text: "x"}, claim("a", 0)},
			want:   []want{{key: "a"}},
			counts: Counts{Selected: 5, Corrupt: 4, Claims: 1},
			warnings: []string{
				"corrupt_record: record c is a confirm without a target; not surfaced",
				"corrupt_record: record r is a retract without a target; not surfaced",
				"corrupt_record: record s is a supersede without a target; not surfaced",
				"corrupt_record: record u has an unknown kind; not surfaced",
			},
		},
		{
			name:     "records in a cycle of targets are corrupt",
			selected: []Record{rec(KindSupersede, "x", "y", 1), rec(KindSupersede, "y", "x", 2)},
			chains:   map[string][]Record{"x": {rec(KindSupersede, "y", "x", 2), rec(KindSupersede, "x", "y", 1)}},
			want:     nil,
			counts:   Counts{Selected: 2, Corrupt: 2},
			warnings: []string{
				"corrupt_record: record x is in a cycle of targets; not surfaced",
				"corrupt_record: record y is in a cycle of targets; not surfaced",
			},
		},
		{
			name:     "a key held by two different records is warned",
			selected: []Record{claim("a", 1)},
			chains:   map[string][]Record{"a": {rec(KindConfirm, "a", "b", 1)}},
			want:     []want{{key: "a"}},
			counts:   Counts{Selected: 1, Claims: 1},
			warnings: []string{"corrupt_record: key a is held by two different records; one is used"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPolicy()
			if tt.prefer != "" {
				p.Prefer = tt.prefer
			}
			s := Resolve(Input{AsOf: 10, Selected: tt.selected, Chains: tt.chains}, p)
			var got []want
			for i, c := range s.Claims {
				if c.Rank != i+1 {
					t.Errorf("claim %s has rank %d at place %d", c.Key, c.Rank, i+1)
				}
				got = append(got, want{c.Key, c.Supersedes, c.Outranked, c.DisjunctWith, c.Confirmations})
			}
			if !slices.EqualFunc(got, tt.want, func(a, b want) bool {
				return a.key == b.key && slices.Equal(a.supersedes, b.supersedes) && slices.Equal(a.outranked, b.outranked) &&
					slices.Equal(a.disjunct, b.disjunct) && a.confirmations == b.confirmations
			}) {
				t.Errorf("claims\n got %+v\nwant %+v", got, tt.want)
			}
			if s.Counts != tt.counts {
				t.Errorf("counts\n got %+v\nwant %+v", s.Counts, tt.counts)
			}
			var ws []string
			for _, w := range s.Warnings {
				ws = append(ws, w.Code+": "+w.Message)
			}
			if !slices.Equal(ws, tt.warnings) {
				t.Errorf("warnings\n got %s\nwant %s", strings.Join(ws, "\n     "), strings.Join(tt.warnings, "\n     "))
			}
		})
	}
}

func TestResolve_Staleness(t *testing.T) {
	tests := []struct {
		name      string
		rel       *Relevance
		threshold float64
		want      *float64
		stale     bool
	}{
		{"no relevance: null, not stale", nil, 0.25, nil, false},
		{"no decay", &Relevance{Score: 0.3}, 0.25, ptr(0.3), false},
		{"one half-life", &Relevance{Score: 0.4, HalfLife: 10}, 0.25, ptr(0.2), true},
		{"two half-lives", &Relevance{Score: 1, HalfLife: 5}, 0.25, ptr(0.25), false},
		{"threshold zero is never stale", &Relevance{Score: 0, HalfLife: 5}, 0, ptr(0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DefaultPolicy()
			p.StalenessThreshold = tt.threshold
			r := rec(KindClaim, "a", "", 0)
			r.Relevance = tt.rel
			s := Resolve(Input{AsOf: 10, Selected: []Record{r}}, p)
			c := s.Claims[0]
			if (c.Staleness == nil) != (tt.want == nil) || c.Staleness != nil && *c.Staleness != *tt.want {
				t.Errorf("staleness %v, want %v", deref(c.Staleness), deref(tt.want))
			}
			if c.Stale != tt.stale {
				t.Errorf("stale %v, want %v", c.Stale, tt.stale)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func TestResolve_InvalidPolicyWarns(t *testing.T) {
	s := Resolve(Input{AsOf: 1, Selected: []Record{rec(KindClaim, "a", "", 0)}}, Policy{Prefer: "loudest"})
	if len(s.Claims) != 1 {
		t.Fatalf("claims %d, want 1", len(s.Claims))
	}
	want := Policy{Prefer: PreferSelfStated, GateOverfetchMultiplier: 2} // zero threshold and pulls are valid
	if s.Policy != want {
		t.Errorf("policy %+v, want %+v", s.Policy, want)
	}
	if len(s.Warnings) != 2 {
		t.Errorf("warnings %v, want one per invalid key (prefer, gate_overfetch_multiplier)", s.Warnings)
	}
}
