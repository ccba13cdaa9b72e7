package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/tool"
)

// TestQueryMetric_ValueRollups: with per-hour value rollups and key
// digests (shape.DeriveOptions.RollupValues and RollupKeys,
// engine.Options.MetricValueRollups and MetricRollups), query_metric
// answers every verdict clause true with the same table, count and first
// keys as an engine without either, whether or not the request can be
// answered from the rollups.
func TestQueryMetric_ValueRollups(t *testing.T) {
	const n, limit = 5000, 200
	with := enginetest.OpenWarehouseDerived(t, n, &engine.Options{ProvenanceLimit: limit, MetricRollups: true, MetricValueRollups: true},
		&shape.DeriveOptions{RollupKeys: true, RollupValues: true, Every: 97})
	without := enginetest.OpenWarehouse(t, n, &engine.Options{ProvenanceLimit: limit})
	// The same with the value rollups by slice (kept on DuckDB only when
	// asked), the resolver re-deriving from the rollups from one whole
	// hour whatever the rows (metric.RederiveValues with slices).
	sliced := enginetest.OpenWarehouseDerived(t, n, &engine.Options{ProvenanceLimit: limit, MetricRollups: true, MetricValueRollups: true,
		MetricResolveRows: -1, MetricResolveFrom: time.Hour},
		&shape.DeriveOptions{RollupKeys: true, RollupValues: true, Every: 97, ValueSliceMinRows: -1})
	tests := []struct {
		name   string
		params map[string]any
		scope  tool.Scope
	}{
		{"a day by zone", map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, tool.AllStores()},
		{"odd minutes", map[string]any{"metric": "observed_time", "start": "2026-01-05T03:17:09Z", "end": "2026-01-06T21:48:00Z"}, tool.AllStores()},
		{"by device type", map[string]any{"metric": "utilisation", "dimensions": []any{"device_type"}, "start": "2026-01-05T03:05:00Z", "end": "2026-01-05T20:55:00Z"}, tool.AllStores()},
		{"a zone filter", map[string]any{"metric": "mean_time_to_repair", "start": "2026-01-04T10:30:00Z", "end": "2026-01-07T10:30:00Z",
			"filters": []any{map[string]any{"dimension": "zone", "op": "eq", "values": []any{"zone-02"}}}}, tool.AllStores()},
		{"faults by day, not in two zones", map[string]any{"metric": "fault_count", "grain": "day", "start": "2026-01-04T10:30:00Z", "end": "2026-01-07T10:30:00Z",
			"filters": []any{map[string]any{"dimension": "zone", "op": "not_in", "values": []any{"zone-02", "zone-03"}}}}, tool.AllStores()},
		{"fault rate, a device type filter", map[string]any{"metric": "fault_rate", "dimensions": []any{"zone"}, "start": "2026-01-04T00:00:00Z", "end": "2026-01-08T00:00:00Z",
			"filters": []any{map[string]any{"dimension": "device_type", "op": "in", "values": []any{"AGV", "LIFT"}}}}, tool.AllStores()},
		{"a scoped caller", map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-04T00:00:00Z", "end": "2026-01-08T00:00:00Z"}, tool.StoresOnly("zone-01")},
		{"by device (from the rows)", map[string]any{"metric": "availability", "dimensions": []any{"device"}, "start": "2026-01-04T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, tool.AllStores()},
		{"within an hour (from the rows)", map[string]any{"metric": "availability", "start": "2026-01-05T00:00:00Z", "end": "2026-01-05T00:50:00Z"}, tool.AllStores()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := pipeline.WithScope(t.Context(), tt.scope)
			b := without.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: tt.params})
			vb, _ := b.Value()
			pb, _ := b.Provenance()
			for _, e := range []struct {
				name string
				eng  *engine.Engine
			}{{"rollups", with}, {"rollups by slice", sliced}} {
				a := e.eng.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: tt.params})
				if a.Outcome() != answer.Answered || b.Outcome() != answer.Answered {
					t.Fatalf("%s: outcomes %s (%s) and %s (%s), want answered", e.name, a.Outcome(), a.Reason(), b.Outcome(), b.Reason())
				}
				va, _ := a.Value()
				if !slices.EqualFunc(va.Table.Rows, vb.Table.Rows, slices.Equal) {
					t.Errorf("%s: tables differ:\n%v\n%v", e.name, va.Table.Rows, vb.Table.Rows)
				}
				pa, _ := a.Provenance()
				if pa.NumEvents() != pb.NumEvents() || !slices.Equal(pa.EventIDs(), pb.EventIDs()) {
					t.Errorf("%s: %d contributing rows, without rollups %d; or other first keys", e.name, pa.NumEvents(), pb.NumEvents())
				}
			}
		})
	}
}

