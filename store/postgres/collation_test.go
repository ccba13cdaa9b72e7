package postgres_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestCollation_TieRuleIsBytewise: in a database whose default collation
// is not bytewise (ICU en-US, where "evt-B" sorts after "evt-a"), the tie
// rule still picks the greatest key bytewise, as Go and DuckDB order it,
// and the answer is re-derived as correct: the tables import creates sort
// their text columns by collation "C".
func TestCollation_TieRuleIsBytewise(t *testing.T) {
	dsn := pgtest.Database(t, "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
	db, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var greatest string
	if err := db.QueryRowContext(t.Context(), `SELECT MAX(k) FROM (VALUES ('evt-a'), ('evt-B')) v(k)`).Scan(&greatest); err != nil {
		t.Fatal(err)
	}
	if greatest != "evt-B" {
		t.Fatalf("the database's default collation orders bytewise (greatest %q): the test proves nothing", greatest)
	}

	l := ingesttest.WarehouseLayout(t)
	body := "event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code\n" +
		"evt-B,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,IDLE,55,31.5,\n" +
		"evt-a,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,RUNNING,54,31.5,\n" +
		"evt-C,dev-0002,AGV,zone-01,2026-01-06T07:00:00Z,RUNNING,80,30.0,\n"
	sink := postgres.NewSink(db, shape.ImportOptions(nil))
	if _, err := ingest.Import(t.Context(), sink, l, ingest.NewCSV("ties.csv", l, strings.NewReader(body))); err != nil {
		t.Fatal(err)
	}
	if err := postgres.CheckCollation(t.Context(), db, ingesttest.WarehouseCatalog(t)); err != nil {
		t.Errorf("the table import created: %v", err)
	}
	eng, err := shape.New(t.Context(), ingesttest.WarehouseCatalog(t), shape.Source{DB: db, Snapshot: &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	tests := []struct {
		name string
		call shape.Call
		want string // the provenance keys, comma-separated
	}{
		{"latest_value", shape.Call{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0001", "as_of": "2026-01-06T09:00:00Z"}, Scope: shape.All()}, "evt-a"},
		{"list_entities_in_state", shape.Call{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": "zone-01", "status": "RUNNING", "as_of": "2026-01-06T09:00:00Z"}, Scope: shape.All()}, "evt-C,evt-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := eng.Begin(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			r, err := snap.Execute(t.Context(), tt.call)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(r.Keys, ",")
			if got != tt.want {
				t.Errorf("provenance = %q, want %q (each series' latest row is its greatest key bytewise, and keys are listed bytewise)", got, tt.want)
			}
			v, err := snap.Resolve(t.Context(), tt.call, r)
			if err != nil {
				t.Fatal(err)
			}
			if !v.OK() {
				t.Errorf("verdict = %+v, want every clause to hold", v)
			}
		})
	}
}

// TestCheckCollation: a table whose key or series column sorts by the
// database's en-US default is refused, naming the columns and the fix;
// the fixed table, and one import created, pass.
func TestCheckCollation(t *testing.T) {
	dsn := pgtest.Database(t, "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
	db, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cat := ingesttest.WarehouseCatalog(t)
	if err := postgres.CheckCollation(t.Context(), db, cat); err != nil {
		t.Fatalf("no table yet: %v", err)
	}
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE status_events (event_id TEXT, ts TIMESTAMP, device_id TEXT, zone_id TEXT, status TEXT)`); err != nil {
		t.Fatal(err)
	}
	err = postgres.CheckCollation(t.Context(), db, cat)
	if !errors.Is(err, postgres.ErrCollation) {
		t.Fatalf("CheckCollation = %v, want ErrCollation", err)
	}
	for _, want := range []string{"event_id, device_id", `ALTER TABLE "status_events" ALTER COLUMN "event_id" TYPE text COLLATE "C"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "zone_id") {
		t.Errorf("error %q names a column no shape sorts by", err)
	}
	if _, err := db.ExecContext(t.Context(), `ALTER TABLE "status_events" ALTER COLUMN "event_id" TYPE text COLLATE "C", ALTER COLUMN "device_id" TYPE text COLLATE "C"`); err != nil {
		t.Fatal(err)
	}
	if err := postgres.CheckCollation(t.Context(), db, cat); err != nil {
		t.Errorf("after the fix: %v", err)
	}
}
