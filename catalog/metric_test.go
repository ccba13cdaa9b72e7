package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// retailText is catalogs/retail.yaml, whose metrics the tests below edit.
func retailText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../catalogs/retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMetrics_Examples(t *testing.T) {
	for _, name := range []string{"retail", "warehouse"} {
		t.Run(name, func(t *testing.T) {
			c, err := LoadFS(os.DirFS("../catalogs"), name+".yaml")
			if err != nil {
				t.Fatalf("LoadFS = %v", err)
			}
			if len(c.Metrics) < 6 {
				t.Errorf("%d metrics, want at least 6", len(c.Metrics))
			}
			for _, m := range c.Metrics {
				if c.ModelOf(m) == nil {
					t.Errorf("metric %s: no model", m.Name.Value)
				}
				if m.Type.Value == MetricDerived && m.Expression == nil {
					t.Errorf("metric %s: expression not parsed", m.Name.Value)
				}
			}
		})
	}
}

// TestMetrics_Errors edits one metric declaration of the retail catalog and
// checks the error: its position (the line holding the edited text, and a
// column) and its message, did-you-mean included.
func TestMetrics_Errors(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		at       string // the text on the error's line (the new text when empty)
		col      int
		want     string
	}{
		{"metric name not snake case", "  - name: scan_count\n", "  - name: ScanCount\n", "", 11,
			"metric name `ScanCount`: want snake_case"},
		{"duplicate metric name", "  - name: average_shelf_price\n", "  - name: scan_count\n", "", 11,
			"duplicate metric name `scan_count`"},
		{"ratio part not a measure", "    numerator: price_mismatch_scans\n", "    numerator: price_mismatch_scan\n", "", 16,
			"unknown measure `price_mismatch_scan`; did you mean `price_mismatch_scans`?"},
		{"domain min not below max", "    domain: {min: 0, max: 1}\n    grain: none", "    domain: {min: 1, max: 0}\n    grain: none", "", 27,
			"metric `out_of_stock_share`: domain `min` must be less than `max`"},
		{"derived names an unknown metric", "    expr: 1 - non_compliance_share\n", "    expr: 1 - non_compliance_shar\n", "", 11,
			"`expr`: unknown metric `non_compliance_shar`; did you mean `non_compliance_share`?"},
		{"derived expression does not parse", "    expr: 1 - non_compliance_share\n", "    expr: 1 - (non_compliance_share\n", "", 11,
			"`expr`: want ) at character 26"},
		{"derived expression is SQL", "    expr: 1 - non_compliance_share\n", "    expr: '1; DROP TABLE events'\n", "", 11,
			"`expr`: unexpected character at character 2"},
		{"unknown dimension", "    dimensions: [store, category]\n    measure: products_seen", "    dimensions: [store, categry]\n    measure: products_seen", "    dimensions: [store, categry]", 25,
			"metric `distinct_products_observed`: unknown dimension `categry`; did you mean `category`?"},
		{"unknown time dimension", "    time_dimension: scan_time\n    dimensions: [store, product, category, state, compliance_flag]", "    time_dimension: scan_tim\n    dimensions: [store, product, category, state, compliance_flag]", "    time_dimension: scan_tim", 21,
			"did you mean `scan_time`?"},
		{"fixture outside the directory", "    fixture: fixtures/retail/scan_count.yaml\n", "    fixture: ../scan_count.yaml\n", "", 14,
			"metric `scan_count`: `fixture` wants a relative path ending .yaml inside the catalog's directory"},
		{"unknown aggregation", "{name: shelf_price_mean, agg: avg,", "{name: shelf_price_mean, agg: agv,", "", 39,
			"unknown aggregation `agv`; did you mean `avg`?"},
		{"avg over an enumerated column", "agg: avg, column: price_cents}", "agg: avg, column: state}", "", 52,
			"measure `shelf_price_mean`: unknown numeric attribute column `state`"},
		{"dimension from a reference column not declared", "column: category\n        values:", "column: categry\n        values:", "        column: categry", 17,
			"dimension `category`: unknown column of the reference of `product` `categry`; did you mean `category`?"},
		{"unknown metric type", "    type: cumulative\n", "    type: cumulativ\n", "", 11,
			"unknown metric type `cumulativ`; did you mean `cumulative`?"},
		{"phrase naming two metrics", "    phrases: [out-of-stock share,", "    phrases: [scan count,", "", 15,
			"metric `out_of_stock_share`: phrase `scan count` already names metric `scan_count`"},
		{"phrase not lowercase words", "    phrases: [scan count,", "    phrases: [Scan  Count,", "", 15,
			"phrase `Scan  Count`: want lowercase words separated by single spaces"},
		{"duplicate phrase", "    phrases: [scan count, number of scans,", "    phrases: [scan count, scan count,", "", 27,
			"duplicate phrase `scan count`"},
		{"empty phrases", "    phrases: [scan count, number of scans, shelf scans]\n", "    phrases: []\n", "  - name: scan_count", 5,
			"want at least one phrase in the list"},
		{"unknown unit", "    unit: cents\n    domain: {min: 0}", "    unit: cent\n    domain: {min: 0}", "    unit: cent", 11,
			"unknown unit `cent`; did you mean `cents`?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := retailText(t)
			if strings.Count(src, tt.old) < 1 {
				t.Fatalf("edit: %q is not in retail.yaml", tt.old)
			}
			in := strings.Replace(src, tt.old, tt.new, 1)
			_, err := Load(strings.NewReader(in), "retail.yaml")
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Load = %v, want an ErrorList", err)
			}
			at := tt.at
			if at == "" {
				at = strings.TrimRight(tt.new, "\n")
				at = at[:strings.IndexByte(at+"\n", '\n')]
			}
			// The line of the edited text, else of the first at in the file.
			i := strings.Index(src, tt.old) + strings.Index(tt.new, at)
			if strings.Index(tt.new, at) < 0 {
				i = strings.Index(in, at)
			}
			line := strings.Count(in[:i], "\n") + 1
			prefix := fmt.Sprintf("retail.yaml:%d:%d: ", line, tt.col)
			for _, e := range list {
				if strings.HasPrefix(e.Error(), prefix) && strings.Contains(e.Message, tt.want) {
					return
				}
			}
			t.Errorf("no error %q %q in:\n%v", prefix, tt.want, err)
		})
	}
}

