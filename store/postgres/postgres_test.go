package postgres_test

import (
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

func open(t *testing.T, o *ingest.SinkOptions) (*sql.DB, ingest.Sink) {
	t.Helper()
	db, err := postgres.Open(t.Context(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, postgres.NewSink(db, o)
}

func TestSink_Contract(t *testing.T) {
	ingesttest.Run(t, open)
}

func TestSink_CreatesIndexes(t *testing.T) {
	db, sink := open(t, nil)
	l := ingesttest.WarehouseLayout(t)
	body := "event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code\n" +
		"e-1,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,IDLE,55,31.5,\n"
	if _, err := ingest.Import(t.Context(), sink, l, ingest.NewCSV("a.csv", l, strings.NewReader(body))); err != nil {
		t.Fatal(err)
	}
	ddl, err := l.DDL(ingest.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(t.Context(), `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname`, ingesttest.Table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	var want []string
	for _, s := range ddl[1:] {
		_, rest, _ := strings.Cut(s.SQL, `IF NOT EXISTS "`)
		name, _, _ := strings.Cut(rest, `"`)
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("indexes = %v, want %v", got, want)
	}
}

// An import leaves the planner's statistics of the table it wrote
// (pg_stats holds only what ANALYZE gathered): plans need not wait for
// autovacuum, which a server may run without.
func TestSink_Analyzes(t *testing.T) {
	db, sink := open(t, nil)
	l := ingesttest.WarehouseLayout(t)
	body := "event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code\n" +
		"e-1,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,IDLE,55,31.5,\n" +
		"e-2,dev-0002,AGV,zone-02,2026-01-06T08:01:00Z,RUNNING,54,31.0,\n"
	if _, err := ingest.Import(t.Context(), sink, l, ingest.NewCSV("a.csv", l, strings.NewReader(body))); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = $1", ingesttest.Table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("no planner statistics for %s after an import", ingesttest.Table)
	}
}
