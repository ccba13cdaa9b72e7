package budget

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func FuzzParseUSD(f *testing.F) {
	for _, s := range []string{"0", "0.25", "5", "0.000001", "9223372036854.775807", "9223372036854.775808", "-1", "1e3", ".5", "1.", "00.10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseUSD(s)
		if err != nil {
			if !errors.Is(err, ErrUSD) {
				t.Fatalf("error %v does not wrap ErrUSD", err)
			}
			if len(s) > 0 && strings.Contains(err.Error(), s) && len(s) > 3 {
				t.Fatalf("error %q repeats the input", err)
			}
			return
		}
		if m < 0 {
			t.Fatalf("ParseUSD(%q) = %d, negative", s, m)
		}
		back, err := ParseUSD(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseUSD(%q) = %d; its String %q reads back as %d, %v", s, m, m.String(), back, err)
		}
	})
}

// FuzzFromMap feeds FromMap what encoding/json makes of arbitrary bytes.
func FuzzFromMap(f *testing.F) {
	f.Add(`{"session":{"usd":5,"tokens":1,"tool_calls":1,"sim_seconds":1,"rows_scanned":1},"question":{"usd":"0.5","tokens":1,"tool_calls":1,"sim_seconds":1,"rows_scanned":1}}`)
	f.Add(`{"session":{"usd":-5}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var m map[string]any
		if json.Unmarshal([]byte(doc), &m) != nil {
			return
		}
		c, err := FromMap(m)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		if c.Validate() != nil || c.Session.Negative() != nil {
			t.Fatalf("accepted %+v", c)
		}
	})
}
