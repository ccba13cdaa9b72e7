package tool_test

import (
	"encoding/json"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"regexp"
	"slices"
	"testing"

	"github.com/provenant/provenant/grounding"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/tool"
)

const (
	storeIDPattern   = `^st-[0-9]{3}$`
	productIDPattern = `^pr-[0-9]{3}$`
)

// constraintProblem returns why a property schema admits an unconstrained
// string, or "" if it is constrained by a pattern, an enum or "not".
func constraintProblem(prop any) string {
	s, ok := prop.(map[string]any)
	if !ok {
		return "property schema is not an object"
	}
	if _, ok := s["not"]; ok {
		return ""
	}
	if s["type"] != "string" {
		return "property is not a string"
	}
	if p, ok := s["pattern"].(string); ok && p != "" {
		return ""
	}
	if e, ok := s["enum"].([]string); ok && len(e) > 0 {
		return ""
	}
	return "string property has neither pattern nor enum"
}

func TestConstraintProblem_CatchesFreeString(t *testing.T) {
	tests := []struct {
		name string
		prop any
		bad  bool
	}{
		{"free string", map[string]any{"type": "string", "description": "anything"}, true},
		{"empty pattern", map[string]any{"type": "string", "pattern": ""}, true},
		{"empty enum", map[string]any{"type": "string", "enum": []string{}}, true},
		{"integer", map[string]any{"type": "integer"}, true},
		{"not an object", "string", true},
		{"pattern", map[string]any{"type": "string", "pattern": storeIDPattern}, false},
		{"enum", map[string]any{"type": "string", "enum": []string{"A"}}, false},
		{"unsatisfiable", map[string]any{"not": map[string]any{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := constraintProblem(tt.prop) != ""; got != tt.bad {
				t.Errorf("constraintProblem(%v) flagged = %v, want %v", tt.prop, got, tt.bad)
			}
		})
	}
}

func TestInputSchema_Menu(t *testing.T) {
	menu := catalogstest.Retail().Menu()
	if len(menu) != 6 {
		t.Fatalf("menu has %d tools, want 6", len(menu))
	}
	for _, d := range menu {
		t.Run(d.Name, func(t *testing.T) {
			s := tool.InputSchema(d)
			if s["type"] != "object" {
				t.Errorf("type = %v, want object", s["type"])
			}
			if s["additionalProperties"] != false {
				t.Errorf("additionalProperties = %v, want false", s["additionalProperties"])
			}
			var names []string
			for _, p := range d.Params {
				names = append(names, p.Name)
			}
			req, _ := s["required"].([]string)
			if !slices.Equal(req, names) {
				t.Errorf("required = %v, want %v", req, names)
			}
			props, _ := s["properties"].(map[string]any)
			if len(props) != len(d.Params) {
				t.Errorf("properties has %d entries, want %d", len(props), len(d.Params))
			}
			for _, p := range d.Params {
				prop, ok := props[p.Name].(map[string]any)
				if !ok {
					t.Errorf("property %s is missing", p.Name)
					continue
				}
				if why := constraintProblem(prop); why != "" {
					t.Errorf("property %s: %s", p.Name, why)
				}
				if prop["description"] != p.Description || p.Description == "" {
					t.Errorf("property %s description = %q, want %q (non-empty)", p.Name, prop["description"], p.Description)
				}
				if _, ok := prop["not"]; ok {
					t.Errorf("property %s is unsatisfiable: its kind has no schema", p.Name)
				}
			}
			if _, err := json.Marshal(s); err != nil {
				t.Errorf("marshal schema: %v", err)
			}
		})
	}
}

func TestInputSchema_Kinds(t *testing.T) {
	tests := []struct {
		name    string
		param   tool.Param
		pattern string
		enum    []string
	}{
		{"store id", tool.Param{Kind: tool.EntityID, Entity: "store", Pattern: storeIDPattern, Hint: "st- and 3 digits"}, storeIDPattern, nil},
		{"product id", tool.Param{Kind: tool.EntityID, Entity: "product", Pattern: productIDPattern, Hint: "pr- and 3 digits"}, productIDPattern, nil},
		{"timestamp", tool.Param{Kind: tool.Timestamp}, tool.TimestampPattern, nil},
		{"state", tool.Param{Kind: tool.Enum, Values: strs(retail.States)}, "", strs(retail.States)},
		{"condition", tool.Param{Kind: tool.Enum, Values: strs(retail.Conditions)}, "", strs(retail.Conditions)},
		{"unknown kind", tool.Param{Kind: tool.ParamKind(99)}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.param
			p.Name, p.Description = "p", "d"
			d := tool.Def{Name: "t", Params: []tool.Param{p}}
			prop := tool.InputSchema(d)["properties"].(map[string]any)["p"].(map[string]any)
			if got, _ := prop["pattern"].(string); got != tt.pattern {
				t.Errorf("pattern = %q, want %q", got, tt.pattern)
			}
			if got, _ := prop["enum"].([]string); !slices.Equal(got, tt.enum) {
				t.Errorf("enum = %v, want %v", got, tt.enum)
			}
			if why := constraintProblem(prop); why != "" {
				t.Errorf("property admits a free string: %s", why)
			}
			if tt.param.Kind == tool.ParamKind(99) {
				if _, ok := prop["not"]; !ok {
					t.Errorf("unknown kind schema = %v, want an unsatisfiable {\"not\": {}}", prop)
				}
			}
		})
	}
}