func TestMetrics_GrainOfLatestMeasure(t *testing.T) {
	src := retailText(t)
	old := "    grain: none\n    time_dimension: scan_time\n    dimensions: [store, product, category]\n    numerator: out_of_stock_pairs"
	in := strings.Replace(src, old, strings.Replace(old, "grain: none", "grain: day", 1), 1)
	_, err := Load(strings.NewReader(in), "retail.yaml")
	if err == nil || !strings.Contains(err.Error(), "measure `observed_pairs` (sample latest) is not bucketed by time; want grain `none`") {
		t.Errorf("Load = %v, want the grain refused", err)
	}
}

func TestMetrics_Cycle(t *testing.T) {
	src := retailText(t)
	in := strings.Replace(src, "    expr: 1 - non_compliance_share\n", "    expr: 1 - compliant_share\n", 1)
	_, err := Load(strings.NewReader(in), "retail.yaml")
	if err == nil || !strings.Contains(err.Error(), "metric `compliant_share` depends on itself (through `compliant_share`)") {
		t.Errorf("Load = %v, want the cycle refused", err)
	}
	// A longer cycle: a derived metric reading one that reads it.
	in = strings.Replace(src, "    expr: 1 - non_compliance_share\n", "    expr: 1 - twin\n", 1)
	in = strings.Replace(in, "  - name: average_shelf_price\n    type: simple\n", "  - name: twin\n    type: derived\n    expr: compliant_share * 1\n    definition: A twin.\n    owner: x\n    unit: share\n    grain: day\n    time_dimension: scan_time\n    dimensions: [store]\n    fixture: fixtures/retail/scan_count.yaml\n  - name: average_shelf_price\n    type: simple\n", 1)
	_, err = Load(strings.NewReader(in), "retail.yaml")
	if err == nil || !strings.Contains(err.Error(), "depends on itself") {
		t.Errorf("Load = %v, want the cycle refused", err)
	}
}

