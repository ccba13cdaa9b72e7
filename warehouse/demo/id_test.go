package demo

import "testing"

func TestEventID_Width(t *testing.T) {
	tests := []struct {
		events, seq int
		want        string
	}{
		{20_000, 1, "wh-evt-00000001"},
		{99_999_999, 99_999_999, "wh-evt-99999999"},
		{100_000_000, 1, "wh-evt-000000001"},
		{100_000_000, 100_000_000, "wh-evt-100000000"},
		{MaxEvents, MaxEvents, "wh-evt-999999999"},
	}
	for _, tt := range tests {
		e := Event{Seq: tt.seq, IDDigits: idDigits(tt.events)}
		if got := e.EventID(); got != tt.want {
			t.Errorf("%d events, seq %d: EventID() = %s, want %s", tt.events, tt.seq, got, tt.want)
		}
	}
	if got := (&Event{Seq: 7}).EventID(); got != "wh-evt-00000007" {
		t.Errorf("an Event without IDDigits: %s, want 8 digits", got)
	}
}
