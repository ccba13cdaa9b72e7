package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/provenant/provenant/budget"
)

const goodBudget = `# budgets
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

// pricesDoc is a prices section, from line 15 of goodBudget + pricesDoc.
const pricesDoc = `prices:             # dollars per million tokens
  gpt-4o-mini:
    input: 0.15
    output: 0.6
  llama3.2:
    input: 0
    output: 0
`

func TestParseBudgetYAML(t *testing.T) {
	amt := func(usd budget.Micros, tokens, calls, sim, rows int64) budget.Amount {
		return budget.Amount{USD: usd, Tokens: tokens, ToolCalls: calls, SimSeconds: sim, RowsScanned: rows}
	}
	good := budget.Config{
		Session:  amt(5*budget.Dollar, 200000, 100, 3600, 10000000),
		Question: amt(budget.Dollar/2, 20000, 10, 600, 1000000),
	}
	withPrices := good
	withPrices.Prices = map[string]budget.Price{
		"gpt-4o-mini": {Input: 150_000, Output: 600_000},
		"llama3.2":    {},
	}
	tests := []struct {
		name    string
		doc     string
		want    budget.Config
		wantErr string // a substring of the error; "" for success
		line    int
	}{
		{"good", goodBudget, good, "", 0},
		{"document marker", "---\n" + goodBudget, good, "", 0},
		{"four-space indent", strings.ReplaceAll(goodBudget, "\n  ", "\n    "), good, "", 0},
		{"tenth of a dollar exactly", strings.Replace(goodBudget, `usd: "0.5"`, "usd: 0.1", 1), budget.Config{Session: good.Session, Question: amt(budget.Dollar/10, 20000, 10, 600, 1000000)}, "", 0},
		{"unknown component", strings.Replace(goodBudget, "tool_calls: 100", "toolcalls: 100", 1), budget.Config{}, "session: unknown key (did you mean tool_calls?)", 5},
		{"unknown section", strings.Replace(goodBudget, "question:", "questions:", 1), budget.Config{}, "unknown key (did you mean question?)", 9},
		{"missing component", strings.Replace(goodBudget, "  sim_seconds: 600\n", "", 1), budget.Config{}, "question: missing sim_seconds", 9},
		{"missing two", strings.Replace(strings.Replace(goodBudget, "  usd: 5.00          # dollars\n", "", 1), "  rows_scanned: 10000000\n", "", 1), budget.Config{}, "session: missing usd, rows_scanned", 2},
		{"missing section", goodBudget[:strings.Index(goodBudget, "question:")], budget.Config{}, "question: missing", 0},
		{"negative", strings.Replace(goodBudget, "tokens: 20000\n", "tokens: -20000\n", 1), budget.Config{}, "question.tokens: negative amount", 11},
		{"negative usd", strings.Replace(goodBudget, "usd: 5.00", "usd: -5.00", 1), budget.Config{}, "session.usd: negative amount", 3},
		{"fraction of a token", strings.Replace(goodBudget, "tokens: 20000\n", "tokens: 2.5\n", 1), budget.Config{}, "question.tokens: not a whole number", 11},
		{"seven decimals", strings.Replace(goodBudget, "usd: 5.00", "usd: 5.0000001", 1), budget.Config{}, "session.usd: not a dollar amount", 3},
		{"too large", strings.Replace(goodBudget, "tokens: 200000", "tokens: 99999999999999999999", 1), budget.Config{}, "session.tokens: too large", 4},
		{"repeated component", strings.Replace(goodBudget, "  tool_calls: 10\n", "  tool_calls: 10\n  tool_calls: 10\n", 1), budget.Config{}, "question.tool_calls: repeated", 13},
		{"repeated section", goodBudget + "session:\n  usd: 1\n", budget.Config{}, "session: repeated", 15},
		{"flow style", "session: {usd: 1}\n", budget.Config{}, "session: expected a block mapping", 1},
		{"a list", "session:\n  - usd: 1\n", budget.Config{}, "session: expected a mapping", 1},
		{"not a mapping", "just text\n", budget.Config{}, "expected a mapping of session and question", 1},
		{"empty amount", strings.Replace(goodBudget, "tokens: 200000", "tokens:", 1), budget.Config{}, "session.tokens: no amount", 4},
		{"question above session", strings.Replace(goodBudget, "tool_calls: 10\n", "tool_calls: 101\n", 1), budget.Config{}, "question.tool_calls: larger than the session's", 0},
		{"empty", "", budget.Config{}, "session: missing", 0},
		{"not YAML", "session:\n  usd: [\n", budget.Config{}, "not a YAML document", 0},
		{"prices", goodBudget + pricesDoc, withPrices, "", 0},
		{"prices, none under it", goodBudget + "prices:\n", good, "", 0},
		{"price's unknown key", goodBudget + strings.Replace(pricesDoc, "output: 0.6", "outptu: 0.6", 1), budget.Config{}, "prices.gpt-4o-mini: unknown key (did you mean output?)", 18},
		{"price missing", goodBudget + strings.Replace(pricesDoc, "    output: 0.6\n", "", 1), budget.Config{}, "prices.gpt-4o-mini: missing output", 16},
		{"price negative", goodBudget + strings.Replace(pricesDoc, "input: 0.15", "input: -0.15", 1), budget.Config{}, "prices.gpt-4o-mini.input: negative amount", 17},
		{"price seven decimals", goodBudget + strings.Replace(pricesDoc, "input: 0.15", "input: 0.0000001", 1), budget.Config{}, "prices.gpt-4o-mini.input: not a dollar amount", 17},
		{"price repeated", goodBudget + strings.Replace(pricesDoc, "    output: 0.6\n", "    output: 0.6\n    output: 0.6\n", 1), budget.Config{}, "prices.gpt-4o-mini.output: repeated", 19},
		{"price not a mapping", goodBudget + "prices:\n  gpt-4o-mini: 0.15\n", budget.Config{}, "prices.gpt-4o-mini: expected a mapping of input and output", 16},
		{"prices not a mapping", goodBudget + "prices: 5\n", budget.Config{}, "prices: expected a mapping of model names to prices", 15},
		{"not a model name", goodBudget + strings.Replace(pricesDoc, "gpt-4o-mini:", "'-x y':", 1), budget.Config{}, "prices: not a model name", 16},
		{"misspelt section", goodBudget + strings.Replace(pricesDoc, "prices:", "price:", 1), budget.Config{}, "unknown key (did you mean prices?)", 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseBudgetYAML([]byte(tt.doc))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("parseBudgetYAML: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("parseBudgetYAML = %+v, want %+v", got, tt.want)
				}
				return
			}
			var ce *budget.ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, budget.ErrConfig) {
				t.Fatalf("err = %v, want a *budget.ConfigError", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantErr)
			}
			if tt.line != 0 && ce.Line != tt.line {
				t.Errorf("line = %d, want %d", ce.Line, tt.line)
			}
		})
	}
}

// TestParseBudgetYAML_NoEcho: an unknown key or a bad value is never
// repeated in the error.
func TestParseBudgetYAML_NoEcho(t *testing.T) {
	const probe = "zzprobezz"
	for _, doc := range []string{
		strings.Replace(goodBudget, "tool_calls: 100", probe+": 100", 1),
		strings.Replace(goodBudget, "question:", probe+":", 1),
		strings.Replace(goodBudget, "tokens: 200000", "tokens: "+probe, 1),
		strings.Replace(goodBudget, "usd: 5.00", "usd: "+probe, 1),
		strings.Replace(goodBudget, "  tool_calls: 100\n", "  "+probe+": 1\n  "+probe+": 2\n", 1),
		probe + "\n",
		probe + ": [\n",
		goodBudget + strings.Replace(pricesDoc, "gpt-4o-mini:", "'"+probe+" x':", 1),
		goodBudget + strings.Replace(pricesDoc, "output: 0.6", probe+": 0.6", 1),
		goodBudget + strings.Replace(pricesDoc, "output: 0.6", "output: "+probe, 1),
	} {
		_, err := parseBudgetYAML([]byte(doc))
		if err == nil || strings.Contains(err.Error(), probe) {
			t.Errorf("err = %v: want an error that does not repeat the input", err)
		}
	}
}

func FuzzParseBudgetYAML(f *testing.F) {
	f.Add(goodBudget)
	f.Add("session:\n  usd: 1\n")
	f.Add("---\nsession:\n    usd: '1'\n")
	f.Add("question:\n  tokens: -5\n")
	f.Add("session: {}\n")
	f.Add("a: &x 1\nb: *x\n")
	f.Add(goodBudget + pricesDoc)
	f.Fuzz(func(t *testing.T, doc string) {
		c, err := parseBudgetYAML([]byte(doc))
		if err != nil {
			if !errors.Is(err, budget.ErrConfig) {
				t.Fatalf("error %v is not a budget config error", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted an invalid config: %v", err)
		}
	})
}