func TestCheckFixtures(t *testing.T) {
	src := retailText(t)
	fsys := fstest.MapFS{"retail.yaml": {Data: []byte(src)}}
	for _, f := range []string{"scan_count", "out_of_stock_share", "price_mismatch_share", "non_compliance_share",
		"compliant_share", "average_shelf_price", "distinct_products_observed"} {
		fsys["fixtures/retail/"+f+".yaml"] = &fstest.MapFile{Data: []byte("x")}
	}
	_, err := LoadFS(fsys, "retail.yaml")
	i := strings.Index(src, "fixture: fixtures/retail/cumulative_scans.yaml")
	want := fmt.Sprintf("retail.yaml:%d:14: metric `cumulative_scans`: fixture file `fixtures/retail/cumulative_scans.yaml` does not exist",
		strings.Count(src[:i], "\n")+1)
	if err == nil || err.Error() != want {
		t.Errorf("LoadFS = %v, want %s", err, want)
	}
	fsys["fixtures/retail/cumulative_scans.yaml"] = &fstest.MapFile{Data: []byte("x")}
	if _, err := LoadFS(fsys, "retail.yaml"); err != nil {
		t.Errorf("LoadFS with every fixture = %v", err)
	}
}

func TestParseExpr(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  string
	}{
		{"a + b * c", "(a + (b * c))", ""},
		{"(a + b) * c", "((a + b) * c)", ""},
		{"a - b - c", "((a - b) - c)", ""},
		{"a / (b / 3600)", "(a / (b / 3600))", ""},
		{"1 - x", "(1 - x)", ""},
		{"2.5*x", "(2.5 * x)", ""},
		{"", "", "want a metric, a number or ( at character 1"},
		{"a +", "", "want a metric, a number or ( at character 4"},
		{"a b", "", "unexpected character at character 3"},
		{"-a", "", "want a metric, a number or ( at character 1"},
		{"1.", "", "want a digit after . at character 3"},
		{"A", "", "want a metric, a number or ( at character 1"},
		{"sum(a)", "", "unexpected character at character 4"},
		{"a; drop", "", "unexpected character at character 2"},
		{strings.Repeat("(", 20) + "a" + strings.Repeat(")", 20), "", "nested deeper than 16"},
		{strings.Repeat("1", 400), "", "longer than 256 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			e, err := ParseExpr(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("ParseExpr(%q) = %v, want error %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseExpr(%q) = %v", tt.in, err)
			}
			if e.String() != tt.want {
				t.Errorf("ParseExpr(%q) = %s, want %s", tt.in, e.String(), tt.want)
			}
		})
	}
}

func TestExpr_Eval(t *testing.T) {
	e, err := ParseExpr("faults / (seconds / 3600)")
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]float64{"faults": 2, "seconds": 25200}
	get := func(n string) (float64, bool) { v, ok := vals[n]; return v, ok }
	if v, err := e.Eval(get); err != nil || v != 2.0/7 {
		t.Errorf("Eval = %v, %v; want 2/7", v, err)
	}
	vals["seconds"] = 0
	if _, err := e.Eval(get); !errors.Is(err, ErrNoValue) {
		t.Errorf("Eval over a zero divisor = %v, want ErrNoValue", err)
	}
	delete(vals, "faults")
	if _, err := e.Eval(get); !errors.Is(err, ErrNoValue) {
		t.Errorf("Eval without a value = %v, want ErrNoValue", err)
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"a + b", "(a - 1) * 2.5 / b", "fault_count / (observed_time / 3600)", "((", "1..2", "a b", ")", "9999999999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		e, err := ParseExpr(in)
		if err != nil {
			var ee *ExprError
			if !errors.As(err, &ee) || ee.Offset < 0 || ee.Offset > len(in) {
				t.Fatalf("error %v is not an *ExprError inside the input", err)
			}
			// Fixed text and a number: never the input.
			if !exprMessage.MatchString(err.Error()) {
				t.Fatalf("error message %q is not of the fixed form", err)
			}
			return
		}
		for _, m := range e.Metrics() {
			if !snakeCase.MatchString(m) {
				t.Fatalf("metric name %q is not snake_case", m)
			}
		}
		// The tree renders back to an expression that parses to itself
		// (when the fully parenthesised form stays within the limits).
		again, err := ParseExpr(e.String())
		if err != nil {
			if strings.Contains(err.Error(), "nested deeper") || strings.Contains(err.Error(), "longer than") {
				return
			}
			t.Fatalf("ParseExpr(String()) = %v for %q", err, e.String())
		}
		if again.String() != e.String() {
			t.Fatalf("round trip %q -> %q", e.String(), again.String())
		}
	})
}

