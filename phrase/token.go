package phrase

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a question: as written (punctuation around it
// removed) and in lowercase.
type token struct {
	raw, low string
}

// contractions split a word's ending off as a word of its own.
var contractions = []struct{ suffix, word string }{
	{"n't", "not"}, {"'s", "'s"}, {"'re", "'re"}, {"'ll", "'ll"}, {"'ve", "'ve"}, {"'d", "'d"}, {"'m", "'m"},
}

// irregular contractions whose stem changes.
var irregular = map[string][]string{
	"can't": {"can", "not"}, "won't": {"will", "not"}, "what's": {"what", "is"},
	"where's": {"where", "is"}, "how's": {"how", "is"}, "that's": {"that", "is"},
	"it's": {"it", "is"}, "there's": {"there", "is"}, "who's": {"who", "is"},
}

// isOpen and isClose are the punctuation before and after a word that is
// not part of it.
func isOpen(r rune) bool {
	switch r {
	case '"', '\'', '(', '[', '{', '<', '«', '“', '‘', '¿', '¡':
		return true
	}
	return false
}

func isClose(r rune) bool {
	switch r {
	case '"', '\'', '?', '!', '.', ',', ';', ':', ')', ']', '}', '>', '»', '”', '’', '…':
		return true
	}
	return false
}

// quotes are the apostrophes written as the plain one.
var quotes = strings.NewReplacer("’", "'", "‘", "'", "`", "'")

// tokenize splits a question into words: spaces separate them; quotes,
// brackets and sentence punctuation around a word are dropped; a
// contraction's ending becomes a word ("isn't" is "is not", "what's" is
// "what is", "pr-007's" is "pr-007" and "'s"). A word that is only
// punctuation is dropped. Hyphens, underscores, colons and dots inside a
// word stay (ids, timestamps, times).
func tokenize(s string) []token {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, " ")
	}
	if strings.ContainsAny(s, "’‘`") {
		s = quotes.Replace(s)
	}
	out := make([]token, 0, 16)
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ';' }) {
		f = strings.TrimLeftFunc(f, isOpen)
		f = strings.TrimRightFunc(f, isClose)
		if f == "" {
			continue
		}
		if !strings.ContainsFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		low := strings.ToLower(f)
		if parts, ok := irregular[low]; ok {
			for _, p := range parts {
				out = append(out, token{raw: p, low: p})
			}
			continue
		}
		split := false
		for _, c := range contractions {
			if len(low) > len(c.suffix) && strings.HasSuffix(low, c.suffix) {
				n := len(f) - len(c.suffix)
				stem := f[:n]
				out = append(out, token{raw: stem, low: strings.ToLower(stem)}, token{raw: c.word, low: c.word})
				split = true
				break
			}
		}
		if !split {
			out = append(out, token{raw: f, low: low})
		}
	}
	return out
}

// lowers returns the lowercase words of tokens.
func lowers(ts []token) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.low
	}
	return out
}
