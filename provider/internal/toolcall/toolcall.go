// Package toolcall is what the model providers (provider/openai,
// provider/anthropic) share about a tool call a model proposes: the menu's
// tool schemas for the provider's strict mode, the strict reading of a
// call's arguments, and the schema check whose failure earns the model one
// retry.
//
// The check here is the schema's, not the wall's: it knows the menu a
// provider was handed (tool names, parameter sets, patterns, enumerations)
// and nothing else (no declared ids, no query syntax, no window order). A
// proposal that passes it still goes to the wall; one that fails it twice
// goes to the wall too, which rejects it.
package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/tool"
)

// The system prompts of the two model jobs, the same for every catalog
// and provider: the menu's tool descriptions say what the data is. They
// are part of every cassette key.
const (
	SelectPrompt = "You route questions to tools. " +
		"If exactly one of the provided tools answers the question, call it once, copying ids, " +
		"the names of states, statuses and conditions, and UTC timestamps (YYYY-MM-DDTHH:MM:SSZ) exactly as the question gives them. " +
		"If no tool answers the question, or the question lacks a value the tool needs, reply without calling any tool; never guess a value. " +
		"Never answer the question yourself."
	ComposePrompt = "You write one display sentence that answers a question from a verified value. " +
		"The user message is JSON with the question, the tool that computed the value, the tool's arguments and the value " +
		"(null means no observation; a number is in the unit the tool's description gives). " +
		"State the value exactly; add no other facts, caveats or formatting. Reply with the sentence only."
)

// composeRequest is the user message of a compose call. It has no field
// for provenance.
type composeRequest struct {
	Question  string            `json:"question"`
	Tool      string            `json:"tool"`
	Arguments map[string]string `json:"arguments"`
	Value     fact.Value        `json:"value"`
}

// ComposeMessage is the user message of a compose call: the question, the
// tool, its arguments and the value as one JSON object (HTML characters
// as written), never the provenance.
func ComposeMessage(in provider.ComposeInput) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(composeRequest{in.Question, in.Tool, in.Args, in.Value}); err != nil {
		return "", fmt.Errorf("encode compose input: %w", err)
	}
	return strings.TrimSpace(buf.String()), nil
}

// Log attribute keys of the retry line.
const (
	KeyProvider = "provider"
	KeyTool     = "tool"
	KeyParam    = "param"
	KeyReason   = "reason"
)

// RetryMessage is the line a provider logs when it retries a proposal.
const RetryMessage = "retry tool call that fails its schema"

// Logger returns l, or a logger that discards everything when l is nil.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return l
}

// LogRetry logs one retry of provider's proposal that failed with err.
func LogRetry(l *slog.Logger, provider string, err *SchemaError) {
	l.Warn(RetryMessage,
		slog.String(KeyProvider, provider),
		slog.String(KeyTool, err.Tool),
		slog.String(KeyParam, err.Param),
		slog.String(KeyReason, err.Reason))
}

