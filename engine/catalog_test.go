package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/fact"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/tool"
)

// openWarehouse imports n warehouse demo events into an in-memory DuckDB
// (with the derived structures) and opens a catalog engine over it.
func openWarehouse(t *testing.T, n int, opts *engine.Options) (*engine.Engine, *sql.DB) {
	t.Helper()
	ctx := t.Context()
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		t.Fatal(err)
	}
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := ingest.NewLayout(cat, "status_events")
	if err != nil {
		t.Fatal(err)
	}
	sink := duckdb.NewSink(db, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, &shape.DeriveOptions{Every: 257})
	}})
	if _, err := ingest.Import(ctx, sink, l, ingest.NewJSONL("demo.jsonl", l, bytes.NewReader(ingesttest.DemoJSONL(t, n)))); err != nil {
		t.Fatal(err)
	}
	e, err := engine.OpenCatalog(ctx, cat, shape.Source{DB: db}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, db
}

// TestOpenCatalog_Ask: every warehouse tool answers a question in one of
// its phrasings, verified, with a sentence from its template.
func TestOpenCatalog_Ask(t *testing.T) {
	e, _ := openWarehouse(t, 5000, nil)
	tests := []struct {
		question string
		tool     string
		outcome  answer.Outcome
	}{
		{"What is the status of dev-0007 as of 2026-01-06T12:00:00Z?", "get_device_status", answer.Answered},
		{"What's the battery level of dev-0007 at 2026-01-06T12:00:00Z?", "get_battery_level", answer.Answered},
		{"How hot was dev-0003 at 2026-01-06T12:00:00Z?", "get_temperature", answer.Answered},
		{"How many devices have condition NEEDS_ATTENTION as of 2026-01-06T12:00:00Z?", "count_devices_with_condition", answer.Answered},
		{"Which devices are in status RUNNING in zone-02 as of 2026-01-06T12:00:00Z?", "list_devices_in_status", answer.Answered},
		{"How many RUNNING events were recorded in zone-02 in [2026-01-05T00:00:00Z, 2026-01-06T00:00:00Z)?", "count_status_events_in_window", answer.Answered},
		{"What is the status of dev-0007 as of 2025-01-01T00:00:00Z?", "get_device_status", answer.Absence},
		{"How many devices have condition BATTERY_FAULT as of 2025-01-01T00:00:00Z?", "count_devices_with_condition", answer.Absence},
		{"What is the status of dev-7 as of 2026-01-06T12:00:00Z?", "get_device_status", answer.Rejected},
		{"How many employees work in zone-02?", "", answer.Abstained},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			a := e.Pipeline.Ask(t.Context(), tt.question)
			if a.Outcome() != tt.outcome || a.Tool() != tt.tool {
				t.Fatalf("Ask = %s %s (%s), want %s %s", a.Outcome(), a.Tool(), a.Reason(), tt.outcome, tt.tool)
			}
			if v, ok := a.Verdict(); ok && !v.OK() {
				t.Errorf("verdict %+v", v)
			}
			if tt.outcome == answer.Answered && a.Text() == "" {
				t.Error("no sentence")
			}
		})
	}
}

