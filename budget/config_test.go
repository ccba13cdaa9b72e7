package budget

import (
	"errors"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := full()
			tt.edit(m)
			got, err := FromMap(m)
			if tt.wantErr == "" {
				if err != nil || got != good {
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