// TestQueryMetric_ValueRollupDefect: stored value rollups altered outside
// an import (running seconds raised) are not answered silently wrong
// when the resolver sees them: over a window of fewer than 24 whole hours,
// or of few contributing rows (at most metric.DefaultResolveRows, as the
// resolver counts them from the key digests), the resolver re-derives
// from the rows alone (metric.ResolveFromRollups), which disagrees with
// the compiled query's sum; over a longer window of more rows (here
// forced: engine.Options.MetricResolveRows -1) RederiveValues's spot
// check re-derives metric.DefaultSpotHours whole hour(s) from the rows,
// here all altered. The next import's checks
// rebuild them, after which the calls are answered with the tables an
// engine without rollups gives. One altered hour among a long window's N
// whole hours is found by the spot check with probability 1/N a request
// (the property test, metrictest.RunRollupValues, checks a spot check
// covering it always refuses).
func TestQueryMetric_ValueRollupDefect(t *testing.T) {
	ctx := t.Context()
	cat, db, l, lines := warehouseDemoLines(t, 6000)
	imp := func(part [][]byte) { importWithRollups(t, cat, db, l, part) }
	imp(lines[:4000])
	open := func(o *engine.Options) *engine.Engine { return openCatalogEngine(t, ctx, cat, db, o) }
	// rows: the long window's few rows are re-derived from the rows;
	// spot: from the rollups, which the spot check judges.
	rows := open(&engine.Options{ProvenanceLimit: 200, MetricRollups: true, MetricValueRollups: true})
	spot := open(&engine.Options{ProvenanceLimit: 200, MetricRollups: true, MetricValueRollups: true, MetricResolveRows: -1})
	without := open(&engine.Options{ProvenanceLimit: 200})
	windows := []map[string]any{
		// One whole hour, 05:00 to 06:00, and edges of 40 minutes: the
		// resolver reads the rows alone.
		{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T04:20:00Z", "end": "2026-01-05T06:40:00Z"},
		// Thirty whole hours, every one altered: the spot check's hour is.
		{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-04T23:20:00Z", "end": "2026-01-06T06:40:00Z"},
	}
	call := func(e *engine.Engine, params map[string]any) answer.Answer {
		return e.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: params})
	}
	for _, with := range []*engine.Engine{rows, spot} {
		for _, w := range windows {
			if a := call(with, w); a.Outcome() != answer.Answered {
				t.Fatalf("before the alteration: %s (%s), want answered", a.Outcome(), a.Reason())
			}
		}
	}
	if _, err := db.ExecContext(ctx, "UPDATE status_events"+shape.RollupValuesSuffix+" SET m_running_seconds = m_running_seconds + 600 WHERE _hour >= CAST('2026-01-05 00:00:00' AS TIMESTAMP) AND _hour < CAST('2026-01-06 06:00:00' AS TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	for j, with := range []*engine.Engine{rows, spot} {
		for i, w := range windows {
			if a := call(with, w); a.Outcome() != answer.Error || a.Reason().String() != "verification_failed" {
				v, _ := a.Value()
				t.Errorf("engine %d, window %d over altered rollups: %s (%s), %v; want error (verification_failed)", j, i, a.Outcome(), a.Reason(), v.Table)
			}
		}
	}
	imp(lines[4000:])
	for i, w := range windows {
		a, b := call(rows, w), call(without, w)
		if c := call(spot, w); c.Outcome() != answer.Answered {
			t.Fatalf("window %d after the next import, rollups always: %s (%s), want answered", i, c.Outcome(), c.Reason())
		}
		if a.Outcome() != answer.Answered || b.Outcome() != answer.Answered {
			t.Fatalf("window %d after the next import: outcomes %s (%s) and %s, want answered", i, a.Outcome(), a.Reason(), b.Outcome())
		}
		va, _ := a.Value()
		vb, _ := b.Value()
		if !slices.EqualFunc(va.Table.Rows, vb.Table.Rows, slices.Equal) {
			t.Errorf("window %d after the next import, tables differ:\n%v\n%v", i, va.Table.Rows, vb.Table.Rows)
		}
	}
}

