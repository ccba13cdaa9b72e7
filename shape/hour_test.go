package shape

import (
	"testing"
	"time"
)

// TestHourOf: the hour that holds an instant is a floor, before the epoch
// too, so that a window's edge and the rows of its hour fall in the same
// group of the resolver's.
func TestHourOf(t *testing.T) {
	const hour, day = int64(time.Hour), int64(24 * time.Hour)
	for _, c := range []struct{ t, hour int64 }{
		{0, 0}, {1, 0}, {hour - 1, 0}, {hour, 1}, {day - 1, 23}, {day, 24},
		{-1, -1}, {-hour, -1}, {-hour - 1, -2}, {-day, -24}, {-day - 1, -25},
	} {
		if got := hourOf(c.t); got != c.hour {
			t.Errorf("hourOf(%d) = %d, want %d", c.t, got, c.hour)
		}
	}
}
