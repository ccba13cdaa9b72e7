package budget

import (
	"errors"
	"strings"
	"testing"
)

const goodConfig = `# budgets
session:
  usd: 5.00          # dollars
  tokens: 200000
  tool_calls: 100
  sim_seconds: 3600
  rows_scanned: 10000000

question:
  usd: "0.5"
  tokens: 20000
  tool_calls: 10
  sim_seconds: 600
  rows_scanned: 1000000
`

func TestParseConfig(t *testing.T) {
	good := Config{
		Session:  amt(5*Dollar, 200000, 100, 3600, 10000000),
		Question: amt(Dollar/2, 20000, 10, 600, 1000000),
	}
	tests := []struct {
		name    string
		doc     string
		want    Config
		wantErr string // a substring of the error; "" for success
		line    int
	}{
		{"good", goodConfig, good, "", 0},
		{"document marker", "---\n" + goodConfig, good, "", 0},
		{"four-space indent", strings.ReplaceAll(goodConfig, "\n  ", "\n    "), good, "", 0},
		{"unknown component", strings.Replace(goodConfig, "tool_calls: 100", "toolcalls: 100", 1), Config{}, "session: unknown key (did you mean tool_calls?)", 5},
		{"unknown section", strings.Replace(goodConfig, "question:", "questions:", 1), Config{}, "unknown key (did you mean question?)", 9},
		{"missing component", strings.Replace(goodConfig, "  sim_seconds: 600\n", "", 1), Config{}, "question: missing sim_seconds", 9},
		{"missing two", strings.Replace(strings.Replace(goodConfig, "  usd: 5.00          # dollars\n", "", 1), "  rows_scanned: 10000000\n", "", 1), Config{}, "session: missing usd, rows_scanned", 2},
		{"missing section", goodConfig[:strings.Index(goodConfig, "question:")], Config{}, "question: missing", 8},
		{"negative", strings.Replace(goodConfig, "tokens: 20000\n", "tokens: -20000\n", 1), Config{}, "question.tokens: negative amount", 11},
		{"negative usd", strings.Replace(goodConfig, "usd: 5.00", "usd: -5.00", 1), Config{}, "session.usd: negative amount", 3},
		{"fraction of a token", strings.Replace(goodConfig, "tokens: 20000\n", "tokens: 2.5\n", 1), Config{}, "question.tokens: not a whole number", 11},
		{"seven decimals", strings.Replace(goodConfig, "usd: 5.00", "usd: 5.0000001", 1), Config{}, "session.usd: not a dollar amount", 3},
		{"too large", strings.Replace(goodConfig, "tokens: 200000", "tokens: 99999999999999999999", 1), Config{}, "session.tokens: too large", 4},
		{"repeated component", strings.Replace(goodConfig, "  tool_calls: 10\n", "  tool_calls: 10\n  tool_calls: 10\n", 1), Config{}, "question.tool_calls: repeated", 13},
		{"repeated section", goodConfig + "session:\n", Config{}, "session: repeats line 2", 15},
		{"tab", strings.Replace(goodConfig, "  tokens: 200000", "\ttokens: 200000", 1), Config{}, "a tab", 4},
		{"flow style", "session: {usd: 1}\n", Config{}, "session: expected a mapping", 1},
		{"indent changes", strings.Replace(goodConfig, "  tokens: 200000", "   tokens: 200000", 1), Config{}, "indentation differs", 4},
		{"no colon", strings.Replace(goodConfig, "tokens: 200000", "tokens 200000", 1), Config{}, "expected key: value", 4},
		{"indented first", "  usd: 1\n", Config{}, "indented line before", 1},
		{"empty amount", strings.Replace(goodConfig, "tokens: 200000", "tokens:", 1), Config{}, "session.tokens: no amount", 4},
		{"question above session", strings.Replace(goodConfig, "tool_calls: 10\n", "tool_calls: 101\n", 1), Config{}, "question.tool_calls: larger than the session's", 0},
		{"empty", "", Config{}, "session: missing", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig(strings.NewReader(tt.doc))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseConfig: %v", err)
				}
				if got != tt.want {
					t.Errorf("ParseConfig = %+v, want %+v", got, tt.want)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrConfig) {
				t.Fatalf("ParseConfig err = %v, want a *ConfigError", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantErr)
			}
			if ce.Line != tt.line {
				t.Errorf("line = %d, want %d", ce.Line, tt.line)
			}
		})
	}
}

// TestParseConfig_NoEcho: an unknown key or a bad value is never repeated
// in the error.
func TestParseConfig_NoEcho(t *testing.T) {
	const probe = "zzprobezz"
	for _, doc := range []string{
		strings.Replace(goodConfig, "tool_calls: 100", probe+": 100", 1),
		strings.Replace(goodConfig, "question:", probe+":", 1),
		strings.Replace(goodConfig, "tokens: 200000", "tokens: "+probe, 1),
		strings.Replace(goodConfig, "usd: 5.00", "usd: "+probe, 1),
		probe + "\n",
	} {
		_, err := ParseConfig(strings.NewReader(doc))
		if err == nil || strings.Contains(err.Error(), probe) {
			t.Errorf("err = %v: want an error that does not repeat the input", err)
		}
	}
	m := map[string]any{probe: 1, "session": map[string]any{}, "question": map[string]any{}}
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