// TestQueryMetric_FewRowsResolvedFromRows: one stored hour of the value
// rollups altered, inside a 30-hour window of few rows. The resolver
// counts the window's contributing rows from the key digests; at most
// metric.DefaultResolveRows, it re-derives the values from the rows and
// refuses the compiled query's sum of the altered hour. Forced to the
// rollups (MetricResolveRows -1), it re-derives from them and spot-checks
// one hour, here another: the answer ships (the weakness the rows remove
// for small windows: one altered hour among N is found with probability
// 1/N a request).
func TestQueryMetric_FewRowsResolvedFromRows(t *testing.T) {
	ctx := t.Context()
	cat, db, l, lines := warehouseDemoLines(t, 4000)
	importWithRollups(t, cat, db, l, lines)
	open := func(o *engine.Options) *engine.Engine { return openCatalogEngine(t, ctx, cat, db, o) }
	rows := open(&engine.Options{ProvenanceLimit: 200, MetricRollups: true, MetricValueRollups: true})
	spot := open(&engine.Options{ProvenanceLimit: 200, MetricRollups: true, MetricValueRollups: true, MetricResolveRows: -1})
	w := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-04T23:20:00Z", "end": "2026-01-06T06:40:00Z"}
	call := func(e *engine.Engine) answer.Answer {
		return e.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: w})
	}
	for _, e := range []*engine.Engine{rows, spot} {
		if a := call(e); a.Outcome() != answer.Answered {
			t.Fatalf("before the alteration: %s (%s), want answered", a.Outcome(), a.Reason())
		}
	}
	if _, err := db.ExecContext(ctx, "UPDATE status_events"+shape.RollupValuesSuffix+" SET m_running_seconds = m_running_seconds + 600 WHERE _hour = CAST('2026-01-05 10:00:00' AS TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	if a := call(rows); a.Outcome() != answer.Error || a.Reason().String() != "verification_failed" {
		t.Errorf("few rows over one altered hour: %s (%s); want error (verification_failed): the resolver re-derives from the rows", a.Outcome(), a.Reason())
	}
	if a := call(spot); a.Outcome() != answer.Answered {
		t.Errorf("rollups always, the spot check elsewhere: %s (%s); want answered (else the altered hour is the spot check's and the test shows nothing)", a.Outcome(), a.Reason())
	}
}

