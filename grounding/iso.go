package grounding

import "time"

// The checker reads timestamps and dates itself rather than through
// time.Parse: one definition for the text, the ledger's windows and its
// values, and a few times faster on the hot path.

// numN parses exactly n ASCII digits of s at i.
func numN(s string, i, n int) (int, bool) {
	if i+n > len(s) {
		return 0, false
	}
	v := 0
	for k := i; k < i+n; k++ {
		if !isDigit(s[k]) {
			return 0, false
		}
		v = v*10 + int(s[k]-'0')
	}
	return v, true
}

// parseDate parses YYYY-MM-DD (a real calendar day) and returns the unix
// seconds of its 00:00 UTC.
func parseDate(s string) (float64, bool) {
	if len(s) != 10 {
		return 0, false
	}
	sec, ok := dateSeconds(s)
	return float64(sec), ok
}

func dateSeconds(s string) (int64, bool) {
	y, ok1 := numN(s, 0, 4)
	m, ok2 := numN(s, 5, 2)
	d, ok3 := numN(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' || m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // February 30th rolls over
		return 0, false
	}
	return t.Unix(), true
}

// parseTimestamp parses an RFC 3339 timestamp, YYYY-MM-DDTHH:MM:SS with an
// optional fraction of one to nine digits and Z or ±HH:MM, and returns its
// unix seconds.
func parseTimestamp(s string) (float64, bool) {
	if len(s) < 20 || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	day, ok := dateSeconds(s[:10])
	if !ok {
		return 0, false
	}
	hh, ok1 := numN(s, 11, 2)
	mm, ok2 := numN(s, 14, 2)
	ss, ok3 := numN(s, 17, 2)
	if !ok1 || !ok2 || !ok3 || hh > 23 || mm > 59 || ss > 59 {
		return 0, false
	}
	i := 19
	frac := 0.0
	if s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i+1 || j-i-1 > maxFracDigit {
			return 0, false
		}
		f, _ := numN(s, i+1, j-i-1)
		frac = float64(f)
		for k := j - i - 1; k > 0; k-- {
			frac /= 10
		}
		i = j
	}
	offset := 0
	switch {
	case i+1 == len(s) && s[i] == 'Z':
	case i+6 == len(s) && (s[i] == '+' || s[i] == '-') && s[i+3] == ':':
		oh, ok1 := numN(s, i+1, 2)
		om, ok2 := numN(s, i+4, 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false
		}
		offset = oh*3600 + om*60
		if s[i] == '-' {
			offset = -offset
		}
	default:
		return 0, false
	}
	sec := day + int64(hh*3600+mm*60+ss-offset)
	return float64(sec) + frac, true
}
