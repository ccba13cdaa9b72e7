package budget

import (
	"errors"
	"slices"
	"testing"
)

func amt(usd Micros, tokens, calls, sim, rows int64) Amount {
	return Amount{USD: usd, Tokens: tokens, ToolCalls: calls, SimSeconds: sim, RowsScanned: rows}
}

// invariant fails the test when remaining + reserved + allocated + spent
// differs from total, or remaining is negative, on any component.
func invariant(t interface {
	Helper()
	Fatalf(string, ...any)
}, s State) {
	t.Helper()
	sum := s.Remaining.Add(s.Reserved).Add(s.Allocated).Add(s.Spent)
	if sum != s.Total {
		t.Fatalf("%s: remaining+reserved+allocated+spent = %v, total %v", s.Name, sum, s.Total)
	}
	if neg := s.Remaining.Negative(); neg != nil {
		t.Fatalf("%s: remaining negative on %v: %v", s.Name, neg, s.Remaining)
	}
}

func TestBudget_Reserve(t *testing.T) {
	total := amt(1*Dollar, 1000, 10, 60, 5000)
	tests := []struct {
		name    string
		first   Amount // reserved before the one under test
		req     Amount
		wantErr error
		denied  []Component
	}{
		{"zero fits", Amount{}, Amount{}, nil, nil},
		{"all of it", Amount{}, total, nil, nil},
		{"one over on usd", Amount{}, total.With(USD, int64(Dollar)+1), ErrExhausted, []Component{USD}},
		{"over on two", Amount{}, total.With(Tokens, 1001).With(RowsScanned, 5001), ErrExhausted, []Component{Tokens, RowsScanned}},
		{"over after a reservation", amt(0, 600, 0, 0, 0), amt(0, 401, 0, 0, 0), ErrExhausted, []Component{Tokens}},
		{"fits after a reservation", amt(0, 600, 0, 0, 0), amt(0, 400, 10, 60, 0), nil, nil},
		{"negative", Amount{}, amt(0, -1, 0, 0, 0), ErrNegative, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []Event
			b, err := New("s", total, &Options{OnEvent: func(e Event) { events = append(events, e) }})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Reserve(tt.first); err != nil {
				t.Fatal(err)
			}
			before := b.Snapshot()
			r, err := b.Reserve(tt.req)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Reserve err = %v, want %v", err, tt.wantErr)
			}
			s := b.Snapshot()
			invariant(t, s)
			if err != nil {
				if s != before {
					t.Errorf("a refused reservation changed the budget: %+v, was %+v", s, before)
				}
				var d *DeniedError
				if errors.As(err, &d) != (tt.denied != nil) || (d != nil && !slices.Equal(d.Components, tt.denied)) {
					t.Errorf("denied = %+v, want components %v", d, tt.denied)
				}
				if tt.denied != nil {
					last := events[len(events)-1]
					if last.Type != EventExceeded || !slices.Equal(last.Components, tt.denied) {
						t.Errorf("last event = %+v, want exceeded on %v", last, tt.denied)
					}
				}
				return
			}
			if got, want := s.Remaining, total.Sub(tt.first).Sub(tt.req); got != want {
				t.Errorf("remaining = %v, want %v", got, want)
			}
			if r.Amount() != tt.req || r.ID() != 2 {
				t.Errorf("reservation = %d %v, want 2 %v", r.ID(), r.Amount(), tt.req)
			}
			if last := events[len(events)-1]; last.Type != EventReserved || last.Reservation != 2 || last.Remaining != s.Remaining {
				t.Errorf("last event = %+v", last)
			}
		})
	}
}

