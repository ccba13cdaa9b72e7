package allowlist_test

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/sandbox/allowlist"
)

func TestFromCatalog(t *testing.T) {
	tests := []struct {
		catalog string
		deny    []string
		want    []string
	}{
		{"retail", nil, []string{"events", "products", "stores"}},
		{"retail", []string{"Stores"}, []string{"events", "products"}},
		{"warehouse", nil, []string{"status_events"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.catalog, tt.deny), func(t *testing.T) {
			cat, err := catalogs.Load(tt.catalog)
			if err != nil {
				t.Fatal(err)
			}
			if got := allowlist.FromCatalog(cat, tt.deny); !slices.Equal(got, tt.want) {
				t.Errorf("FromCatalog = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFromCatalog_SQLDeny: the catalog's sql.deny always applies, and
// the deny argument (a --deny flag) adds to it.
func TestFromCatalog_SQLDeny(t *testing.T) {
	b, err := fs.ReadFile(catalogs.Files(), "retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(strings.NewReader(string(b)+"sql:\n  deny: [stores]\n"), "retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ deny, want []string }{
		{nil, []string{"events", "products"}},
		{[]string{"PRODUCTS"}, []string{"events"}},
	} {
		if got := allowlist.FromCatalog(cat, tt.deny); !slices.Equal(got, tt.want) {
			t.Errorf("FromCatalog(%v) = %v, want %v", tt.deny, got, tt.want)
		}
	}
}

func ExampleFromCatalog() {
	cat, err := catalogs.Load("retail")
	if err != nil {
		panic(err)
	}
	fmt.Println(allowlist.Tables(cat))
	fmt.Println(allowlist.FromCatalog(cat, []string{"products"}))
	// Output:
	// [events stores products]
	// [events stores]
}

func TestLimits(t *testing.T) {
	b, err := fs.ReadFile(catalogs.Files(), "retail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def := sandbox.DefaultLimits()
	some := def
	some.MaxRows, some.WallClock = 50, 3*time.Second
	all := sandbox.Limits{MaxSQLBytes: def.MaxSQLBytes, RowBudget: 1000, MaxRows: 10, MaxBytes: 4096, MemoryBytes: 32 << 20, WallClock: time.Second}
	for _, tt := range []struct {
		name, section string
		want          sandbox.Limits
	}{
		{"no section", "", def},
		{"free without limits", "sql:\n  free: true\n", def},
		{"some limits", "sql:\n  free: true\n  limits: {max_rows: 50, timeout: 3s}\n", some},
		{"every limit", "sql:\n  free: true\n  limits: {row_budget: 1000, max_rows: 10, max_bytes: 4096, memory_mb: 32, timeout: 1s}\n", all},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat, err := catalog.Load(strings.NewReader(string(b)+tt.section), "retail.yaml")
			if err != nil {
				t.Fatal(err)
			}
			got := allowlist.Limits(cat)
			if got != tt.want {
				t.Errorf("Limits = %+v, want %+v", got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Limits do not validate: %v", err)
			}
		})
	}
}