// TestQueryMetric_ResolveFrom: engine.Options.MetricResolveFrom moves the
// span from which the resolver re-derives from the value rollups (as
// serve sets it on PostgreSQL, postgres.MetricResolveFrom, with the
// rollups however few the rows). One stored hour altered inside windows
// of two and three whole hours: by default (metric.ResolveFromRollups, 24
// hours) the resolver re-derives them from the rows and refuses the
// compiled query's sum; from two hours on, it re-derives from the rollups
// and spot-checks one hour, here another, and the answer ships (the trade
// the setting makes, as TestQueryMetric_FewRowsResolvedFromRows shows for
// a long window; a threshold of more than two hours fails the two-hour
// case). A window of one whole hour is refused either way (from the rows,
// or the spot check of its only hour).
func TestQueryMetric_ResolveFrom(t *testing.T) {
	ctx := t.Context()
	cat, db, l, lines := warehouseDemoLines(t, 4000)
	importWithRollups(t, cat, db, l, lines)
	open := func(o *engine.Options) *engine.Engine { return openCatalogEngine(t, ctx, cat, db, o) }
	// A limit of 20 keys: both windows' provenance is summed from the
	// key digests, so the resolver re-derives the values alone.
	byDefault := open(&engine.Options{ProvenanceLimit: 20, MetricRollups: true, MetricValueRollups: true, MetricResolveRows: -1})
	twoHours := open(&engine.Options{ProvenanceLimit: 20, MetricRollups: true, MetricValueRollups: true, MetricResolveRows: -1, MetricResolveFrom: 2 * time.Hour})
	three := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T08:20:00Z", "end": "2026-01-05T12:40:00Z"}
	two := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T08:20:00Z", "end": "2026-01-05T11:40:00Z"}
	one := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T08:40:00Z", "end": "2026-01-05T10:20:00Z"}
	call := func(e *engine.Engine, w map[string]any) answer.Answer {
		return e.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: w})
	}
	for _, e := range []*engine.Engine{byDefault, twoHours} {
		for _, w := range []map[string]any{three, two, one} {
			if a := call(e, w); a.Outcome() != answer.Answered {
				t.Fatalf("before the alteration: %s (%s), want answered", a.Outcome(), a.Reason())
			}
		}
	}
	if _, err := db.ExecContext(ctx, "UPDATE status_events"+shape.RollupValuesSuffix+" SET m_running_seconds = m_running_seconds + 600 WHERE _hour = CAST('2026-01-05 09:00:00' AS TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		e        *engine.Engine
		w        map[string]any
		answered bool
	}{
		{"three whole hours, by default", byDefault, three, false},
		{"three whole hours, from two hours", twoHours, three, true},
		{"two whole hours, by default", byDefault, two, false},
		{"two whole hours, from two hours", twoHours, two, true},
		{"one whole hour, from two hours", twoHours, one, false},
	} {
		a := call(tt.e, tt.w)
		if tt.answered && a.Outcome() != answer.Answered {
			t.Errorf("%s: %s (%s); want answered (from the rollups; else the altered hour is the spot check's and the test shows nothing)", tt.name, a.Outcome(), a.Reason())
		}
		if !tt.answered && (a.Outcome() != answer.Error || a.Reason().String() != "verification_failed") {
			t.Errorf("%s: %s (%s); want error (verification_failed): the resolver re-derives from the rows", tt.name, a.Outcome(), a.Reason())
		}
	}
}

// importWithRollups imports lines (JSON Lines of l's dataset) into db,
// deriving the key digests and the value rollups in the same transaction.
func importWithRollups(t *testing.T, cat *catalog.Catalog, db *sql.DB, l *ingest.Layout, lines [][]byte) {
	t.Helper()
	sink := duckdb.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, &shape.DeriveOptions{RollupKeys: true, RollupValues: true, Catalog: cat})
	}})
	if _, err := ingest.Import(t.Context(), sink, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(bytes.Join(lines, nil)))); err != nil {
		t.Fatal(err)
	}
}

// openCatalogEngine opens an engine over db, closed when the test ends.
func openCatalogEngine(t *testing.T, ctx context.Context, cat *catalog.Catalog, db *sql.DB, o *engine.Options) *engine.Engine {
	t.Helper()
	e, err := engine.OpenCatalog(ctx, cat, shape.Source{DB: db}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
