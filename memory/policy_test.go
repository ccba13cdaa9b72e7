package memory

import (
	"slices"
	"testing"
)

func TestParsePolicy(t *testing.T) {
	d := DefaultPolicy()
	tests := []struct {
		name  string
		doc   string
		want  Policy
		codes []string
	}{
		{"empty object is the default", `{}`, d, nil},
		{"every key", `{"prefer":"recent","staleness_threshold":0.5,"gate_overfetch_multiplier":4,"max_backfill_pulls":0}`,
			Policy{PreferRecent, 0.5, 4, 0}, nil},
		{"confirmed", `{"prefer":"confirmed"}`, Policy{PreferConfirmed, d.StalenessThreshold, d.GateOverfetchMultiplier, d.MaxBackfillPulls}, nil},
		{"invalid prefer", `{"prefer":"loudest"}`, d, []string{WarnPolicyInvalid}},
		{"prefer not a string", `{"prefer":3}`, d, []string{WarnPolicyInvalid}},
		{"unknown key", `{"prefers":"recent"}`, d, []string{WarnPolicyUnknownKey}},
		{"unknown and valid keys", `{"x":1,"staleness_threshold":0.1}`,
			Policy{d.Prefer, 0.1, d.GateOverfetchMultiplier, d.MaxBackfillPulls}, []string{WarnPolicyUnknownKey}},
		{"threshold out of range", `{"staleness_threshold":1.5}`, d, []string{WarnPolicyInvalid}},
		{"threshold a string", `{"staleness_threshold":"high"}`, d, []string{WarnPolicyInvalid}},
		{"multiplier zero", `{"gate_overfetch_multiplier":0}`, d, []string{WarnPolicyInvalid}},
		{"multiplier fractional", `{"gate_overfetch_multiplier":1.5}`, d, []string{WarnPolicyInvalid}},
		{"multiplier huge", `{"gate_overfetch_multiplier":1e40}`, d, []string{WarnPolicyInvalid}},
		{"pulls negative", `{"max_backfill_pulls":-1}`, d, []string{WarnPolicyInvalid}},
		{"pulls too many", `{"max_backfill_pulls":9}`, d, []string{WarnPolicyInvalid}},
		{"duplicate key keeps the first", `{"prefer":"recent","prefer":"confirmed"}`,
			Policy{PreferRecent, d.StalenessThreshold, d.GateOverfetchMultiplier, d.MaxBackfillPulls}, []string{WarnPolicyDuplicateKey}},
		{"not an object", `[1]`, d, []string{WarnPolicyMalformed}},
		{"not JSON", `prefer: recent`, d, []string{WarnPolicyMalformed}},
		{"empty", ``, d, []string{WarnPolicyMalformed}},
		{"trailing data", `{} {}`, d, []string{WarnPolicyMalformed}},
		{"unterminated", `{"prefer":"recent"`, d, []string{WarnPolicyMalformed}},
		{"null", `null`, d, []string{WarnPolicyMalformed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns := ParsePolicy([]byte(tt.doc))
			if got != tt.want {
				t.Errorf("policy %+v, want %+v", got, tt.want)
			}
			var codes []string
			for _, w := range warns {
				codes = append(codes, w.Code)
			}
			if !slices.Equal(codes, tt.codes) {
				t.Errorf("warnings %v, want codes %v", warns, tt.codes)
			}
		})
	}
}

// TestParsePolicy_NoEcho: a warning never repeats a rejected key or value.
func TestParsePolicy_NoEcho(t *testing.T) {
	_, warns := ParsePolicy([]byte(`{"<script>":1,"prefer":"<script>"}`))
	if len(warns) != 2 {
		t.Fatalf("warnings %v, want 2", warns)
	}
	for _, w := range warns {
		if containsAny(w.Message, "<script>") {
			t.Errorf("warning %q repeats the rejected text", w.Message)
		}
	}
}

func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{`{}`, `{"prefer":"recent","staleness_threshold":0.5,"gate_overfetch_multiplier":4,"max_backfill_pulls":1}`,
		`{"prefer":1}`, `[`, `{"a":{"b":[1,2]}}`, `{"prefer":"recent","prefer":"x"}`, "\xff", `{"max_backfill_pulls":-0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, warns := ParsePolicy(data)
		if _, again := p.sanitize(); len(again) != 0 {
			t.Fatalf("ParsePolicy returned an invalid policy %+v", p)
		}
		for _, w := range warns {
			if w.Code == "" || w.Message == "" {
				t.Fatalf("empty warning %+v", w)
			}
		}
	})
}
