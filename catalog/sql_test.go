package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// withSQL is the retail catalog with a `sql:` section appended.
func withSQL(t *testing.T, section string) string {
	t.Helper()
	return retailText(t) + "sql:\n" + section
}

func TestSQL_Valid(t *testing.T) {
	tests := []struct {
		name, section string
		want          []string
	}{
		{"deny only", "  deny: [stores]\n", []string{"events", "products"}},
		{"allow only", "  allow: [events, products, stores]\n", []string{"events", "products", "stores"}},
		{"allow in any order and case", "  allow: [Stores, events, products]\n", []string{"events", "products", "stores"}},
		{"allow and deny", "  allow: [events, products]\n  deny: [stores]\n", []string{"events", "products"}},
		{"everything denied", "  allow: []\n  deny: [events, stores, products]\n", nil},
		{"empty section", "  deny: []\n", []string{"events", "products", "stores"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(strings.NewReader(withSQL(t, tt.section)), "retail.yaml")
			if err != nil {
				t.Fatalf("Load = %v", err)
			}
			if got := c.Allowlist(); !slices.Equal(got, tt.want) {
				t.Errorf("Allowlist = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSQL_Errors: each error of the `sql:` section, at its line and
// column (the section starts on line base+1, its first list on base+2).
func TestSQL_Errors(t *testing.T) {
	tests := []struct {
		name, section string
		line, col     int // line relative to the `sql:` key
		want          string
	}{
		{"deny names an undeclared table", "  deny: [store]\n", 1, 10,
			"`deny`: unknown table `store`; did you mean `stores`?"},
		{"deny names a dataset not its table", "  deny: [scans]\n", 1, 10,
			"`deny`: unknown table `scans`"},
		{"duplicate deny", "  deny: [stores, Stores]\n", 1, 18,
			"duplicate table `Stores` in `deny`"},
		{"lists intersect", "  allow: [events, products, stores]\n  deny: [stores]\n", 1, 29,
			"table `stores` is in both `allow` and `deny`"},
		{"allow misses a table", "  allow: [events, products]\n", 1, 10,
			"`allow` is not the derived allowlist (the tables the datasets, their references and the metrics declare, minus `deny`): missing `stores`"},
		{"allow has an extra table", "  allow: [events, products, stores, secrets]\n", 1, 10,
			"extra `secrets`"},
		{"allow misses and has extra", "  allow: [events, product, stores]\n", 1, 10,
			"missing `products`; extra `product`"},
		{"allow has a denied table's neighbour", "  allow: [events, stores, products]\n  deny: [products]\n", 1, 27,
			"table `products` is in both `allow` and `deny`"},
		{"duplicate allow", "  allow: [events, products, stores, events]\n", 1, 37,
			"duplicate table `events` in `allow`"},
		{"unknown key", "  alow: [events]\n", 1, 3,
			"unknown key `alow`; did you mean `allow`?"},
		{"allow not a list", "  allow: events\n", 1, 10,
			"`allow`: want a list"},
		{"empty name", "  deny: ['']\n", 1, 10,
			"`deny`: want a table name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := withSQL(t, tt.section)
			_, err := Load(strings.NewReader(src), "retail.yaml")
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Load = %v, want an ErrorList", err)
			}
			line := strings.Count(retailText(t), "\n") + 1 + tt.line
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

// TestSQL_TablesIncludeMetricTables: the metrics read only declared
// tables, so the derived allowlist is the declared tables' (the union
// adds nothing a dataset does not declare), and denying a table removes
// it from both.
func TestSQL_TablesIncludeMetricTables(t *testing.T) {
	c, err := Load(strings.NewReader(withSQL(t, "  deny: [products]\n")), "retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.MetricTables() {
		if !slices.Contains(c.Tables(), m) {
			t.Errorf("metric table %s is not declared", m)
		}
	}
	if got, want := c.MetricTables(), []string{"events", "products"}; !slices.Equal(got, want) {
		t.Errorf("MetricTables = %v, want %v", got, want)
	}
	if slices.Contains(c.Allowlist(), "products") {
		t.Errorf("Allowlist %v holds the denied table", c.Allowlist())
	}
}

func TestSchema_SQL(t *testing.T) {
	s := compileSchema(t)
	good := []string{"  deny: [stores]\n", "  allow: [events, products, stores]\n"}
	for _, sec := range good {
		if err := s.Validate(yamlInstance(t, withSQL(t, sec))); err != nil {
			t.Errorf("schema refuses %q: %v", sec, err)
		}
	}
	bad := []struct{ name, section string }{
		{"unknown key", "  alow: [events]\n"},
		{"allow not a list", "  allow: events\n"},
		{"duplicate deny", "  deny: [stores, stores]\n"},
		{"empty name", "  deny: ['']\n"},
		{"name a number", "  deny: [1]\n"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			in := withSQL(t, tt.section)
			if err := s.Validate(yamlInstance(t, in)); err == nil {
				t.Errorf("schema accepts a catalog with %s", tt.name)
			}
			if _, err := Load(strings.NewReader(in), "c.yaml"); err == nil {
				t.Errorf("Load accepts a catalog with %s", tt.name)
			}
		})
	}
}

// TestSQL_EverySubsetDenied: for every subset of the retail tables
// denied, writing out the derived allowlist validates, and leaving out
// any one of its tables, or adding a denied one, does not.
func TestSQL_EverySubsetDenied(t *testing.T) {
	tables := []string{"events", "stores", "products"}
	for mask := range 1 << len(tables) {
		var deny, allow []string
		for i, tb := range tables {
			if mask&(1<<i) != 0 {
				deny = append(deny, tb)
			} else {
				allow = append(allow, tb)
			}
		}
		section := func(allow []string) string {
			return "  allow: [" + strings.Join(allow, ", ") + "]\n  deny: [" + strings.Join(deny, ", ") + "]\n"
		}
		t.Run(fmt.Sprint(deny), func(t *testing.T) {
			c, err := Load(strings.NewReader(withSQL(t, section(allow))), "retail.yaml")
			if err != nil {
				t.Fatalf("Load = %v", err)
			}
			want := slices.Clone(allow)
			slices.Sort(want)
			if got := c.Allowlist(); !slices.Equal(got, want) {
				t.Errorf("Allowlist = %v, want %v", got, want)
			}
			for i := range allow {
				short := slices.Delete(slices.Clone(allow), i, i+1)
				if _, err := Load(strings.NewReader(withSQL(t, section(short))), "retail.yaml"); err == nil || !strings.Contains(err.Error(), "missing `"+allow[i]+"`") {
					t.Errorf("allow without %s: Load = %v", allow[i], err)
				}
			}
			for _, d := range deny {
				long := append(slices.Clone(allow), d)
				if _, err := Load(strings.NewReader(withSQL(t, section(long))), "retail.yaml"); err == nil || !strings.Contains(err.Error(), "in both `allow` and `deny`") {
					t.Errorf("allow with denied %s: Load = %v", d, err)
				}
			}
		})
	}
}

func TestSQL_Free(t *testing.T) {
	tests := []struct {
		name, section string
		free          bool
		limits        SQLLimits
	}{
		{"absent", "  deny: []\n", false, SQLLimits{}},
		{"off", "  free: false\n", false, SQLLimits{}},
		{"on", "  free: true\n", true, SQLLimits{}},
		{"on with limits", "  free: true\n  limits:\n    row_budget: 5000000\n    max_rows: 200\n    max_bytes: 65536\n    memory_mb: 128\n    timeout: 5s\n",
			true, SQLLimits{RowBudget: 5_000_000, MaxRows: 200, MaxBytes: 65536, MemoryMB: 128, Timeout: 5 * time.Second}},
		{"on with some limits", "  free: true\n  limits: {max_rows: 10}\n", true, SQLLimits{MaxRows: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(strings.NewReader(withSQL(t, tt.section)), "retail.yaml")
			if err != nil {
				t.Fatalf("Load = %v", err)
			}
			if c.FreeSQL() != tt.free {
				t.Errorf("FreeSQL = %t, want %t", c.FreeSQL(), tt.free)
			}
			var got SQLLimits
			if c.SQL.Limits != nil {
				got = *c.SQL.Limits
				got.Pos = Pos{}
			}
			if got != tt.limits {
				t.Errorf("Limits = %+v, want %+v", got, tt.limits)
			}
		})
	}
}

// TestSQL_FreeErrors: each error of `free` and `limits`, at its line and
// column relative to the `sql:` key.
func TestSQL_FreeErrors(t *testing.T) {
	tests := []struct {
		name, section string
		line, col     int
		want          string
	}{
		{"free not a boolean", "  free: yes please\n", 1, 9, "`free`: want true or false"},
		{"misspelt free", "  fre: true\n", 1, 3, "unknown key `fre`; did you mean `free`?"},
		{"misspelt limit", "  free: true\n  limits:\n    max_row: 5\n", 3, 5, "unknown key `max_row`; did you mean `max_rows`?"},
		{"limit not an integer", "  free: true\n  limits:\n    row_budget: lots\n", 3, 17, "`row_budget`: want an integer"},
		{"limit a float", "  free: true\n  limits:\n    max_rows: 1.5\n", 3, 15, "`max_rows`: want an integer"},
		{"limit zero", "  free: true\n  limits:\n    max_bytes: 0\n", 3, 16, "`max_bytes`: want an integer of at least 1"},
		{"memory too small", "  free: true\n  limits:\n    memory_mb: 8\n", 3, 16, "`memory_mb`: want an integer of at least 16"},
		{"timeout not a duration", "  free: true\n  limits:\n    timeout: soon\n", 3, 14, "`timeout`: want a duration like 10s"},
		{"timeout too long", "  free: true\n  limits:\n    timeout: 1h\n", 3, 14, "at most 5m0s"},
		{"limits without free", "  limits:\n    max_rows: 5\n", 2, 5, "`limits` bound free SQL, which is off"},
		{"free with nothing to read", "  free: true\n  deny: [events, stores, products]\n", 1, 9, "free SQL needs at least one table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(withSQL(t, tt.section)), "retail.yaml")
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Load = %v, want an ErrorList", err)
			}
			line := strings.Count(retailText(t), "\n") + 1 + tt.line
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

func TestSchema_SQLFree(t *testing.T) {
	s := compileSchema(t)
	good := []string{"  free: true\n", "  free: true\n  limits: {row_budget: 100, max_rows: 5, max_bytes: 10, memory_mb: 16, timeout: 2s}\n"}
	for _, sec := range good {
		if err := s.Validate(yamlInstance(t, withSQL(t, sec))); err != nil {
			t.Errorf("schema refuses %q: %v", sec, err)
		}
	}
	for _, sec := range []string{"  free: 1\n", "  free: true\n  limits: {max_row: 5}\n", "  free: true\n  limits: {memory_mb: 8}\n", "  free: true\n  limits: {timeout: soon}\n"} {
		in := withSQL(t, sec)
		if err := s.Validate(yamlInstance(t, in)); err == nil {
			t.Errorf("schema accepts %q", sec)
		}
		if _, err := Load(strings.NewReader(in), "c.yaml"); err == nil {
			t.Errorf("Load accepts %q", sec)
		}
	}
}