func TestBudget_Settle(t *testing.T) {
	reserved := amt(500_000, 100, 2, 10, 1000)
	tests := []struct {
		name       string
		used       Amount
		wantErr    error
		overrun    []Component
		wantUnused Amount
	}{
		{"nothing used", Amount{}, nil, nil, reserved},
		{"all used", reserved, nil, nil, Amount{}},
		{"part used", amt(100_000, 40, 1, 10, 0), nil, nil, amt(400_000, 60, 1, 0, 1000)},
		{"overrun usd by one micro", reserved.With(USD, 500_001), ErrOverrun, []Component{USD}, Amount{}},
		{"overrun two", reserved.With(ToolCalls, 3).With(SimSeconds, 11), ErrOverrun, []Component{ToolCalls, SimSeconds}, Amount{}},
		{"negative use", amt(0, -1, 0, 0, 0), ErrNegative, nil, Amount{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := New("s", amt(Dollar, 1000, 10, 100, 10000), nil)
			r, err := b.Reserve(reserved)
			if err != nil {
				t.Fatal(err)
			}
			before := b.Snapshot()
			unused, err := b.Settle(r, tt.used)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Settle err = %v, want %v", err, tt.wantErr)
			}
			s := b.Snapshot()
			invariant(t, s)
			if err != nil {
				if s != before {
					t.Errorf("a refused settlement changed the budget (it must not clamp): %+v", s)
				}
				var o *OverrunError
				if errors.As(err, &o) != (tt.overrun != nil) || (o != nil && !slices.Equal(o.Components, tt.overrun)) {
					t.Errorf("overrun = %+v, want %v", o, tt.overrun)
				}
				// The reservation is still live and can be settled properly.
				if _, err := b.Settle(r, Amount{}); err != nil {
					t.Errorf("settle after a refused settlement: %v", err)
				}
				return
			}
			if unused != tt.wantUnused {
				t.Errorf("unused = %v, want %v", unused, tt.wantUnused)
			}
			if s.Spent != tt.used || s.Live != 0 || s.Reserved != (Amount{}) {
				t.Errorf("state = %+v", s)
			}
			if _, err := b.Settle(r, Amount{}); !errors.Is(err, ErrSettled) {
				t.Errorf("second settle err = %v, want ErrSettled", err)
			}
		})
	}
}

func TestBudget_SettleForeign(t *testing.T) {
	a, _ := New("a", amt(Dollar, 10, 1, 1, 1), nil)
	b, _ := New("b", amt(Dollar, 10, 1, 1, 1), nil)
	r, _ := a.Reserve(amt(1, 1, 0, 0, 0))
	if _, err := b.Settle(r, Amount{}); !errors.Is(err, ErrForeign) {
		t.Errorf("settle on another budget: %v, want ErrForeign", err)
	}
	if _, err := b.Settle(nil, Amount{}); !errors.Is(err, ErrForeign) {
		t.Errorf("settle nil: %v, want ErrForeign", err)
	}
}

