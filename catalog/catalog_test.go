package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad_Examples(t *testing.T) {
	tests := []struct {
		file      string
		wantTools []string
		wantScope string
	}{
		{"retail.yaml", []string{"get_stock_state", "get_price", "get_compliance_flag",
			"count_stores_with_condition", "list_products_in_state", "count_events_in_window", "open_restock_task"}, "store"},
		{"warehouse.yaml", []string{"get_device_status", "get_battery_level", "get_temperature",
			"count_devices_with_condition", "list_devices_in_status", "count_status_events_in_window", "open_work_order"}, "zone"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("..", "catalogs", tt.file)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c, err := Load(f, path)
			if err != nil {
				t.Fatalf("Load() = %v", err)
			}
			var got []string
			for _, tool := range c.Tools {
				got = append(got, tool.Name.Value)
			}
			if strings.Join(got, ",") != strings.Join(tt.wantTools, ",") {
				t.Errorf("tools = %v, want %v", got, tt.wantTools)
			}
			if c.ScopeEntity.Value != tt.wantScope {
				t.Errorf("scope entity = %q, want %q", c.ScopeEntity.Value, tt.wantScope)
			}
		})
	}
}

func TestLoad_WarehouseColumns(t *testing.T) {
	f, err := os.Open("../catalogs/warehouse.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := Load(f, "warehouse.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ds := c.Datasets[0]
	got := []string{ds.Key.Value, ds.Time.Value}
	for _, e := range ds.Entities {
		got = append(got, e.Column.Value)
	}
	for _, a := range ds.Attributes {
		got = append(got, a.Column.Value)
	}
	// The columns the warehouse generator writes.
	want := "event_id,ts,device_id,zone_id,device_type,status,battery_pct,temperature_c,fault_code"
	if strings.Join(got, ",") != want {
		t.Errorf("columns = %s, want %s", strings.Join(got, ","), want)
	}
}

// base is a minimal valid catalog; the tests below edit it.
const base = `name: shop
version: "1"
scope_entity: store
datasets:
  - name: scans
    table: events
    key: event_id
    time: ts
    series: [store, product]
    entities:
      - name: store
        column: store_id
        pattern: '^st-[0-9]{3}$'
      - name: product
        column: product_id
        pattern: '^pr-[0-9]{3}$'
    attributes:
      - name: state
        column: state
        values: [IN_STOCK, OUT_OF_STOCK]
      - name: price
        column: price_cents
        unit: cents
    conditions:
      - name: OUT_OF_STOCK
        attribute: state
        op: eq
        value: OUT_OF_STOCK
tools:
  - name: get_state
    description: The state.
    shape: latest_value
    class: scalar
    dataset: scans
    attribute: state
    phrasings: ['What is the state of {product_id} at {store_id} as of {as_of}?']
  - name: count_stores
    description: Count.
    shape: count_entities_where
    class: aggregate
    dataset: scans
    entity: store
    filter:
      param: condition
      conditions: [OUT_OF_STOCK]
    phrasings: ['How many stores have condition {condition} as of {as_of}?']
`

// edit replaces the one occurrence of old in base with new.
func edit(t *testing.T, old, new string) string {
	t.Helper()
	if strings.Count(base, old) != 1 {
		t.Fatalf("edit: %q occurs %d times in base", old, strings.Count(base, old))
	}
	return strings.Replace(base, old, new, 1)
}

func TestParse_Valid(t *testing.T) {
	c, err := Load(strings.NewReader(base), "c.yaml")
	if err != nil {
		t.Fatalf("Load(base) = %v", err)
	}
	if got := c.Datasets[0].Conditions[0].Value.Items[0].Str; got != "OUT_OF_STOCK" {
		t.Errorf("condition value = %q", got)
	}
	if p := c.Tools[1].Filter.Conditions[0].Pos; p != (Pos{45, 20}) {
		t.Errorf("filter condition at %v, want 45:20", p)
	}
}

// TestParse_ByteOrderMark: a UTF-8 byte order mark, which YAML allows and
// some editors write, is no part of the first key, and positions are
// those an editor shows (the mark invisible).
func TestParse_ByteOrderMark(t *testing.T) {
	c, err := Load(strings.NewReader("\uFEFF"+base), "c.yaml")
	if err != nil {
		t.Fatalf("Load(BOM + base) = %v", err)
	}
	if c.Name.Value != "shop" || c.Name.Pos != (Pos{1, 7}) {
		t.Errorf("name = %q at %v, want shop at 1:7", c.Name.Value, c.Name.Pos)
	}
}

func TestParse_Errors(t *testing.T) {
	long := strings.Repeat("x", 65)
	tests := []struct {
		name string
		in   func(t *testing.T) string
		want []string // "line:col: message", in order
	}{
		{"unknown key with suggestion", func(t *testing.T) string {
			return edit(t, "        attribute: state\n        op: eq", "        atribute: state\n        op: eq")
		}, []string{"26:9: unknown key `atribute`; did you mean `attribute`?"}},
		{"unknown key far from all", func(t *testing.T) string {
			return edit(t, "version: \"1\"", "version: \"1\"\nzzzzzzzzzzzz: 1")
		}, []string{"3:1: unknown key `zzzzzzzzzzzz`"}},
		{"long unknown key not echoed", func(t *testing.T) string {
			return edit(t, "version: \"1\"", "version: \"1\"\n"+long+": 1")
		}, []string{"3:1: unknown key"}},
		{"control character key not echoed", func(t *testing.T) string {
			return edit(t, "version: \"1\"", "version: \"1\"\n\"a\\x07b\": 1")
		}, []string{"3:1: unknown key"}},
		{"duplicate key", func(t *testing.T) string {
			return edit(t, "    key: event_id\n", "    key: event_id\n    key: id\n")
		}, []string{"8:5: duplicate key `key` (first at line 7, column 5)"}},
		{"missing required key", func(t *testing.T) string {
			return edit(t, "    time: ts\n", "")
		}, []string{"5:5: dataset: missing key `time`"}},
		{"version not a string", func(t *testing.T) string {
			return edit(t, `version: "1"`, "version: 1")
		}, []string{"2:10: `version`: want a string (quote it)"}},
		{"datasets not a list", func(t *testing.T) string {
			return "name: a\nversion: \"1\"\nscope_entity: s\ndatasets: 3\ntools: []\n"
		}, []string{"4:11: `datasets`: want a list"}},
		{"missing value", func(t *testing.T) string {
			return edit(t, "    table: events", "    table:")
		}, []string{"6:11: `table`: missing value"}},
		{"alias refused", func(t *testing.T) string {
			return edit(t, "    table: events", "    table: &t events\n    files: *t")
		}, []string{"6:12: anchors, aliases, tags and merge keys are not supported",
			"7:12: anchors, aliases, tags and merge keys are not supported"}},
		{"syntax error", func(t *testing.T) string {
			return "name: [a\n"
		}, []string{"1:7: invalid YAML"}},
		// The parser's message quotes the character, so it was replaced
		// by "invalid YAML" alone.
		{"tab as indentation", func(t *testing.T) string {
			return edit(t, "    table: events", "\ttable: events")
		}, []string{"6:1: invalid YAML: a tab where YAML wants spaces (indent with spaces)"}},
		{"reserved character", func(t *testing.T) string {
			return edit(t, "    table: events", "    table: @events")
		}, []string{"6:12: invalid YAML: a reserved character (@ or `) starts a plain value (quote it)"}},
		{"empty", func(t *testing.T) string { return "" }, []string{"1:1: empty catalog"}},
		{"two documents", func(t *testing.T) string { return base + "---\nname: b\n" }, []string{"47:1: more than one YAML document"}},
		{"not a mapping", func(t *testing.T) string { return "- a\n" }, []string{"1:1: catalog: want a mapping"}},
		{"errors sorted and all reported", func(t *testing.T) string {
			s := edit(t, "    shape: latest_value", "    shape: latest_value\n    colour: red")
			return strings.Replace(s, "    table: events", "    tabel: events", 1)
		}, []string{"6:5: unknown key `tabel`; did you mean `table`?", "33:5: unknown key `colour`"}},
		{"too large", func(t *testing.T) string { return "# " + strings.Repeat("x", MaxSize) }, []string{"1:1: catalog larger than 1048576 bytes"}},
		{"conditions nested too deep", func(t *testing.T) string {
			deep := "{attribute: state, op: eq, value: IN_STOCK}"
			for range maxDepth + 1 {
				deep = "{any: [" + deep + "]}"
			}
			return edit(t, "      - name: OUT_OF_STOCK\n        attribute: state\n        op: eq\n        value: OUT_OF_STOCK",
				"      - name: OUT_OF_STOCK\n        any: ["+deep+"]")
		}, []string{"26:70: `any`: conditions nested deeper than 8"}},
		{"nul byte", func(t *testing.T) string { return "name: a\x00" }, []string{"1:1: catalog contains a NUL byte"}},
		{"not UTF-8", func(t *testing.T) string {
			return edit(t, "version: \"1\"", "version: \"1\"\n# café \xe9t\xe9")
		}, []string{"3:8: catalog is not valid UTF-8"}},
		// The YAML parser's time grows with the square of the depth: each
		// of these took seconds to minutes before the bound.
		{"brackets nested too deep", func(t *testing.T) string {
			return "name: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"
		}, []string{"1:134: collections nested deeper than 128 levels"}},
		{"dashes nested too deep", func(t *testing.T) string {
			return "tools:\n  " + strings.Repeat("- ", 20000) + "x\n"
		}, []string{"2:255: collections nested deeper than 128 levels"}},
		{"indentation nested too deep", func(t *testing.T) string {
			var b strings.Builder
			for i := range 200 {
				fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i), i)
			}
			return b.String()
		}, []string{"129:133: collections nested deeper than 128 levels"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tt.in(t)), "c.yaml")
			checkErrors(t, c, err, tt.want)
		})
	}
}

