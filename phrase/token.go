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
func tokenize(s string) []token { return tokenizeInto(make([]token, 0, 16), s) }

// tokenizeInto is tokenize appending to out.
func tokenizeInto(out []token, s string) []token {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, " ")
	}
	if strings.ContainsAny(s, "’‘`") {
		s = quotes.Replace(s)
	}
	for i := 0; i < len(s); {
		// Skip separators.
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if isSeparator(r) {
			i += n
			continue
		}
		j := i
		for j < len(s) {
			r, n := rune(s[j]), 1
			if r >= utf8.RuneSelf {
				r, n = utf8.DecodeRuneInString(s[j:])
			}
			if isSeparator(r) {
				break
			}
			j += n
		}
		out = appendWord(out, s[i:j])
		i = j
	}
	return out
}

func isSeparator(r rune) bool {
	return r == ' ' || r == ',' || r == ';' || r == '\t' || r == '\n' || r == '\r' || (r >= utf8.RuneSelf && unicode.IsSpace(r))
}

// appendWord appends one space-separated word's tokens.
func appendWord(out []token, f string) []token {
	f = strings.TrimLeftFunc(f, isOpen)
	f = strings.TrimRightFunc(f, isClose)
	if f == "" || !strings.ContainsFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return out
	}
	low := lower(f)
	if strings.IndexByte(low, '\'') < 0 {
		return append(out, token{raw: f, low: low})
	}
	if parts, ok := irregular[low]; ok {
		for _, p := range parts {
			out = append(out, token{raw: p, low: p})
		}
		return out
	}
	for _, c := range contractions {
		if len(low) > len(c.suffix) && strings.HasSuffix(low, c.suffix) {
			n := len(f) - len(c.suffix)
			return append(out, token{raw: f[:n], low: lower(f[:n])}, token{raw: c.word, low: c.word})
		}
	}
	return append(out, token{raw: f, low: low})
}

// lower is strings.ToLower without an allocation for a word already in
// lowercase ASCII.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(s)
		}
	}
	return s
}

// lowers returns the lowercase words of tokens.
func lowers(ts []token) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.low
	}
	return out
}
