package phrase

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"
)

// parcels is a small vocabulary of no particular domain: parcels at
// depots, a status tool (with yes/no values), a list tool and a window
// count.
func parcels() Vocabulary {
	depot := Slot{Name: "depot_id", Kind: SlotEntity, Entity: "depot", Nouns: []string{"depot", "hub"}, Pattern: `^dp-[0-9]{2}$`,
		IDs: []Named{{"dp-01", "North"}, {"dp-02", "North Annex"}, {"dp-03", "South"}, {"dp-04", "Harbour"}, {"dp-05", "Harbour"}}}
	parcel := Slot{Name: "parcel_id", Kind: SlotEntity, Entity: "parcel", Nouns: []string{"parcel"}, Pattern: `^pc-[0-9]{4}$`}
	status := []Value{
		{"DELIVERED", []string{"delivered", "arrived"}},
		{"LOST", []string{"lost", "missing"}},
		{"IN_TRANSIT", []string{"in transit", "on its way"}},
	}
	return Vocabulary{Tools: []ToolVocab{
		{Name: "get_status", Keywords: []string{"status", "where is"}, Asks: status,
			Phrasings: []string{"status of {parcel_id} as of {as_of}"},
			Slots:     []Slot{parcel, {Name: "as_of", Kind: SlotInstant}}},
		{Name: "list_parcels", Keywords: []string{"parcels", "which parcels"},
			Slots: []Slot{depot, {Name: "status", Kind: SlotEnum, Values: status}, {Name: "as_of", Kind: SlotInstant}}},
		{Name: "count_scans", Keywords: []string{"how many scans", "scans"},
			Slots: []Slot{depot, {Name: "start", Kind: SlotStart}, {Name: "end", Kind: SlotEnd}}},
	}}
}

// now is a Sunday: its ISO week began Monday 2026-03-09.
var now = time.Date(2026, 3, 15, 18, 30, 0, 0, time.UTC)

func mustParser(t testing.TB) *Parser {
	t.Helper()
	p, err := NewParser(parcels())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// parsed is what Parse gives for q at the clock at: the call's String, or
// the abstention's Error.
func parsed(p *Parser, q string, at time.Time) string {
	got, err := p.Parse(q, at)
	if err != nil {
		return err.Error()
	}
	return got.String()
}

func TestParser_Parse(t *testing.T) {
	p := mustParser(t)
	tests := []struct {
		q    string
		want string // Parse.String(), or the abstention's Error()
	}{
		{"is pc-0042 delivered?", "get_status as_of=2026-03-15T18:30:00Z parcel_id=pc-0042 asked=DELIVERED"},
		{"Where is PC-0042 right now, please", "get_status as_of=2026-03-15T18:30:00Z parcel_id=pc-0042"},
		{"where's parcel 42", "get_status as_of=2026-03-15T18:30:00Z parcel_id=pc-0042"},
		{"status of pc-0042 as of 2026-03-01", "get_status as_of=2026-03-01T23:59:59Z parcel_id=pc-0042"},
		{"status of pc-0042 as of 2026-03-01T10:00:00Z", "get_status as_of=2026-03-01T10:00:00Z parcel_id=pc-0042"},
		{"status of pc-0042 as of last tuesday", "get_status as_of=2026-03-10T23:59:59Z parcel_id=pc-0042"},
		{"status of pc-0042 as of the day before", "get_status as_of=the day before parcel_id=pc-0042"},
		{"which parcels are missing at north annex", "list_parcels as_of=2026-03-15T18:30:00Z depot_id=dp-02 status=LOST"},
		{"which parcels are on its way at hub 3 on March 14", "list_parcels as_of=2026-03-14T23:59:59Z depot_id=dp-03 status=IN_TRANSIT"},
		{"how many scans at dp-01 this week", "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-09T00:00:00Z"},
		{"how many scans at dp-01 last week", "count_scans depot_id=dp-01 end=2026-03-09T00:00:00Z start=2026-03-02T00:00:00Z"},
		{"how many scans at dp-01 today", "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-15T00:00:00Z"},
		{"how many scans at dp-01 yesterday", "count_scans depot_id=dp-01 end=2026-03-15T00:00:00Z start=2026-03-14T00:00:00Z"},
		{"how many scans at dp-01 in the last 2 hours", "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-15T16:30:00Z"},
		{"how many scans at dp-01 past 7 days", "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-08T18:30:00Z"},
		{"how many scans at dp-01 between 1 March and 3 March", "count_scans depot_id=dp-01 end=2026-03-04T00:00:00Z start=2026-03-01T00:00:00Z"},
		{"how many scans at dp-01 from 2026-03-01 08:00 to 2026-03-01 09:30", "count_scans depot_id=dp-01 end=2026-03-01T09:30:00Z start=2026-03-01T08:00:00Z"},
		{"how many scans at dp-01 since yesterday", "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-14T00:00:00Z"},
		{"how many scans at dp-01 on 2026-02-28", "count_scans depot_id=dp-01 end=2026-03-01T00:00:00Z start=2026-02-28T00:00:00Z"},
		// Abstentions.
		{"what is the weather", "no_tool: no tool on the menu covers the question"},
		{"where is it", "missing_slot: parcel (the question names no parcel)"},
		{"how many scans at dp-01", "missing_slot: window (the question names no time window; say, for example, today, last week, or between 2026-01-01 and 2026-01-07)"},
		{"which parcels are lost at harbour", "ambiguous: depot (the question could name dp-04, dp-05)"},
		{"which parcels are lost at nort", "unknown_name: depot (the question names no declared depot)"},
		{"which parcels are lost at north pole", "not_understood: the question has words outside the vocabulary of list_parcels"},
		{"which parcels are lost at dp-01 and dp-02", "not_understood: the question has words outside the vocabulary of list_parcels"},
		{"how many scans at dp-01 now", "not_understood: the question has words outside the vocabulary of count_scans"},
		{"where is pc-0042 last week", "not_understood: the question has words outside the vocabulary of get_status"},
		{"why is pc-0042 lost", "not_understood: the question has words outside the vocabulary of get_status"},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if s := parsed(p, tt.q, now); s != tt.want {
				t.Errorf("Parse(%q)\n got  %s\n want %s", tt.q, s, tt.want)
			}
		})
	}
}

