package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

const importHeader = "event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code\n"

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// countRows returns the rows and greatest _ingest_seq of the DuckDB
// file's table, or zeros when the table is missing.
func countRows(t *testing.T, path string) (n, maxSeq int64) {
	t.Helper()
	db, err := duckdb.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var exists int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM duckdb_tables() WHERE table_name = 'status_events'`).Scan(&exists); err != nil || exists == 0 {
		return 0, 0
	}
	// Every import creates the catalog's tasks table (writes: table:
	// tasks), empty.
	var tasks int64
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM tasks`).Scan(&tasks); err != nil || tasks != 0 {
		t.Errorf("tasks table: %d rows, %v; want it created, empty", tasks, err)
	}
	if err := db.QueryRowContext(t.Context(), `SELECT count(*), coalesce(max(_ingest_seq), 0) FROM status_events`).Scan(&n, &maxSeq); err != nil {
		t.Fatal(err)
	}
	// The derived structures cover every row.
	var open int64
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM status_events WHERE _valid_to IS NULL`).Scan(&open); err != nil || open != 0 {
		t.Errorf("%d rows without a validity interval (%v): import did not derive", open, err)
	}
	return n, maxSeq
}

func TestImport_DuckDB(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	jsonl := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 300)))
	good := writeFile(t, dir, "more.csv", importHeader+"k-1,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,FAULT,55,31.5,E-JAM\n")
	// Row 2: an unknown device type and a distinctive bad id; row 3 repeats
	// a key stored by the first import.
	bad := writeFile(t, dir, "bad.csv", importHeader+
		"k-2,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,IDLE,55,31.5,\n"+
		"k-3,dev-XYZZY,BOAT,zone-01,2026-01-06T08:00:00+01:00,IDLE,55,31.5,\n")
	dup := writeFile(t, dir, "dup.csv", importHeader+
		"k-4,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,IDLE,55,31.5,\n"+
		"k-1,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,IDLE,55,31.5,\n")
	db := filepath.Join(dir, "w.duckdb")
	base := []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", db}
	adir := filepath.Join(dir, "adir.csv")
	if err := os.Mkdir(adir, 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr []string
		wantRows   int64
		wantSeq    int64
	}{
		{"jsonl and csv in one transaction", append(append([]string{}, base...), jsonl, good), 0,
			"imported 301 row(s) into status_events (dataset status_events); data version 301 (greatest _ingest_seq)\n", nil, 301, 301},
		{"every data error, nothing imported", append(append([]string{}, base...), bad), 1, "",
			[]string{bad + ":row 2: field ts: want UTC, written with Z (no other offset)",
				bad + ":row 2: field device_id: does not match the entity's pattern ^dev-[0-9]{4}$",
				bad + ":row 2: field device_type: not one of the attribute's declared values",
				"provenant: import: 3 error(s), nothing imported: invalid input"}, 301, 301},
		{"a key already stored", append(append([]string{}, base...), dup), 1, "",
			[]string{dup + ":row 2: field event_id: key already stored"}, 301, 301},
		{"a directory", append(append([]string{}, base...), adir), 1, "",
			[]string{"provenant: open input " + adir + ": is a directory\n"}, 301, 301},
		{"flags after the inputs", []string{"import", good + "x.csv", "--db", db, "--catalog", cat, "--dataset", "status_events"}, 1, "",
			[]string{"provenant: open input:"}, 301, 301},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(t.Context(), tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %s)", code, tt.wantCode, stderr.String())
			}
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
			rest := stderr.String()
			for _, w := range tt.wantStderr {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stderr lacks %q (in order)\n%s", w, stderr.String())
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(stderr.String(), "XYZZY") || strings.Contains(stderr.String(), "BOAT") {
				t.Errorf("stderr echoes a rejected value:\n%s", stderr.String())
			}
			if n, seq := countRows(t, db); n != tt.wantRows || seq != tt.wantSeq {
				t.Errorf("table: %d rows, data version %d; want %d, %d", n, seq, tt.wantRows, tt.wantSeq)
			}
		})
	}
}

func TestImport_Parquet(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "events.csv", string(ingesttest.DemoCSV(t, 200)))
	pq := filepath.Join(dir, "events.parquet")
	mem, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if _, err := mem.ExecContext(t.Context(), fmt.Sprintf("COPY (SELECT * REPLACE (CAST(ts AS TIMESTAMP) AS ts) FROM read_csv('%s')) TO '%s' (FORMAT parquet)", csvPath, pq)); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "w.duckdb")
	var stdout, stderr bytes.Buffer
	code := runMain(t.Context(), []string{"import", "--catalog", ingesttest.WarehouseCatalogFile(t), "--dataset", "status_events", "--db", db, pq}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if n, seq := countRows(t, db); n != 200 || seq != 200 {
		t.Errorf("table: %d rows, data version %d; want 200, 200", n, seq)
	}
}

func TestImport_Postgres(t *testing.T) {
	dsn := pgtest.Schema(t)
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	jsonl := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 250)))
	bad := writeFile(t, dir, "bad.jsonl", `{"event_id":"z-1","device_id":"dev-0001","device_type":"AGV","zone_id":"zone-01","ts":"2026-01-06T08:00:00Z","status":"IDLE","battery_pct":55.5,"temperature_c":31.5,"fault_code":null}`+"\n")
	args := []string{"import", "--catalog", cat, "--dataset", "status_events", "--postgres", dsn}
	var stdout, stderr bytes.Buffer
	if code := runMain(t.Context(), append(append([]string{}, args...), jsonl), &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if want := "imported 250 row(s) into status_events (dataset status_events); data version 250 (greatest _ingest_seq)\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
	stdout.Reset()
	stderr.Reset()
	code := runMain(t.Context(), append(append([]string{}, args...), bad), &stdout, &stderr)
	if want := bad + ":row 1: field battery_pct: want an integer, not a fraction"; code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit code %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
	pg, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	var n, seq int64
	if err := pg.QueryRowContext(t.Context(), `SELECT count(*), max(_ingest_seq) FROM status_events`).Scan(&n, &seq); err != nil {
		t.Fatal(err)
	}
	if n != 250 || seq != 250 {
		t.Errorf("table: %d rows, data version %d; want 250, 250", n, seq)
	}
	// The catalog's tasks table (writes: table: tasks), created empty.
	var tasks int64
	if err := pg.QueryRowContext(t.Context(), `SELECT count(*) FROM tasks`).Scan(&tasks); err != nil || tasks != 0 {
		t.Errorf("tasks table: %d rows, %v; want it created, empty", tasks, err)
	}
	// A Parquet input, read through an in-memory DuckDB.
	pq := filepath.Join(dir, "more.parquet")
	mem, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if _, err := mem.ExecContext(t.Context(), fmt.Sprintf(`COPY (SELECT 'p-1' AS event_id, TIMESTAMP '2026-01-06 08:00:00' AS ts, 'dev-0001' AS device_id,
		'zone-01' AS zone_id, 'AGV' AS device_type, 'IDLE' AS status, 40 AS battery_pct, 21.5::DOUBLE AS temperature_c, NULL AS fault_code) TO '%s' (FORMAT parquet)`, pq)); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := runMain(t.Context(), append(append([]string{}, args...), pq), &stdout, &stderr); code != 0 {
		t.Fatalf("parquet: exit code %d: %s", code, stderr.String())
	}
	if err := pg.QueryRowContext(t.Context(), `SELECT count(*), max(_ingest_seq) FROM status_events`).Scan(&n, &seq); err != nil || n != 251 || seq != 251 {
		t.Errorf("after the Parquet import: %d rows, data version %d (%v); want 251, 251", n, seq, err)
	}
	var census int64
	if err := pg.QueryRowContext(t.Context(), `SELECT count(*) FROM status_events__series`).Scan(&census); err != nil || census == 0 {
		t.Errorf("census: %d series, %v; want the derived structures", census, err)
	}
}

func TestImport_Usage(t *testing.T) {
	cat := ingesttest.WarehouseCatalogFile(t)
	in := writeFile(t, t.TempDir(), "e.csv", importHeader)
	// A copy of the warehouse catalog whose dataset reads Parquet files.
	warehouse, err := os.ReadFile("../../catalogs/warehouse.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := writeFile(t, t.TempDir(), "files.yaml",
		strings.Replace(string(warehouse), "table: status_events", "files: data/warehouse/*.parquet", 1))
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no catalog", []string{"import", "--dataset", "d", "--db", "x.duckdb", in}, 2, "provenant import: --catalog FILE is required"},
		{"no dataset", []string{"import", "--catalog", cat, "--db", "x.duckdb", in}, 2, "provenant import: --dataset NAME is required"},
		{"no database", []string{"import", "--catalog", cat, "--dataset", "status_events", in}, 2, "want exactly one of --db FILE.duckdb and --postgres DSN"},
		{"two databases", []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", "x.duckdb", "--postgres", "postgres://x", in}, 2, "want exactly one of --db"},
		{"no input", []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", "x.duckdb"}, 2, "provenant import: missing INPUT..."},
		{"unknown format", []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", "x.duckdb", in, "secret.xlsx"}, 2,
			"provenant import: input 2: unknown format (want a file ending .jsonl, .ndjson, .csv or .parquet)"},
		{"unknown dataset", []string{"import", "--catalog", cat, "--dataset", "events", "--db", "x.duckdb", in}, 2,
			"provenant import: --dataset: the catalog declares no such dataset (it declares status_events)"},
		{"a negative checkpoint spacing", []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", "x.duckdb", "--checkpoint-every", "-7", in}, 2,
			"provenant import: --checkpoint-every: want a number of rows from 1 to 1099511627776 (or 0 for the default)"},
		{"a checkpoint spacing that is not a number", []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", "x.duckdb", "--checkpoint-every", "secret", in}, 2,
			"--checkpoint-every"},
		{"a files dataset", []string{"import", "--catalog", files, "--dataset", "status_events", "--db", "x.duckdb", in}, 1,
			"provenant: lay out dataset: dataset is not a table (it reads files in place; declare `table:` to import)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			t.Chdir(t.TempDir())
			code := runMain(t.Context(), tt.args, &stdout, &stderr)
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("exit code %d, stderr %q; want %d and %q", code, stderr.String(), tt.wantCode, tt.wantStderr)
			}
			if strings.Contains(stderr.String(), "secret") {
				t.Errorf("stderr echoes an argument: %q", stderr.String())
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestImport_JSON: --json prints one object with the rows, the data
// version and the time the import took.
func TestImport_JSON(t *testing.T) {
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 120)))
	db := filepath.Join(dir, "w.duckdb")
	var stdout, stderr bytes.Buffer
	code := runMain(t.Context(), []string{"import", "--json", "--catalog", ingesttest.WarehouseCatalogFile(t), "--dataset", "status_events", "--db", db, jsonl}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	var r importReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	if r.Rows != 120 || r.DataVersion != 120 || r.Table != "status_events" || r.Dataset != "status_events" || !(r.Seconds > 0) || !(r.RowsPerSecond > 0) {
		t.Errorf("report = %+v", r)
	}
}

// TestImport_CheckpointEvery: --checkpoint-every spaces the checkpoints
// by the rows it names (one every N rows in time order), where the
// default spaces them by at least shape.MinEvery; answers do not depend
// on it (store/duckdb's TestDerive_* and shape/shapetest hold any
// spacing to the oracle).
func TestImport_CheckpointEvery(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	in := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 300)))
	tests := []struct {
		name string
		args []string
		want int64 // checkpoints
	}{
		{"default", nil, 0},
		{"every 64 rows", []string{"--checkpoint-every", "64"}, 300 / 64},
		{"every 100 rows, flag after the input", []string{"--checkpoint-every=100"}, 300 / 100},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(dir, fmt.Sprintf("w%d.duckdb", i))
			args := append([]string{"import", "--catalog", cat, "--dataset", "status_events", "--db", db, in}, tt.args...)
			var stdout, stderr bytes.Buffer
			if code := runMain(t.Context(), args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr.String())
			}
			d, err := duckdb.OpenFile(t.Context(), db)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var got int64
			if err := d.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM status_events__cpi`).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%d checkpoints, want %d", got, tt.want)
			}
		})
	}
}

