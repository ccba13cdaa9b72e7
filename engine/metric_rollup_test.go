package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/store/duckdb"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/engine/enginetest"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// TestQueryMetric_RollupProvenance: with per-hour key digests
// (shape.DeriveOptions.RollupKeys, engine.Options.MetricRollups), a
// query_metric answer over more keys than the provenance limit carries
// their count and lthash digest combined from the digests, and its first
// keys; it is answered with every verdict clause true, gives the same
// table and count as an engine without digests, and the rows pager's
// keys recompute its digest. A small answer keeps its full list and
// SHA-256 digest.
func TestQueryMetric_RollupProvenance(t *testing.T) {
	const n, limit = 5000, 200
	// Checkpoints every 97 rows: the rows reaching into a window from
	// before it are looked for from the last checkpoint before it.
	// By the hour (5,000 events are too sparse for the slices by
	// default), and with the edge hours summed from the slices.
	hourly := enginetest.OpenWarehouseDerived(t, n, &engine.Options{ProvenanceLimit: limit, MetricRollups: true}, &shape.DeriveOptions{RollupKeys: true, Every: 97})
	sliced := enginetest.OpenWarehouseDerived(t, n, &engine.Options{ProvenanceLimit: limit, MetricRollups: true}, &shape.DeriveOptions{RollupKeys: true, Every: 97, SliceMinRows: -1})
	without := enginetest.OpenWarehouse(t, n, &engine.Options{ProvenanceLimit: limit})
	tests := []struct {
		name   string
		params map[string]any
		scope  tool.Scope
		large  bool
	}{
		{"a day by zone", map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, tool.AllStores(), true},
		{"odd minutes", map[string]any{"metric": "observed_time", "start": "2026-01-05T03:17:09Z", "end": "2026-01-06T21:48:00Z"}, tool.AllStores(), true},
		{"edges near the hour", map[string]any{"metric": "utilisation", "dimensions": []any{"device_type"}, "start": "2026-01-05T03:05:00Z", "end": "2026-01-05T20:55:00Z"}, tool.AllStores(), true},
		{"a zone filter", map[string]any{"metric": "availability", "start": "2026-01-04T10:30:00Z", "end": "2026-01-07T10:30:00Z",
			"filters": []any{map[string]any{"dimension": "zone", "op": "eq", "values": []any{"zone-02"}}}}, tool.AllStores(), true},
		{"not in a zone", map[string]any{"metric": "fault_count", "grain": "day", "start": "2026-01-04T10:30:00Z", "end": "2026-01-07T10:30:00Z",
			"filters": []any{map[string]any{"dimension": "zone", "op": "not_in", "values": []any{"zone-02", "zone-03"}}}}, tool.AllStores(), true},
		{"a scoped caller", map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-04T00:00:00Z", "end": "2026-01-08T00:00:00Z"}, tool.StoresOnly("zone-01"), true},
		{"small", map[string]any{"metric": "availability", "start": "2026-01-05T00:00:00Z", "end": "2026-01-05T00:20:00Z"}, tool.AllStores(), false},
	}
	for _, tt := range tests {
		for name, with := range map[string]*engine.Engine{"hourly": hourly, "sliced": sliced} {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				testRollupProvenance(t, with, without, tt.params, tt.scope, tt.large, limit)
			})
		}
	}
}

// testRollupProvenance compares a query_metric call answered with key
// digests (with) to the engine's without them: the same table, count
// and, for a large answer, first keys, and pages that recompute the
// digest.
func testRollupProvenance(t *testing.T, with, without *engine.Engine, params map[string]any, scope tool.Scope, large bool, limit int) {
	ctx := pipeline.WithScope(t.Context(), scope)
	a := with.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: params})
	b := without.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: params})
	if a.Outcome() != answer.Answered || b.Outcome() != answer.Answered {
		t.Fatalf("outcomes %s (%s) and %s (%s), want answered", a.Outcome(), a.Reason(), b.Outcome(), b.Reason())
	}
	pa, _ := a.Provenance()
	pb, _ := b.Provenance()
	if pa.NumEvents() != pb.NumEvents() {
		t.Errorf("%d contributing rows, without digests %d", pa.NumEvents(), pb.NumEvents())
	}
	va, _ := a.Value()
	vb, _ := b.Value()
	if !slices.EqualFunc(va.Table.Rows, vb.Table.Rows, slices.Equal) {
		t.Errorf("tables differ:\n%v\n%v", va.Table.Rows, vb.Table.Rows)
	}
	lt := strings.HasPrefix(pa.EventDigest(), fact.LtHashScheme)
	if lt != large {
		t.Fatalf("digest %s: lthash %t, want %t (%d rows)", pa.EventDigest(), lt, large, pa.NumEvents())
	}
	if !large {
		if pa.EventDigest() != pb.EventDigest() || !slices.Equal(pa.EventIDs(), pb.EventIDs()) {
			t.Error("a small answer's provenance differs from the engine's without digests")
		}
		return
	}
	if !slices.Equal(pa.EventIDs(), pb.EventIDs()) {
		t.Errorf("first keys differ from the engine's without digests")
	}
	var all []string
	for page := 1; ; page++ {
		rp, err := with.RowsPage(t.Context(), a.ResultIDs()[0], page, scope)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		all = append(all, rp.EventIDs...)
		if page == rp.Pages {
			break
		}
	}
	h := lthash.Of(all...)
	if len(all) != pa.NumEvents() || h.Digest() != pa.EventDigest() {
		t.Errorf("pages hold %d keys (digest %s), want %d (%s)", len(all), h.Digest(), pa.NumEvents(), pa.EventDigest())
	}
	if !slices.Equal(all[:limit], pa.EventIDs()) {
		t.Error("the first page is not the listed first keys")
	}
}

