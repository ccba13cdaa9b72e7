package grounding

import (
	"unicode"
	"unicode/utf8"
)

// normalize maps every character that writes a numeral outside ASCII to
// its ASCII form, so the byte scanner sees one alphabet:
//
//   - every Unicode decimal digit (category Nd: fullwidth, Arabic-Indic,
//     Devanagari, Bengali, mathematical digits, …) to '0'–'9' by its digit
//     value;
//   - superscript and subscript digits (⁰¹²³⁴⁵⁶⁷⁸⁹, ₀–₉) likewise, with a
//     blank put between them and an adjacent run of ordinary digits, so
//     that "10²" is the numerals 10 and 2, never 102;
//   - the fullwidth forms of ASCII (U+FF01–U+FF5E: "＄", "．", "％",
//     "ｓｔ－００３") and the fullwidth cent and pound signs;
//   - the Arabic decimal and thousands separators and percent sign
//     (U+066B, U+066C, U+066A) to '.', ',' and '%'.
//
// It returns t itself and nil when nothing needs mapping (every ASCII
// text), else the mapped text and, for each of its byte offsets and its
// end, the offset in t it came from.
func normalize(t string) (string, []int) {
	i := 0
	for i < len(t) && t[i] < utf8.RuneSelf {
		i++
	}
	if i == len(t) {
		return t, nil
	}
	first := -1
	for j := i; j < len(t); {
		r, w := utf8.DecodeRuneInString(t[j:])
		if r >= utf8.RuneSelf {
			if _, ok := mapRune(r); ok {
				first = j
				break
			}
		}
		j += w
	}
	if first < 0 {
		return t, nil
	}
	b := make([]byte, 0, len(t))
	offs := make([]int, 0, len(t)+1)
	b = append(b, t[:first]...)
	for k := 0; k < first; k++ {
		offs = append(offs, k)
	}
	// kind of the last byte written: 0 other, 1 ordinary digit, 2 a
	// superscript or subscript digit.
	last := 0
	if first > 0 && isDigit(t[first-1]) {
		last = 1
	}
	for j := first; j < len(t); {
		r, w := utf8.DecodeRuneInString(t[j:])
		m, ok := "", false
		if r >= utf8.RuneSelf {
			m, ok = mapRune(r)
		}
		if !ok {
			digit := w == 1 && isDigit(t[j])
			if digit && last == 2 {
				b = append(b, ' ')
				offs = append(offs, j)
			}
			b = append(b, t[j:j+w]...)
			for k := 0; k < w; k++ {
				offs = append(offs, j+k)
			}
			last = 0
			if digit {
				last = 1
			}
			j += w
			continue
		}
		kind := 0
		if isDigit(m[0]) {
			kind = 1
			if scriptDigit(r) {
				kind = 2
			}
		}
		if kind != 0 && last != 0 && kind != last {
			b = append(b, ' ')
			offs = append(offs, j)
		}
		b = append(b, m...)
		for k := 0; k < len(m); k++ {
			offs = append(offs, j)
		}
		last = kind
		j += w
	}
	offs = append(offs, len(t))
	return string(b), offs
}

// asciiDigits holds "0" to "9" for mapRune to slice.
const asciiDigits = "0123456789"

// mapRune returns the ASCII (or shorter) form of a non-ASCII rune that
// writes part of a numeral, and whether there is one.
func mapRune(r rune) (string, bool) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E: // fullwidth ASCII
		if r >= 0xFF10 && r <= 0xFF19 {
			d := r - 0xFF10
			return asciiDigits[d : d+1], true
		}
		return string(rune(r - 0xFEE0)), true
	case r == 0xFFE0:
		return centSign, true
	case r == 0xFFE1:
		return poundSign, true
	case r == 0x066B:
		return ".", true
	case r == 0x066C:
		return ",", true
	case r == 0x066A:
		return "%", true
	}
	if d, ok := scriptDigitValue(r); ok {
		return asciiDigits[d : d+1], true
	}
	if d, ok := decimalDigitValue(r); ok {
		return asciiDigits[d : d+1], true
	}
	return "", false
}

// scriptDigit reports whether r is a superscript or subscript digit.
func scriptDigit(r rune) bool {
	_, ok := scriptDigitValue(r)
	return ok
}

// scriptDigitValue returns the value of a superscript or subscript digit.
func scriptDigitValue(r rune) (int, bool) {
	switch {
	case r == 0x2070:
		return 0, true
	case r == 0x00B9:
		return 1, true
	case r == 0x00B2:
		return 2, true
	case r == 0x00B3:
		return 3, true
	case r >= 0x2074 && r <= 0x2079:
		return int(r-0x2074) + 4, true
	case r >= 0x2080 && r <= 0x2089:
		return int(r - 0x2080), true
	}
	return 0, false
}

// decimalDigitValue returns the digit value of a rune of category Nd.
// Unicode encodes every decimal digit set as ten consecutive code points
// from zero to nine, so a digit's value is its distance from the start of
// its range, modulo ten.
func decimalDigitValue(r rune) (int, bool) {
	if !unicode.IsDigit(r) {
		return 0, false
	}
	c := uint32(r)
	for _, rg := range unicode.Nd.R16 {
		if c >= uint32(rg.Lo) && c <= uint32(rg.Hi) {
			return int((c-uint32(rg.Lo))/uint32(rg.Stride)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if c >= rg.Lo && c <= rg.Hi {
			return int((c-rg.Lo)/rg.Stride) % 10, true
		}
	}
	return 0, false
}
