// Package ingesttest is the contract suite every ingest.Sink passes
// (store/duckdb, store/postgres), and the test catalog it uses: the
// warehouse catalog with its dataset stored in a table.
package ingesttest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/warehouse/demo"
)

// Table is the table the warehouse test catalog stores its events in.
const Table = "status_events"

// WarehouseCatalog returns catalogs/warehouse.yaml, whose dataset is the
// table Table.
func WarehouseCatalog(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	b, path := warehouseYAML(tb)
	c, err := catalog.Load(bytes.NewReader(b), path)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// WarehouseCatalogFile writes WarehouseCatalog's YAML to a temporary file,
// with the metric fixtures it names beside it, and returns its path.
func WarehouseCatalogFile(tb testing.TB) string {
	tb.Helper()
	b, src := warehouseYAML(tb)
	dir := tb.TempDir()
	path := filepath.Join(dir, "warehouse.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "fixtures"), os.DirFS(filepath.Join(filepath.Dir(src), "fixtures"))); err != nil {
		tb.Fatal(err)
	}
	return path
}

func warehouseYAML(tb testing.TB) ([]byte, string) {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("locate ingesttest source")
	}
	path := filepath.Join(filepath.Dir(file), "..", "..", "catalogs", "warehouse.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Contains(b, []byte("table: "+Table)) {
		tb.Fatalf("%s: the dataset is not the table %s", path, Table)
	}
	return b, path
}

