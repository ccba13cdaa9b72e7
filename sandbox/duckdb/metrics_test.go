package duckdb

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
)

// loadWith loads an embedded catalog with text appended.
func loadWith(t *testing.T, name, extra string) *catalog.Catalog {
	t.Helper()
	b, err := fs.ReadFile(catalogs.Files(), name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Load(strings.NewReader(string(b)+extra), name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCheckMetrics(t *testing.T) {
	tests := []struct {
		name, catalog, extra string
		wantQueries          int    // judged, up to and with each metric's first failure
		wantErrs             int    // metrics failing
		want                 string // in every error
	}{
		{"retail", "retail", "", 435, 0, ""},
		{"warehouse", "warehouse", "", 210, 0, ""},
		{"retail, a reference denied", "retail", "sql:\n  deny: [stores]\n", 435, 0, ""},
		{"retail, the dataset's table denied", "retail", "sql:\n  deny: [events]\n", 8, 8,
			"compiled query (grain none) reads table `events`, which is outside the read allowlist (in `sql.deny`)"},
		{"retail, the products reference denied", "retail", "sql:\n  deny: [products]\n", 74, 8,
			"compiled query (grain none, dimensions category) reads table `products`"},
		{"warehouse, the dataset's table denied", "warehouse", "sql:\n  deny: [status_events]\n", 8, 8,
			"reads table `status_events`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := loadWith(t, tt.catalog, tt.extra)
			n, err := CheckMetrics(t.Context(), c)
			var list catalog.ErrorList
			switch {
			case tt.wantErrs == 0 && err != nil:
				t.Fatalf("CheckMetrics = %v", err)
			case tt.wantErrs > 0 && !errors.As(err, &list):
				t.Fatalf("CheckMetrics = %v, want an ErrorList", err)
			}
			if len(list) != tt.wantErrs {
				t.Errorf("%d errors, want %d:\n%v", len(list), tt.wantErrs, err)
			}
			for i, e := range list {
				m := c.Metrics[i]
				if e.Line != m.Name.Pos.Line || e.Column != m.Name.Pos.Column || !strings.HasPrefix(e.Message, "metric `"+m.Name.Value+"`: ") {
					t.Errorf("error %d not at metric %s: %v", i, m.Name.Value, e)
				}
				if !strings.Contains(e.Message, tt.want) {
					t.Errorf("error %q lacks %q", e.Message, tt.want)
				}
				if strings.Contains(e.Message, "SELECT") || strings.Contains(e.Message, "$1") {
					t.Errorf("error echoes SQL: %q", e.Message)
				}
			}
			if n != tt.wantQueries {
				t.Errorf("%d queries judged, want %d", n, tt.wantQueries)
			}
		})
	}
}