// TestParser_ISOWeek: this week starts on Monday 00:00 of now's ISO week
// whatever day now is, and last week is the seven days before it.
func TestParser_ISOWeek(t *testing.T) {
	p := mustParser(t)
	for day := 9; day <= 15; day++ { // Monday 9 to Sunday 15 March 2026
		at := time.Date(2026, 3, day, 0, 0, 1, 0, time.UTC)
		got, err := p.Parse("how many scans at dp-01 last week", at)
		want := map[string]string{"depot_id": "dp-01", "start": "2026-03-02T00:00:00Z", "end": "2026-03-09T00:00:00Z"}
		if err != nil || !maps.Equal(got.Params, want) {
			t.Errorf("last week at %s: %v %v", at, got, err)
		}
		got, err = p.Parse("how many scans at dp-01 this week", at)
		if err != nil || got.Params["start"] != "2026-03-09T00:00:00Z" {
			t.Errorf("this week at %s: %v %v", at, got, err)
		}
	}
}

// TestParser_Weekday: a weekday's name ("on Tuesday", "last Tuesday")
// is the latest such whole day strictly before the clock's day: a week
// back when today is that day. A window is that day; an instant its last
// second.
func TestParser_Weekday(t *testing.T) {
	p := mustParser(t)
	wed := time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC) // a Wednesday, at midnight
	tests := []struct {
		q    string
		at   time.Time
		want string
	}{
		// now is Sunday 2026-03-15.
		{"how many scans at dp-01 on tuesday", now, "count_scans depot_id=dp-01 end=2026-03-11T00:00:00Z start=2026-03-10T00:00:00Z"},
		{"how many scans at dp-01 on Tuesday?", now, "count_scans depot_id=dp-01 end=2026-03-11T00:00:00Z start=2026-03-10T00:00:00Z"},
		{"how many scans at dp-01 last TUESDAY", now, "count_scans depot_id=dp-01 end=2026-03-11T00:00:00Z start=2026-03-10T00:00:00Z"},
		{"On Saturday how many scans at dp-01", now, "count_scans depot_id=dp-01 end=2026-03-15T00:00:00Z start=2026-03-14T00:00:00Z"},
		{"how many scans at dp-01 on monday", now, "count_scans depot_id=dp-01 end=2026-03-10T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"how many scans at dp-01 sunday", now, "count_scans depot_id=dp-01 end=2026-03-09T00:00:00Z start=2026-03-08T00:00:00Z"},
		{"how many scans at dp-01 on wednesday", wed, "count_scans depot_id=dp-01 end=2026-03-05T00:00:00Z start=2026-03-04T00:00:00Z"},
		{"how many scans at dp-01 on tuesday", wed, "count_scans depot_id=dp-01 end=2026-03-11T00:00:00Z start=2026-03-10T00:00:00Z"},
		{"which parcels are missing at dp-01 on friday", now, "list_parcels as_of=2026-03-13T23:59:59Z depot_id=dp-01 status=LOST"},
		// Abstentions: no clock, two windows, a weekday that is no day.
		{"how many scans at dp-01 on tuesday", time.Time{}, "missing_slot: window (the question names no time window; say, for example, today, last week, or between 2026-01-01 and 2026-01-07)"},
		{"how many scans at dp-01 last tuesday", time.Time{}, "missing_slot: window (the question names no time window; say, for example, today, last week, or between 2026-01-01 and 2026-01-07)"},
		{"which parcels are missing at dp-01 on friday", time.Time{}, "missing_slot: as_of (the question names no as of)"},
		{"how many scans at dp-01 on tuesday last week", now, "not_understood: the question has words outside the vocabulary of count_scans"},
		{"how many scans at dp-01 on tuesdays", now, "not_understood: the question has words outside the vocabulary of count_scans"},
	}
	for _, tt := range tests {
		t.Run(tt.q+"@"+tt.at.Format(time.DateOnly), func(t *testing.T) {
			if s := parsed(p, tt.q, tt.at); s != tt.want {
				t.Errorf("Parse(%q) at %s\n got  %s\n want %s", tt.q, tt.at, s, tt.want)
			}
		})
	}
}