// WarehouseLayout returns the layout of WarehouseCatalog's dataset.
func WarehouseLayout(tb testing.TB) *ingest.Layout {
	tb.Helper()
	l, err := ingest.NewLayout(WarehouseCatalog(tb), "status_events")
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// DemoJSONL returns n warehouse demo events as JSON Lines.
func DemoJSONL(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	o := demo.DefaultOptions()
	o.Events = n
	if err := demo.WriteJSONL(context.Background(), &buf, o); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// DemoCSV returns n warehouse demo events as CSV.
func DemoCSV(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	o := demo.DefaultOptions()
	o.Events = n
	if err := demo.WriteCSV(context.Background(), &buf, o); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// Backend is one database under test: a fresh, empty database (or
// schema) per call, with its Sink made with o.
type Backend func(t *testing.T, o *ingest.SinkOptions) (*sql.DB, ingest.Sink)

// state is what a table holds, in summary.
type state struct {
	rows, minSeq, maxSeq, distinctSeq int64
}

func tableState(t *testing.T, db *sql.DB) state {
	t.Helper()
	var s state
	var exists int
	err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '`+Table+`'`).Scan(&exists)
	if err != nil {
		t.Fatalf("read table state: %v", err)
	}
	if exists == 0 {
		return s
	}
	err = db.QueryRowContext(t.Context(), `SELECT count(*), coalesce(min(_ingest_seq), 0), coalesce(max(_ingest_seq), 0), count(DISTINCT _ingest_seq) FROM `+ingest.Quote(Table)).
		Scan(&s.rows, &s.minSeq, &s.maxSeq, &s.distinctSeq)
	if err != nil {
		t.Fatalf("read table state: %v", err)
	}
	return s
}

func csvReader(l *ingest.Layout, name, body string) *ingest.Reader {
	return ingest.NewCSV(name, l, strings.NewReader(body))
}

const header = "event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code\n"

// row returns one valid CSV row with the given key.
func row(key string) string {
	return key + ",dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,FAULT,55,31.5,E-JAM\n"
}

// Run runs the contract suite on a backend.
func Run(t *testing.T, open Backend) {
	l := WarehouseLayout(t)
	t.Run("RoundTrip", func(t *testing.T) {
		db, sink := open(t, nil)
		const n = 1500
		res, err := ingest.Import(t.Context(), sink, l, ingest.NewJSONL("events.jsonl", l, bytes.NewReader(DemoJSONL(t, n))))
		if err != nil {
			t.Fatal(err)
		}
		if res != (ingest.Result{Rows: n, MaxSeq: n}) {
			t.Errorf("first import = %+v, want %d rows, max seq %d", res, n, n)
		}
		if got, want := tableState(t, db), (state{n, 1, n, n}); got != want {
			t.Errorf("after first import: %+v, want %+v", got, want)
		}
		res, err = ingest.Import(t.Context(), sink, l, csvReader(l, "more.csv", header+row("k-1")+row("k-2")+
			"k-3,dev-0002,LIFT,zone-02,2026-01-06T09:30:00.25Z,RUNNING,100,-4,\n"))
		if err != nil {
			t.Fatal(err)
		}
		if res != (ingest.Result{Rows: 3, MaxSeq: n + 3}) {
			t.Errorf("second import = %+v, want 3 rows, max seq %d", res, n+3)
		}
		if got, want := tableState(t, db), (state{n + 3, 1, n + 3, n + 3}); got != want {
			t.Errorf("after second import: %+v, want %+v", got, want)
		}
		var (
			ts          time.Time
			battery     int64
			temperature float64
			fault       sql.NullString
			seq         int64
		)
		err = db.QueryRowContext(t.Context(), `SELECT ts, battery_pct, temperature_c, fault_code, _ingest_seq FROM `+ingest.Quote(Table)+` WHERE event_id = 'k-3'`).
			Scan(&ts, &battery, &temperature, &fault, &seq)
		if err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 1, 6, 9, 30, 0, 250_000_000, time.UTC); !ts.Equal(want) || ts.Format(time.RFC3339Nano) != want.Format(time.RFC3339Nano) {
			t.Errorf("ts = %v, want %v", ts, want)
		}
		if battery != 100 || temperature != -4 || fault.Valid || seq != n+3 {
			t.Errorf("k-3 = battery %d, temperature %v, fault %v, seq %d; want 100, -4, NULL, %d", battery, temperature, fault, seq, n+3)
		}
		var text string
		if err := db.QueryRowContext(t.Context(), `SELECT CAST(ts AS VARCHAR) FROM `+ingest.Quote(Table)+` WHERE event_id = 'k-3'`).Scan(&text); err != nil {
			t.Fatal(err)
		}
		if want := "2026-01-06 09:30:00.25"; text != want {
			t.Errorf("ts as stored = %q, want %q (UTC wall clock)", text, want)
		}
		var faults int64
		if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM `+ingest.Quote(Table)+` WHERE fault_code IS NULL`).Scan(&faults); err != nil {
			t.Fatal(err)
		}
		if faults == 0 || faults == n+3 {
			t.Errorf("%d rows with no fault code: want some, not all (empty optional fields are NULL)", faults)
		}
	})
	t.Run("ErrorInLastRowLeavesTableAsItWas", func(t *testing.T) {
		db, sink := open(t, nil)
		if _, err := ingest.Import(t.Context(), sink, l, csvReader(l, "a.csv", header+row("a-1"))); err != nil {
			t.Fatal(err)
		}
		before := tableState(t, db)
		// 9,000 good rows first: more than a backend buffers, so some
		// reached the database before the bad one.
		body := string(DemoCSV(t, 9000)) + strings.Replace(row("b-3"), ",55,", ",5.5,", 1)
		_, err := ingest.Import(t.Context(), sink, l, csvReader(l, "b.csv", body))
		want := "b.csv:row 9001: field battery_pct: want an integer, not a fraction"
		if err == nil || err.Error() != want || !errors.Is(err, ingest.ErrInvalid) {
			t.Errorf("import = %v, want %q", err, want)
		}
		if got := tableState(t, db); got != before {
			t.Errorf("after failed import: %+v, want %+v", got, before)
		}
	})
	t.Run("DuplicateOfStoredKeyInLastRow", func(t *testing.T) {
		db, sink := open(t, nil)
		if _, err := ingest.Import(t.Context(), sink, l, csvReader(l, "a.csv", header+row("a-1")+row("a-2"))); err != nil {
			t.Fatal(err)
		}
		before := tableState(t, db)
		_, err := ingest.Import(t.Context(), sink, l, csvReader(l, "b.csv", header+row("b-1")+row("b-2")+row("a-2")))
		want := "b.csv:row 3: field event_id: key already stored"
		if err == nil || err.Error() != want {
			t.Errorf("import = %v, want %q", err, want)
		}
		if got := tableState(t, db); got != before {
			t.Errorf("after failed import: %+v, want %+v", got, before)
		}
	})
	t.Run("DuplicatesWithinImport", func(t *testing.T) {
		db, sink := open(t, nil)
		_, err := ingest.Import(t.Context(), sink, l,
			csvReader(l, "a.csv", header+row("x-1")+row("x-2")+row("x-1")),
			csvReader(l, "b.csv", header+row("x-3")+row("x-2")))
		want := "a.csv:row 3: field event_id: duplicate key: row 1 has it too\n" +
			"b.csv:row 2: field event_id: duplicate key: a.csv row 2 has it too"
		if err == nil || err.Error() != want {
			t.Errorf("import = %v, want %q", err, want)
		}
		if got := tableState(t, db); got != (state{}) {
			t.Errorf("after failed import: %+v, want empty", got)
		}
	})
	t.Run("ManyErrorsAreBounded", func(t *testing.T) {
		db, sink := open(t, nil)
		var b strings.Builder
		b.WriteString(header)
		for i := range 3 * ingest.MaxErrors {
			b.WriteString(strings.Replace(row(fmt.Sprintf("m-%d", i)), "AGV", "BOAT", 1))
		}
		_, err := ingest.Import(t.Context(), sink, l, csvReader(l, "m.csv", b.String()))
		var list ingest.Errors
		if !errors.As(err, &list) || len(list) != ingest.MaxErrors {
			t.Fatalf("import = %v, want %d errors", err, ingest.MaxErrors)
		}
		if list[0].Row != 1 || list[ingest.MaxErrors-1].Row != ingest.MaxErrors || list[0].Field != "device_type" {
			t.Errorf("errors = %v, want rows 1 to %d, field device_type", list, ingest.MaxErrors)
		}
		if got := tableState(t, db); got != (state{}) {
			t.Errorf("after failed import: %+v, want empty", got)
		}
	})
	t.Run("CancelledImportStoresNothing", func(t *testing.T) {
		db, sink := open(t, nil)
		if _, err := ingest.Import(t.Context(), sink, l, csvReader(l, "a.csv", header+row("a-1"))); err != nil {
			t.Fatal(err)
		}
		before := tableState(t, db)
		ctx, cancel := context.WithCancel(t.Context())
		r := ingest.NewJSONL("big.jsonl", l, &cancelAfter{r: bytes.NewReader(DemoJSONL(t, 10_000)), n: 200_000, cancel: cancel})
		_, err := ingest.Import(ctx, sink, l, r)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("import = %v, want context.Canceled", err)
		}
		if got := tableState(t, db); got != before {
			t.Errorf("after cancelled import: %+v, want %+v", got, before)
		}
	})
	t.Run("LayoutMismatch", func(t *testing.T) { layoutMismatch(t, open) })
	t.Run("AfterInsert", func(t *testing.T) { afterInsert(t, open) })
	t.Run("IndexesExist", func(t *testing.T) {
		db, sink := open(t, nil)
		if _, err := ingest.Import(t.Context(), sink, l, csvReader(l, "a.csv", header+row("a-1"))); err != nil {
			t.Fatal(err)
		}
		// A second import re-runs every DDL statement: each is idempotent.
		if _, err := ingest.Import(t.Context(), sink, l, csvReader(l, "b.csv", header+row("b-1"))); err != nil {
			t.Fatal(err)
		}
		if got := tableState(t, db); got != (state{2, 1, 2, 2}) {
			t.Errorf("after two imports: %+v", got)
		}
	})
}