// TestQueryMetric_RollupDefects: a large provenance altered after the
// executor (a key left out of the count, the digest of other keys, other
// first keys) fails provenance_valid.
func TestQueryMetric_RollupDefects(t *testing.T) {
	e := enginetest.OpenWarehouseDerived(t, 5000, &engine.Options{ProvenanceLimit: 200, MetricRollups: true}, &shape.DeriveOptions{RollupKeys: true})
	wall, exec, res := e.Parts()
	params := map[string]any{"metric": "availability", "dimensions": []any{"zone"}, "start": "2026-01-05T00:10:00Z", "end": "2026-01-06T07:45:00Z"}
	c, err := wall.Check(tool.Proposal{Tool: shape.QueryMetric, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	r, err := exec.Execute(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	ids, n, d := r.Provenance.EventIDs(), r.Provenance.NumEvents(), r.Provenance.EventDigest()
	if !strings.HasPrefix(d, fact.LtHashScheme) {
		t.Fatalf("digest %s, want an lthash digest", d)
	}
	other := lthash.Of(ids...)
	tests := []struct {
		name  string
		first []string
		n     int
		d     string
		valid bool
	}{
		{"honest", ids, n, d, true},
		{"a row left out of the count", ids, n - 1, d, false},
		{"the digest of other keys", ids, n, other.Digest(), false},
		{"other first keys", ids[1:], n, d, false},
		{"fewer first keys", ids[:100], n, d, false},
		{"a first key skipped", append(append(slices.Clone(ids[:5]), ids[6:]...), "~after"), n, d, false},
		{"a key that does not contribute", append(slices.Clone(ids[:len(ids)-1]), ids[len(ids)-1]+"x"), n, d, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := fact.EventsInPart(tt.first, tt.n, tt.d)
			if err != nil {
				t.Fatal(err)
			}
			// The compiled query as the executor named it.
			q, _ := r.Provenance.Query()
			if p, err = p.WithQuery(q); err != nil {
				t.Fatal(err)
			}
			alt, err := fact.NewResult(r.Tool, r.Args, r.Value, p)
			if err != nil {
				t.Fatal(err)
			}
			v, err := res.Resolve(t.Context(), c, alt)
			if err != nil {
				t.Fatal(err)
			}
			if v.ProvenanceValid != tt.valid || !v.ValueMatches {
				t.Errorf("verdict %+v, want provenance_valid=%t and value_matches", v, tt.valid)
			}
		})
	}
}

// The fact package names lthash's scheme without importing it.
func TestLtHashScheme(t *testing.T) {
	if fact.LtHashScheme != lthash.Scheme+":" {
		t.Errorf("fact.LtHashScheme %q, lthash.Scheme %q", fact.LtHashScheme, lthash.Scheme)
	}
}

// TestQueryMetric_RollupAppend: digests built by a first import are kept
// up to date by a later one that does not ask for them (a stale digest
// would be summed alike by the executor and the resolver), so a window
// over the appended hours is answered and the rows pager's keys
// recompute its count and digest.
func TestQueryMetric_RollupAppend(t *testing.T) {
	ctx := t.Context()
	cat, db, l, lines := warehouseDemoLines(t, 6000)
	cut := 4000
	for i, o := range []*shape.DeriveOptions{{RollupKeys: true}, nil} {
		part := bytes.Join(lines[:cut], nil)
		if i == 1 {
			part = bytes.Join(lines[cut:], nil)
		}
		sink := duckdb.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
			return shape.Derive(ctx, tx, l.Dataset, l.Table, o)
		}})
		if _, err := ingest.Import(ctx, sink, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(part))); err != nil {
			t.Fatalf("import %d: %v", i, err)
		}
	}
	e, err := engine.OpenCatalog(ctx, cat, shape.Source{DB: db}, &engine.Options{ProvenanceLimit: 200, MetricRollups: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a := e.Pipeline.Call(ctx, tool.Proposal{Tool: shape.QueryMetric, Params: map[string]any{
		"metric": "observed_time", "start": "2026-01-04T00:00:00Z", "end": "2026-01-20T00:00:00Z"}})
	p, _ := a.Provenance()
	if a.Outcome() != answer.Answered || !strings.HasPrefix(p.EventDigest(), fact.LtHashScheme) {
		t.Fatalf("outcome %s (%s), digest %s; want answered with an lthash digest", a.Outcome(), a.Reason(), p.EventDigest())
	}
	if p.NumEvents() < 6000*9/10 {
		t.Fatalf("%d contributing rows of 6,000: the window misses the appended rows", p.NumEvents())
	}
	var all []string
	for page := 1; ; page++ {
		rp, err := e.RowsPage(ctx, a.ResultIDs()[0], page, tool.AllStores())
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		all = append(all, rp.EventIDs...)
		if page == rp.Pages {
			break
		}
	}
	if h := lthash.Of(all...); len(all) != p.NumEvents() || h.Digest() != p.EventDigest() {
		t.Errorf("pages hold %d keys (digest %s), want %d (%s)", len(all), h.Digest(), p.NumEvents(), p.EventDigest())
	}
}
