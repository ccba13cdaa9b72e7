package duckdb

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/shape"
)

// The per-hour key digests (shape.RollupKeysSuffix) are engine-internal:
// the catalog's read allowlist, which free SQL and compiled queries are
// judged by, does not name them, so free SQL may not read them, with or
// without parameters admitted, while the dataset's own table stays
// readable.
func TestValidate_RollupKeysNotReadable(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	table := "status_events" + shape.RollupKeysSuffix
	for _, p := range []*sandbox.Policy{sandbox.NewPolicy(cat.Allowlist()), sandbox.NewPolicy(cat.Allowlist()).WithParameters()} {
		v, err := NewValidator(t.Context(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		for _, q := range []string{
			"SELECT _n FROM " + table,
			"SELECT e.event_id FROM status_events e JOIN " + table + " r ON r.zone_id = e.zone_id",
			"SELECT COUNT(*) FROM (SELECT _lthash FROM " + strings.ToUpper(table) + ") x",
		} {
			if err := v.Validate(t.Context(), q); err == nil {
				t.Errorf("Validate(%q) = nil, want a rejection", q)
			}
		}
		if err := v.Validate(t.Context(), "SELECT COUNT(*) FROM status_events"); err != nil {
			t.Errorf("the dataset's table: %v", err)
		}
	}
}
