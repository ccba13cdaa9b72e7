package memory

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Cues are what a read looks for. A record matches when it meets every
// cue given: the same subject (case folded), at least one shared tag
// (case folded), and every word of the text among the words of its text
// and subject. At least one cue must be given.
type Cues struct {
	Subject string   `json:"subject,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Text    string   `json:"text,omitempty"`
}

func (c Cues) empty() bool {
	return strings.TrimSpace(c.Subject) == "" && len(c.Tags) == 0 && len(words(c.Text)) == 0
}

// Match reports whether r meets the cues.
func (c Cues) Match(r Record) bool {
	if s := strings.TrimSpace(c.Subject); s != "" && !strings.EqualFold(s, strings.TrimSpace(r.Subject)) {
		return false
	}
	if len(c.Tags) > 0 && !slices.ContainsFunc(c.Tags, func(t string) bool {
		return slices.ContainsFunc(r.Tags, func(u string) bool { return strings.EqualFold(t, u) })
	}) {
		return false
	}
	if want := words(c.Text); len(want) > 0 {
		have := words(r.Text + " " + r.Subject)
		for _, w := range want {
			if !slices.Contains(have, w) {
				return false
			}
		}
	}
	return true
}

// words splits text into lower-case words of letters, digits and inner
// hyphens ("pr-007" is one word).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	})
}

// Retrieval is what a Store is asked for: the candidates of one read in
// rank order (Less), from Offset, at most Limit of them.
type Retrieval struct {
	Cues Cues
	// Partition, when set, is the agents whose records are candidates.
	Partition []string
	// AsOf is the logical time of the read: a candidate was written at
	// or before it and its validity interval contains it.
	AsOf int64
	// Exclude is keys that are not candidates (already in the caller's
	// context, say).
	Exclude []string
	Offset  int
	Limit   int
}

// Admits reports whether r is a candidate of the retrieval: its cues
// match, its agent is in the partition, it was written by AsOf and is
// valid at AsOf, it is not excluded, and it is not a well-formed confirm
// or retract (those are read with chains). Corrupt records (a targeted
// kind without a target, an unknown kind) are admitted, so that a sheet
// counts and warns about them. Every Store implements this predicate.
func (q Retrieval) Admits(r Record) bool {
	if (r.Kind == KindConfirm || r.Kind == KindRetract) && r.Target != "" {
		return false
	}
	if len(q.Partition) > 0 && !slices.Contains(q.Partition, r.Agent) {
		return false
	}
	if r.Time > q.AsOf || !r.Valid.Contains(q.AsOf) {
		return false
	}
	if slices.Contains(q.Exclude, r.Key) {
		return false
	}
	return q.Cues.Match(r)
}

// Score is the declared rank score of a record at logical time asOf: its
// decayed relevance (Record.Decayed), 0 when it declares none. Decay makes
// older records score lower; among equal scores Less puts the more recent
// first.
func Score(r Record, asOf int64) float64 {
	s, _ := r.Decayed(asOf)
	return s
}

// Less is the declared rank order of candidates at asOf: higher Score
// first, then later logical time, then smaller key. Every Store returns a
// retrieval's candidates in this order.
func Less(a, b Record, asOf int64) bool {
	return compareRank(a, b, asOf) < 0
}

func compareRank(a, b Record, asOf int64) int {
	if c := cmp.Compare(Score(b, asOf), Score(a, asOf)); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Time, a.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Key, b.Key)
}

// SortRank sorts records into the declared rank order at asOf (stable:
// records equal in rank keep their order). Each score is computed once,
// and the records move once.
func SortRank(rs []Record, asOf int64) { sortRank(rs, func(r Record) Record { return r }, asOf) }

// SortRankEntries is SortRank for entries, by their records.
func SortRankEntries(es []Entry, asOf int64) {
	sortRank(es, func(e Entry) Record { return e.Record }, asOf)
}

// sortRank sorts xs by their records' rank, scoring each once.
func sortRank[T any](xs []T, rec func(T) Record, asOf int64) {
	type item struct {
		score float64
		time  int64
		key   string
		i     int
	}
	items := make([]item, len(xs))
	for i, x := range xs {
		r := rec(x)
		items[i] = item{Score(r, asOf), r.Time, r.Key, i}
	}
	slices.SortFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.time, a.time), cmp.Compare(a.key, b.key), cmp.Compare(a.i, b.i))
	})
	sorted := make([]T, len(xs))
	for j, it := range items {
		sorted[j] = xs[it.i]
	}
	copy(xs, sorted)
}

// FoldSubject maps a subject to one representative of its class under
// the equality a subject cue uses (Cues.Match: strings.EqualFold after
// trimming space): each rune to the smallest rune of its simple-fold
// orbit. A store may index subjects by it: two subjects match exactly
// when their folds are equal.
func FoldSubject(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, strings.TrimSpace(s))
}