var exprMessage = regexp.MustCompile(`^expression: [a-z (),.0-9]+ at character [0-9]+$`)

// TestSchema_RefusesInvalidMetrics: the editor schema and Load agree on
// metric declarations that are wrong in form.
func TestSchema_RefusesInvalidMetrics(t *testing.T) {
	s := compileSchema(t)
	src := retailText(t)
	tests := []struct {
		name     string
		old, new string
	}{
		{"unknown metric key", "    owner: pricing\n", "    owner: pricing\n    ower: x\n"},
		{"missing fixture", "    fixture: fixtures/retail/scan_count.yaml\n", ""},
		{"ratio with a measure", "    numerator: price_mismatch_scans\n", "    numerator: price_mismatch_scans\n    measure: scans\n"},
		{"simple without a measure", "    measure: shelf_price_mean\n", ""},
		{"unknown aggregation", "{name: scans, agg: count}", "{name: scans, agg: total}"},
		{"avg without a column", "agg: avg, column: price_cents}", "agg: avg}"},
		{"count with a column", "{name: scans, agg: count}", "{name: scans, agg: count, column: price_cents}"},
		{"condition and filter", "agg: count, condition: PRICE_MISMATCH}", "agg: count, condition: PRICE_MISMATCH, filter: {attribute: state, op: eq, value: IN_STOCK}}"},
		{"unknown grain", "    grain: none\n", "    grain: hour\n"},
		{"unknown metric unit", "    unit: share\n", "    unit: ratio\n"},
		{"unknown dimension type", "{name: scan_time, type: time, column: timestamp}", "{name: scan_time, type: date, column: timestamp}"},
		{"time dimension from a reference", "{name: scan_time, type: time, column: timestamp}", "{name: scan_time, type: time, column: timestamp, entity: product}"},
		{"definition on two lines", "    definition: The number of shelf scans recorded in the window.\n", "    definition: \"The number of\\nshelf scans.\"\n"},
		{"tolerance of one", "    fixture: fixtures/retail/scan_count.yaml\n", "    fixture: fixtures/retail/scan_count.yaml\n    tolerance: 1\n"},
		{"empty reference columns", "columns: [category]", "columns: []"},
		{"empty phrases", "    phrases: [scan count, number of scans, shelf scans]\n", "    phrases: []\n"},
		{"phrase not lowercase words", "    phrases: [scan count,", "    phrases: [Scan Count,"},
		{"duplicate phrase", "    phrases: [scan count, number of scans,", "    phrases: [scan count, scan count,"},
		{"phrase not a string", "    phrases: [scan count,", "    phrases: [{a: b},"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(src, tt.old) {
				t.Fatalf("edit: %q is not in retail.yaml", tt.old)
			}
			in := strings.Replace(src, tt.old, tt.new, 1)
			if err := s.Validate(yamlInstance(t, in)); err == nil {
				t.Errorf("schema accepts a catalog with %s", tt.name)
			}
			if _, err := Load(strings.NewReader(in), "c.yaml"); err == nil {
				t.Errorf("Load accepts a catalog with %s", tt.name)
			}
		})
	}
}

// TestSchema_MetricEnums: the editor schema's closed sets for metrics are
// the Go ones.
func TestSchema_MetricEnums(t *testing.T) {
	b, err := os.ReadFile("../catalogs/catalog.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		def, prop string
		want      []string
	}{
		{"measure", "agg", Aggs()},
		{"measure", "sample", []string{SampleRows, SampleLatest}},
		{"metric", "type", MetricTypes()},
		{"metric", "grain", Grains()},
		{"metric", "unit", MetricUnits()},
		{"dimension", "type", []string{DimCategorical, DimTime}},
	}
	for _, tt := range tests {
		got := s.Defs[tt.def].Properties[tt.prop].Enum
		if !slices.Equal(got, tt.want) {
			t.Errorf("schema %s.%s = %v, want %v", tt.def, tt.prop, got, tt.want)
		}
	}
}
