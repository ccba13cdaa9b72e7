package catalog

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/provenant/provenant/internal/editdist"
)

// ErrInvalid is matched (errors.Is) by every ErrorList: the catalog could
// not be read or is not valid.
var ErrInvalid = errors.New("invalid catalog")

// Error is one problem in a catalog file, at a 1-based line and column.
// Message never repeats a rejected value that is long or unprintable.
type Error struct {
	File         string
	Line, Column int
	Message      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
}

// ErrorList is every problem found, sorted by position. It matches
// ErrInvalid.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Is reports whether target is ErrInvalid.
func (l ErrorList) Is(target error) bool { return target == ErrInvalid }

// sortList sorts by line, then column, keeping the order of equal
// positions.
func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Column < l[j].Column
	})
}

// errs collects errors for one file.
type errs struct {
	file string
	list ErrorList
}

func (c *errs) add(p Pos, format string, args ...any) {
	if p.Line < 1 {
		p.Line = 1
	}
	if p.Column < 1 {
		p.Column = 1
	}
	c.list = append(c.list, &Error{File: c.file, Line: p.Line, Column: p.Column, Message: fmt.Sprintf(format, args...)})
}

func (c *errs) err() error {
	if len(c.list) == 0 {
		return nil
	}
	c.list.sort()
	return c.list
}

// maxEcho is the longest name a message repeats.
const maxEcho = 64

// echoable reports whether s may appear in a message: short, valid UTF-8,
// printable, without backquotes.
func echoable(s string) bool {
	if s == "" || len(s) > maxEcho || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || r == '`' {
			return false
		}
	}
	return true
}

// unknown formats "unknown WHAT `s`; did you mean `x`?" with the nearest of
// valid, or "unknown WHAT" alone when s may not be echoed.
func unknown(what, s string, valid []string) string {
	if !echoable(s) {
		return "unknown " + what
	}
	msg := fmt.Sprintf("unknown %s `%s`", what, s)
	if n := nearest(s, valid); n != "" {
		msg += fmt.Sprintf("; did you mean `%s`?", n)
	}
	return msg
}

// nearest returns the valid name closest to s by edit distance, if close
// enough to be a likely typo (at most 2 edits, or a third of its length).
func nearest(s string, valid []string) string {
	best, bestD := "", -1
	for _, v := range valid {
		d := editdist.Distance(strings.ToLower(s), strings.ToLower(v))
		// On a tie, the one that shares the longer prefix with s.
		if bestD < 0 || d < bestD || d == bestD && commonPrefix(s, v) > commonPrefix(s, best) {
			best, bestD = v, d
		}
	}
	if bestD < 0 || bestD > 2 && bestD*3 > len(best) {
		return ""
	}
	return best
}

// quote returns "`s`" when s may be echoed, else "".
func quote(s string) string {
	if !echoable(s) {
		return ""
	}
	return " `" + s + "`"
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