// TestOpenCatalog_LargeProvenance: past the provenance limit an answer
// lists the first ids with the count and digest of them all, and still
// verifies.
func TestOpenCatalog_LargeProvenance(t *testing.T) {
	e, db := openWarehouse(t, 5000, &engine.Options{ProvenanceLimit: 3})
	args := map[string]any{"zone_id": "zone-02", "status": "RUNNING", "start": "2026-01-05T00:00:00Z", "end": "2026-01-08T00:00:00Z"}
	a := e.Pipeline.Call(t.Context(), tool.Proposal{Tool: "count_status_events_in_window", Params: args})
	if a.Outcome() != answer.Answered {
		t.Fatalf("outcome %s (%s)", a.Outcome(), a.Reason())
	}
	p, _ := a.Provenance()
	var all []string
	rows, err := db.QueryContext(t.Context(), `SELECT event_id FROM status_events WHERE zone_id = 'zone-02' AND status = 'RUNNING'
		AND ts >= TIMESTAMP '2026-01-05 00:00:00' AND ts < TIMESTAMP '2026-01-08 00:00:00'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		all = append(all, k)
	}
	rows.Close()
	if len(all) <= 3 {
		t.Fatalf("the window holds %d events; the test wants more than the limit", len(all))
	}
	if p.Complete() || p.NumEvents() != len(all) || len(p.EventIDs()) != 3 || p.EventDigest() != fact.Digest(all) {
		t.Errorf("provenance: complete %v, %d events (want %d), %d listed, digest match %v",
			p.Complete(), p.NumEvents(), len(all), len(p.EventIDs()), p.EventDigest() == fact.Digest(all))
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Provenance struct {
			EventIDs    []string `json:"event_ids"`
			EventCount  int      `json:"event_count"`
			EventDigest string   `json:"event_digest"`
		} `json:"provenance"`
		Verification *fact.Verdict `json:"verification"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Provenance.EventCount != len(all) || len(got.Provenance.EventIDs) != 3 || got.Provenance.EventDigest != fact.Digest(all) {
		t.Errorf("answer JSON provenance = %+v", got.Provenance)
	}

	// Paging through every id behind the answer.
	id := a.ResultIDs()[0]
	var paged []string
	for page := 1; ; page++ {
		rp, err := e.RowsPage(t.Context(), id, page, tool.AllStores())
		if err != nil {
			t.Fatalf("Rows page %d: %v", page, err)
		}
		paged = append(paged, rp.EventIDs...)
		if rp.EventCount != len(all) || rp.EventDigest != fact.Digest(all) {
			t.Fatalf("page %d: count %d digest %s", page, rp.EventCount, rp.EventDigest)
		}
		if page == rp.Pages {
			break
		}
	}
	slices.Sort(all)
	if !slices.Equal(paged, all) {
		t.Errorf("paged ids = %v, want %v", paged, all)
	}
	for _, tt := range []struct {
		name  string
		id    string
		page  int
		scope tool.Scope
		want  error
	}{
		{"page 0", id, 0, tool.AllStores(), engine.ErrNoSuchPage},
		{"past the last page", id, 1000, tool.AllStores(), engine.ErrNoSuchPage},
		{"unknown result", "res-000000000000001-00000000000000000001", 1, tool.AllStores(), engine.ErrUnknownResult},
		{"another scope", id, 1, tool.StoresOnly("zone-02"), engine.ErrUnknownResult},
	} {
		if _, err := e.RowsPage(t.Context(), tt.id, tt.page, tt.scope); !errors.Is(err, tt.want) {
			t.Errorf("%s: Rows = %v, want %v", tt.name, err, tt.want)
		}
	}
	// A new row changes the data version: the old result's pages are gone.
	if _, err := db.ExecContext(t.Context(), `INSERT INTO status_events (event_id, ts, device_id, device_type, zone_id, status,
		battery_pct, temperature_c, fault_code, _ingest_seq) SELECT 'zz-new', ts, device_id, device_type, zone_id, status,
		battery_pct, temperature_c, fault_code, _ingest_seq + 1000000 FROM status_events LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RowsPage(t.Context(), id, 1, tool.AllStores()); !errors.Is(err, engine.ErrDataChanged) {
		t.Errorf("Rows after an import = %v, want ErrDataChanged", err)
	}
}

// TestSummary_PerDataVersion: the dataset summary is kept per data
// version and scope, so a new row (a new version) is counted, and a
// limited scope counts its own zones only.
func TestSummary_PerDataVersion(t *testing.T) {
	e, db := openWarehouse(t, 2000, nil)
	rows := func(scope tool.Scope) int64 {
		t.Helper()
		sum, err := e.Summary(t.Context(), scope)
		if err != nil || len(sum.Datasets) != 1 {
			t.Fatalf("Summary = %+v, %v", sum, err)
		}
		return sum.Datasets[0].Rows
	}
	all := rows(tool.AllStores())
	if all != 2000 || rows(tool.AllStores()) != 2000 {
		t.Fatalf("rows = %d, want 2000 twice", all)
	}
	one := rows(tool.StoresOnly("zone-01"))
	if one <= 0 || one >= all {
		t.Errorf("rows in zone-01 = %d, want some of %d", one, all)
	}
	if _, err := db.ExecContext(t.Context(), `INSERT INTO status_events (event_id, ts, device_id, device_type, zone_id, status,
		battery_pct, temperature_c, fault_code, _ingest_seq) SELECT 'zz-new', ts, device_id, device_type, zone_id, status,
		battery_pct, temperature_c, fault_code, _ingest_seq + 1000000 FROM status_events LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if got := rows(tool.AllStores()); got != 2001 {
		t.Errorf("rows after a new row = %d, want 2001 (a new data version is summarised anew)", got)
	}
}
