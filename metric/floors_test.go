package metric

import (
	"maps"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestKeyFloors_Ranges(t *testing.T) {
	h := func(i int) time.Time {
		return time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	}
	z1, z2 := "zone-01", "zone-02"
	// Two groups over hours 0..5 (hour 3 holds no keyed row).
	f := &KeyFloors{
		Hours:  []time.Time{h(0), h(1), h(2), h(4), h(5)},
		Groups: [][]*string{{&z1}, {&z2}},
		Least: [][]string{
			{"k-10", "k-20", "k-30", "k-05", ""},
			{"k-11", "k-21", "k-31", "k-41", "k-03"},
		},
	}
	all := func([]*string) bool { return true }
	only := func(z string) func([]*string) bool {
		return func(v []*string) bool { return v[0] != nil && *v[0] == z }
	}
	tests := []struct {
		name       string
		start, end time.Time
		admit      func([]*string) bool
		t          string
		want       [][2]time.Time
		wantOK     bool
	}{
		{"clipped to the start", h(0).Add(20 * time.Minute), h(6), all, "k-11", [][2]time.Time{{h(0).Add(20 * time.Minute), h(1)}, {h(4), h(6)}}, true},
		{"adjacent hours merged", h(0), h(6), all, "k-21", [][2]time.Time{{h(0), h(2)}, {h(4), h(6)}}, true},
		{"a later hour apart, the end clipped", h(0), h(5).Add(10 * time.Minute), all, "k-10", [][2]time.Time{{h(0), h(1)}, {h(4), h(5).Add(10 * time.Minute)}}, true},
		{"an empty floor holds nothing", h(0), h(6), only(z1), "k-09", [][2]time.Time{{h(4), h(5)}}, true},
		{"the other group's floors", h(0), h(6), only(z2), "k-09", [][2]time.Time{{h(5), h(6)}}, true},
		{"no hour", h(1), h(6), all, "k-00", nil, true},
		{"a floor equal to the bound holds it", h(2), h(3), all, "k-30", [][2]time.Time{{h(2), h(3)}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := f.floorRanges(tt.start, tt.end, tt.admit, tt.t)
			if ok != tt.wantOK || !slices.Equal(got, tt.want) {
				t.Errorf("floorRanges = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
	t.Run("more ranges than maxFloorRanges", func(t *testing.T) {
		g := &KeyFloors{Groups: [][]*string{{&z1}}, Least: [][]string{nil}}
		for i := range 2*maxFloorRanges + 1 {
			g.Hours = append(g.Hours, h(i))
			l := "k-9"
			if i%2 == 0 {
				l = "k-1"
			}
			g.Least[0] = append(g.Least[0], l)
		}
		if r, ok := g.floorRanges(h(0), h(2*maxFloorRanges+1), all, "k-5"); ok {
			t.Errorf("floorRanges = %v, true; want false (%d ranges)", r, maxFloorRanges+1)
		}
	})
}

// floorRow is one row as the floors see it: its hour, its group's value
// (nil: none) and its key.
type floorRow struct {
	hour  int
	group *string
	key   string
}

// floorsOf computes the floors of rows as readKeyFloors's aggregate
// would, with the hours and groups in the order of their first row.
func floorsOf(rows []floorRow) *KeyFloors {
	h := func(i int) time.Time {
		return time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
	}
	f := &KeyFloors{}
	hours, groups := map[int]int{}, map[string]int{}
	for _, r := range rows {
		if _, ok := hours[r.hour]; !ok {
			hours[r.hour] = len(f.Hours)
			f.Hours = append(f.Hours, h(r.hour))
			for g := range f.Least {
				f.Least[g] = append(f.Least[g], "")
			}
		}
		gid := "n"
		if r.group != nil {
			gid = "v" + *r.group
		}
		if _, ok := groups[gid]; !ok {
			groups[gid] = len(f.Groups)
			f.Groups = append(f.Groups, []*string{r.group})
			f.Least = append(f.Least, make([]string, len(f.Hours)))
		}
		cur := &f.Least[groups[gid]][hours[r.hour]]
		if *cur == "" || r.key < *cur {
			*cur = r.key
		}
	}
	return f
}

// floorCells flattens floors to (hour, group) -> least key, dropping the
// cells with none.
func floorCells(f *KeyFloors) map[string]string {
	out := map[string]string{}
	for g, vals := range f.Groups {
		gid := "n"
		if vals[0] != nil {
			gid = "v" + *vals[0]
		}
		for i, least := range f.Least[g] {
			if least != "" {
				out[f.Hours[i].Format(time.RFC3339)+" "+gid] = least
			}
		}
	}
	return out
}

// TestKeyFloors_Lower: the floors of two sets of rows, lowered into one,
// are the floors of all the rows (each cell the least of both), whatever
// hours and groups the sets share; the operands are left unchanged; the
// hours come out in order.
func TestKeyFloors_Lower(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		zones := []string{"z1", "z2", ""}
		gen := func(label string) []floorRow {
			n := rapid.IntRange(0, 12).Draw(t, label+" rows")
			rows := make([]floorRow, n)
			for i := range rows {
				rows[i].hour = rapid.IntRange(0, 5).Draw(t, label+" hour")
				if z := rapid.SampledFrom(zones).Draw(t, label+" zone"); z != "" {
					rows[i].group = &z
				}
				rows[i].key = rapid.StringMatching(`k-[a-d]{1,3}`).Draw(t, label+" key")
			}
			return rows
		}
		a, b := gen("a"), gen("b")
		fa, fb := floorsOf(a), floorsOf(b)
		before := floorCells(fa)
		got := fa.Lower(fb)
		if want := floorCells(floorsOf(append(slices.Clone(a), b...))); !maps.Equal(floorCells(got), want) {
			t.Fatalf("lowered %v, want %v", floorCells(got), want)
		}
		if !maps.Equal(floorCells(fa), before) {
			t.Fatal("Lower changed its receiver")
		}
		if !slices.IsSortedFunc(got.Hours, time.Time.Compare) {
			t.Fatalf("hours out of order: %v", got.Hours)
		}
		for g := range got.Least {
			if len(got.Least[g]) != len(got.Hours) {
				t.Fatalf("group %d has %d cells for %d hours", g, len(got.Least[g]), len(got.Hours))
			}
		}
	})
}
