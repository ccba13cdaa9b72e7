package grounding

// span is a sentence: text[start:end], blanks trimmed.
type span struct{ start, end int }

// segment splits t into sentences in one pass. A sentence ends at a line
// break, or at '.', '!' or '?' (optionally followed by closing quotes or
// brackets) followed by a blank or the end of the text, unless the next
// word starts with a lower-case letter. A '.' does not end a sentence after
// a single letter ("e.g.", "i.e.", "U.S."), after a common abbreviation
// ("etc.", "vs.", "approx."), or after a list marker opening a line ("1.").
// A '.' between digits ("3.49") or a hyphen ("st-003") never splits,
// since neither is followed by a blank.
func segment(t string) []span {
	out := make([]span, 0, len(t)/64+1)
	start := 0
	// The last alphanumeric run before the current byte, and whether its
	// line had any content before it.
	runStart, runEnd := -1, -1
	runOpensLine, lineBlank := false, true
	for p := 0; p < len(t); p++ {
		c := t[p]
		if isAlnum(c) {
			if runEnd != p {
				runStart, runOpensLine = p, lineBlank
			}
			runEnd = p + 1
			lineBlank = false
			continue
		}
		switch c {
		case '\n':
			out = appendSpan(out, t, start, p)
			start = p + 1
			lineBlank = true
			continue
		case ' ', '\t', '\r':
			continue
		case '.', '!', '?':
			lineBlank = false
			q := p + 1
			for n := 0; n < 3 && q < len(t) && isCloser(t[q]); n++ {
				q++
			}
			if q < len(t) && !isSpace(t[q]) {
				continue
			}
			if c == '.' && runEnd == p && noStop(t[runStart:runEnd], runOpensLine) {
				continue
			}
			if nextLower(t, q) {
				continue
			}
			out = appendSpan(out, t, start, q)
			start = q
			p = q - 1
		default:
			lineBlank = false
		}
	}
	return appendSpan(out, t, start, len(t))
}

// appendSpan appends t[a:b] with blanks trimmed, unless it is empty.
func appendSpan(out []span, t string, a, b int) []span {
	for a < b && isSpace(t[a]) {
		a++
	}
	for b > a && isSpace(t[b-1]) {
		b--
	}
	if a < b {
		out = append(out, span{a, b})
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isCloser(c byte) bool { return c == '"' || c == '\'' || c == ')' || c == ']' }

// noStop reports whether a '.' after the alphanumeric run w does not end a
// sentence: a single letter, an abbreviation, or a list marker.
func noStop(w string, opensLine bool) bool {
	if len(w) == 1 && isLetter(w[0]) {
		return true
	}
	if opensLine {
		allDigits := true
		for k := 0; k < len(w); k++ {
			allDigits = allDigits && isDigit(w[k])
		}
		if allDigits && len(w) <= 3 {
			return true
		}
	}
	if len(w) > 6 {
		return false
	}
	var buf [maxWordLen]byte
	switch lower(&buf, w) {
	case "etc", "vs", "approx", "cf", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "jr", "sr":
		return true
	}
	return false
}

// nextLower reports whether the first non-blank byte at or after q, on the
// same line, is a lower-case ASCII letter. It looks at most a few bytes.
func nextLower(t string, q int) bool {
	for n := 0; n < 4 && q < len(t); n++ {
		switch t[q] {
		case ' ', '\t':
			q++
			continue
		}
		return 'a' <= t[q] && t[q] <= 'z'
	}
	return false
}
