package duckdb

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/sandbox"
	"github.com/provenant/provenant/shape"
)

// The key digests by hour and by slice (shape.RollupKeysSuffix,
// shape.RollupSlicesSuffix) are engine-internal:
// the catalog's read allowlist, which free SQL and compiled queries are
// judged by, does not name them, so free SQL may not read them, with or
// without parameters admitted, while the dataset's own table stays
// readable.
func TestValidate_RollupKeysNotReadable(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"status_events" + shape.RollupKeysSuffix, "status_events" + shape.RollupSlicesSuffix} {
		validateNotReadable(t, cat.Allowlist(), table)
	}
}

// validateNotReadable checks that free SQL under the allowlist may not
// read table, with or without parameters admitted, while the dataset's
// own table stays readable.
func validateNotReadable(t *testing.T, allow []string, table string) {
	t.Helper()
	for _, p := range []*sandbox.Policy{sandbox.NewPolicy(allow), sandbox.NewPolicy(allow).WithParameters()} {
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

// The per-hour value rollups (shape.RollupValuesSuffix) are read by
// compiled queries only: a query compiled from them passes the validator
// whose allowlist adds the rollup table (CheckMetrics's third variant),
// and is refused under the catalog's own allowlist, which free SQL is
// judged by, as a free statement reading the table is.
func TestValidate_ValueRollups(t *testing.T) {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	ds := cat.Dataset("status_events")
	ru := shape.MetricValueRollup(cat, ds, "status_events")
	o := &metric.Options{ValidTo: map[string]string{"status_events": shape.ValidToColumn}, ValueRollups: map[string]metric.ValueRollup{"status_events": ru}}
	req := metric.Request{Metric: "availability", Dimensions: []string{"zone"}, Start: time.Date(2026, 1, 5, 3, 17, 0, 0, time.UTC),
		End: time.Date(2026, 1, 12, 3, 17, 0, 0, time.UTC), Scope: metric.Only("zone-01", "zone-02"),
		Filters: []metric.Filter{{Dimension: "device_type", Op: "ne", Values: []string{"AGV"}}}}
	q, err := metric.Compile(cat, req, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(q.Tables, ru.Relation) {
		t.Fatalf("compiled tables %v, want the value rollups among them", q.Tables)
	}
	with, err := NewValidator(t.Context(), sandbox.NewPolicy(append(cat.Allowlist(), ru.Relation)).WithParameters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer with.Close()
	if err := with.Validate(t.Context(), q.SQL); err != nil {
		t.Errorf("the compiled query from value rollups: %v", err)
	}
	free, err := NewValidator(t.Context(), sandbox.NewPolicy(cat.Allowlist()).WithParameters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer free.Close()
	for _, s := range []string{q.SQL, "SELECT _n FROM " + ru.Relation} {
		if err := free.Validate(t.Context(), s); err == nil {
			t.Errorf("the catalog's allowlist admits a read of the value rollups: %.60s", s)
		}
	}
}
