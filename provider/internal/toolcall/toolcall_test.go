package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/catalogs/catalogstest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name, args string
		want       map[string]any
	}{
		{"object", `{"store_id":"st-003"}`, map[string]any{"store_id": "st-003"}},
		{"number beyond float64 is kept", `{"store_id":1e400}`, map[string]any{"store_id": json.Number("1e400")}},
		{"repeated key", `{"a":"x","a":"y"}`, map[string]any{}},
		{"array", `["st-003"]`, map[string]any{}},
		{"null", `null`, map[string]any{}},
		{"truncated", `{"a":`, map[string]any{}},
		{"empty", ``, map[string]any{}},
		{"trailing data", `{"a":"x"} {}`, map[string]any{}},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Args([]byte(tt.args))
			if got == nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Args(%q) = %#v, want %#v", tt.args, got, tt.want)
			}
		})
	}
}

// TestSchema_StrictForEveryCatalogTool: every tool of both example
// catalogs is sent in strict mode, so a schema change that leaves the
// strict subset fails here rather than at a vendor's API.
func TestSchema_StrictForEveryCatalogTool(t *testing.T) {
	for _, name := range []string{"retail", "warehouse"} {
		cat, err := catalogs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := shape.NewRegistry(cat)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range reg.Menu() {
			if _, strict := Schema(d); !strict {
				t.Errorf("tool %s: schema is outside the strict-mode subset", d.Name)
			}
		}
	}
}

func TestStrict(t *testing.T) {
	str := map[string]any{"type": "string", "description": "d", "pattern": "^a$"}
	obj := func(props map[string]any, required []any, mods ...func(map[string]any)) map[string]any {
		s := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
		for _, m := range mods {
			m(s)
		}
		return s
	}
	tests := []struct {
		name   string
		schema map[string]any
		want   bool
	}{
		{"string properties, all required", obj(map[string]any{"a": str}, []any{"a"}), true},
		{"enum", obj(map[string]any{"a": map[string]any{"type": "string", "enum": []any{"X", "Y"}}}, []any{"a"}), true},
		{"no properties", obj(map[string]any{}, []any{}), true},
		{"optional property", obj(map[string]any{"a": str, "b": str}, []any{"a"}), false},
		{"additional properties allowed", obj(map[string]any{"a": str}, []any{"a"}, func(s map[string]any) { s["additionalProperties"] = true }), false},
		{"additional properties unset", obj(map[string]any{"a": str}, []any{"a"}, func(s map[string]any) { delete(s, "additionalProperties") }), false},
		{"not", obj(map[string]any{"a": map[string]any{"not": map[string]any{}}}, []any{"a"}), false},
		{"minLength", obj(map[string]any{"a": map[string]any{"type": "string", "minLength": 1}}, []any{"a"}), false},
		{"integer", obj(map[string]any{"a": map[string]any{"type": "integer"}}, []any{"a"}), false},
		{"empty enum", obj(map[string]any{"a": map[string]any{"type": "string", "enum": []any{}}}, []any{"a"}), false},
		{"required names an absent property", obj(map[string]any{"a": str}, []any{"b"}), false},
		{"$schema key", obj(map[string]any{"a": str}, []any{"a"}, func(s map[string]any) { s["$schema"] = "x" }), false},
		{"not an object", map[string]any{"type": "string"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Strict(tt.schema); got != tt.want {
				t.Errorf("Strict = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	menu := catalogstest.Retail().Menu()
	ok := func() map[string]any {
		return map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": "2026-01-06T08:00:00Z"}
	}
	with := func(k string, v any) map[string]any {
		m := ok()
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name       string
		p          tool.Proposal
		wantTool   string
		wantParam  string
		wantReason string // a substring; "" means valid
	}{
		{"valid", tool.Proposal{Tool: "get_price", Params: ok()}, "", "", ""},
		{"valid enum", tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "EXPIRED", "as_of": "2026-01-06T08:00:00Z"}}, "", "", ""},
		{"undeclared but well-formed id passes: the wall judges it", tool.Proposal{Tool: "get_price", Params: with("store_id", "st-999")}, "", "", ""},
		{"off the menu", tool.Proposal{Tool: "get_weather", Params: map[string]any{"city": "Paris"}}, "", "", "not on the menu (get_stock_state, get_price"},
		{"unexpected parameter", tool.Proposal{Tool: "get_price", Params: with("city", "Paris")}, "get_price", "", "unexpected parameter; its parameters are store_id, product_id, as_of"},
		{"missing parameter", tool.Proposal{Tool: "get_price", Params: with("as_of", nil)}, "get_price", "as_of", "is missing"},
		{"not a string", tool.Proposal{Tool: "get_price", Params: with("store_id", json.Number("3"))}, "get_price", "store_id", "must be a string"},
		{"object value", tool.Proposal{Tool: "get_price", Params: with("store_id", map[string]any{"$gt": ""})}, "get_price", "store_id", "must be a string"},
		{"pattern", tool.Proposal{Tool: "get_price", Params: with("store_id", "ST-003")}, "get_price", "store_id", "must match ^st-[0-9]{3}$"},
		{"timestamp", tool.Proposal{Tool: "get_price", Params: with("as_of", "2026-01-06")}, "get_price", "as_of", "UTC timestamp"},
		{"enum", tool.Proposal{Tool: "count_stores_with_condition", Params: map[string]any{"condition": "expired", "as_of": "2026-01-06T08:00:00Z"}},
			"count_stores_with_condition", "condition", "must be one of OUT_OF_STOCK, LOW_STOCK"},
		{"empty arguments", tool.Proposal{Tool: "get_price", Params: map[string]any{}}, "get_price", "store_id", "is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(menu, tt.p)
			if tt.wantReason == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Check = %v, want a *SchemaError", err)
			}
			if se.Tool != tt.wantTool || se.Param != tt.wantParam || !strings.Contains(se.Reason, tt.wantReason) {
				t.Errorf("Check = %+v, want tool %q param %q reason containing %q", se, tt.wantTool, tt.wantParam, tt.wantReason)
			}
			for _, echo := range []string{"Paris", "city", "ST-003", "2026-01-06\"", "expired", "$gt"} {
				if strings.Contains(err.Error(), echo) {
					t.Errorf("error %q echoes %q", err, echo)
				}
			}
		})
	}
}

func TestLogRetry(t *testing.T) {
	var buf bytes.Buffer
	LogRetry(slog.New(slog.NewJSONHandler(&buf, nil)), "openai:m", &SchemaError{Tool: "get_price", Param: "store_id", Reason: "is missing"})
	var entry map[string]any
	if err := json.Unmarshal(buf.Bytes(), &entry); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"level": "WARN", "msg": RetryMessage, KeyProvider: "openai:m", KeyTool: "get_price", KeyParam: "store_id", KeyReason: "is missing"}
	for k, v := range want {
		if entry[k] != v {
			t.Errorf("log %s = %v, want %v", k, entry[k], v)
		}
	}
	Logger(nil).Warn("discarded") // nil discards, and does not panic
}

