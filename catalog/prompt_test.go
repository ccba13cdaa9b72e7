package catalog

import (
	"strings"
	"testing"
)

// withPrompt is base with one prompts section appended.
func withPrompt(section string) string { return base + "prompts:\n" + section }

const okPrompt = `  - name: investigate
    description: Investigate a condition.
    arguments:
      - {name: condition, tool: count_stores}
      - {name: as_of, tool: count_stores, description: An instant.}
    text: |
      Call count_stores with condition {condition} as of {as_of}.
`

func TestPrompts_Valid(t *testing.T) {
	c, err := Load(strings.NewReader(withPrompt(okPrompt)), "c.yaml")
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	if len(c.Prompts) != 1 || len(c.Prompts[0].Arguments) != 2 || c.Prompts[0].Arguments[1].Description.Value != "An instant." {
		t.Fatalf("prompts = %+v", c.Prompts)
	}
	if got, want := c.Prompts[0].Text.Value, "Call count_stores with condition {condition} as of {as_of}.\n"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if err := compileSchema(t).Validate(yamlInstance(t, withPrompt(okPrompt))); err != nil {
		t.Errorf("schema refuses a valid prompt: %v", err)
	}
}

// TestPrompts_Invalid: each problem is an error at its position, with the
// nearest valid name where there is one; the schema refuses what it can
// see without cross-references.
func TestPrompts_Invalid(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           string
		schemaToo      bool
	}{
		{"unknown tool", "tool: count_stores}", "tool: count_store}", "unknown tool `count_store`; did you mean `count_stores`?", false},
		{"parameter not of the tool", "{name: condition, tool: count_stores}", "{name: store_id, tool: count_stores}", "unknown parameter `store_id`", false},
		{"text names an undeclared argument", "as of {as_of}.", "as of {as_at}.", "unknown argument `as_at`; did you mean `as_of`?", false},
		{"text uses a value slot", "as of {as_of}.", "as of {value}.", "{value}, {ids} and {count...} are for answers", false},
		{"duplicate argument", "{name: as_of, tool: count_stores, description: An instant.}", "{name: condition, tool: count_stores}", "duplicate prompt argument `condition`", false},
		{"name not snake_case", "name: investigate", "name: Investigate", "prompt name `Investigate`: want snake_case", true},
		{"unknown key", "    text: |", "    txt: x\n    text: |", "unknown key `txt`; did you mean `text`?", true},
		{"missing text", "    text: |\n      Call count_stores with condition {condition} as of {as_of}.\n", "", "prompt: missing key `text`", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Count(okPrompt, tt.old) != 1 {
				t.Fatalf("%q occurs %d times in the prompt", tt.old, strings.Count(okPrompt, tt.old))
			}
			in := withPrompt(strings.Replace(okPrompt, tt.old, tt.new, 1))
			_, err := Load(strings.NewReader(in), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v, want an error containing %q", err, tt.want)
			}
			if tt.schemaToo {
				if err := compileSchema(t).Validate(yamlInstance(t, in)); err == nil {
					t.Errorf("schema accepts a catalog with %s", tt.name)
				}
			}
		})
	}
}