func strs[T ~string](vs []T) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return s
}

// TestInputSchema_Patterns checks each pattern against values: it must
// admit every value the wall accepts and refuse malformed shapes. (A
// pattern may admit a well-shaped impossible date; the wall refuses it.)
func TestInputSchema_Patterns(t *testing.T) {
	tests := []struct {
		pattern string
		wall    func(string) bool
		value   string
		match   bool
	}{
		{storeIDPattern, retail.IsStoreID, "st-001", true},
		{storeIDPattern, retail.IsStoreID, "st-999", true},
		{storeIDPattern, retail.IsStoreID, "st-01", false},
		{storeIDPattern, retail.IsStoreID, "st-0001", false},
		{storeIDPattern, retail.IsStoreID, "ST-001", false},
		{storeIDPattern, retail.IsStoreID, "st-00a", false},
		{storeIDPattern, retail.IsStoreID, " st-001", false},
		{storeIDPattern, retail.IsStoreID, "st-001\n", false},
		{storeIDPattern, retail.IsStoreID, "pr-001", false},
		{productIDPattern, retail.IsProductID, "pr-007", true},
		{productIDPattern, retail.IsProductID, "pr-7", false},
		{productIDPattern, retail.IsProductID, "pr-0070", false},
		{productIDPattern, retail.IsProductID, "st-007", false},
		{tool.TimestampPattern, tool.IsTimestamp, "2026-01-06T08:00:00Z", true},
		{tool.TimestampPattern, tool.IsTimestamp, "2026-13-45T08:00:00Z", true}, // shape only
		{tool.TimestampPattern, tool.IsTimestamp, "2026-01-06T08:00:00", false},
		{tool.TimestampPattern, tool.IsTimestamp, "2026-01-06 08:00:00Z", false},
		{tool.TimestampPattern, tool.IsTimestamp, "2026-01-06T08:00:00.000Z", false},
		{tool.TimestampPattern, tool.IsTimestamp, "2026-01-06T08:00:00+00:00", false},
		{tool.TimestampPattern, tool.IsTimestamp, "2026-1-6T08:00:00Z", false},
		{tool.TimestampPattern, tool.IsTimestamp, "x2026-01-06T08:00:00Z", false},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got := regexp.MustCompile(tt.pattern).MatchString(tt.value)
			if got != tt.match {
				t.Errorf("%s matches %q = %v, want %v", tt.pattern, tt.value, got, tt.match)
			}
			if tt.wall(tt.value) && !got {
				t.Errorf("%s refuses %q, which the wall accepts", tt.pattern, tt.value)
			}
		})
	}
}

func TestInputSchema_FreshMaps(t *testing.T) {
	reg := catalogstest.Retail()
	d, ok := reg.Lookup("get_price")
	if !ok {
		t.Fatal("get_price is not registered")
	}
	a := tool.InputSchema(d)
	a["properties"].(map[string]any)["store_id"].(map[string]any)["pattern"] = ".*"
	a["required"].([]string)[0] = "changed"
	b := tool.InputSchema(d)
	if got := b["properties"].(map[string]any)["store_id"].(map[string]any)["pattern"]; got != storeIDPattern {
		t.Errorf("pattern after caller mutation = %v, want %v", got, storeIDPattern)
	}
	if got := b["required"].([]string)[0]; got != "store_id" {
		t.Errorf("required[0] after caller mutation = %v, want store_id", got)
	}
	// Enum slices must not alias the registry either.
	s, _ := reg.Lookup("list_products_in_state")
	e := tool.InputSchema(s)["properties"].(map[string]any)["state"].(map[string]any)["enum"].([]string)
	e[0] = "changed"
	s, _ = reg.Lookup("list_products_in_state")
	if got := s.Params[1].Values[0]; got != string(retail.InStock) {
		t.Errorf("state's values[0] after caller mutation = %v", got)
	}
}

// TestCheckGroundingSchema_LengthsAreTheChecks: the schema's maxLength of
// text and question is the limit grounding.Request.Run enforces (both
// count characters).
func TestCheckGroundingSchema_LengthsAreTheChecks(t *testing.T) {
	props := tool.CheckGroundingSchema()["properties"].(map[string]any)
	for _, c := range []struct {
		field string
		limit int
	}{{"text", grounding.MaxRequestText}, {"question", grounding.MaxRequestQuestion}} {
		if got := props[c.field].(map[string]any)["maxLength"]; got != c.limit {
			t.Errorf("%s: schema maxLength %v, check %d", c.field, got, c.limit)
		}
	}
}