// cancelAfter cancels a context once n bytes were read.
type cancelAfter struct {
	r      *bytes.Reader
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n -= n; c.n <= 0 {
		c.cancel()
	}
	return n, err
}

// layoutMismatch checks that an import into an existing table of
// another layout fails before reading, naming the column.
func layoutMismatch(t *testing.T, open Backend) {
	db, sink := open(t, nil)
	l := WarehouseLayout(t)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE `+ingest.Quote(Table)+` (event_id VARCHAR, ts TIMESTAMP)`); err != nil {
		t.Fatal(err)
	}
	_, err := ingest.Import(t.Context(), sink, l, csvReader(l, "a.csv", header+row("a-1")))
	if !errors.Is(err, ingest.ErrLayout) || !strings.Contains(err.Error(), "column device_id is missing") {
		t.Errorf("import = %v, want ErrLayout naming device_id", err)
	}
}

// afterInsert checks the hook: it runs inside the transaction, sees the
// rows, may add a derived column ("_" first) that later imports leave to
// its default, and its error rolls the import back, its own work included.
func afterInsert(t *testing.T, open Backend) {
	l := WarehouseLayout(t)
	var seen int64
	fail := false
	db, sink := open(t, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+ingest.Quote(l.Table)).Scan(&seen); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+ingest.Quote(l.Table)+` ADD COLUMN IF NOT EXISTS _derived BIGINT`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+ingest.Quote(l.Table)+` SET _derived = _ingest_seq * 10`); err != nil {
			return err
		}
		if fail {
			return errors.New("derive failed")
		}
		return nil
	}})
	if _, err := ingest.Import(t.Context(), sink, l, csvReader(l, "a.csv", header+row("a-1")+row("a-2"))); err != nil {
		t.Fatal(err)
	}
	if seen != 2 {
		t.Errorf("the hook saw %d rows, want 2", seen)
	}
	if _, err := ingest.Import(t.Context(), sink, l, csvReader(l, "b.csv", header+row("b-1"))); err != nil {
		t.Fatalf("import into a table with a derived column: %v", err)
	}
	var derived int64
	if err := db.QueryRowContext(t.Context(), `SELECT _derived FROM `+ingest.Quote(Table)+` WHERE event_id = 'b-1'`).Scan(&derived); err != nil || derived != 30 {
		t.Errorf("derived column of the second import's row = %d, %v; want 30", derived, err)
	}
	fail = true
	before := tableState(t, db)
	_, err := ingest.Import(t.Context(), sink, l, csvReader(l, "c.csv", header+row("c-1")))
	if err == nil || !strings.Contains(err.Error(), "derive failed") {
		t.Errorf("import = %v, want the hook's error", err)
	}
	if got := tableState(t, db); got != before {
		t.Errorf("after a failed hook: %+v, want %+v", got, before)
	}
	var n int64
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM `+ingest.Quote(Table)+` WHERE _derived = 40`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the failed hook's update survived: %d rows, %v", n, err)
	}
}

