package tool

import (
	"slices"
	"unicode/utf8"
)

// TimestampPattern is the pattern of a Timestamp parameter. The wall
// still judges every value (the pattern admits 2026-13-45, the wall does
// not), as it does an entity id against its declared ids.
const TimestampPattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$`

// InputSchema returns the JSON Schema (draft 2020-12 vocabulary, without a
// "$schema" key, which some OpenAI-compatible servers refuse) of a tool's
// arguments: an object whose properties are exactly d's parameters, each
// required unless Optional, no others allowed. Every string is constrained
// by a pattern (ids, timestamps) or an enum (states, conditions); there is
// no free-string parameter but a Statement (the free SQL tool's, bounded
// in length; the sandbox judges it): the pattern and the enum come from
// the Param.
// Integers carry their bounds, arrays their items' schema and maximum
// length, objects their fields' schemas (no other key allowed).
// A parameter of unknown kind gets the schema
// {"not": {}}, which no value satisfies, so a registry mistake fails closed.
//
// It is a pure function of the registry: every surface (model tool
// schemas, MCP, REST descriptions) calls it rather than writing its own.
// Each call returns a fresh map the caller may modify.
func InputSchema(d Def) map[string]any {
	props := make(map[string]any, len(d.Params))
	required := make([]string, 0, len(d.Params))
	for _, p := range d.Params {
		props[p.Name] = paramSchema(p)
		if !p.Optional {
			required = append(required, p.Name)
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// paramSchema returns one parameter's schema.
func paramSchema(p Param) map[string]any {
	s := map[string]any{"type": "string", "description": p.Description}
	switch p.Kind {
	case EntityID:
		s["pattern"] = p.Pattern
	case Timestamp:
		s["pattern"] = TimestampPattern
	case Token:
		s["pattern"] = p.Pattern
	case Statement:
		// maxLength counts characters: a bound the wall's byte bound
		// implies, never a looser one.
		s["minLength"], s["maxLength"] = 1, p.MaxBytes
	case Enum:
		s["enum"] = slices.Clone(p.Values)
	case Integer:
		s["type"], s["minimum"], s["maximum"] = "integer", p.Min, p.Max
	case Boolean:
		s["type"] = "boolean"
	case Array:
		if p.Items == nil {
			return map[string]any{"not": map[string]any{}, "description": p.Description}
		}
		s["type"], s["items"], s["maxItems"] = "array", paramSchema(*p.Items), p.MaxItems
	case Object:
		props := make(map[string]any, len(p.Fields))
		required := make([]string, 0, len(p.Fields))
		for _, f := range p.Fields {
			props[f.Name] = paramSchema(f)
			if !f.Optional {
				required = append(required, f.Name)
			}
		}
		s["type"], s["properties"], s["required"], s["additionalProperties"] = "object", props, required, false
	default:
		return map[string]any{"not": map[string]any{}, "description": p.Description}
	}
	return s
}

// AskName is the tool that runs the whole grounded pipeline for one
// natural-language question (the engine chooses the call). It is not on
// the closed menu: the surfaces offer it beside the menu's tools.
const AskName = "ask"

// AskDescription describes the ask tool over the data a registry is about
// (Registry.About).
func AskDescription(about string) string {
	return "Answer one natural-language question about " + about + ": the engine chooses a tool from the closed menu, verifies the answer against the events behind it, or abstains when no tool covers the question."
}

// MaxQuestionLength bounds a question, in characters (Unicode code
// points), as the ask schema's maxLength counts them.
const MaxQuestionLength = 4096

// QuestionTooLong reports whether q is longer than MaxQuestionLength
// characters.
func QuestionTooLong(q string) bool { return utf8.RuneCountInString(q) > MaxQuestionLength }

// AskSchema is the ask tool's input schema: one bounded question string.
func AskSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"question": map[string]any{
				"type":        "string",
				"minLength":   1,
				"maxLength":   MaxQuestionLength,
				"description": "The question, in plain language.",
			},
		},
		"required":             []any{"question"},
		"additionalProperties": false,
	}
}

// CheckGroundingName is the tool that checks any text against a ledger of
// numerals (package grounding): it reads no data, so it is offered beside
// the closed menu, not on it.
const CheckGroundingName = "check_grounding"

// CheckGroundingDescription describes the check_grounding tool.
const CheckGroundingDescription = "Check that every numeral in a text is backed by a ledger of computed numbers: " +
	"returns PASS, or REFUSE with the unmatched numerals and the allowances that fired."

// CheckGroundingSchema is the check_grounding tool's input schema: the
// text, the ledger (as in the ground command's ledger file), and
// optionally the question and the policy.
func CheckGroundingSchema() map[string]any {
	numeral := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"value":  map[string]any{"type": []any{"number", "string"}, "description": "The number (unix seconds, or an ISO string, for timestamps and dates)."},
			"unit":   map[string]any{"enum": []any{"count", "cents", "usd", "eur", "gbp", "ratio", "percent", "timestamp", "date", "id"}},
			"id":     map[string]any{"type": "string", "maxLength": 64, "description": "An identifier the text may name, like st-003."},
			"window": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 2, "maxItems": 2, "description": "[start, end] (UTC): a cited instant inside it is allowed."},
		},
		"additionalProperties": false,
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"text":     map[string]any{"type": "string", "minLength": 1, "maxLength": 65536, "description": "The text to check."},
			"question": map[string]any{"type": "string", "maxLength": 4096, "description": "The question the text answers (numerals echoed from it are allowed)."},
			"policy":   map[string]any{"enum": []any{"default", "strict"}, "description": "strict turns the four allowances off."},
			"ledger": map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"numerals": map[string]any{"type": "array", "items": numeral}},
				"required":             []any{"numerals"},
				"additionalProperties": false,
			},
		},
		"required":             []any{"text", "ledger"},
		"additionalProperties": false,
	}
}
