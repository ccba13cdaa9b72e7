package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/lthash"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/tool"
)

// warehouseDemoLines opens an in-memory DuckDB, closed when the test
// ends, and returns it with the warehouse catalog, its status_events
// layout and n demo events as JSON lines, one line per element.
func warehouseDemoLines(t *testing.T, n int) (*catalog.Catalog, *sql.DB, *ingest.Layout, [][]byte) {
	t.Helper()
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	db, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := ingest.NewLayout(cat, "status_events")
	if err != nil {
		t.Fatal(err)
	}
	return cat, db, l, bytes.SplitAfter(ingesttest.DemoJSONL(t, n), []byte("\n"))
}

// windowDigestDB imports 6,000 warehouse demo events into an in-memory
// DuckDB in two imports (the second later), the first building the
// per-hour window key digests, and calls corrupt between them.
func windowDigestDB(t *testing.T, corrupt func(db *sql.DB)) (*sql.DB, *catalog.Catalog) {
	ctx := t.Context()
	cat, db, l, lines := warehouseDemoLines(t, 6000)
	for i, part := range [][]byte{bytes.Join(lines[:4000], nil), bytes.Join(lines[4000:], nil)} {
		o := &shape.DeriveOptions{WindowKeys: i == 0} // the second import keeps them up to date unasked
		sink := duckdb.NewSink(db, shape.ImportOptions(o))
		if _, err := ingest.Import(ctx, sink, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(part))); err != nil {
			t.Fatalf("import %d: %v", i, err)
		}
		if i == 0 && corrupt != nil {
			corrupt(db)
		}
	}
	return db, cat
}

