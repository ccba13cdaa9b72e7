package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles the committed catalog JSON Schema.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs("../catalogs/catalog.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	s, err := c.Compile(path)
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return s
}

// yamlInstance converts YAML to the JSON value the schema validates.
func yamlInstance(t *testing.T, src string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatalf("unmarshal YAML: %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal JSON: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestSchema_Examples(t *testing.T) {
	s := compileSchema(t)
	for _, name := range []string{"retail.yaml", "warehouse.yaml"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "catalogs", name))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "# yaml-language-server: $schema=catalog.schema.json\n") {
				t.Errorf("%s does not start with the yaml-language-server schema comment", name)
			}
			if err := s.Validate(yamlInstance(t, string(b))); err != nil {
				t.Errorf("schema refuses %s: %v", name, err)
			}
		})
	}
	t.Run("base", func(t *testing.T) {
		if err := s.Validate(yamlInstance(t, base)); err != nil {
			t.Errorf("schema refuses base: %v", err)
		}
	})
}

func TestSchema_RefusesInvalid(t *testing.T) {
	s := compileSchema(t)
	tests := []struct {
		name     string
		old, new string
	}{
		{"unknown key", "    time: ts", "    time: ts\n    tme: ts"},
		{"missing required key", "    time: ts\n", ""},
		{"both table and files", "    table: events", "    table: events\n    files: a.parquet"},
		{"files glob with **", "    table: events", "    files: data/**/*.parquet"},
		{"unknown unit", "unit: cents", "unit: cent"},
		{"unknown operator", "        op: eq", "        op: equals"},
		{"in wants a list", "        op: eq", "        op: in"},
		{"condition name not upper", "      - name: OUT_OF_STOCK", "      - name: out_of_stock"},
		{"tool name not snake", "  - name: get_state", "  - name: GetState"},
		{"class does not fit shape", "    class: scalar", "    class: list"},
		{"latest_value without attribute", "    attribute: state\n    phrasings", "    phrasings"},
		{"values and unit", "        unit: cents", "        unit: cents\n        values: [A]"},
		{"version a number", `version: "1"`, "version: 1"},
		{"comparison and any", "        value: OUT_OF_STOCK", "        value: OUT_OF_STOCK\n        any: [{attribute: price, op: lt, value: 5}]"},
		{"synonym not lowercase words", "        values: [IN_STOCK, OUT_OF_STOCK]\n", "        values: [IN_STOCK, OUT_OF_STOCK]\n        synonyms: {IN_STOCK: [In Stock]}\n"},
		{"synonyms on a numeric attribute", "        unit: cents\n", "        unit: cents\n        synonyms: {CHEAP: [cheap]}\n"},
		{"noun not lowercase words", "        column: store_id\n", "        column: store_id\n        nouns: ['Shop!']\n"},
		{"keywords empty", "    attribute: state\n    phrasings", "    attribute: state\n    keywords: []\n    phrasings"},
		{"condition synonym not a list", "      - name: OUT_OF_STOCK\n", "      - name: OUT_OF_STOCK\n        synonyms: sold out\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := edit(t, tt.old, tt.new)
			if err := s.Validate(yamlInstance(t, in)); err == nil {
				t.Errorf("schema accepts a catalog with %s", tt.name)
			}
			// The schema and Load agree: Load refuses it too.
			if _, err := Load(strings.NewReader(in), "c.yaml"); err == nil {
				t.Errorf("Load accepts a catalog with %s", tt.name)
			}
		})
	}
}