func TestBudget_ChildrenAndReallocate(t *testing.T) {
	var events []EventType
	s, _ := New("session", amt(10*Dollar, 10000, 100, 1000, 1_000_000), &Options{OnEvent: func(e Event) { events = append(events, e.Type) }})
	q1, err := s.Child("q1", amt(Dollar, 1000, 10, 100, 100_000))
	if err != nil {
		t.Fatal(err)
	}
	q2, err := s.Child("q2", amt(Dollar, 1000, 10, 100, 100_000))
	if err != nil {
		t.Fatal(err)
	}
	if q1.Name() != "session/q1" {
		t.Errorf("name = %q", q1.Name())
	}
	check := func() {
		t.Helper()
		for _, b := range []*Budget{s, q1, q2} {
			invariant(t, b.Snapshot())
		}
	}
	r, err := q1.Reserve(amt(Dollar/2, 800, 1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	// q1 has 200 tokens left: moving 300 is denied, 200 is not.
	if err := Reallocate(q1, q2, amt(0, 300, 0, 0, 0)); !errors.Is(err, ErrExhausted) {
		t.Fatalf("reallocate beyond remaining: %v", err)
	}
	if err := Reallocate(q1, q2, amt(0, 200, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	check()
	if got := q2.Snapshot().Total.Tokens; got != 1200 {
		t.Errorf("q2 total tokens = %d, want 1200", got)
	}
	// Parent to child and back.
	if err := Reallocate(s, q1, amt(0, 500, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := Reallocate(q2, s, amt(0, 100, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	check()
	if _, err := q1.Close(); !errors.Is(err, ErrBusy) {
		t.Errorf("close with a live reservation: %v, want ErrBusy", err)
	}
	if _, err := q1.Settle(r, amt(Dollar/4, 700, 1, 0, 0)); err != nil {
		t.Fatal(err)
	}
	back, err := q1.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want := amt(Dollar*3/4, 600, 9, 100, 100_000); back != want {
		t.Errorf("given back = %v, want %v", back, want)
	}
	check()
	if got := s.Snapshot().Spent; got != amt(Dollar/4, 700, 1, 0, 0) {
		t.Errorf("session spent = %v", got)
	}
	if _, err := q1.Reserve(Amount{}); !errors.Is(err, ErrClosed) {
		t.Errorf("reserve on a closed child: %v, want ErrClosed", err)
	}
	if err := Reallocate(q1, q2, Amount{}); !errors.Is(err, ErrClosed) {
		t.Errorf("reallocate from a closed child: %v, want ErrClosed", err)
	}
	if _, err := s.Close(); !errors.Is(err, ErrRoot) {
		t.Errorf("close root: %v, want ErrRoot", err)
	}
	other, _ := New("other", amt(Dollar, 1, 1, 1, 1), nil)
	if err := Reallocate(q2, other, Amount{}); !errors.Is(err, ErrUnrelated) {
		t.Errorf("reallocate across trees: %v, want ErrUnrelated", err)
	}
	g, _ := q2.Child("g", Amount{})
	if err := Reallocate(g, s, Amount{}); !errors.Is(err, ErrUnrelated) {
		t.Errorf("reallocate grandchild to grandparent: %v, want ErrUnrelated", err)
	}
	if _, err := s.Child("q2", Amount{}); !errors.Is(err, ErrNameTaken) {
		t.Errorf("second open child of one name: %v, want ErrNameTaken", err)
	}
	if _, err := s.Child("big", amt(100*Dollar, 0, 0, 0, 0)); !errors.Is(err, ErrExhausted) {
		t.Errorf("oversized child: %v, want ErrExhausted", err)
	}
	want := []EventType{EventAllocated, EventAllocated, EventReserved, EventExceeded, EventReallocated,
		EventReallocated, EventReallocated, EventSettled, EventReleased, EventAllocated, EventExceeded}
	if !slices.Equal(events, want) {
		t.Errorf("events = %v\nwant     %v", events, want)
	}
}

func TestNew_Negative(t *testing.T) {
	if _, err := New("s", amt(-1, 0, 0, 0, 0), nil); !errors.Is(err, ErrNegative) {
		t.Errorf("New with a negative total: %v, want ErrNegative", err)
	}
}

func TestParseUSD(t *testing.T) {
	tests := []struct {
		in      string
		want    Micros
		wantErr bool
	}{
		{"0", 0, false},
		{"5", 5 * Dollar, false},
		{"0.25", 250_000, false},
		{"0.000001", 1, false},
		{"12.5", 12_500_000, false},
		{"9223372036854.775807", Micros(1<<63 - 1), false},
		{"9223372036854.775808", 0, true},
		{"99999999999999", 0, true},
		{"0.0000001", 0, true},
		{"-1", 0, true},
		{"+1", 0, true},
		{"1e3", 0, true},
		{".5", 0, true},
		{"5.", 0, true},
		{"1,000", 0, true},
		{"", 0, true},
		{"0x10", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseUSD(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseUSD(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrUSD) {
				t.Errorf("err = %v, does not wrap ErrUSD", err)
			}
			if got != tt.want {
				t.Errorf("ParseUSD(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestMicros_String(t *testing.T) {
	for _, tt := range []struct {
		m    Micros
		want string
	}{{0, "0.000000"}, {1, "0.000001"}, {250_000, "0.250000"}, {12 * Dollar, "12.000000"}, {-1_500_000, "-1.500000"}} {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("Micros(%d).String() = %q, want %q", int64(tt.m), got, tt.want)
		}
	}
}