// corruptDigest replaces the stored digest of one hour of zone-01's
// RUNNING rows (the offset-th stored hour before the last, or the hour
// at 2026-01-06T10:00Z when offset is negative) by the digest of a key
// that is not there.
func corruptDigest(t *testing.T, db *sql.DB, offset int) {
	h := lthash.Of("not-a-key")
	b, _ := h.MarshalBinary()
	q, args := "UPDATE status_events"+shape.WindowKeysSuffix+" SET _lthash = $1 WHERE zone_id = 'zone-01' AND status = 'RUNNING' AND _hour = "+
		"(SELECT _hour FROM status_events"+shape.WindowKeysSuffix+" WHERE zone_id = 'zone-01' AND status = 'RUNNING' ORDER BY _hour DESC LIMIT 1 OFFSET $2)", []any{b, offset}
	if offset < 0 {
		q, args = "UPDATE status_events"+shape.WindowKeysSuffix+" SET _lthash = $1 WHERE zone_id = 'zone-01' AND status = 'RUNNING' AND _hour = CAST('2026-01-06 10:00:00' AS TIMESTAMP)", []any{b}
	}
	res, err := db.ExecContext(t.Context(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("corrupted %d digests, want 1", n)
	}
}

func checkWindowKeys(t *testing.T, db *sql.DB, cat *catalog.Catalog) bool {
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ok, err := shape.CheckWindowKeys(t.Context(), tx, cat.Dataset("status_events"), "status_events")
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// windowCall is a window of about three days over zone-01's RUNNING rows:
// more than the provenance limit of 50.
var windowCall = tool.Proposal{Tool: "count_status_events_in_window", Params: map[string]any{
	"zone_id": "zone-01", "status": "RUNNING", "start": "2026-01-05T03:17:00Z", "end": "2026-01-08T05:41:00Z"}}

// allPages reads every page of a result's rows.
func allPages(t *testing.T, e *engine.Engine, id string) ([]string, error) {
	var all []string
	for page := 1; ; page++ {
		rp, err := e.RowsPage(t.Context(), id, page, tool.AllStores())
		if err != nil {
			return nil, err
		}
		all = append(all, rp.EventIDs...)
		if page == rp.Pages {
			return all, nil
		}
	}
}

// TestWindowDigests_Answer: with the window key digests served
// (engine.Options.WindowDigests), a window of more rows than the
// provenance limit is answered with an lthash digest whose count and
// value equal those of the engine without them, and the rows pager's keys
// recompute it; without the option the answer is the ordinary one.
func TestWindowDigests_Answer(t *testing.T) {
	db, cat := windowDigestDB(t, nil)
	answers := map[bool]answer.Answer{}
	var pager *engine.Engine
	for _, on := range []bool{false, true} {
		e, err := engine.OpenCatalog(t.Context(), cat, shape.Source{DB: db}, &engine.Options{ProvenanceLimit: 50, WindowDigests: on})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		a := e.Pipeline.Call(t.Context(), windowCall)
		if a.Outcome() != answer.Answered {
			t.Fatalf("digests %v: outcome %s (%s)", on, a.Outcome(), a.Reason())
		}
		answers[on] = a
		pager = e
	}
	off, _ := answers[false].Provenance()
	on, _ := answers[true].Provenance()
	if strings.HasPrefix(off.EventDigest(), fact.LtHashScheme) || !strings.HasPrefix(on.EventDigest(), fact.LtHashScheme) {
		t.Fatalf("digests %s (off) and %s (on): want SHA-256 off and lthash on", off.EventDigest(), on.EventDigest())
	}
	if off.NumEvents() != on.NumEvents() || off.NumEvents() <= 50 || strings.Join(off.EventIDs(), ",") != strings.Join(on.EventIDs(), ",") {
		t.Fatalf("on: %d events, first %v; off: %d, first %v", on.NumEvents(), on.EventIDs()[:3], off.NumEvents(), off.EventIDs()[:3])
	}
	all, err := allPages(t, pager, answers[true].ResultIDs()[0])
	if err != nil {
		t.Fatal(err)
	}
	if h := lthash.Of(all...); len(all) != on.NumEvents() || h.Digest() != on.EventDigest() {
		t.Errorf("pages hold %d keys (%s), answer %d (%s)", len(all), h.Digest(), on.NumEvents(), on.EventDigest())
	}
}

// TestWindowDigests_CorruptedAtImport: a stored digest changed among the
// hours the next import re-hashes (the two before its last) is found by
// that import's check, which rebuilds every hour: afterwards every stored
// digest equals its rows (CheckWindowKeys).
func TestWindowDigests_CorruptedAtImport(t *testing.T) {
	db, cat := windowDigestDB(t, func(db *sql.DB) { corruptDigest(t, db, 1) })
	if !checkWindowKeys(t, db, cat) {
		t.Error("a digest corrupted before an import is still wrong after it")
	}
}

// TestWindowDigests_CorruptedServed: a stored digest changed in an hour
// the import's check does not re-hash and that is not the call's spot
// hour. Said plainly, the resolver does not catch it: both routes sum the
// same stored digests, so the answer is served with every verdict clause
// true and a digest that is not its keys'. What catches it:
// CheckWindowKeys (every hour re-hashed) and the rows resource, which
// recomputes the digest from every key and refuses to page
// (ErrDataChanged).
func TestWindowDigests_CorruptedServed(t *testing.T) {
	db, cat := windowDigestDB(t, nil)
	corruptDigest(t, db, -1) // inside the window, days before the last hour: not re-hashed by an import
	if checkWindowKeys(t, db, cat) {
		t.Fatal("CheckWindowKeys passed a corrupted digest")
	}
	e, err := engine.OpenCatalog(t.Context(), cat, shape.Source{DB: db}, &engine.Options{ProvenanceLimit: 50, WindowDigests: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a := e.Pipeline.Call(t.Context(), windowCall)
	p, _ := a.Provenance()
	if a.Outcome() != answer.Answered || !strings.HasPrefix(p.EventDigest(), fact.LtHashScheme) {
		t.Fatalf("outcome %s (%s), digest %s: want the summed answer served (the resolver shares the stored digests)", a.Outcome(), a.Reason(), p.EventDigest())
	}
	if _, err := allPages(t, e, a.ResultIDs()[0]); !errors.Is(err, engine.ErrDataChanged) {
		t.Errorf("rows pager on a wrong stored digest: %v, want ErrDataChanged", err)
	}
}

// A stored count or digest altered in every whole hour of the window
// (those both routes sum; an altered edge hour is caught by their
// different edge treatments) is found by the resolver's spot hour: the
// answer is not served.
func TestWindowDigests_CorruptedEveryHour(t *testing.T) {
	for _, set := range []string{"_n = _n + 1", "_lthash = $1"} {
		t.Run(set, func(t *testing.T) {
			db, cat := windowDigestDB(t, nil)
			h := lthash.Of("not-a-key")
			b, _ := h.MarshalBinary()
			q := "UPDATE status_events" + shape.WindowKeysSuffix + " SET " + set + " WHERE zone_id = 'zone-01' AND status = 'RUNNING'" +
				" AND _hour >= CAST('2026-01-05 04:00:00' AS TIMESTAMP) AND _hour < CAST('2026-01-08 05:00:00' AS TIMESTAMP)"
			var args []any
			if strings.Contains(set, "$1") {
				args = []any{b}
			}
			if _, err := db.ExecContext(t.Context(), q, args...); err != nil {
				t.Fatal(err)
			}
			e, err := engine.OpenCatalog(t.Context(), cat, shape.Source{DB: db}, &engine.Options{ProvenanceLimit: 50, WindowDigests: true})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if a := e.Pipeline.Call(t.Context(), windowCall); a.Outcome() == answer.Answered {
				p, _ := a.Provenance()
				t.Fatalf("answered (digest %s) over altered stored hours", p.EventDigest())
			}
		})
	}
}

// The window digests are built only when asked for, or kept once built.
func TestWindowDigests_Opt(t *testing.T) {
	ctx := context.Background()
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	if got := shape.WindowGroups(cat, cat.Dataset("status_events")); strings.Join(got, ",") != "zone_id,status" {
		t.Errorf("WindowGroups = %v, want [zone_id status]", got)
	}
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := ingest.NewLayout(cat, "status_events")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Import(ctx, duckdb.NewSink(db, shape.ImportOptions(nil)), l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, 500)))); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'status_events"+shape.WindowKeysSuffix+"'").Scan(&n); err != nil || n != 0 {
		t.Errorf("an import without WindowKeys made the digests (%d, %v)", n, err)
	}
}