func checkErrors(t *testing.T, c *Catalog, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %q", want)
	}
	if c != nil {
		t.Errorf("got a catalog with an error")
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("error %v does not match ErrInvalid", err)
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not an ErrorList", err)
	}
	var got []string
	for _, e := range list {
		if e.File != "c.yaml" {
			t.Errorf("error file = %q", e.File)
		}
		got = append(got, strings.TrimPrefix(e.Error(), "c.yaml:"))
	}
	if len(got) != len(want) {
		t.Fatalf("errors\n got  %q\n want %q", got, want)
	}
	for i := range got {
		// A syntax error's detail is the parser's; match its prefix.
		if got[i] != want[i] && !(strings.HasSuffix(want[i], "invalid YAML") && strings.HasPrefix(got[i], want[i])) {
			t.Errorf("error %d\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}

func TestValidate_Errors(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"unknown attribute in condition", "        attribute: state\n        op: eq", "        attribute: stat\n        op: eq",
			[]string{"26:20: unknown attribute `stat`; did you mean `state`?"}},
		{"undeclared value", "        value: OUT_OF_STOCK", "        value: OUT_OF_STOK",
			[]string{"28:16: unknown value of attribute `state` `OUT_OF_STOK`; did you mean `OUT_OF_STOCK`?"}},
		{"unknown operator", "        op: eq", "        op: equals",
			[]string{"27:13: unknown operator `equals`"}},
		{"lt on enumerated", "        op: eq", "        op: lt",
			[]string{"27:13: operator `lt` does not apply to enumerated attribute `state` (want one of eq, ne, in, not_in)"}},
		{"in wants a list", "        op: eq", "        op: in",
			[]string{"28:16: operator `in` wants a list of values"}},
		{"numeric condition wants a number",
			"        attribute: state\n        op: eq\n        value: OUT_OF_STOCK", "        attribute: price\n        op: lt\n        value: cheap",
			[]string{"28:16: attribute `price` is numeric: want a number"}},
		{"any and comparison together", "        value: OUT_OF_STOCK", "        value: OUT_OF_STOCK\n        any: [{attribute: price, op: lt, value: 5}]",
			[]string{"25:9: condition: want exactly one of a comparison (`attribute`, `op`, `value`), `any` and `all`"}},
		{"nested any checked", "        attribute: state\n        op: eq\n        value: OUT_OF_STOCK",
			"        any:\n          - {attribute: price, op: lt, value: 5}\n          - {attribute: prise, op: lt, value: 5}",
			[]string{"28:25: unknown attribute `prise`; did you mean `price`?"}},
		{"both table and files", "    table: events", "    table: events\n    files: a.parquet",
			[]string{"7:12: dataset: want exactly one of `table` and `files`, not both"}},
		{"neither table nor files", "    table: events\n", "",
			[]string{"5:5: dataset: want exactly one of `table` and `files`"}},
		{"files not parquet or csv", "    table: events", "    files: data/*.json",
			[]string{"6:12: `files`: want a Parquet or CSV path or glob (ending .parquet or .csv)"}},
		{"files glob with **", "    table: events", "    files: data/**/*.parquet",
			[]string{"6:12: `files`: `**` is not supported (write one `*` for each directory level)"}},
		{"files glob malformed", "    table: events", "    files: 'data/[a.csv'",
			[]string{"6:12: `files`: not a valid glob (an unclosed `[`, a malformed range or a trailing `\\`)"}},
		{"files glob one level", "    table: events", "    files: 'data/*/scans-[0-9]?.csv'",
			nil},
		{"pattern does not compile", `pattern: '^st-[0-9]{3}$'`, `pattern: '^st-[0-9$'`,
			[]string{"13:18: `pattern` does not compile as a Go regexp"}},
		{"pattern not anchored", `pattern: '^st-[0-9]{3}$'`, `pattern: 'st-[0-9]{3}'`,
			[]string{"13:18: `pattern`: want a regexp anchored with ^ and $"}},
		{"name not snake_case", "name: shop", "name: Shop",
			[]string{"1:7: catalog name `Shop`: want snake_case (^[a-z][a-z0-9_]*$)"}},
		{"condition name not upper", "      - name: OUT_OF_STOCK", "      - name: out_of_stock",
			[]string{"25:15: condition name `out_of_stock`: want UPPER_SNAKE_CASE (^[A-Z][A-Z0-9_]*$)",
				"45:20: unknown condition `OUT_OF_STOCK`; did you mean `out_of_stock`?"}},
		{"duplicate tool name", "  - name: count_stores", "  - name: get_state",
			[]string{"37:11: duplicate tool name `get_state`"}},
		{"duplicate column", "        column: price_cents", "        column: state",
			[]string{"22:17: column `state` is already used at line 19, column 17"}},
		{"unknown unit", "unit: cents", "unit: cent",
			[]string{"23:15: unknown unit `cent`; did you mean `cents`?"}},
		{"scope entity missing", "scope_entity: store", "scope_entity: shop",
			[]string{"3:15: scope entity `shop` is not an entity of dataset `scans`, which tool `get_state` uses"}},
		{"scope entity misspelt", "scope_entity: store", "scope_entity: stor",
			[]string{"3:15: scope entity `stor` is not an entity of dataset `scans`, which tool `get_state` uses; did you mean `store`?"}},
		{"series names unknown entity", "series: [store, product]", "series: [store, prodct]",
			[]string{"9:21: unknown entity `prodct`; did you mean `product`?"}},
		{"unknown shape", "shape: latest_value", "shape: latest",
			[]string{"32:12: unknown shape `latest`"}},
		{"unknown shape near", "shape: latest_value", "shape: latest_valu",
			[]string{"32:12: unknown shape `latest_valu`; did you mean `latest_value`?"}},
		{"class does not fit shape", "    class: scalar", "    class: list",
			[]string{"33:12: class `list` does not fit shape `latest_value` (want `scalar`)"}},
		{"answer value in a count", "condition {condition} as of {as_of}?']\n", "condition {condition} as of {as_of}?']\n    answer: {value: 'It is {value}.'}\n",
			[]string{"47:21: answer: {value} is for shape `latest_value`; use {count:one|many} or {ids}"}},
		{"answer names unknown parameter", "condition {condition} as of {as_of}?']\n", "condition {condition} as of {as_of}?']\n    answer: {value: '{count:store|stores} as of {asof}.'}\n",
			[]string{"47:21: answer: unknown parameter `asof`; did you mean `as_of`?"}},
		{"answer template syntax", "condition {condition} as of {as_of}?']\n", "condition {condition} as of {as_of}?']\n    answer: {value: '{count:store} as of {as_of}.'}\n",
			[]string{"47:21: answer: want {count:one|many} or {count?one|many} (at character 1)"}},
		{"phrasing syntax", "How many stores have condition {condition} as of {as_of}?", "How many stores (have|had condition {condition} as of {as_of}?",
			[]string{"46:17: phrasing: unclosed ( (at character 17)"}},
		{"unknown currency", "scope_entity: store\n", "scope_entity: store\ncurrency: usdd\n",
			[]string{"4:11: unknown currency `usdd`; did you mean `usd`?"}},
		{"latest_value of an optional attribute", "        values: [IN_STOCK, OUT_OF_STOCK]\n", "        values: [IN_STOCK, OUT_OF_STOCK]\n        optional: true\n",
			[]string{"36:16: tool `get_state`: attribute `state` is optional; shape `latest_value` wants a required attribute"}},
		{"latest_value names unknown attribute", "    attribute: state\n    phrasings", "    attribute: colour\n    phrasings",
			[]string{"35:16: unknown attribute `colour`"}},
		{"latest_value without attribute", "    attribute: state\n    phrasings", "    phrasings",
			[]string{"30:5: tool `get_state`: shape `latest_value` wants `attribute`"}},
		{"shape takes no filter", "    attribute: state\n    phrasings", "    attribute: state\n    entity: store\n    phrasings",
			[]string{"36:13: tool `get_state`: shape `latest_value` takes no `entity`"}},
		{"unknown dataset", "    dataset: scans\n    entity", "    dataset: scan\n    entity",
			[]string{"41:14: unknown dataset `scan`; did you mean `scans`?"}},
		{"unknown condition in filter", "conditions: [OUT_OF_STOCK]", "conditions: [OUT_OF_STOK]",
			[]string{"45:20: unknown condition `OUT_OF_STOK`; did you mean `OUT_OF_STOCK`?"}},
		{"filter both attribute and conditions", "      param: condition", "      param: condition\n      attribute: state",
			[]string{"44:7: filter: want exactly one of `attribute` and `conditions`"}},
		{"list wants an enumerated attribute", "    shape: count_entities_where\n    class: aggregate\n    dataset: scans\n    entity: store",
			"    shape: list_entities_in_state\n    class: list\n    dataset: scans\n    entity: product\n    at: store",
			[]string{"45:7: filter: shape `list_entities_in_state` wants an enumerated `attribute` (a state), not `conditions`"}},
		{"list filter value undeclared", "      conditions: [OUT_OF_STOCK]", "      attribute: price",
			[]string{"45:18: filter: attribute `price` is numeric; want an enumerated attribute"}},
		{"several errors sorted", "name: shop", "name: Shop\n",
			[]string{"1:7: catalog name `Shop`: want snake_case (^[a-z][a-z0-9_]*$)"}},
		{"phrasing names an unknown parameter", "How many stores have condition {condition} as of {as_of}?", "How many stores have condition {conditon} as of {as_of}?",
			[]string{"46:17: phrasing: unknown parameter `conditon`; did you mean `condition`?"}},
		{"filter param collides", "      param: condition", "      param: as_of",
			[]string{"44:14: filter `param` `as_of` collides with another parameter of the tool",
				"46:17: phrasing: unknown parameter `condition`"}},
		{"empty phrasing", "phrasings: ['How many stores have condition {condition} as of {as_of}?']", "phrasings: ['']",
			[]string{"46:17: phrasing: want a non-empty string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := edit(t, tt.old, tt.new)
			c, err := Parse(strings.NewReader(in), "c.yaml")
			if err != nil {
				t.Fatalf("Parse() = %v", err)
			}
			if tt.want == nil {
				if err := c.Validate(); err != nil {
					t.Fatalf("Validate() = %v, want no error", err)
				}
				return
			}
			checkErrors(t, nil, c.Validate(), tt.want)
		})
	}
}

func TestValidate_CollectsAll(t *testing.T) {
	s := edit(t, "name: shop", "name: Shop")
	s = strings.Replace(s, "unit: cents", "unit: cent", 1)
	s = strings.Replace(s, "shape: latest_value", "shape: latest_valu", 1)
	_, err := Load(strings.NewReader(s), "c.yaml")
	checkErrors(t, nil, err, []string{
		"1:7: catalog name `Shop`: want snake_case (^[a-z][a-z0-9_]*$)",
		"23:15: unknown unit `cent`; did you mean `cents`?",
		"32:12: unknown shape `latest_valu`; did you mean `latest_value`?",
	})
}

func TestNearest(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"atribute", "attribute"},
		{"Attribute", "attribute"},
		{"tabel", "table"},
		{"qqqqqq", ""},
		{"opp", "op"},
		{"valeu", "value"},
	}
	valid := []string{"attribute", "table", "op", "value"}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := nearest(tt.in, valid); got != tt.want {
				t.Errorf("nearest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestParams_Retail: the retail tools take the parameters the README lists.
func TestParams_Retail(t *testing.T) {
	f, err := os.Open("../catalogs/retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := Load(f, "retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"get_stock_state":             "store_id,product_id,as_of",
		"get_price":                   "store_id,product_id,as_of",
		"get_compliance_flag":         "store_id,product_id,as_of",
		"count_stores_with_condition": "condition,as_of",
		"list_products_in_state":      "store_id,state,as_of",
		"count_events_in_window":      "store_id,state,start,end",
		"open_restock_task":           "store_id,product_id,quantity,request_key",
	}
	for _, tool := range c.Tools {
		t.Run(tool.Name.Value, func(t *testing.T) {
			if got := strings.Join(tool.Params(c.Datasets[0]), ","); got != want[tool.Name.Value] {
				t.Errorf("Params() = %s, want %s", got, want[tool.Name.Value])
			}
		})
	}
}