// FuzzArgs: any argument text a model writes reads as a non-nil map
// without panicking, and the schema check judges the result without
// panicking either; what it accepts, the wall's own pattern, enum and
// parameter-set checks accept too.
func FuzzArgs(f *testing.F) {
	f.Add("get_price", []byte(`{"store_id":"st-003","product_id":"pr-007","as_of":"2026-01-06T08:00:00Z"}`))
	f.Add("get_price", []byte(`{"store_id":3}`))
	f.Add("count_stores_with_condition", []byte(`{"condition":"EXPIRED","as_of":"2026-01-06T08:00:00Z"}`))
	f.Add("get_weather", []byte(`{"city":"Paris"}`))
	f.Add("get_price", []byte(`{"a":1,"a":2}`))
	f.Add("get_price", []byte(`[`))
	reg := catalogstest.Retail()
	wall := tool.NewWall(reg, nil)
	f.Fuzz(func(t *testing.T, name string, raw []byte) {
		params := Args(raw)
		if params == nil {
			t.Fatal("Args returned nil")
		}
		err := Check(reg.Menu(), tool.Proposal{Tool: name, Params: params})
		if err == nil {
			if _, werr := wall.Check(tool.Proposal{Tool: name, Params: params}); werr != nil {
				if r, ok := tool.IsRejection(werr); !ok || (r.Kind != tool.RawQuery && r.Kind != tool.Invalid) {
					t.Fatalf("schema check passed, wall refused with %v", werr)
				}
			}
		}
	})
}
