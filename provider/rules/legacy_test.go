package rules_test

// The rules parser and sentences as they were before the catalog declared
// them (hand-written regular expressions and format strings), kept as the
// reference the catalog's phrasings and templates must reproduce.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/tool"
)

const (
	ts  = `(.+?)`                       // a timestamp as written; the wall checks it
	tok = `(.+?)`                       // an id or enum token as written, spaces included
	end = `\s*[?.!]?\s*$`               // optional closing punctuation
	of  = `(?:of|for)`                  // "price of", "price for"
	at  = `(?:at|in|for|from)`          // "at st-003", "in st-003"
	is  = `(?:what(?:'s|\s+is|\s+was))` // "what is", "what's", "what was"
)

type template struct {
	re    *regexp.Regexp
	build func(m []string) tool.Proposal
}

func mustCompile(pattern string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*` + pattern + end)
}

func scalar(name string) func(m []string) tool.Proposal {
	return func(m []string) tool.Proposal {
		return tool.Proposal{Tool: name, Params: map[string]any{"product_id": m[1], "store_id": m[2], "as_of": m[3]}}
	}
}

var templates = []template{
	{mustCompile(is + `\s+the\s+(?:stock|shelf)\s+state\s+` + of + `\s+` + tok + `\s+` + at + `\s+` + tok + `\s+as\s+of\s+` + ts),
		scalar("get_stock_state")},
	{mustCompile(is + `\s+the\s+(?:shelf\s+)?price\s+` + of + `\s+` + tok + `\s+` + at + `\s+` + tok + `\s+as\s+of\s+` + ts),
		scalar("get_price")},
	{mustCompile(is + `\s+the\s+compliance\s+(?:flag|status)\s+` + of + `\s+` + tok + `\s+` + at + `\s+` + tok + `\s+as\s+of\s+` + ts),
		scalar("get_compliance_flag")},
	{mustCompile(`how\s+many\s+stores\s+(?:have|had|has|show|showed)\s+(?:the\s+)?condition\s+` + tok + `\s+as\s+of\s+` + ts),
		func(m []string) tool.Proposal {
			return tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": enum(m[1]), "as_of": m[2]}}
		}},
	{mustCompile(`(?:which|what)\s+products\s+(?:are|were)\s+in\s+(?:the\s+)?state\s+` + tok + `\s+` + at + `\s+` + tok + `\s+as\s+of\s+` + ts),
		func(m []string) tool.Proposal {
			return tool.Proposal{Tool: "list_products_in_state", Params: map[string]any{"state": enum(m[1]), "store_id": m[2], "as_of": m[3]}}
		}},
	{mustCompile(`how\s+many\s+` + tok + `\s+(?:events|scans)\s+(?:were|was)\s+recorded\s+` + at + `\s+` + tok + `\s+in\s+\[\s*` + ts + `\s*,\s*` + ts + `\s*\)`),
		window},
	{mustCompile(`how\s+many\s+` + tok + `\s+(?:events|scans)\s+(?:were|was)\s+recorded\s+` + at + `\s+` + tok + `\s+between\s+` + ts + `\s+and\s+` + ts),
		window},
}

func window(m []string) tool.Proposal {
	return tool.Proposal{Tool: "count_events_in_window", Params: map[string]any{"state": enum(m[1]), "store_id": m[2], "start": m[3], "end": m[4]}}
}

// enum normalises an enumeration token's case; the wall judges the rest.
func enum(s string) string { return strings.ToUpper(s) }

// legacySelect matches the question against the legacy templates.
func legacySelect(question string) *tool.Proposal {
	for _, t := range templates {
		if m := t.re.FindStringSubmatch(question); m != nil {
			p := t.build(m)
			return &p
		}
	}
	return nil
}

// Sentence renders a value as a plain English sentence, by code alone.
func legacySentence(toolName string, args map[string]string, v fact.Value) string {
	store, product, asOf := args["store_id"], args["product_id"], args["as_of"]
	switch toolName {
	case "get_stock_state", "get_price", "get_compliance_flag":
		what := map[string]string{"get_stock_state": "stock state", "get_price": "price", "get_compliance_flag": "compliance flag"}[toolName]
		if !v.Observed {
			return fmt.Sprintf("No scan of %s at %s was recorded at or before %s, so its %s is not known.", product, store, asOf, what)
		}
		val := v.Text
		if v.Kind == fact.KindInteger {
			val = fmt.Sprintf("$%d.%02d (%d cents)", v.Int/100, v.Int%100, v.Int)
		}
		return fmt.Sprintf("The %s of %s at %s as of %s is %s.", what, product, store, asOf, val)
	case "count_stores_with_condition":
		if v.Count == 0 {
			return fmt.Sprintf("No store has condition %s as of %s.", args["condition"], asOf)
		}
		return fmt.Sprintf("%s condition %s as of %s: %s.", plural(v.Count, "store has", "stores have"), args["condition"], asOf, strings.Join(v.IDs, ", "))
	case "list_products_in_state":
		if len(v.IDs) == 0 {
			return fmt.Sprintf("No product is in state %s at %s as of %s.", args["state"], store, asOf)
		}
		return fmt.Sprintf("%s in state %s at %s as of %s: %s.", plural(len(v.IDs), "product is", "products are"), args["state"], store, asOf, strings.Join(v.IDs, ", "))
	case "count_events_in_window":
		return fmt.Sprintf("%s with state %s %s recorded for %s in [%s, %s).",
			plural(v.Count, "scan", "scans"), args["state"], map[bool]string{true: "was", false: "were"}[v.Count == 1], store, args["start"], args["end"])
	}
	return "The answer is not available as a sentence."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
