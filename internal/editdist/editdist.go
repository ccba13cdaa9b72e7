// Package editdist measures how far apart two names are, for the
// "did you mean" hints of every strict reader (catalog, gold set, budget
// configuration, memory policy). It imports only the standard library, so
// the pure packages may use it and stay copyable with it.
package editdist

// Distance is the Levenshtein distance between a and b, counted in runes:
// the fewest insertions, deletions and substitutions of one rune that turn
// a into b. It costs O(len(a)·len(b)) time and O(len(b)) memory, so a
// caller holding untrusted input bounds its length first.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