// TestParser_WeekdayWindow: "since Monday" is [that Monday 00:00, now),
// the Monday read as "on Monday" reads it (the latest such day before
// today: a week back when today is Monday). "from Monday to Wednesday"
// and "between Monday and Wednesday" are the whole days [Monday 00:00,
// Thursday 00:00): the start the latest such day before today, the end
// the first such day on or after the start, so "from Friday to Monday"
// crosses the weekend; an end past the clock is kept, as a date's is. A
// state (an instant) is not read "since" or "between" anything, as with
// dates. A weekday pairs only with a weekday.
func TestParser_WeekdayWindow(t *testing.T) {
	p := mustParser(t)
	wed := time.Date(2026, 3, 11, 12, 0, 0, 0, time.UTC) // a Wednesday, at noon
	const window = "missing_slot: window (the question names no time window; say, for example, today, last week, or between 2026-01-01 and 2026-01-07)"
	const scans = "not_understood: the question has words outside the vocabulary of count_scans"
	const parcels = "not_understood: the question has words outside the vocabulary of list_parcels"
	tests := []struct {
		q    string
		at   time.Time
		want string
	}{
		// now is Sunday 2026-03-15 18:30.
		{"how many scans at dp-01 since monday", now, "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-09T00:00:00Z"},
		{"how many scans at dp-01 since last Monday?", now, "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-09T00:00:00Z"},
		{"Since Saturday how many scans at dp-01", now, "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-14T00:00:00Z"},
		{"how many scans at dp-01 since sunday", now, "count_scans depot_id=dp-01 end=2026-03-15T18:30:00Z start=2026-03-08T00:00:00Z"},
		{"how many scans at dp-01 since wednesday", wed, "count_scans depot_id=dp-01 end=2026-03-11T12:00:00Z start=2026-03-04T00:00:00Z"},
		{"how many scans at dp-01 since tuesday", wed, "count_scans depot_id=dp-01 end=2026-03-11T12:00:00Z start=2026-03-10T00:00:00Z"},
		{"how many scans at dp-01 from monday to wednesday", now, "count_scans depot_id=dp-01 end=2026-03-12T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"how many scans at dp-01 between Monday and Wednesday", now, "count_scans depot_id=dp-01 end=2026-03-12T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"how many scans at dp-01 from last monday through wednesday", now, "count_scans depot_id=dp-01 end=2026-03-12T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"how many scans at dp-01 from friday to monday", wed, "count_scans depot_id=dp-01 end=2026-03-10T00:00:00Z start=2026-03-06T00:00:00Z"},
		{"how many scans at dp-01 from monday until friday", wed, "count_scans depot_id=dp-01 end=2026-03-14T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"how many scans at dp-01 between wednesday and tuesday", wed, "count_scans depot_id=dp-01 end=2026-03-11T00:00:00Z start=2026-03-04T00:00:00Z"},
		{"how many scans at dp-01 from tuesday to tuesday", wed, "count_scans depot_id=dp-01 end=2026-03-11T00:00:00Z start=2026-03-10T00:00:00Z"},
		// Abstentions: a state since or between days, no clock, a weekday
		// with a date or a relative day, "last" on the end, a word more.
		{"which parcels are missing at dp-01 since monday", now, parcels},
		{"which parcels are missing at dp-01 between monday and wednesday", now, parcels},
		{"which parcels are missing at dp-01 since monday", time.Time{}, "missing_slot: as_of (the question names no as of)"},
		{"how many scans at dp-01 since monday", time.Time{}, window},
		{"how many scans at dp-01 from monday to wednesday", time.Time{}, window},
		{"how many scans at dp-01 from monday to 2026-03-11", now, scans},
		{"how many scans at dp-01 from 2026-03-09 to wednesday", now, scans},
		{"how many scans at dp-01 between monday and today", now, scans},
		{"how many scans at dp-01 between yesterday and friday", now, scans},
		{"how many scans at dp-01 from monday to last wednesday", now, scans},
		{"how many scans at dp-01 since mondays", now, scans},
		{"how many scans at dp-01 since monday morning", now, scans},
		{"how many scans at dp-01 from monday to wednesday last week", now, scans},
		{"how many scans at dp-01 between monday and", now, scans},
	}
	for _, tt := range tests {
		t.Run(tt.q+"@"+tt.at.Format(time.DateOnly), func(t *testing.T) {
			if s := parsed(p, tt.q, tt.at); s != tt.want {
				t.Errorf("Parse(%q) at %s\n got  %s\n want %s", tt.q, tt.at, s, tt.want)
			}
		})
	}
	// Every weekday as start and as end, with the clock on each weekday
	// (Monday 2026-03-09 to Sunday 2026-03-15, at 09:15), against days
	// counted one at a time.
	day := func(d time.Time) string { return d.Format("2006-01-02T15:04:05Z") }
	names := []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
	for c := 9; c <= 15; c++ {
		clock := time.Date(2026, 3, c, 9, 15, 0, 0, time.UTC)
		today := time.Date(2026, 3, c, 0, 0, 0, 0, time.UTC)
		for s, sn := range names {
			start := today.AddDate(0, 0, -1)
			for int(start.Weekday()) != s {
				start = start.AddDate(0, 0, -1)
			}
			q := "how many scans at dp-01 since " + sn
			t.Run(q+"@"+clock.Weekday().String(), func(t *testing.T) {
				want := "count_scans depot_id=dp-01 end=" + day(clock) + " start=" + day(start)
				if got := parsed(p, q, clock); got != want {
					t.Errorf("at %s\n got  %s\n want %s", clock, got, want)
				}
			})
			for e, en := range names {
				last := start
				for int(last.Weekday()) != e {
					last = last.AddDate(0, 0, 1)
				}
				want := "count_scans depot_id=dp-01 end=" + day(last.AddDate(0, 0, 1)) + " start=" + day(start)
				for _, q := range []string{"how many scans at dp-01 from " + sn + " to " + en, "how many scans at dp-01 between " + sn + " and " + en} {
					t.Run(q+"@"+clock.Weekday().String(), func(t *testing.T) {
						if got := parsed(p, q, clock); got != want {
							t.Errorf("at %s\n got  %s\n want %s", clock, got, want)
						}
					})
				}
			}
		}
	}
}

// TestParser_WeekdayPhrasing: a declared form "between {start} and
// {end}" that captures two weekdays writes the window "between Monday
// and Wednesday" reads anywhere else; anything else (a weekday with a
// date, the half-open form, no clock) goes to the wall as written.
func TestParser_WeekdayPhrasing(t *testing.T) {
	v := parcels()
	v.Tools[2].Phrasings = []string{"scans at {depot_id} between {start} and {end}", "scans at {depot_id} in [{start}, {end})"}
	p, err := NewParser(v)
	if err != nil {
		t.Fatal(err)
	}
	wed := time.Date(2026, 3, 11, 12, 0, 0, 0, time.UTC) // a Wednesday, at noon
	tests := []struct {
		q    string
		at   time.Time
		want string
	}{
		{"scans at dp-01 between monday and wednesday", now, "count_scans depot_id=dp-01 end=2026-03-12T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"scans at dp-01 between last Monday and Wednesday", now, "count_scans depot_id=dp-01 end=2026-03-12T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"scans at dp-01 between friday and monday", wed, "count_scans depot_id=dp-01 end=2026-03-10T00:00:00Z start=2026-03-06T00:00:00Z"},
		{"scans at dp-01 between 2026-03-09 and 2026-03-11", now, "count_scans depot_id=dp-01 end=2026-03-12T00:00:00Z start=2026-03-09T00:00:00Z"},
		{"scans at dp-01 between monday and 2026-03-11", now, "count_scans depot_id=dp-01 end=2026-03-12T00:00:00Z start=monday"},
		{"scans at dp-01 between monday and last wednesday", now, "count_scans depot_id=dp-01 end=last wednesday start=monday"},
		{"scans at dp-01 in [monday, wednesday)", now, "count_scans depot_id=dp-01 end=wednesday start=monday"},
		{"scans at dp-01 between monday and wednesday", time.Time{}, "count_scans depot_id=dp-01 end=wednesday start=monday"},
	}
	for _, tt := range tests {
		t.Run(tt.q+"@"+tt.at.Format(time.DateOnly), func(t *testing.T) {
			got, err := p.Parse(tt.q, tt.at)
			if err != nil || !got.Phrasing || got.String() != tt.want {
				t.Errorf("Parse(%q) at %s\n got  %s %v (phrasing %v)\n want %s", tt.q, tt.at, got, err, got.Phrasing, tt.want)
			}
		})
	}
}

// TestParser_NoClock: relative time without a clock abstains; absolute
// time does not need one.
func TestParser_NoClock(t *testing.T) {
	p := mustParser(t)
	for _, q := range []string{"where is pc-0042", "where is pc-0042 today", "where is pc-0042 on March 3"} {
		_, err := p.Parse(q, time.Time{})
		if a, ok := errors.AsType[*Abstention](err); !ok || a.Kind != MissingSlot || a.Slot != "as_of" {
			t.Errorf("Parse(%q) without a clock = %v, want missing_slot: as_of", q, err)
		}
	}
	if _, err := p.Parse("how many scans at dp-01 last week", time.Time{}); err == nil || !strings.HasPrefix(err.Error(), "missing_slot: window") {
		t.Errorf("window without a clock = %v", err)
	}
	if got, err := p.Parse("where is pc-0042 on 3 March 2026", time.Time{}); err != nil || got.Params["as_of"] != "2026-03-03T23:59:59Z" {
		t.Errorf("absolute date without a clock = %v, %v", got, err)
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"What's the price of PR-007?", "what|is|the|price|of|pr-007"},
		{"isn't it “sold out”?!", "is|not|it|sold|out"},
		{"pr-007's state, at st-003; now…", "pr-007|'s|state|at|st-003|now"},
		{"[2026-01-01T00:00:00Z, 2026-01-07T00:00:00Z)", "2026-01-01t00:00:00z|2026-01-07t00:00:00z"},
		{"can't won't don’t", "can|not|will|not|do|not"},
		{"  ?? -- !!  ", ""},
		{"a\xffb", "a|b"},
	}
	for _, tt := range tests {
		got := strings.Join(lowers(tokenize(tt.in)), "|")
		if got != tt.want {
			t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNewParser_Errors: a phrasing that does not compile and an entity
// pattern that is not anchored are refused.
func TestNewParser_Errors(t *testing.T) {
	v := parcels()
	v.Tools[0].Phrasings = []string{"status of {parcel_id"}
	if _, err := NewParser(v); err == nil {
		t.Error("a broken phrasing compiled")
	}
	v = parcels()
	v.Tools[0].Slots[0].Pattern = "pc-[0-9]{4}"
	if _, err := NewParser(v); err == nil {
		t.Error("an unanchored pattern compiled")
	}
}

// FuzzParse: any question parses to a call whose every slot is filled
// from the vocabulary, or abstains with a reason that echoes nothing of
// the question beyond declared words; it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"is pc-0042 delivered?", "which parcels are missing at north annex",
		"how many scans at dp-01 between 1 March and 3 March", "status of x' OR 1=1 as of y", "where is parcel 99999999999999999999",
		"how many scans at dp-01 from 2026-02-30 to 2026-13-01", "last 0 days", "between and", "the 31st of february",
		"how many scans at dp-01 since monday", "how many scans at dp-01 from friday to monday"} {
		f.Add(s)
	}
	p := mustParser(f)
	f.Fuzz(func(t *testing.T, q string) {
		got, err := p.Parse(q, now)
		if err != nil {
			a, ok := errors.AsType[*Abstention](err)
			if !ok {
				t.Fatalf("Parse(%q): %v is not an *Abstention", q, err)
			}
			if len(a.Candidates) > MaxCandidates {
				t.Fatalf("%d candidates", len(a.Candidates))
			}
			if w := strings.TrimSpace(q); len(w) > 12 && strings.Contains(err.Error(), w) {
				t.Fatalf("the reason %q echoes the question", err)
			}
			return
		}
		if got.Tool == "" {
			t.Fatalf("Parse(%q) = a call with no tool", q)
		}
		if got.Phrasing {
			return // tokens as written, for the wall
		}
		for k, v := range got.Params {
			switch k {
			case "as_of", "start", "end":
				if _, err := time.Parse(time.RFC3339, v); err != nil || !strings.HasSuffix(v, "Z") {
					t.Fatalf("Parse(%q): %s=%q is not a UTC timestamp", q, k, v)
				}
			case "parcel_id", "depot_id":
				if !strings.HasPrefix(v, "pc-") && !strings.HasPrefix(v, "dp-") {
					t.Fatalf("Parse(%q): %s=%q is not an id", q, k, v)
				}
			case "status":
				if v != "DELIVERED" && v != "LOST" && v != "IN_TRANSIT" {
					t.Fatalf("Parse(%q): status=%q", q, v)
				}
			default:
				t.Fatalf("Parse(%q): unknown parameter %s", q, k)
			}
		}
		if s, e := got.Params["start"], got.Params["end"]; s != "" && s > e {
			t.Fatalf("Parse(%q): window [%s, %s) reversed", q, s, e)
		}
	})
}

// TestParser_AtMostFiveCandidates: an ambiguous name lists at most
// MaxCandidates (five) declared ids, sorted.
func TestParser_AtMostFiveCandidates(t *testing.T) {
	v := parcels()
	var ids []Named
	for i := 1; i <= 7; i++ {
		ids = append(ids, Named{ID: "dp-0" + string(rune('0'+i)), Name: "Central " + string(rune('a'+i-1))})
	}
	for i := range v.Tools {
		for j := range v.Tools[i].Slots {
			if v.Tools[i].Slots[j].Entity == "depot" {
				v.Tools[i].Slots[j].IDs = ids
			}
		}
	}
	p, err := NewParser(v)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Parse("which parcels are lost at central", now)
	a, ok := errors.AsType[*Abstention](err)
	if !ok || a.Kind != Ambiguous || strings.Join(a.Candidates, ",") != "dp-01,dp-02,dp-03,dp-04,dp-05" {
		t.Errorf("Parse = %v, want ambiguous with the first five of seven", err)
	}
}
