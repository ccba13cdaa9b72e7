package budget

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestFromMap_NoEcho: an unknown key is never repeated in the error.
func TestFromMap_NoEcho(t *testing.T) {
	const probe = "zzprobezz"
	m := map[string]any{probe: 1, "session": map[string]any{}, "question": map[string]any{}}
	if _, err := FromMap(m); err == nil || strings.Contains(err.Error(), probe) {
		t.Errorf("FromMap err = %v", err)
	}
	m = map[string]any{"session": map[string]any{probe: 1}, "question": map[string]any{}}
	if _, err := FromMap(m); err == nil || strings.Contains(err.Error(), probe) {
		t.Errorf("FromMap err = %v", err)
	}
	m = map[string]any{"session": map[string]any{"tokens": probe}, "question": map[string]any{}}
	if _, err := FromMap(m); err == nil || strings.Contains(err.Error(), probe) {
		t.Errorf("FromMap err = %v", err)
	}
}

func TestFromMap(t *testing.T) {
	full := func() map[string]any {
		return map[string]any{
			"session":  map[string]any{"usd": 5, "tokens": uint64(200000), "tool_calls": int64(100), "sim_seconds": 3600.0, "rows_scanned": "10000000"},
			"question": map[string]any{"usd": 0.1, "tokens": 20000, "tool_calls": 10, "sim_seconds": 600, "rows_scanned": 1000000},
		}
	}
	good := Config{Session: amt(5*Dollar, 200000, 100, 3600, 10000000), Question: amt(100_000, 20000, 10, 600, 1000000)}
	tests := []struct {
		name    string
		edit    func(m map[string]any)
		wantErr string
	}{
		{"good", func(map[string]any) {}, ""},
		{"unknown section", func(m map[string]any) { m["sesion"] = m["session"]; delete(m, "session") }, "unknown key (did you mean session?)"},
		{"unknown component", func(m map[string]any) { m["question"].(map[string]any)["row_scanned"] = 1 }, "question: unknown key (did you mean rows_scanned?)"},
		{"missing component", func(m map[string]any) { delete(m["session"].(map[string]any), "tokens") }, "session: missing tokens"},
		{"missing section", func(m map[string]any) { delete(m, "question") }, "question: missing"},
		{"negative int", func(m map[string]any) { m["question"].(map[string]any)["tokens"] = -1 }, "question.tokens: negative amount"},
		{"negative float", func(m map[string]any) { m["question"].(map[string]any)["usd"] = -0.5 }, "question.usd: negative amount"},
		{"fractional tokens", func(m map[string]any) { m["question"].(map[string]any)["tokens"] = 1.5 }, "question.tokens: not a whole number"},
		{"bool", func(m map[string]any) { m["question"].(map[string]any)["tokens"] = true }, "question.tokens: expected a number"},
		{"not a map", func(m map[string]any) { m["session"] = 5 }, "session: expected a mapping"},
		{"question above session", func(m map[string]any) { m["question"].(map[string]any)["usd"] = 6 }, "question.usd: larger than the session's"},
		{"prices nil", func(m map[string]any) { m["prices"] = nil }, ""},
		{"price unknown key", func(m map[string]any) { m["prices"] = map[string]any{"m1": map[string]any{"input": 1, "outpt": 1}} }, "prices.m1: unknown key (did you mean output?)"},
		{"price missing", func(m map[string]any) { m["prices"] = map[string]any{"m1": map[string]any{"input": 1}} }, "prices.m1: missing output"},
		{"price negative", func(m map[string]any) { m["prices"] = map[string]any{"m1": map[string]any{"input": -1, "output": 1}} }, "prices.m1.input: negative amount"},
		{"price not a map", func(m map[string]any) { m["prices"] = map[string]any{"m1": 1} }, "prices.m1: expected a mapping"},
		{"bad model name", func(m map[string]any) { m["prices"] = map[string]any{"a b": map[string]any{"input": 1, "output": 1}} }, "prices: not a model name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := full()
			tt.edit(m)
			got, err := FromMap(m)
			if tt.wantErr == "" {
				if err != nil || !reflect.DeepEqual(got, good) {
					t.Fatalf("FromMap = %+v, %v; want %+v", got, err, good)
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("FromMap err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestFromMap_Prices: a prices section reads each model's input and
// output price exactly, in micro-dollars per million tokens.
func TestFromMap_Prices(t *testing.T) {
	m := map[string]any{
		"session":  map[string]any{"usd": 5, "tokens": 1, "tool_calls": 1, "sim_seconds": 1, "rows_scanned": 1},
		"question": map[string]any{"usd": 1, "tokens": 1, "tool_calls": 1, "sim_seconds": 1, "rows_scanned": 1},
		"prices":   map[string]any{"gpt-4o-mini": map[string]any{"input": "0.15", "output": 0.6}, "llama3.2": map[string]any{"input": 0, "output": 0}},
	}
	got, err := FromMap(m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Price{"gpt-4o-mini": {Input: 150_000, Output: 600_000}, "llama3.2": {}}
	if !reflect.DeepEqual(got.Prices, want) {
		t.Errorf("prices = %+v, want %+v", got.Prices, want)
	}
}

// TestPrice_Cost: tokens times the price per million, rounded up to the
// next micro-dollar, exact at any size, saturating past int64.
func TestPrice_Cost(t *testing.T) {
	tests := []struct {
		name    string
		p       Price
		in, out int64
		want    Micros
	}{
		{"nothing", Price{Input: 150_000, Output: 600_000}, 0, 0, 0},
		{"a million input", Price{Input: 150_000, Output: 600_000}, 1_000_000, 0, 150_000},
		{"both", Price{Input: 150_000, Output: 600_000}, 1_000_000, 500_000, 450_000},
		{"rounded up", Price{Input: 150_000}, 1, 0, 1},
		{"exact, no rounding", Price{Input: 1_000_000}, 7, 0, 7},
		{"free", Price{}, 1 << 40, 1 << 40, 0},
		{"large, exact", Price{Input: 3 * Dollar, Output: 15 * Dollar}, 1 << 40, 1 << 40, Micros(18 << 40)},
		{"saturates", Price{Input: 1 << 62}, 1 << 62, 0, math.MaxInt64},
		{"negative counts 0", Price{Input: 150_000}, -5, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Cost(tt.in, tt.out); got != tt.want {
				t.Errorf("Cost(%d, %d) = %d, want %d", tt.in, tt.out, got, tt.want)
			}
		})
	}
}

// TestConfig_NeedPrice: a model without a price is an error naming the
// key to add; no model (rules) needs none; a name not spelt as a model
// is not repeated.
func TestConfig_NeedPrice(t *testing.T) {
	c := Config{Prices: map[string]Price{"gpt-4o-mini": {}}}
	if err := c.NeedPrice(""); err != nil {
		t.Errorf("no model: %v", err)
	}
	if err := c.NeedPrice("gpt-4o-mini"); err != nil {
		t.Errorf("priced model: %v", err)
	}
	if err := c.NeedPrice("llama3.2"); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "prices.llama3.2.input") {
		t.Errorf("unpriced model: %v, want an error naming prices.llama3.2.input", err)
	}
	if err := c.NeedPrice("zz probe"); err == nil || strings.Contains(err.Error(), "zz probe") {
		t.Errorf("bad name: %v, want an error that does not repeat it", err)
	}
}
