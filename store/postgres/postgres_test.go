package postgres_test

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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

// TestSink_AnalyzesGrowth: an import analyzes the table when it takes its
// rows past a power of 1.1 (1.1^49 = 106.7, 1.1^50 = 117.4), and not
// otherwise (reltuples, which ANALYZE sets to the rows it counts, all of
// them in a table this small, stays where it was).
func TestSink_AnalyzesGrowth(t *testing.T) {
	db, sink := open(t, nil)
	l := ingesttest.WarehouseLayout(t)
	next := 0
	load := func(n int) {
		t.Helper()
		var b strings.Builder
		b.WriteString("event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code\n")
		for range n {
			next++
			fmt.Fprintf(&b, "e-%d,dev-0001,AGV,zone-01,%s,IDLE,55,31.5,\n", next, time.Date(2026, 1, 6, 8, 0, next, 0, time.UTC).Format(time.RFC3339))
		}
		if _, err := ingest.Import(t.Context(), sink, l, ingest.NewCSV("a.csv", l, strings.NewReader(b.String()))); err != nil {
			t.Fatal(err)
		}
	}
	tuples := func() float64 {
		t.Helper()
		var n float64
		if err := db.QueryRowContext(t.Context(), "SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)", ingest.Quote(ingesttest.Table)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, step := range []struct {
		add  int
		want float64
	}{
		{100, 100}, // the first import
		{5, 100},   // 105
		{3, 108},   // past 106.7
		{8, 108},   // 116
		{2, 118},   // past 117.4
		{1, 118},   // 119
	} {
		load(step.add)
		if got := tuples(); got != step.want {
			t.Fatalf("after adding %d rows (%d stored): reltuples %v, want %v", step.add, next, got, step.want)
		}
	}
}