// TestImport_InterruptEndlessInput: an input one row of which never ends
// (here /dev/zero under a .jsonl or .csv name: a line or a CSV header
// without an end) stops when the import's context is cancelled, as an
// interrupt cancels it, with nothing imported. Before, the reading loop
// never looked at the context: the process ignored SIGINT and SIGTERM,
// spinning (JSON Lines) or growing by gigabytes (CSV) until killed.
func TestImport_InterruptEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	db := filepath.Join(dir, "w.duckdb")
	for _, name := range []string{"zero.jsonl", "zero.csv"} {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(dir, name)
			if err := os.Symlink("/dev/zero", in); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			done := make(chan int, 1)
			var stdout, stderr bytes.Buffer
			go func() {
				done <- runMain(ctx, []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", db, in}, &stdout, &stderr)
			}()
			select {
			case code := <-done:
				if code != 1 {
					t.Errorf("exit code %d, want 1 (stderr %s)", code, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("import still reading 10 s after its context was cancelled")
			}
			if n, seq := countRows(t, db); n != 0 || seq != 0 {
				t.Errorf("table: %d rows, data version %d; want nothing imported", n, seq)
			}
		})
	}
}

// TestImport_PostgresTimesOutOfRange: a Parquet time outside the years
// 0000 to 9999 is refused at its row and field on PostgreSQL too, with
// nothing imported. Before, DuckDB's infinity and minus infinity were
// both stored there as year 294247.
func TestImport_PostgresTimesOutOfRange(t *testing.T) {
	dsn := pgtest.Schema(t)
	dir := t.TempDir()
	mem, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	pg, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	args := []string{"import", "--catalog", ingesttest.WarehouseCatalogFile(t), "--dataset", "status_events", "--postgres", dsn}
	if code := runMain(t.Context(), append(args, writeFile(t, dir, "e.csv", string(ingesttest.DemoCSV(t, 20)))), io.Discard, io.Discard); code != 0 {
		t.Fatalf("exit code %d importing the demo rows", code)
	}
	for i, ts := range []string{`'infinity'::TIMESTAMP`, `'-infinity'::TIMESTAMP`, `TIMESTAMP '10000-01-01 00:00:00'`} {
		pq := filepath.Join(dir, fmt.Sprintf("t%d.parquet", i))
		if _, err := mem.ExecContext(t.Context(), fmt.Sprintf(`COPY (SELECT 'p-%d' AS event_id, %s AS ts, 'dev-0001' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type,
			'IDLE' AS status, 40 AS battery_pct, 21.5::DOUBLE AS temperature_c, NULL AS fault_code) TO '%s' (FORMAT parquet)`, i, ts, pq)); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		code := runMain(t.Context(), append(args, pq), io.Discard, &stderr)
		if want := pq + ":row 1: field ts: time outside the years 0000 to 9999"; code != 1 || !strings.Contains(stderr.String(), want) {
			t.Errorf("%s: exit code %d, stderr %q; want 1 and %q", ts, code, stderr.String(), want)
		}
		var n, seq int64
		if err := pg.QueryRowContext(t.Context(), `SELECT count(*), max(_ingest_seq) FROM status_events`).Scan(&n, &seq); err != nil || n != 20 || seq != 20 {
			t.Errorf("%s: table %d rows, data version %d (%v); want 20, 20", ts, n, seq, err)
		}
	}
}

