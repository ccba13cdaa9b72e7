package phrase

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// whenKind is the kind of a time expression.
type whenKind int

const (
	wNow       whenKind = iota + 1 // now, currently, right now, at the moment
	wToday                         // today
	wYesterday                     // yesterday
	wThisWeek                      // this week
	wLastWeek                      // last week
	wThisMonth                     // this month
	wLastMonth                     // last month
	wLastN                         // last/past N days/hours
	wPoint                         // a date, a date and time, a timestamp, (on|last) Tuesday
	wRange                         // between A and B, from A to B
	wSince                         // since A
)

// point is a date or an instant a question writes.
type point struct {
	t        time.Time // UTC; a date's midnight
	dateOnly bool
	relative bool // needed the clock (a month and day without a year, today, yesterday)
	daysAgo  int  // today 0, yesterday 1: with relative and a zero t
	// A weekday's name (with dateOnly and relative and a zero t): the
	// latest such day before the clock's day, or, as a range's end, the
	// first such day on or after its start.
	weekday bool
	day     time.Weekday
}

// when is one time expression.
type when struct {
	kind  whenKind
	n     int           // wLastN
	unit  time.Duration // wLastN
	a, b  point         // wPoint (a), wRange (a, b), wSince (a)
	clock bool          // needs the clock
}

var (
	reTimestamp = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})t(\d{2}):(\d{2})(?::(\d{2}))?(z|\+00:00)?$`)
	reDate      = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	reClock     = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2}))?(z)?$`)
	reDay       = regexp.MustCompile(`^(\d{1,2})(st|nd|rd|th)?$`)
	reYear      = regexp.MustCompile(`^\d{4}$`)
)

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

