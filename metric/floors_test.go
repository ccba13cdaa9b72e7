package metric

import (
	"slices"
	"testing"
	"time"
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
