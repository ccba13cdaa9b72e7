package fact_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/fact"
)

func TestEventsInPart(t *testing.T) {
	hex := strings.Repeat("0a", 32)
	for _, tt := range []struct {
		name   string
		first  []string
		total  int
		digest string
		ok     bool
	}{
		{"sha-256", []string{"a", "b"}, 3, hex, true},
		{"lthash", []string{"a", "b"}, 3, fact.LtHashScheme + hex, true},
		{"other scheme", []string{"a", "b"}, 3, "sum64:" + hex, false},
		{"short", []string{"a", "b"}, 3, fact.LtHashScheme + hex[:62], false},
		{"upper case", []string{"a", "b"}, 3, strings.ToUpper(hex), false},
		{"no more than listed", []string{"a", "b"}, 2, hex, false},
		{"unsorted", []string{"b", "a"}, 3, hex, false},
		{"repeated", []string{"a", "a"}, 3, hex, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := fact.EventsInPart(tt.first, tt.total, tt.digest)
			if tt.ok {
				if err != nil || p.EventDigest() != tt.digest || p.NumEvents() != tt.total {
					t.Errorf("EventsInPart: %v, digest %s, count %d", err, p.EventDigest(), p.NumEvents())
				}
			} else if !errors.Is(err, fact.ErrBadPage) {
				t.Errorf("EventsInPart: %v, want ErrBadPage", err)
			}
		})
	}
}