var units = map[string]time.Duration{
	"day": 24 * time.Hour, "days": 24 * time.Hour, "hour": time.Hour, "hours": time.Hour,
	"minute": time.Minute, "minutes": time.Minute, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// scanWhen reads a time expression at ts[i:], with the prepositions that
// lead it ("as of", "on", "at", "between ... and ...", "since"). It
// returns the expression and the words it took, or 0 words.
func scanWhen(ts []token, i int, year int) (when, int) {
	at := func(k int) string {
		if i+k < len(ts) {
			return ts[i+k].low
		}
		return ""
	}
	switch at(0) {
	case "between", "from":
		sep := map[string]bool{"and": true}
		if at(0) == "from" {
			sep = map[string]bool{"to": true, "until": true, "till": true, "through": true, "and": true}
		}
		a, na := scanDay(ts, i+1, year, true)
		if na == 0 || !sep[at(1+na)] {
			return when{}, 0
		}
		// The end is a bare weekday ("to Wednesday", not "to last
		// Wednesday"), and a weekday pairs only with a weekday: "from
		// Monday to 2026-01-07" is left unread.
		b, nb := scanDay(ts, i+2+na, year, false)
		if nb == 0 || a.weekday != b.weekday {
			return when{}, 0
		}
		return when{kind: wRange, a: a, b: b, clock: a.relative || b.relative}, 2 + na + nb
	case "since":
		a, na := scanDay(ts, i+1, year, true)
		if na == 0 {
			return when{}, 0
		}
		return when{kind: wSince, a: a, clock: true}, 1 + na
	}
	// A leading preposition belongs to the expression when one follows.
	lead := 0
	switch {
	case at(0) == "as" && at(1) == "of":
		lead = 2
	case at(0) == "at" || at(0) == "on" || at(0) == "for" || at(0) == "in" || at(0) == "during" || at(0) == "over":
		lead = 1
	}
	if w, n := scanBare(ts, i+lead, year); n > 0 {
		return w, lead + n
	}
	return when{}, 0
}

// scanBare reads a time expression without a leading preposition.
func scanBare(ts []token, i int, year int) (when, int) {
	at := func(k int) string {
		if i+k < len(ts) {
			return ts[i+k].low
		}
		return ""
	}
	switch {
	case at(0) == "now" || at(0) == "currently" || at(0) == "presently":
		return when{kind: wNow, clock: true}, 1
	case at(0) == "right" && at(1) == "now":
		return when{kind: wNow, clock: true}, 2
	case at(0) == "the" && at(1) == "moment":
		return when{kind: wNow, clock: true}, 2
	case at(0) == "present":
		return when{kind: wNow, clock: true}, 1
	case at(0) == "today":
		return when{kind: wToday, clock: true}, 1
	case at(0) == "yesterday":
		return when{kind: wYesterday, clock: true}, 1
	case at(0) == "this" && at(1) == "week":
		return when{kind: wThisWeek, clock: true}, 2
	case at(0) == "last" && at(1) == "week":
		return when{kind: wLastWeek, clock: true}, 2
	case at(0) == "this" && at(1) == "month":
		return when{kind: wThisMonth, clock: true}, 2
	case at(0) == "last" && at(1) == "month":
		return when{kind: wLastMonth, clock: true}, 2
	}
	skip := 0
	if at(0) == "the" {
		skip = 1
	}
	if w := at(skip); w == "last" || w == "past" {
		n, err := strconv.Atoi(at(skip + 1))
		if u, ok := units[at(skip+2)]; ok && err == nil && n > 0 && n <= 10000 {
			return when{kind: wLastN, n: n, unit: u, clock: true}, skip + 3
		}
		if u, ok := units[at(skip+1)]; ok && u < 7*24*time.Hour && !strings.HasSuffix(at(skip+1), "s") {
			// "the last day", "the past hour"
			return when{kind: wLastN, n: 1, unit: u, clock: true}, skip + 2
		}
	}
	if p, n := scanDay(ts, i, year, true); n > 0 {
		return when{kind: wPoint, a: p, clock: p.relative}, n
	}
	return when{}, 0
}

// scanDay reads a point as scanPoint does, or a weekday's name: alone,
// or after "last" when last is set ("last Tuesday" means "Tuesday").
func scanDay(ts []token, i int, year int, last bool) (point, int) {
	if p, n := scanPoint(ts, i, year); n > 0 {
		return p, n
	}
	at := func(k int) string {
		if i+k < len(ts) {
			return ts[i+k].low
		}
		return ""
	}
	k := 0
	if last && at(0) == "last" {
		k = 1
	}
	if d, ok := weekdays[at(k)]; ok {
		return point{dateOnly: true, relative: true, weekday: true, day: d}, k + 1
	}
	return point{}, 0
}

// scanPoint reads a date, a date and time, or a timestamp; today and
// yesterday as days. year is the clock's year (0 without a clock): a
// month and day without a year need it.
func scanPoint(ts []token, i int, year int) (point, int) {
	if i >= len(ts) {
		return point{}, 0
	}
	at := func(k int) string {
		if i+k < len(ts) {
			return ts[i+k].low
		}
		return ""
	}
	switch at(0) {
	case "today":
		return point{dateOnly: true, relative: true}, 1
	case "yesterday":
		return point{dateOnly: true, relative: true, daysAgo: 1}, 1
	}
	digit := func(w string) bool { return w != "" && isDigit(w[0]) }
	if !digit(at(0)) && !digit(at(1)) && !digit(at(2)) {
		// Every form below has a digit in one of its first three words.
		return point{}, 0
	}
	if m := reTimestamp.FindStringSubmatch(at(0)); digit(at(0)) && m != nil {
		t, ok := mkTime(m[1], m[2], m[3], m[4], m[5], m[6])
		if !ok {
			return point{}, 0
		}
		n := 1
		if m[7] == "" && (at(1) == "utc" || at(1) == "gmt" || at(1) == "z") {
			n = 2
		}
		return point{t: t}, n
	}
	if m := reDate.FindStringSubmatch(at(0)); digit(at(0)) && m != nil {
		d, ok := mkTime(m[1], m[2], m[3], "0", "0", "0")
		if !ok {
			return point{}, 0
		}
		n := 1
		if at(1) == "at" && reClock.MatchString(at(2)) {
			n = 2
		}
		if c := reClock.FindStringSubmatch(at(n)); c != nil {
			t, ok := mkTime(m[1], m[2], m[3], c[1], c[2], c[3])
			if !ok {
				return point{}, 0
			}
			n++
			if c[4] == "" && (at(n) == "utc" || at(n) == "gmt" || at(n) == "z") {
				n++
			}
			return point{t: t}, n
		}
		if n == 2 { // "at" without a time after it
			n = 1
		}
		return point{t: d, dateOnly: true}, n
	}
	// January 5[th][ 2026], 5[th] January[ 2026], the 5th of January.
	var mon time.Month
	var day, n int
	k := 0
	if at(0) == "the" {
		k = 1
	}
	if mo, ok := months[at(k)]; ok {
		if d := reDay.FindStringSubmatch(at(k + 1)); d != nil {
			mon, n = mo, k+2
			day, _ = strconv.Atoi(d[1])
		}
	} else if d := reDay.FindStringSubmatch(at(k)); d != nil {
		j := k + 1
		if at(j) == "of" {
			j++
		}
		if mo, ok := months[at(j)]; ok {
			mon, n = mo, j+1
			day, _ = strconv.Atoi(d[1])
		}
	}
	if n == 0 {
		return point{}, 0
	}
	y, relative := year, true
	if reYear.MatchString(at(n)) {
		y, _ = strconv.Atoi(at(n))
		relative = false
		n++
	}
	if y == 0 {
		// No year and no clock to take it from: a date that needs the
		// clock (checked in a leap year; never resolved without one).
		if d := time.Date(2000, mon, day, 0, 0, 0, 0, time.UTC); d.Day() != day {
			return point{}, 0
		}
		return point{t: time.Date(2000, mon, day, 0, 0, 0, 0, time.UTC), dateOnly: true, relative: true}, n
	}
	d := time.Date(y, mon, day, 0, 0, 0, 0, time.UTC)
	if d.Day() != day || d.Month() != mon {
		return point{}, 0
	}
	return point{t: d, dateOnly: true, relative: relative}, n
}

// mkTime builds a UTC instant from its decimal fields, refusing one that
// does not exist (February 30th, 25:00).
func mkTime(ys, mos, ds, hs, mis, ss string) (time.Time, bool) {
	num := func(s string) int {
		if s == "" {
			return 0
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	y, mo, d, h, mi, s := num(ys), num(mos), num(ds), num(hs), num(mis), num(ss)
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != mo || t.Day() != d || t.Hour() != h || t.Minute() != mi || t.Second() != s {
		return time.Time{}, false
	}
	return t, true
}

// dayStart is midnight UTC of t's day.
func dayStart(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// endOfDay is the last second of t's UTC day: the state at close of day.
func endOfDay(t time.Time) time.Time { return dayStart(t).Add(24*time.Hour - time.Second) }

// resolve fixes a point against the clock: today and yesterday become
// days, a weekday the latest such day before today.
func (p point) resolve(now time.Time) point {
	switch {
	case p.weekday:
		p.t = lastWeekday(now, p.day)
	case p.relative && p.t.IsZero():
		p.t = dayStart(now).AddDate(0, 0, -p.daysAgo)
	}
	return p
}

// resolveEnd fixes a range's end against the clock and the range's
// resolved start: a weekday is the first such day on or after start
// ("from Friday to Monday" crosses the weekend); anything else as
// resolve does.
func (p point) resolveEnd(now, start time.Time) point {
	if p.weekday {
		p.t = start.AddDate(0, 0, (int(p.day)-int(start.Weekday())+7)%7)
		return p
	}
	return p.resolve(now)
}

// lastWeekday is midnight UTC of the latest day before now's day that
// falls on d: a week before today when today is d.
func lastWeekday(now time.Time, d time.Weekday) time.Time {
	day := dayStart(now)
	back := (int(day.Weekday()) - int(d) + 7) % 7
	if back == 0 {
		back = 7
	}
	return day.AddDate(0, 0, -back)
}

// instant resolves a time expression to the instant a state is read at.
// ok is false for a window.
func (w when) instant(now time.Time) (time.Time, bool) {
	switch w.kind {
	case wNow, wToday:
		return now, true
	case wYesterday:
		return endOfDay(dayStart(now).AddDate(0, 0, -1)), true
	case wPoint:
		p := w.a.resolve(now)
		if p.dateOnly {
			return endOfDay(p.t), true
		}
		return p.t, true
	}
	return time.Time{}, false
}

// window resolves a time expression to a half-open window [start, end).
// ok is false for an instant.
func (w when) window(now time.Time) (start, end time.Time, ok bool) {
	day := dayStart(now)
	switch w.kind {
	case wToday:
		return day, now, true
	case wYesterday:
		return day.AddDate(0, 0, -1), day, true
	case wThisWeek, wLastWeek:
		wd := (int(day.Weekday()) + 6) % 7 // Monday 0
		monday := day.AddDate(0, 0, -wd)
		if w.kind == wThisWeek {
			return monday, now, true
		}
		return monday.AddDate(0, 0, -7), monday, true
	case wThisMonth, wLastMonth:
		first := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
		if w.kind == wThisMonth {
			return first, now, true
		}
		return first.AddDate(0, -1, 0), first, true
	case wLastN:
		return now.Add(-time.Duration(w.n) * w.unit), now, true
	case wPoint:
		p := w.a.resolve(now)
		if !p.dateOnly {
			return time.Time{}, time.Time{}, false
		}
		return p.t, p.t.AddDate(0, 0, 1), true
	case wRange:
		a := w.a.resolve(now)
		b := w.b.resolveEnd(now, a.t)
		end := b.t
		if b.dateOnly {
			end = b.t.AddDate(0, 0, 1)
		}
		return a.t, end, true
	case wSince:
		return w.a.resolve(now).t, now, true
	}
	return time.Time{}, time.Time{}, false
}

// Timestamp writes an instant as parameters take it: RFC 3339, UTC, to
// the second ("2026-01-06T08:00:00Z").
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