// TestImport_NotRegularFiles: an input that is no regular file is read
// once, as a stream, or refused by name, and an interrupt stops an
// import waiting for a named pipe's writer. Before, a named pipe of CSV
// went to DuckDB's reader, which spun at full CPU, deaf to SIGINT and
// SIGTERM, even with a writer; one without a writer blocked the import
// in open(2), as deaf; and a directory named .parquet was DuckDB's "No
// files found that match the pattern", with its SQL.
func TestImport_NotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	pipe := func(t *testing.T, name string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no named pipes: %v", err)
		}
		// Whatever the import did, no writer stays blocked.
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
		return p
	}
	write := func(p string, body []byte) {
		go func() {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Write(body)
				f.Close()
			}
		}()
	}
	pdir := filepath.Join(dir, "adir.parquet")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		input      func(t *testing.T) string
		interrupt  bool // cancel the import's context after 300 ms
		wantCode   int
		wantStdout string
		wantStderr func(in string) string
		wantRows   int64
	}{
		{name: "a named pipe of CSV, written to", input: func(t *testing.T) string {
			p := pipe(t, "w.csv")
			write(p, ingesttest.DemoCSV(t, 20))
			return p
		}, wantStdout: "imported 20 row(s) into status_events (dataset status_events); data version 20 (greatest _ingest_seq)\n", wantRows: 20},
		{name: "a named pipe of JSON Lines, written to", input: func(t *testing.T) string {
			p := pipe(t, "w.jsonl")
			write(p, ingesttest.DemoJSONL(t, 20))
			return p
		}, wantStdout: "imported 20 row(s) into status_events (dataset status_events); data version 20 (greatest _ingest_seq)\n", wantRows: 20},
		{name: "a named pipe of CSV without a writer, interrupted", input: func(t *testing.T) string { return pipe(t, "nw.csv") },
			interrupt: true, wantCode: 1},
		{name: "a named pipe of JSON Lines without a writer, interrupted", input: func(t *testing.T) string { return pipe(t, "nw.jsonl") },
			interrupt: true, wantCode: 1},
		{name: "a named pipe under a Parquet name", input: func(t *testing.T) string { return pipe(t, "p.parquet") },
			wantCode: 1, wantStderr: func(in string) string {
				return "provenant: open input " + in + ": not a regular file (Parquet is read by seeking)\n"
			}},
		{name: "a directory under a Parquet name", input: func(*testing.T) string { return pdir },
			wantCode: 1, wantStderr: func(in string) string { return "provenant: open input " + in + ": is a directory\n" }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(dir, fmt.Sprintf("w%d.duckdb", i))
			in := tt.input(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.interrupt {
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- runMain(ctx, []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", db, in}, &stdout, &stderr)
			}()
			select {
			case code := <-done:
				if code != tt.wantCode {
					t.Errorf("exit code %d, want %d (stderr %s)", code, tt.wantCode, stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatal("import still running after 20 s")
			}
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
			if tt.wantStderr != nil && stderr.String() != tt.wantStderr(in) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr(in))
			}
			if n, seq := countRows(t, db); n != tt.wantRows || seq != tt.wantRows {
				t.Errorf("table: %d rows, data version %d; want %d, %d", n, seq, tt.wantRows, tt.wantRows)
			}
		})
	}
}