// ImportInTwo imports n demo events of the given number of devices
// through sink in two imports (the second an append of later rows), and
// returns the series the census holds and the distinct checkpoint times:
// what a backend's test of its default checkpoint spacing judges.
func ImportInTwo(t *testing.T, db *sql.DB, sink ingest.Sink, n, devices int) (series, checkpoints int) {
	t.Helper()
	l := WarehouseLayout(t)
	o := demo.DefaultOptions()
	o.Events, o.Devices = n, devices
	var csv bytes.Buffer
	if err := demo.WriteCSV(t.Context(), &csv, o); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(csv.Bytes(), []byte("\n"))
	head, body := lines[0], lines[1:]
	part := func(lo, hi int) []byte { return append(append([]byte{}, head...), bytes.Join(body[lo:hi], nil)...) }
	for i, p := range [][]byte{part(0, n/2), part(n/2, n)} {
		if _, err := ingest.Import(t.Context(), sink, l, ingest.NewCSV(fmt.Sprint("part", i), l, bytes.NewReader(p))); err != nil {
			t.Fatal(err)
		}
	}
	count := func(q string) int {
		var c int
		if err := db.QueryRowContext(t.Context(), q).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	return count(`SELECT COUNT(*) FROM ` + Table + `__series`), count(`SELECT COUNT(*) FROM ` + Table + `__cpi`)
}

// FilesCatalog is the warehouse test catalog with its dataset read in
// place from files (a `files:` glob, relative to where it is opened)
// instead of the table.
func FilesCatalog(tb testing.TB, files string) *catalog.Catalog {
	tb.Helper()
	b, err := os.ReadFile(WarehouseCatalogFile(tb))
	if err != nil {
		tb.Fatal(err)
	}
	c, err := catalog.Load(strings.NewReader(strings.Replace(string(b), "table: "+Table, "files: "+files, 1)), "files.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// ChangingFiles writes n demo events to events.csv in a new directory and
// returns the directory and change, which rewrites the file in place with
// one more event: IDLE, zone-01, 2026-01-05T12:00:00Z (inside a window of
// that day, so an answer over it changes).
func ChangingFiles(tb testing.TB, n int) (dir string, change func()) {
	tb.Helper()
	dir = tb.TempDir()
	path := filepath.Join(dir, "events.csv")
	csv := DemoCSV(tb, n)
	if err := os.WriteFile(path, csv, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, func() {
		tb.Helper()
		extra := "wh-evt-x0000001,dev-0001,AGV,zone-01,2026-01-05T12:00:00Z,IDLE,50,20.5,\n"
		if err := os.WriteFile(path, append(bytes.TrimRight(csv, "\n"), append([]byte("\n"), extra...)...), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
