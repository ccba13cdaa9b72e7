package tool_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/tool"
)

// structuredDef is a tool with every structured kind: an enumerated name,
// an array of enums, an array of objects holding an array of tokens, an
// integer, an optional boolean and a window.
func structuredDef() tool.Def {
	dim := tool.Param{Kind: tool.Enum, Values: []string{"zone", "device"}, Description: "a dimension"}
	filter := tool.Param{Kind: tool.Object, Description: "a filter", Fields: []tool.Param{
		{Name: "dimension", Kind: tool.Enum, Values: []string{"zone", "device"}, Description: "d"},
		{Name: "op", Kind: tool.Enum, Values: []string{"eq", "in"}, Description: "o"},
		{Name: "values", Kind: tool.Array, MaxItems: 3, Description: "v",
			Items: &tool.Param{Kind: tool.Token, Pattern: `^[a-z0-9-]{1,16}$`, Hint: "a value", Description: "a value"}},
	}}
	return tool.Def{Name: "q", Value: "table", Params: []tool.Param{
		{Name: "metric", Kind: tool.Enum, Values: []string{"availability"}, Description: "m"},
		{Name: "dimensions", Kind: tool.Array, Optional: true, MaxItems: 2, Items: &dim, Description: "ds"},
		{Name: "filters", Kind: tool.Array, Optional: true, MaxItems: 2, Items: &filter, Description: "fs"},
		{Name: "limit", Kind: tool.Integer, Optional: true, Min: 0, Max: 10, Description: "l"},
		{Name: "desc", Kind: tool.Boolean, Optional: true, Description: "b"},
		{Name: "start", Kind: tool.Timestamp, Description: "s"},
		{Name: "end", Kind: tool.Timestamp, Description: "e"},
	}}
}

func structuredWall(t testing.TB, check tool.CallCheck) *tool.Wall {
	t.Helper()
	reg, err := tool.NewRegistry([]tool.Def{structuredDef()}, "zone")
	if err != nil {
		t.Fatal(err)
	}
	w := tool.NewWall(reg, nil)
	if check != nil {
		w = w.WithCheck("q", check)
	}
	return w
}

func params(t testing.TB, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber() // as the surfaces' strict decoder keeps numbers
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewRegistry_StructuredKinds(t *testing.T) {
	bad := map[string]tool.Param{
		"array without items":  {Name: "p", Kind: tool.Array, MaxItems: 1},
		"array without a max":  {Name: "p", Kind: tool.Array, Items: &tool.Param{Kind: tool.Boolean}},
		"object without field": {Name: "p", Kind: tool.Object},
		"object field twice": {Name: "p", Kind: tool.Object, Fields: []tool.Param{
			{Name: "a", Kind: tool.Boolean}, {Name: "a", Kind: tool.Boolean}}},
		"reversed bounds":         {Name: "p", Kind: tool.Integer, Min: 3, Max: 1},
		"token without a hint":    {Name: "p", Kind: tool.Token, Pattern: `^a$`},
		"unanchored token":        {Name: "p", Kind: tool.Token, Pattern: `a`, Hint: "a"},
		"bad item deep in":        {Name: "p", Kind: tool.Array, MaxItems: 1, Items: &tool.Param{Kind: tool.Enum}},
		"unknown kind of a field": {Name: "p", Kind: tool.Object, Fields: []tool.Param{{Name: "a", Kind: tool.ParamKind(99)}}},
	}
	for name, p := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := tool.NewRegistry([]tool.Def{{Name: "t", Value: "table", Params: []tool.Param{p}}}, "zone")
			if !errors.Is(err, tool.ErrInvalidRegistry) {
				t.Errorf("NewRegistry = %v, want ErrInvalidRegistry", err)
			}
		})
	}
	if _, err := tool.NewRegistry([]tool.Def{structuredDef()}, "zone"); err != nil {
		t.Errorf("NewRegistry(structured) = %v", err)
	}
}