// TestImport_ParquetDefects: a Parquet input the import refuses is one
// line of error on stderr, with nothing imported, on DuckDB (whose
// native import refuses it, leaving it to the row-by-row import) and on
// PostgreSQL alike.
//   - A file under a Parquet name that is none was DuckDB's message of
//     three lines, with its DESCRIBE statement; one whose data is damaged
//     was DuckDB's message with a byte of the file.
//   - A DOUBLE NaN or infinity for an integer column was "want an
//     integer, not a fraction".
//   - A TIMESTAMP_NS with nanoseconds past the microsecond was stored cut
//     to the microsecond, where CSV and JSON Lines refuse a seventh
//     fractional digit.
func TestImport_ParquetDefects(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	mem, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	parquet := func(t *testing.T, name, ts, battery string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if _, err := mem.ExecContext(t.Context(), `COPY (SELECT 'p-1' AS event_id, `+ts+` AS ts, 'dev-0001' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type,
			'IDLE' AS status, `+battery+` AS battery_pct, 21.5::DOUBLE AS temperature_c, NULL AS fault_code) TO '`+p+`' (FORMAT parquet)`); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const ts = `TIMESTAMP '2026-01-06 08:00:00'`
	// rowError is the stderr of one error at row 1.
	rowError := func(reason string) func(in string) string {
		return func(in string) string {
			return in + ":row 1: " + reason + "\nprovenant: import: 1 error(s), nothing imported: invalid input\n"
		}
	}
	tests := []struct {
		name  string
		input func(t *testing.T) string
		want  func(in string) string // stderr
	}{
		{name: "not a Parquet file",
			input: func(t *testing.T) string { return writeFile(t, dir, "text.parquet", "event_id\nXYZZY\n") },
			want: func(in string) string {
				return "provenant: open input " + in + ": read parquet: not a Parquet file: invalid input\n"
			}},
		{name: "NaN for an integer",
			input: func(t *testing.T) string { return parquet(t, "nan.parquet", ts, `'NaN'::DOUBLE`) },
			want:  rowError("field battery_pct: want a finite number")},
		{name: "an infinity for an integer",
			input: func(t *testing.T) string { return parquet(t, "inf.parquet", ts, `'-Infinity'::DOUBLE`) },
			want:  rowError("field battery_pct: want a finite number")},
		{name: "a TIMESTAMP_NS with nanoseconds",
			input: func(t *testing.T) string {
				return parquet(t, "ns.parquet", `TIMESTAMP_NS '2026-01-06 08:00:00.123456789'`, "40")
			},
			want: rowError("field ts: more than 6 fractional digits (times are stored to the microsecond)")},
		{name: "damaged data",
			input: func(t *testing.T) string {
				p := parquet(t, "damaged.parquet", ts, "40")
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				for i := 4; i < 40; i++ {
					b[i] ^= 0x5a
				}
				return writeFile(t, dir, "damaged.parquet", string(b))
			},
			want: func(in string) string {
				return "provenant: import: read " + in + ": read parquet: damaged data: invalid input\n"
			}},
	}
	dsn := pgtest.Schema(t)
	for _, backend := range []string{"duckdb", "postgres"} {
		for i, tt := range tests {
			t.Run(backend+"/"+tt.name, func(t *testing.T) {
				in := tt.input(t)
				args := []string{"import", "--catalog", cat, "--dataset", "status_events"}
				db := filepath.Join(dir, fmt.Sprintf("w%d.duckdb", i))
				if backend == "duckdb" {
					args = append(args, "--db", db)
				} else {
					args = append(args, "--postgres", dsn)
				}
				var stderr bytes.Buffer
				if code := runMain(t.Context(), append(args, in), io.Discard, &stderr); code != 1 {
					t.Errorf("exit code %d, want 1", code)
				}
				if want := tt.want(in); stderr.String() != want {
					t.Errorf("stderr = %q, want %q", stderr.String(), want)
				}
				if strings.Contains(stderr.String(), "XYZZY") {
					t.Errorf("stderr echoes the file's contents: %q", stderr.String())
				}
				if backend == "duckdb" {
					if n, seq := countRows(t, db); n != 0 || seq != 0 {
						t.Errorf("table: %d rows, data version %d; want nothing imported", n, seq)
					}
				}
			})
		}
	}
}

// TestImport_YearZero: the year 0000, the first RFC 3339 writes, is a
// time every format takes alike (CSV, JSON Lines and a Parquet
// TIMESTAMP, natively or row by row), and DuckDB and PostgreSQL (whose
// calendar calls it 1 BC) store the same instant.
func TestImport_YearZero(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	mem, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	pq := filepath.Join(dir, "y.parquet")
	if _, err := mem.ExecContext(t.Context(), `COPY (SELECT 'p-1' AS event_id, TIMESTAMP '0000-01-01 00:00:00' AS ts, 'dev-0001' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type,
		'IDLE' AS status, 40 AS battery_pct, 21.5::DOUBLE AS temperature_c, NULL AS fault_code) TO '`+pq+`' (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	inputs := []string{
		writeFile(t, dir, "y.csv", "event_id,ts,device_id,zone_id,device_type,status,battery_pct,temperature_c,fault_code\np-1,0000-01-01T00:00:00Z,dev-0001,zone-01,AGV,IDLE,40,21.5,\n"),
		writeFile(t, dir, "y.jsonl", `{"event_id":"p-1","ts":"0000-01-01T00:00:00Z","device_id":"dev-0001","zone_id":"zone-01","device_type":"AGV","status":"IDLE","battery_pct":40,"temperature_c":21.5,"fault_code":null}`+"\n"),
		pq,
	}
	want := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, backend := range []string{"duckdb", "postgres"} {
		for i, in := range inputs {
			t.Run(backend+"/"+filepath.Ext(in), func(t *testing.T) {
				args := []string{"import", "--catalog", cat, "--dataset", "status_events"}
				path, dsn := filepath.Join(dir, fmt.Sprintf("y%d.duckdb", i)), ""
				if backend == "duckdb" {
					args = append(args, "--db", path)
				} else {
					dsn = pgtest.Schema(t)
					args = append(args, "--postgres", dsn)
				}
				var stderr bytes.Buffer
				if code := runMain(t.Context(), append(args, in), io.Discard, &stderr); code != 0 {
					t.Fatalf("exit code %d: %s", code, stderr.String())
				}
				var db *sql.DB
				var err error
				if backend == "duckdb" {
					db, err = duckdb.OpenFile(t.Context(), path)
				} else {
					db, err = sql.Open("pgx", dsn)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var ts time.Time
				if err := db.QueryRowContext(t.Context(), `SELECT ts FROM status_events`).Scan(&ts); err != nil || !ts.Equal(want) {
					t.Errorf("stored %v (%v), want %v", ts, err, want)
				}
			})
		}
	}
}

// TestImport_FileHeld: an import into a DuckDB file another process holds
// (a server answering over it) says so in one line, as --state-db does.
// Before, it was DuckDB's message, which named the holder's executable
// and PID and advised "the -readonly parameter in the CLI", a flag
// provenant has not.
func TestImport_FileHeld(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	jsonl := writeFile(t, dir, "events.jsonl", string(ingesttest.DemoJSONL(t, 50)))
	db := filepath.Join(dir, "w.duckdb")
	if code, _, stderr := runMainCLI(t, "import", "--catalog", cat, "--dataset", "status_events", "--db", db, jsonl); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	more := writeFile(t, dir, "more.csv", importHeader+"k-1,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,FAULT,55,31.5,E-JAM\n")
	// A process holding the file: a server answering over it.
	holdWithServer(t, "--catalog", cat, "--db", db)
	want := "provenant: open duckdb file: another process has the file open (DuckDB lets one process at a time open a file for writing; stop it, or import into PostgreSQL)\n"
	code, _, stderr := runMainCLI(t, "import", "--catalog", cat, "--dataset", "status_events", "--db", db, more)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

// TestImport_FailedLeavesNoNewFile: an import that fails into a --db file
// it created removes the file (and its write-ahead log), so that a later
// --db does not take an empty database for the user's; a failure into a
// file that existed leaves it, rows and all.
func TestImport_FailedLeavesNoNewFile(t *testing.T) {
	dir := t.TempDir()
	cat := ingesttest.WarehouseCatalogFile(t)
	good := writeFile(t, dir, "good.csv", importHeader+"k-1,dev-0001,AGV,zone-01,2026-01-06T08:00:00Z,FAULT,55,31.5,E-JAM\n")
	bad := writeFile(t, dir, "bad.csv", importHeader+"k-2,dev-0001,BOAT,zone-01,2026-01-06T08:00:00Z,IDLE,55,31.5,\n")
	run := func(db, input string) int {
		var stdout, stderr bytes.Buffer
		return runMain(t.Context(), []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", db, input}, &stdout, &stderr)
	}
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}

	t.Run("new file, failed import", func(t *testing.T) {
		db := filepath.Join(dir, "new.duckdb")
		if code := run(db, bad); code != 1 {
			t.Fatalf("exit code = %d, want 1", code)
		}
		for _, p := range []string{db, db + ".wal"} {
			if exists(p) {
				t.Errorf("%s left behind by a failed import into a new file", filepath.Base(p))
			}
		}
	})
	t.Run("existing file, failed import", func(t *testing.T) {
		db := filepath.Join(dir, "kept.duckdb")
		if code := run(db, good); code != 0 {
			t.Fatalf("first import: exit code = %d, want 0", code)
		}
		if code := run(db, bad); code != 1 {
			t.Fatalf("exit code = %d, want 1", code)
		}
		if !exists(db) {
			t.Fatal("a failed import removed a file that existed before it")
		}
		if n, _ := countRows(t, db); n != 1 {
			t.Errorf("table: %d rows, want the 1 stored before", n)
		}
	})
}

// holdWithServer starts provenant serve with args on a loopback port,
// as a process of its own, and waits until it is ready: a process that
// holds the DuckDB files args name. It is killed when the test ends.
func holdWithServer(t *testing.T, args ...string) {
	t.Helper()
	holder := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "info"}, args...)...)
	holder.Env = append(os.Environ(), "PROVENANT_RUN_MAIN=1")
	logs, err := holder.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		holder.Process.Kill()
		holder.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"msg":"ready"`) {
				close(ready)
				break
			}
		}
		io.Copy(io.Discard, logs)
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the server was not ready in 30 s")
	}
}
