package repair_test

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/repair"
)

func f(x float64) *float64 { return &x }

func TestCheck(t *testing.T) {
	share := repair.Domain{Min: f(0), Max: f(1)}
	nonneg := repair.Domain{Min: f(0)}
	hist := []float64{10, 11, 12, 9, 10, 11, 10, 12, 9, 10}
	pol := repair.Policy{MinHistory: 8, Widen: 0.5}
	tests := []struct {
		name    string
		values  []float64
		d       repair.Domain
		history []float64
		p       repair.Policy
		want    repair.Finding
	}{
		{"share inside", []float64{0, 0.5, 1}, share, nil, pol, repair.Plausible},
		{"share above one", []float64{0.5, 1.2}, share, nil, pol, repair.OutOfDomain},
		{"share below zero", []float64{-0.01}, share, nil, pol, repair.OutOfDomain},
		{"share ignores history", []float64{0.99}, share, []float64{0, 0, 0, 0, 0, 0, 0, 0, 0}, pol, repair.Plausible},
		{"nan", []float64{nanv()}, repair.Domain{}, nil, pol, repair.OutOfDomain},
		{"negative count", []float64{-3}, nonneg, hist, pol, repair.OutOfDomain},
		{"in band", []float64{12}, nonneg, hist, pol, repair.Plausible},
		{"above band", []float64{40}, nonneg, hist, pol, repair.OutOfBand},
		{"below band", []float64{1}, nonneg, hist, pol, repair.OutOfBand},
		{"widened band admits", []float64{14}, nonneg, hist, repair.Policy{MinHistory: 8, Widen: 1}, repair.Plausible},
		{"narrow band refuses", []float64{14}, nonneg, hist, repair.Policy{MinHistory: 8, Widen: 0}, repair.OutOfBand},
		{"too little history", []float64{40}, nonneg, hist[:7], pol, repair.Plausible},
		{"min history configurable", []float64{40}, nonneg, hist[:7], repair.Policy{MinHistory: 7, Widen: 0.5}, repair.OutOfBand},
		{"no values", nil, share, nil, pol, repair.Plausible},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := repair.Check(tt.values, tt.d, tt.history, tt.p)
			if got.Finding != tt.want {
				t.Fatalf("Check = %v (%s), want %v", got.Finding, got.Detail, tt.want)
			}
			if (got.Finding == repair.Plausible) != (got.Class() == "") {
				t.Errorf("Class() = %q for %v", got.Class(), got.Finding)
			}
			if got.Finding != repair.Plausible && got.Class() != answer.ReasonImplausibleMagnitude {
				t.Errorf("Class() = %q, want implausible_magnitude", got.Class())
			}
		})
	}
}

func nanv() float64 { var z float64; return z / z }

func TestParseRetries(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"0", 0, false}, {"2", 2, false}, {"3", 3, false},
		{"4", 0, true}, {"-1", 0, true}, {"02", 0, true}, {" 2", 0, true}, {"", 0, true}, {"+1", 0, true}, {"two", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := repair.ParseRetries(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseRetries(%q) = %d, %v; want %d, err %t", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err != nil && !errors.Is(err, repair.ErrRetries) {
				t.Errorf("error %v is not ErrRetries", err)
			}
		})
	}
}

func TestParseClass(t *testing.T) {
	for _, c := range answer.FailureClasses {
		got, err := repair.ParseClass(string(c))
		if err != nil || got != c {
			t.Errorf("ParseClass(%q) = %q, %v", c, got, err)
		}
	}
	if len(repair.Classes()) != 6 {
		t.Errorf("Classes() has %d classes, want the six of the issue", len(repair.Classes()))
	}
	for _, bad := range []string{"", "SQL_ERROR", "sql_error ", "timeout", "verification_failed"} {
		if _, err := repair.ParseClass(bad); !errors.Is(err, repair.ErrClass) {
			t.Errorf("ParseClass(%q) error = %v, want ErrClass", bad, err)
		} else if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("error %q echoes the rejected text", err)
		}
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		name    string
		f       repair.Failure
		want    []string
		notWant []string
		wantErr bool
	}{
		{
			name: "metric",
			f: repair.Failure{Class: answer.ReasonImplausibleMagnitude, Detail: "a value is above the metric's declared maximum 1",
				Selection: `{"tool":"query_metric","params":{"metric":"availability"}}`, Snippet: "metric availability: ratio", Definition: "Share of time up."},
			want: []string{"implausible_magnitude", `"metric":"availability"`, "metric availability: ratio", "Share of time up.", "declared maximum 1"},
		},
		{
			name: "sql with secrets",
			f: repair.Failure{Class: answer.ReasonSQLError, SQL: "SELECT 1 -- password=hunter2 token: abc123xyz sk-live1234567 postgres://bob:s3cret@db/x",
				Detail: "Authorization: Bearer eyJhbGciOi.abc"},
			want:    []string{"sql_error", "SELECT 1", "[redacted]", "postgres://[redacted]@db/x"},
			notWant: []string{"hunter2", "abc123xyz", "sk-live1234567", "s3cret", "eyJhbGciOi"},
		},
		{name: "no class", f: repair.Failure{Selection: "x"}, wantErr: true},
		{name: "class outside the set", f: repair.Failure{Class: answer.ReasonTimeout}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := repair.Message(tt.f)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Message error = %v, wantErr %t", err, tt.wantErr)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("message lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("message holds the secret %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestMessage_Bounded(t *testing.T) {
	got, err := repair.Message(repair.Failure{Class: answer.ReasonSQLError, SQL: strings.Repeat("é", 10000)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > repair.MaxPart+1024 {
		t.Errorf("message is %d bytes, want at most a part's bound plus the frame", len(got))
	}
}

// The widened band holds the p1..p99 band, and widening never narrows it.
func TestBand_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := rapid.SliceOfN(rapid.Float64Range(-1e6, 1e6), 1, 200).Draw(t, "history")
		w1 := rapid.Float64Range(0, 3).Draw(t, "w1")
		w2 := rapid.Float64Range(w1, 5).Draw(t, "w2")
		lo0, hi0 := repair.Band(h, 0)
		lo1, hi1 := repair.Band(h, w1)
		lo2, hi2 := repair.Band(h, w2)
		if !(lo0 <= hi0 && lo1 <= lo0 && hi0 <= hi1 && lo2 <= lo1 && hi1 <= hi2) {
			t.Fatalf("bands not nested: %v %v / %v %v / %v %v", lo0, hi0, lo1, hi1, lo2, hi2)
		}
		// The middle of the p1..p99 band is always in band.
		med := repair.Check([]float64{mid(h)}, repair.Domain{}, h, repair.Policy{MinHistory: 1, Widen: w1})
		if med.Finding != repair.Plausible {
			t.Fatalf("the middle of the band is %v", med.Finding)
		}
	})
}

func mid(h []float64) float64 {
	lo, hi := repair.Band(h, 0)
	return lo + (hi-lo)/2
}

// The documented defaults: 8 history points, a band widened by half its
// width, 2 retries of at most 3.
func TestDefaults(t *testing.T) {
	if p := repair.DefaultPolicy(); p.MinHistory != 8 || p.Widen != 0.5 {
		t.Errorf("DefaultPolicy = %+v", p)
	}
	if repair.DefaultRetries != 2 || repair.MaxRetries != 3 {
		t.Errorf("retries: default %d, max %d", repair.DefaultRetries, repair.MaxRetries)
	}
}