// Args reads a tool call's arguments as the model wrote them with the one
// strict decoder (package strictjson): numbers stay json.Number, so one
// beyond float64 reaches the wall, which names its parameter, instead of
// making every argument vanish. Arguments that are not one strict JSON
// object (a repeated key included) give an empty, non-nil map, which the
// schema check and the wall reject.
func Args(raw []byte) map[string]any {
	var m map[string]any
	if err := strictjson.Decode(raw, &m, nil); err != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// Schema returns d's input schema (tool.InputSchema) and whether it keeps
// within the JSON Schema subset that the strict tool modes of OpenAI
// (function "strict": true) and Anthropic (tool "strict": true) accept:
// an object whose properties are all required, with additionalProperties
// false, each property a string with at most a description, a pattern
// and an enum. A provider requests strict mode only for a schema in that
// subset; any other schema (a registry mistake: tool.InputSchema gives a
// parameter of unknown kind {"not": {}}) is sent without it, and the
// schema check and the wall still refuse every value for it.
func Schema(d tool.Def) (map[string]any, bool) {
	s := tool.InputSchema(d)
	return s, Strict(s)
}

// Strict reports whether schema keeps within the strict-mode subset (see
// Schema).
func Strict(schema map[string]any) bool {
	for k := range schema {
		if !slices.Contains([]string{"type", "properties", "required", "additionalProperties"}, k) {
			return false
		}
	}
	props, ok := schema["properties"].(map[string]any)
	if schema["type"] != "object" || schema["additionalProperties"] != false || !ok {
		return false
	}
	var required []string
	switch r := schema["required"].(type) {
	case []string:
		required = r
	case []any:
		for _, v := range r {
			s, ok := v.(string)
			if !ok {
				return false
			}
			required = append(required, s)
		}
	default:
		return false
	}
	if len(required) != len(props) {
		return false
	}
	for _, name := range required {
		p, ok := props[name].(map[string]any)
		if !ok || !strictString(p) {
			return false
		}
	}
	return true
}

// strictString reports whether a property schema is a string with at most
// a description, a pattern and an enum of strings.
func strictString(p map[string]any) bool {
	if p["type"] != "string" {
		return false
	}
	for k, v := range p {
		switch k {
		case "type":
		case "description", "pattern":
			if _, ok := v.(string); !ok {
				return false
			}
		case "enum":
			switch e := v.(type) {
			case []string:
				if len(e) == 0 {
					return false
				}
			case []any:
				if len(e) == 0 {
					return false
				}
				for _, x := range e {
					if _, ok := x.(string); !ok {
						return false
					}
				}
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// SchemaError is why a proposal fails its tool's schema. Tool and Param
// are names from the menu, never from the model: a tool off the menu
// leaves Tool empty, an unexpected parameter leaves Param empty. No field
// holds a proposed value. Its text is what the model is told on a retry.
type SchemaError struct {
	Tool   string
	Param  string
	Reason string
}

func (e *SchemaError) Error() string {
	switch {
	case e.Tool == "":
		return "check proposal: " + e.Reason
	case e.Param == "":
		return fmt.Sprintf("check proposal: tool %s: %s", e.Tool, e.Reason)
	}
	return fmt.Sprintf("check proposal: tool %s: parameter %s %s", e.Tool, e.Param, e.Reason)
}

// Check reports whether p satisfies the schema of its tool on menu: the
// tool is on the menu, the parameters are exactly the tool's, and each
// value is a string its parameter's pattern or enumeration admits (a
// timestamp matches tool.TimestampPattern). It returns a *SchemaError for
// the first failure, or nil.
func Check(menu []tool.Def, p tool.Proposal) error {
	i := slices.IndexFunc(menu, func(d tool.Def) bool { return d.Name == p.Tool })
	if i < 0 {
		names := make([]string, len(menu))
		for j, d := range menu {
			names[j] = d.Name
		}
		return &SchemaError{Reason: fmt.Sprintf("the tool is not on the menu (%s)", joinNames(names))}
	}
	d := menu[i]
	for name := range p.Params {
		if !slices.ContainsFunc(d.Params, func(q tool.Param) bool { return q.Name == name }) {
			return &SchemaError{Tool: d.Name, Reason: "has an unexpected parameter; its parameters are " + paramNames(d)}
		}
	}
	for _, q := range d.Params {
		v, ok := p.Params[q.Name]
		if !ok && q.Optional {
			continue
		}
		if !ok {
			return &SchemaError{Tool: d.Name, Param: q.Name, Reason: "is missing"}
		}
		if q.Kind != tool.EntityID && q.Kind != tool.Timestamp && q.Kind != tool.Enum {
			continue // arrays, objects, integers, booleans: the wall judges them whole
		}
		s, ok := v.(string)
		if !ok {
			return &SchemaError{Tool: d.Name, Param: q.Name, Reason: "must be a string"}
		}
		if reason := outOfSchema(q, s); reason != "" {
			return &SchemaError{Tool: d.Name, Param: q.Name, Reason: reason}
		}
	}
	return nil
}

// outOfSchema returns why s is outside q's schema, or "".
func outOfSchema(q tool.Param, s string) string {
	switch q.Kind {
	case tool.EntityID:
		if !matches(q.Pattern, s) {
			return "must match " + q.Pattern
		}
	case tool.Timestamp:
		if !matches(tool.TimestampPattern, s) {
			return "must be a UTC timestamp like 2026-01-06T08:00:00Z"
		}
	case tool.Enum:
		if !slices.Contains(q.Values, s) {
			return "must be one of " + joinNames(q.Values)
		}
	default:
		return "has no domain"
	}
	return ""
}

// patterns caches compiled parameter patterns; a pattern that does not
// compile is cached as nil and admits nothing.
var patterns sync.Map // string → *regexp.Regexp

func matches(pattern, s string) bool {
	v, ok := patterns.Load(pattern)
	if !ok {
		re, err := regexp.Compile(pattern)
		if err != nil {
			re = nil
		}
		v, _ = patterns.LoadOrStore(pattern, re)
	}
	re := v.(*regexp.Regexp)
	return re != nil && re.MatchString(s)
}

func paramNames(d tool.Def) string {
	names := make([]string, len(d.Params))
	for i, q := range d.Params {
		names[i] = q.Name
	}
	return joinNames(names)
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// RetryPrompt is what the model is told after a proposal that failed its
// schema with err: the error and how to answer.
func RetryPrompt(err *SchemaError) string {
	return "The call was refused: " + err.Error() + ". " +
		"Call one of the provided tools again with arguments that satisfy its schema, copied from the question, " +
		"or reply without calling any tool if the question does not give them; never guess a value."
}