// leafProblem returns why any string inside a schema is unconstrained.
func leafProblem(s map[string]any) string {
	switch s["type"] {
	case "array":
		return leafProblem(s["items"].(map[string]any))
	case "object":
		for _, f := range s["properties"].(map[string]any) {
			if why := leafProblem(f.(map[string]any)); why != "" {
				return why
			}
		}
		return ""
	case "integer", "boolean":
		return ""
	}
	return constraintProblem(s)
}

func TestInputSchema_Structured(t *testing.T) {
	s := tool.InputSchema(structuredDef())
	if req := s["required"].([]string); strings.Join(req, ",") != "metric,start,end" {
		t.Errorf("required = %v, want the parameters that are not optional", req)
	}
	props := s["properties"].(map[string]any)
	for name, p := range props {
		if why := leafProblem(p.(map[string]any)); why != "" {
			t.Errorf("%s: %s", name, why)
		}
	}
	b, err := json.Marshal(props["filters"])
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"description":"fs","items":{"additionalProperties":false,"description":"a filter","properties":{"dimension":{"description":"d","enum":["zone","device"],"type":"string"},"op":{"description":"o","enum":["eq","in"],"type":"string"},"values":{"description":"v","items":{"description":"a value","pattern":"^[a-z0-9-]{1,16}$","type":"string"},"maxItems":3,"type":"array"}},"required":["dimension","op","values"],"type":"object"},"maxItems":2,"type":"array"}`
	if string(b) != want {
		t.Errorf("filters schema\n%s\nwant\n%s", b, want)
	}
	if l := props["limit"].(map[string]any); l["type"] != "integer" || l["minimum"] != 0 || l["maximum"] != 10 {
		t.Errorf("limit schema %v", l)
	}
}

func TestWall_Structured(t *testing.T) {
	const window = `"start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"`
	tests := []struct {
		name   string
		params string
		kind   tool.RejectKind
		param  string
		secret string
		args   map[string]string // accepted: the call's arguments
	}{
		{name: "required only", params: `{"metric": "availability", ` + window + `}`,
			args: map[string]string{"metric": "availability", "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}},
		{name: "every parameter, canonical", params: `{"metric": "availability", "dimensions": ["zone"], "filters": [{"values": ["zone-01", "zone-02"], "op": "in", "dimension": "zone"}], "limit": 3, "desc": true, ` + window + `}`,
			args: map[string]string{"metric": "availability", "dimensions": `["zone"]`, "filters": `[{"dimension":"zone","op":"in","values":["zone-01","zone-02"]}]`,
				"limit": "3", "desc": "true", "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}},
		{name: "item outside its enum", params: `{"metric": "availability", "dimensions": ["zone", "shoesize"], ` + window + `}`, kind: tool.Invalid, param: "dimensions[1]", secret: "shoesize"},
		{name: "too many items", params: `{"metric": "availability", "dimensions": ["zone", "device", "zone"], ` + window + `}`, kind: tool.Invalid, param: "dimensions"},
		{name: "array as a string", params: `{"metric": "availability", "dimensions": "zone", ` + window + `}`, kind: tool.Invalid, param: "dimensions"},
		{name: "object key not declared", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["a"], "columnx": "b"}], ` + window + `}`, kind: tool.Invalid, param: "filters[0]", secret: "columnx"},
		{name: "object field missing", params: `{"metric": "availability", "filters": [{"dimension": "zone", "values": ["a"]}], ` + window + `}`, kind: tool.Invalid, param: "filters[0].op"},
		{name: "token off its pattern", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["ZONE_UPPER"]}], ` + window + `}`, kind: tool.Invalid, param: "filters[0].values[0]", secret: "ZONE_UPPER"},
		{name: "query inside a nested value", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["a; drop table x"]}], ` + window + `}`, kind: tool.RawQuery, param: "filters", secret: "drop table"},
		{name: "query in a key", params: `{"metric": "availability", "filters": [{"dimension": "zone", "op": "eq", "values": ["a"], "$where": "1"}], ` + window + `}`, kind: tool.RawQuery, param: "filters"},
		{name: "integer too large", params: `{"metric": "availability", "limit": 11, ` + window + `}`, kind: tool.Invalid, param: "limit"},
		{name: "integer with a fraction", params: `{"metric": "availability", "limit": 2.5, ` + window + `}`, kind: tool.Invalid, param: "limit"},
		{name: "integer beyond float64", params: `{"metric": "availability", "limit": 1e400, ` + window + `}`, kind: tool.Invalid, param: "limit"},
		{name: "integer as a string", params: `{"metric": "availability", "limit": "3", ` + window + `}`, kind: tool.Invalid, param: "limit"},
		{name: "integer as an object", params: `{"metric": "availability", "limit": {"$gt": 1}, ` + window + `}`, kind: tool.RawQuery, param: "limit"},
		{name: "boolean as a string", params: `{"metric": "availability", "desc": "yes", ` + window + `}`, kind: tool.Invalid, param: "desc"},
		{name: "required scalar missing", params: `{"metric": "availability", "start": "2026-01-05T00:00:00Z"}`, kind: tool.Invalid, param: "end"},
		{name: "checked by the tool", params: `{"metric": "availability", "dimensions": ["device"], ` + window + `}`, kind: tool.Invalid, param: "dimensions[0]"},
	}
	// The tool's own check refuses device (as metric.Check refuses a
	// dimension the metric does not allow).
	check := func(c tool.Call) *tool.Rejection {
		if strings.Contains(c.Arg("dimensions"), "device") {
			return &tool.Rejection{Kind: tool.Invalid, Param: "dimensions[0]", Reason: "is not a dimension of the metric"}
		}
		return nil
	}
	w := structuredWall(t, check)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := w.Check(tool.Proposal{Tool: "q", Params: params(t, tt.params)})
			if tt.args != nil {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				got := c.Args()
				if len(got) != len(tt.args) {
					t.Errorf("args %v, want %v", got, tt.args)
				}
				for k, v := range tt.args {
					if got[k] != v {
						t.Errorf("arg %s = %s, want %s", k, got[k], v)
					}
				}
				return
			}
			rej, ok := tool.IsRejection(err)
			if !ok {
				t.Fatalf("Check = %v, want a rejection", err)
			}
			if rej.Kind != tt.kind || rej.Param != tt.param {
				t.Errorf("rejection %s %q %q, want %s %q", rej.Kind, rej.Param, rej.Reason, tt.kind, tt.param)
			}
			if tt.secret != "" && strings.Contains(rej.Error(), tt.secret) {
				t.Errorf("rejection %q echoes the value", rej.Error())
			}
		})
	}
}

