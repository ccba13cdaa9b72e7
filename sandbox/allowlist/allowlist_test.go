package allowlist_test

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalog"

	"github.com/provenant/provenant/catalogs"
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
