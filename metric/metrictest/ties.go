package metrictest

import (
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/metric"
)

// RunTies checks the entries measures' re-derivation over validity
// intervals (RederiveSQL with Options.ValidTo) where rows share a series
// and a time: the intervals alone cannot tell which of them precedes
// which, so the re-derivation must take the keys' order there (by
// numbering the rows) and still agree with the hand-computed values and
// the Go re-derivation. dev-0001 is RUNNING and then FAULT at the same
// instant (keys k-02, k-03), after a FAULT: k-03 is an entry, which a
// predecessor taken as the last row before the instant (k-01, FAULT)
// would miss; dev-0003 is FAULT twice at one instant after RUNNING: k-10
// is no entry, which a predecessor taken as the last row before the
// instant (k-08) would make one; dev-0002 has no ties.
func RunTies(t *testing.T, b Backend) {
	cat := LoadCatalog(t, "warehouse.yaml")
	sm := cat.SemanticModels[0]
	ds := cat.Dataset(sm.Dataset.Value)
	db := b.Open(t)
	ctx := t.Context()
	h := func(n int) time.Time { return base.Add(time.Duration(n) * time.Hour) }
	rows := []genRow{
		statusRow(ds, "k-01", "dev-0001", "FAULT", h(0)),
		statusRow(ds, "k-02", "dev-0001", "RUNNING", h(1)),
		statusRow(ds, "k-03", "dev-0001", "FAULT", h(1)),
		statusRow(ds, "k-04", "dev-0001", "FAULT", h(2)),
		statusRow(ds, "k-05", "dev-0002", "RUNNING", h(0)),
		statusRow(ds, "k-06", "dev-0002", "FAULT", h(2)),
		statusRow(ds, "k-07", "dev-0002", "RUNNING", h(3)),
		statusRow(ds, "k-08", "dev-0003", "RUNNING", h(0)),
		statusRow(ds, "k-09", "dev-0003", "FAULT", h(1)),
		statusRow(ds, "k-10", "dev-0003", "FAULT", h(1)),
	}
	const rel = "ties"
	if err := loadRows(ctx, db, ds, rel, rows); err != nil {
		t.Fatal(err)
	}
	plain := &metric.Options{Relations: map[string]string{ds.Name.Value: rel}}
	intervals := *plain
	intervals.ValidTo = map[string]string{ds.Name.Value: ValidTo}
	resolveSQL := intervals
	resolveSQL.MaxGoRows, resolveSQL.SkipKeys = -1, true
	tests := []struct {
		name       string
		metric     string
		dims       []string
		start, end time.Time
		want       []float64 // the table's values in its order; nil: only agreement
	}{
		// k-03, k-06 and k-09 are entries; k-04 follows k-03's FAULT,
		// k-10 k-09's.
		{"entries after a tie", "fault_count", nil, h(0).Add(30 * time.Minute), h(4), []float64{3}},
		{"entries after a tie, by device", "fault_count", []string{"device"}, h(0).Add(30 * time.Minute), h(4), []float64{1, 1, 1}},
		// k-01 too: a series' first row has no predecessor.
		{"from the first rows", "fault_count", nil, h(0), h(4), []float64{4}},
		// 3 faults entered; time in FAULT: dev-0001 00:30-01:00 (k-01)
		// and 01:00-04:00 (k-03, k-04), dev-0002 02:00-03:00 (k-06),
		// dev-0003 01:00-04:00 (k-09 for no time, k-10).
		{"time to repair over a tie", "mean_time_to_repair", nil, h(0).Add(30 * time.Minute), h(4), []float64{7.5 * 3600 / 3}},
		{"time between faults over a tie", "mean_time_between_faults", []string{"device"}, h(0).Add(30 * time.Minute), h(4), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := metric.Request{Metric: tt.metric, Dimensions: tt.dims, Start: tt.start, End: tt.end, Scope: metric.All()}
			want, err := metric.Rederive(ctx, db, cat, req, plain)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil {
				if got := tableValues(want); !slices.Equal(got, tt.want) {
					t.Fatalf("Rederive: %s, want %v", showTable(want), tt.want)
				}
			}
			for _, o := range []struct {
				name string
				run  func() (*metric.Table, error)
			}{
				{"RederiveSQL", func() (*metric.Table, error) { return metric.RederiveSQL(ctx, db, cat, req, plain) }},
				{"RederiveSQL with intervals", func() (*metric.Table, error) { return metric.RederiveSQL(ctx, db, cat, req, &intervals) }},
				{"Resolve in SQL with intervals", func() (*metric.Table, error) { return metric.Resolve(ctx, db, cat, req, &resolveSQL) }},
			} {
				got, err := o.run()
				if err != nil {
					t.Fatalf("%s: %v", o.name, err)
				}
				if d := tableDiff(want, got); d != "" {
					t.Errorf("%s: %s\nRederive: %s", o.name, d, showTable(want))
				}
			}
		})
	}
}

func tableValues(t *metric.Table) []float64 {
	var out []float64
	for _, r := range t.Rows {
		if r.Value == nil {
			out = append(out, -1)
			continue
		}
		out = append(out, *r.Value)
	}
	return out
}