// FuzzWall_Structured: no structured proposal panics the wall; an
// accepted one's array and object arguments are canonical JSON, and a
// rejection never holds a distinctive string of the input.
func FuzzWall_Structured(f *testing.F) {
	for _, s := range []string{
		`{"metric": "availability", "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}`,
		`{"metric": "availability", "dimensions": ["zone"], "filters": [{"dimension": "zone", "op": "in", "values": ["a", "b"]}], "limit": 3, "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}`,
		`{"filters": [[[[[[["x"]]]]]]]}`,
		`{"filters": [{"dimension": {"a": 1}}], "limit": -1}`,
	} {
		f.Add(s)
	}
	w := structuredWall(f, nil)
	f.Fuzz(func(t *testing.T, s string) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var m map[string]any
		if d.Decode(&m) != nil {
			return
		}
		c, err := w.Check(tool.Proposal{Tool: "q", Params: m})
		if err != nil {
			if _, ok := tool.IsRejection(err); !ok {
				t.Fatalf("Check = %v, want a rejection", err)
			}
			return
		}
		for _, name := range []string{"dimensions", "filters"} {
			if a := c.Arg(name); a != "" {
				var v any
				if json.Unmarshal([]byte(a), &v) != nil {
					t.Fatalf("arg %s is not JSON: %s", name, a)
				}
				again, _ := json.Marshal(v)
				if string(again) != a {
					t.Fatalf("arg %s is not canonical: %s", name, a)
				}
			}
		}
	})
}
