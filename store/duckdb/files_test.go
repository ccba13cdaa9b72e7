package duckdb_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
	"github.com/provenant/provenant/store/duckdb"
)

// TestOpenFiles: the warehouse demo read in place from CSV and from
// Parquet answers every call as the same rows imported into a table do,
// and the resolver passes each answer.
func TestOpenFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csvPath, ingesttest.DemoCSV(t, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same rows as Parquet, written by DuckDB.
	mem, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if _, err := mem.ExecContext(ctx, "COPY (SELECT * FROM read_csv('"+csvPath+"')) TO '"+filepath.Join(dir, "events.parquet")+"' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}

	// The reference: the rows imported into a table, derived.
	tableCat := ingesttest.WarehouseCatalog(t)
	ref, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	l, err := ingest.NewLayout(tableCat, "status_events")
	if err != nil {
		t.Fatal(err)
	}
	sink := duckdb.NewSink(ref, &ingest.SinkOptions{AfterInsert: func(ctx context.Context, tx *sql.Tx, l *ingest.Layout) error {
		return shape.Derive(ctx, tx, l.Dataset, l.Table, nil)
	}})
	f, _ := os.Open(csvPath)
	defer f.Close()
	if _, err := ingest.Import(ctx, sink, l, ingest.NewCSV("events.csv", l, f)); err != nil {
		t.Fatal(err)
	}
	refEng, err := shape.New(ctx, tableCat, shape.Source{DB: ref}, nil)
	if err != nil {
		t.Fatal(err)
	}

	calls := []shape.Call{
		{Tool: "get_device_status", Args: map[string]string{"device_id": "dev-0007", "as_of": "2026-01-06T00:00:00Z"}, Scope: shape.All()},
		{Tool: "get_temperature", Args: map[string]string{"device_id": "dev-0003", "as_of": "2026-01-06T00:00:00Z"}, Scope: shape.All()},
		{Tool: "count_devices_with_condition", Args: map[string]string{"condition": "NEEDS_ATTENTION", "as_of": "2026-01-06T00:00:00Z"}, Scope: shape.All()},
		{Tool: "list_devices_in_status", Args: map[string]string{"zone_id": "zone-02", "status": "RUNNING", "as_of": "2026-01-06T00:00:00Z"}, Scope: shape.Only("zone-02")},
		{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "IDLE",
			"start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, Scope: shape.All()},
	}
	for _, file := range []string{"events.csv", "events.parquet"} {
		t.Run(file, func(t *testing.T) {
			cat := ingesttest.FilesCatalog(t, file)
			files, err := duckdb.OpenFiles(ctx, cat, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer files.Close()
			eng, err := shape.New(ctx, cat, files.Source(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range calls {
				got := run(t, eng, c, true)
				want := run(t, refEng, c, true)
				if !got.Value.Equal(want.Value) || got.Digest != want.Digest || got.Rows != want.Rows {
					t.Errorf("%s: files %+v, table %+v", c.Tool, got, want)
				}
				if want.Rows == 0 && c.Tool != "get_temperature" && c.Tool != "get_device_status" {
					t.Errorf("%s: the reference answer is empty; pick arguments with rows behind them", c.Tool)
				}
				if !strings.HasPrefix(got.DataVersion, "files:") {
					t.Errorf("data version %q", got.DataVersion)
				}
			}
		})
	}
	if _, err := duckdb.OpenFiles(ctx, ingesttest.FilesCatalog(t, "none-*.csv"), dir); err == nil {
		t.Error("OpenFiles over a glob that matches nothing succeeded")
	}
}

// run executes and resolves c, failing the test unless the verdict holds.
func run(t *testing.T, eng *shape.Engine, c shape.Call, resolve bool) shape.Result {
	t.Helper()
	if resolve {
		r, v := shapetest.Answer(t, eng, c)
		if !v.OK() {
			t.Fatalf("Resolve %s = %+v", c.Tool, v)
		}
		return r
	}
	snap, err := eng.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	r, err := snap.Execute(t.Context(), c)
	if err != nil {
		t.Fatalf("Execute %s: %v", c.Tool, err)
	}
	return r
}

// TestOpenFiles_Reference: a reference declared with files: is read in
// place too, and its ids are the ones DeclaredIDs gives the wall; a source
// that did not open the reference's files refuses rather than admit every
// id.
func TestOpenFiles_Reference(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "events.csv"), ingesttest.DemoCSV(t, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "devices.csv"), []byte("id,label\ndev-0001,North AGV\ndev-0002,Sorter 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ingesttest.WarehouseCatalogFile(t))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "table: status_events", "files: events.csv", 1)
	text = strings.Replace(text, "pattern: '^dev-[0-9]{4}$'",
		"pattern: '^dev-[0-9]{4}$'\n        reference: {files: devices.csv, id: id, display_name: label}", 1)
	cat, err := catalog.Load(strings.NewReader(text), "files.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := duckdb.OpenFiles(ctx, cat, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	declared := func(src shape.Source) (map[string]map[string]bool, error) {
		eng, err := shape.New(ctx, cat, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		snap, err := eng.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		return snap.DeclaredIDs(ctx)
	}
	got, err := declared(files.Source())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]bool{"device": {"dev-0001": true, "dev-0002": true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DeclaredIDs = %v, want %v", got, want)
	}
	if _, err := declared(shape.Source{DB: files.DB, Relations: files.Relations, Versions: files.Versions}); err == nil ||
		!strings.Contains(err.Error(), "entity device: its files are not open") {
		t.Errorf("DeclaredIDs without the reference's view = %v", err)
	}
	// A reference whose ids are not a set is refused at open, naming
	// the column and the count, not the id.
	for body, want := range map[string]string{
		"id,label\ndev-0001,North AGV\ndev-0001,Sorter 2\n": "1 row(s) repeat another row's id in column id",
		"id,label\ndev-0001,North AGV\n,Sorter 2\n":         "1 row(s) with an empty id in column id",
	} {
		if err := os.WriteFile(filepath.Join(dir, "devices.csv"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := duckdb.OpenFiles(ctx, cat, dir)
		if !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "dev-0001") {
			t.Errorf("OpenFiles over a reference %q = %v, want ErrFilesInvalid naming %q", body, err, want)
		}
	}
	// A reference glob that matches nothing fails at open.
	missing := strings.Replace(text, "files: devices.csv", "files: nobody-*.csv", 1)
	mc, err := catalog.Load(strings.NewReader(missing), "files.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := duckdb.OpenFiles(ctx, mc, dir); err == nil || !strings.Contains(err.Error(), "reference files of entity device") {
		t.Errorf("OpenFiles with a reference glob matching nothing = %v", err)
	}
}

// TestOpenFiles_RefusesDefects: files whose rows no answer could be
// verified over are refused when they are opened, naming the column, the
// defect and the count of rows, never a value; the same rows without the
// defect open.
func TestOpenFiles_RefusesDefects(t *testing.T) {
	ctx := t.Context()
	lines := strings.Split(strings.TrimSpace(string(ingesttest.DemoCSV(t, 50))), "\n")
	// field replaces field i of line n (1 is the first row).
	field := func(n, i int, v string) []string {
		out := slices.Clone(lines)
		f := strings.Split(out[n], ",")
		f[i] = v
		out[n] = strings.Join(f, ",")
		return out
	}
	firstKey := strings.Split(lines[1], ",")[0]
	thrice := field(7, 0, firstKey)
	thrice[9] = strings.Join(append([]string{firstKey}, strings.Split(thrice[9], ",")[1:]...), ",")
	both := field(6, 6, "XYZZY")
	for _, n := range []int{8, 9} {
		f := strings.Split(both[n], ",")
		f[7] = "XYZZY"
		both[n] = strings.Join(f, ",")
	}
	tests := []struct {
		name  string
		lines []string
		want  string // in the error; "" opens
	}{
		{"clean", lines, ""},
		{"a key twice", field(7, 0, firstKey), "1 row(s) repeat another row's key in column event_id"},
		{"a key three times", thrice, "2 row(s) repeat another row's key in column event_id"},
		{"an empty key", field(3, 0, ""), "1 row(s) with an empty key in column event_id"},
		{"no time", field(4, 4, ""), "1 row(s) without a time in column ts"},
		{"at the open end", field(5, 4, "9999-12-31T00:00:00Z"), "1 row(s) with a time in column ts at or past 9999-12-31T00:00:00Z"},
		{"past the open end", field(5, 4, "9999-12-31T23:59:59Z"), "at or past 9999-12-31T00:00:00Z"},
		{"just before it", field(5, 4, "9999-12-30T23:59:59Z"), ""},
		{"a time that is no time", field(5, 4, "2026-01-06TXYZZY"), "1 row(s) with a value in column ts that is not a time"},
		{"a line that is not UTF-8", field(6, 5, "IDLE\xffXYZZY"), "not valid UTF-8"},
		// The view casts numeric columns; a value that does not convert
		// would fail every question reading it, quoting the value.
		{"a battery that is no number", field(6, 6, "XYZZY"), "1 row(s) with a value in column battery_pct that is not an integer"},
		{"a temperature that is no number", field(8, 7, "XYZZY"), "1 row(s) with a value in column temperature_c that is not a finite number"},
		// A NaN or an infinity, which import refuses: DuckDB's SQL
		// orders a NaN above every number, and the resolver judges in
		// Go, so a NaN was counted as overheating and failed
		// verification.
		{"a temperature that is NaN", field(8, 7, "nan"), "1 row(s) with a value in column temperature_c that is not a finite number"},
		{"a temperature that is infinite", field(8, 7, "-inf"), "1 row(s) with a value in column temperature_c that is not a finite number"},
		// An id off its entity's pattern would be listed in answers
		// the wall refuses to take it back from.
		{"a device off its pattern", field(6, 1, "XYZZY 12345"), "1 row(s) whose value in column device_id is missing or does not match the entity's pattern"},
		{"no zone", field(6, 3, ""), "1 row(s) whose value in column zone_id is missing or does not match the entity's pattern"},
		{"both, in other rows", both, "1 row(s) with a value in column battery_pct that is not an integer; 2 row(s) with a value in column temperature_c that is not a finite number"},
	}
	// Keys are compared by their hashes first; under a hash that makes
	// every key collide (the demo's keys all have one length), the count
	// on the keys themselves must still open clean files and count the
	// repeats exactly.
	for _, hash := range []string{"hash", "length"} {
		restore := duckdb.SetKeyHash(func(key string) string { return hash + "(" + key + ")" })
		t.Cleanup(restore) // should a case stop the test before the loop restores it
		for _, tt := range tests {
			t.Run(hash+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "events.csv"), []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				err := openEvents(t, dir)
				if tt.want == "" {
					if err != nil {
						t.Fatalf("OpenFiles: %v", err)
					}
					return
				}
				if err == nil {
					t.Fatal("OpenFiles opened the files")
				}
				if !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("OpenFiles = %v, want ErrFilesInvalid naming %q", err, tt.want)
				}
				if strings.Contains(err.Error(), firstKey) || strings.Contains(err.Error(), "9999-12-31T23") || strings.Contains(err.Error(), "XYZZY") || strings.Contains(err.Error(), "wh-evt-") {
					t.Errorf("the error repeats a value: %v", err)
				}
			})
		}
		restore()
	}

	// Parquet can hold an infinite time, which no CSV spells.
	dir := t.TempDir()
	mem, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	csvPath := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csvPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.ExecContext(ctx, "COPY (SELECT * REPLACE (CASE WHEN event_id = '"+firstKey+"' THEN CAST('infinity' AS TIMESTAMP) ELSE CAST(ts AS TIMESTAMP) END AS ts) FROM read_csv('"+csvPath+"')) TO '"+filepath.Join(dir, "events.parquet")+"' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	if _, err := duckdb.OpenFiles(ctx, ingesttest.FilesCatalog(t, "events.parquet"), dir); !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("OpenFiles over an infinite time = %v, want ErrFilesInvalid", err)
	}

	// A Parquet column of a type that may not convert to the view's is
	// checked; a NaN does not convert to an integer.
	for _, tc := range []struct{ name, col, expr, typ, want string }{
		{"battery as text", "battery_pct", "'XYZZY'", "VARCHAR", "not an integer"},
		{"battery as a NaN", "battery_pct", "CAST('nan' AS DOUBLE)", "DOUBLE", "not an integer"},
		{"temperature as a NaN", "temperature_c", "CAST('nan' AS DOUBLE)", "DOUBLE", "not a finite number"},
		{"temperature as an infinity", "temperature_c", "CAST('inf' AS FLOAT)", "FLOAT", "not a finite number"},
	} {
		pq := filepath.Join(dir, "events.parquet")
		if _, err := mem.ExecContext(ctx, "COPY (SELECT * REPLACE (CASE WHEN event_id = '"+firstKey+"' THEN "+tc.expr+" ELSE CAST("+tc.col+" AS "+tc.typ+") END AS "+tc.col+") FROM read_csv('"+csvPath+"')) TO '"+pq+"' (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
		_, err := duckdb.OpenFiles(ctx, ingesttest.FilesCatalog(t, "events.parquet"), dir)
		if want := "1 row(s) with a value in column " + tc.col + " that is " + tc.want; !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("OpenFiles over %s = %v, want ErrFilesInvalid naming %q", tc.name, err, want)
		}
	}

	// Parquet can hold a string that is not UTF-8, which DuckDB's reader
	// refuses quoting it: in the key, or in a time kept as text.
	for _, col := range []string{"event_id", "ts", "status"} {
		pq := filepath.Join(dir, "events.parquet")
		if _, err := mem.ExecContext(ctx, "COPY (SELECT * REPLACE (CASE WHEN event_id = '"+firstKey+"' THEN coalesce("+col+", '') || 'QQXYZZY' ELSE "+col+" END AS "+col+") FROM read_csv('"+csvPath+"', all_varchar = true)) TO '"+pq+"' (FORMAT parquet, COMPRESSION 'uncompressed')"); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(pq)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pq, bytes.ReplaceAll(b, []byte("QQ"), []byte{0xff, 0xfe}), 0o644); err != nil {
			t.Fatal(err)
		}
		cat := ingesttest.FilesCatalog(t, "events.parquet")
		files, err := duckdb.OpenFiles(ctx, cat, dir)
		want := "column " + col + " holds text that is not valid UTF-8"
		if col == "status" {
			// A column the opening check does not read: a question
			// reading it fails, naming the defect and not the value.
			if err != nil {
				t.Fatalf("OpenFiles over a bad string in %s: %v", col, err)
			}
			err = askLatest(t, files, cat, "get_device_status", firstDevice(lines))
			files.Close()
			want = "holds text that is not valid UTF-8"
		}
		if !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("OpenFiles over a bad string in %s = %v, want ErrFilesInvalid naming %q", col, err, want)
		}
		if err != nil && (strings.Contains(err.Error(), "XYZZY") || strings.Contains(err.Error(), firstKey)) {
			t.Errorf("the error repeats a value: %v", err)
		}
	}
}

// firstDevice is the device of the first row of a demo CSV.
func firstDevice(lines []string) string { return strings.Split(lines[1], ",")[1] }

// askLatest executes and resolves a latest_value tool of the warehouse
// catalog for device over files, returning the first error.
func askLatest(t *testing.T, files *duckdb.Files, cat *catalog.Catalog, tool, device string) error {
	t.Helper()
	ctx := t.Context()
	eng, err := shape.New(ctx, cat, files.Source(), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := eng.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	call := shape.Call{Tool: tool, Args: map[string]string{"device_id": device, "as_of": "2026-01-09T00:00:00Z"}, Scope: shape.All()}
	r, err := snap.Execute(ctx, call)
	if err != nil {
		return err
	}
	v, err := snap.Resolve(ctx, call, r)
	if err == nil && !v.OK() {
		t.Fatalf("verdict %+v", v)
	}
	return err
}

// TestOpenFiles_GlobTypes: a glob's files may type a column differently
// (a battery level as integers in one, as text in another). They are
// read with a type that holds every file's values, so that the files
// check sees each value: text that converts opens and answers, text that
// does not is refused as the files open, naming the column. Read with the
// first file's types, the second file's text passed the check and failed
// the questions that read it.
func TestOpenFiles_GlobTypes(t *testing.T) {
	ctx := t.Context()
	lines := strings.Split(strings.TrimSpace(string(ingesttest.DemoCSV(t, 60))), "\n")
	mem, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	src := t.TempDir()
	csvPath := filepath.Join(src, "events.csv")
	if err := os.WriteFile(csvPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	last := strings.Split(lines[len(lines)-1], ",")[0]
	for _, tt := range []struct {
		name    string
		battery string // the second file's battery_pct, as text
		want    string // in the error; "" opens
	}{
		{"text that converts", "CAST(battery_pct AS VARCHAR)", ""},
		{"text that does not", "CASE WHEN event_id = '" + last + "' THEN 'XYZZY' ELSE CAST(battery_pct AS VARCHAR) END", "1 row(s) with a value in column battery_pct that is not an integer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, q := range []string{
				"COPY (SELECT * FROM read_csv('" + csvPath + "') WHERE event_id <= '" + strings.Split(lines[30], ",")[0] + "') TO '" + filepath.Join(dir, "a.parquet") + "' (FORMAT parquet)",
				"COPY (SELECT * REPLACE (" + tt.battery + " AS battery_pct) FROM read_csv('" + csvPath + "') WHERE event_id > '" + strings.Split(lines[30], ",")[0] + "') TO '" + filepath.Join(dir, "b.parquet") + "' (FORMAT parquet)",
			} {
				if _, err := mem.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			cat := ingesttest.FilesCatalog(t, "'*.parquet'")
			files, err := duckdb.OpenFiles(ctx, cat, dir)
			if tt.want != "" {
				if !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("OpenFiles = %v, want ErrFilesInvalid naming %q", err, tt.want)
				}
				if strings.Contains(err.Error(), "XYZZY") {
					t.Errorf("the error repeats a value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("OpenFiles: %v", err)
			}
			defer files.Close()
			if err := askLatest(t, files, cat, "get_battery_level", strings.Split(lines[len(lines)-1], ",")[1]); err != nil {
				t.Errorf("get_battery_level over the second file: %v", err)
			}
		})
	}
}

// TestOpenFiles_OutOfMemory: a files check that runs out of memory under
// its limit says so in one line, ErrCheckMemory, and not with DuckDB's
// several lines of advice.
func TestOpenFiles_OutOfMemory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "events.csv"), ingesttest.DemoCSV(t, 200000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, limit, want string }{
		{"opening the view", "4MB", "open files of dataset status_events: limit 4MB: "},
		{"in the check", "20MB", "open files of dataset status_events: check files: limit 20MB: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			restore := duckdb.SetCheckMemoryLimit(tt.limit)
			defer restore()
			err := openEvents(t, dir)
			if !errors.Is(err, duckdb.ErrCheckMemory) || err.Error() != tt.want+duckdb.ErrCheckMemory.Error() {
				t.Fatalf("OpenFiles under %s = %v, want %q and ErrCheckMemory", tt.limit, err, tt.want+duckdb.ErrCheckMemory.Error())
			}
		})
	}
}

// TestOpenFiles_Changed: files carry no snapshot, so a call checks, after
// its reads, that they are still at the version the engine opened them
// at; once a file is rewritten every call fails with ErrDataChanged
// rather than name data it did not read, and the files opened again
// answer under a new version.
func TestOpenFiles_Changed(t *testing.T) {
	ctx := t.Context()
	dir, change := ingesttest.ChangingFiles(t, 3000)
	cat := ingesttest.FilesCatalog(t, "events.csv")
	open := func() (*duckdb.Files, *shape.Engine) {
		files, err := duckdb.OpenFiles(ctx, cat, dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { files.Close() })
		eng, err := shape.New(ctx, cat, files.Source(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return files, eng
	}
	call := shape.Call{Tool: "count_status_events_in_window", Args: map[string]string{"zone_id": "zone-01", "status": "IDLE",
		"start": "2026-01-05T00:00:00Z", "end": "2026-01-06T00:00:00Z"}, Scope: shape.All()}
	answer := func(eng *shape.Engine) (shape.Result, error) {
		snap, err := eng.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		r, err := snap.Execute(ctx, call)
		if err != nil {
			t.Fatal(err)
		}
		v, err := snap.Resolve(ctx, call, r)
		if err == nil && !v.OK() {
			t.Fatalf("verdict %+v", v)
		}
		return r, err
	}
	_, eng := open()
	before, err := answer(eng)
	if err != nil {
		t.Fatalf("Resolve before the change: %v", err)
	}

	// One more IDLE event in the window, in a file of the same name.
	change()
	if _, err := answer(eng); !errors.Is(err, shape.ErrDataChanged) {
		t.Fatalf("Resolve after the files changed = %v, want ErrDataChanged", err)
	}

	_, again := open()
	after, err := answer(again)
	if err != nil {
		t.Fatalf("Resolve after reopening: %v", err)
	}
	if after.DataVersion == before.DataVersion || after.Rows != before.Rows+1 {
		t.Errorf("reopened: version %s (was %s), %d rows (was %d); want a new version and one row more",
			after.DataVersion, before.DataVersion, after.Rows, before.Rows)
	}
}

// TestOpenFiles_ChangedToDefect: a file rewritten after it was opened
// may hold a value the view cannot convert (the opening check read the
// old file); the read then fails with DuckDB's message quoting the value,
// and the call answers ErrDataChanged instead, naming no value.
func TestOpenFiles_ChangedToDefect(t *testing.T) {
	ctx := t.Context()
	dir, _ := ingesttest.ChangingFiles(t, 3000)
	cat := ingesttest.FilesCatalog(t, "events.csv")
	files, err := duckdb.OpenFiles(ctx, cat, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	eng, err := shape.New(ctx, cat, files.Source(), nil)
	if err != nil {
		t.Fatal(err)
	}
	call := shape.Call{Tool: "get_battery_level", Args: map[string]string{"device_id": "dev-0001", "as_of": "2026-01-09T00:00:00Z"}, Scope: shape.All()}
	ask := func() error {
		snap, err := eng.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		r, err := snap.Execute(ctx, call)
		if err != nil {
			return err
		}
		v, err := snap.Resolve(ctx, call, r)
		if err == nil && !v.OK() {
			t.Fatalf("verdict %+v", v)
		}
		return err
	}
	if err := ask(); err != nil {
		t.Fatalf("before the change: %v", err)
	}
	path := filepath.Join(dir, "events.csv")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, "wh-evt-x0000001,dev-0001,AGV,zone-01,2026-01-05T12:00:00Z,IDLE,XYZZY,20.5,\n"...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	err = ask()
	if !errors.Is(err, shape.ErrDataChanged) {
		t.Fatalf("after a rewrite with a battery that is no number: %v, want ErrDataChanged", err)
	}
	if strings.Contains(err.Error(), "XYZZY") {
		t.Errorf("the error repeats a value: %v", err)
	}
}

// TestOpenFiles_Spill: files read in place have a spill directory of
// their own, so that the files check (run under ServeMemoryLimit) and
// the shapes' sorts go to disk rather than take the process's memory with
// the files' size; once open, DuckDB's default memory limit is back, in
// its buffer pool and not only in its setting; Close removes the
// directory, and so does an open that fails.
func TestOpenFiles_Spill(t *testing.T) {
	ctx := t.Context()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "events.csv"), ingesttest.DemoCSV(t, 500), 0o644); err != nil {
		t.Fatal(err)
	}
	spills := func() []string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(tmp, "provenant-files-*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	files, err := duckdb.OpenFiles(ctx, ingesttest.FilesCatalog(t, "events.csv"), dir)
	if err != nil {
		t.Fatal(err)
	}
	open := spills()
	if len(open) != 1 {
		t.Fatalf("spill directories while open = %v, want one", open)
	}
	var spill, limit, pool string
	if err := files.DB.QueryRowContext(ctx, "SELECT current_setting('temp_directory'), CAST(current_setting('memory_limit') AS VARCHAR), (SELECT memory_limit FROM pragma_database_size() LIMIT 1)").Scan(&spill, &limit, &pool); err != nil {
		t.Fatal(err)
	}
	if spill != open[0] {
		t.Errorf("temp_directory = %q, want %q", spill, open[0])
	}
	fresh, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	var want string
	if err := fresh.QueryRowContext(ctx, "SELECT (SELECT memory_limit FROM pragma_database_size() LIMIT 1)").Scan(&want); err != nil {
		t.Fatal(err)
	}
	// Set back by value, the default may round by 0.1 of its unit.
	var gotN, wantN float64
	var gotU, wantU string
	if _, err := fmt.Sscanf(pool, "%g %s", &gotN, &gotU); err != nil {
		t.Fatalf("buffer pool limit %q: %v", pool, err)
	}
	if _, err := fmt.Sscanf(want, "%g %s", &wantN, &wantU); err != nil {
		t.Fatalf("default limit %q: %v", want, err)
	}
	if gotU != wantU || gotN < wantN-0.15 || gotN > wantN {
		t.Errorf("once open, memory_limit = %q and the buffer pool's %q, want DuckDB's default %q", limit, pool, want)
	}
	if err := files.Close(); err != nil {
		t.Fatal(err)
	}
	if left := spills(); len(left) != 0 {
		t.Errorf("spill directories after Close = %v", left)
	}
	if _, err := duckdb.OpenFiles(ctx, ingesttest.FilesCatalog(t, "none-*.csv"), dir); err == nil {
		t.Fatal("OpenFiles over a glob that matches nothing succeeded")
	}
	if left := spills(); len(left) != 0 {
		t.Errorf("spill directories after a failed open = %v", left)
	}
}

// TestOpenFiles_CheckUnderServeLimit: the check of the files runs under
// duckdb.ServeMemoryLimit. A probe put into the key hash reads DuckDB's
// memory limit while the check hashes the keys, and fails the check
// unless it is the limit ServeMemoryLimit sets;
// the same probe expecting another limit makes the open fail, so the
// probe can.
func TestOpenFiles_CheckUnderServeLimit(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "events.csv"), ingesttest.DemoCSV(t, 50), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := duckdb.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var serve, other string
	if _, err := db.ExecContext(ctx, "SET memory_limit = '"+duckdb.ServeMemoryLimit+"'"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&serve); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "SET memory_limit = '3GB'"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&other); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, limit string
		ok          bool
	}{
		{"the serving limit", serve, true},
		{"another limit", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := duckdb.SetKeyHash(func(key string) string {
				return "hash(CASE WHEN current_setting('memory_limit') = '" + tc.limit +
					"' THEN '' ELSE error('the check ran under another memory limit') END || " + key + ")"
			})
			err := openEvents(t, dir)
			restore()
			if tc.ok {
				if err != nil {
					t.Fatalf("OpenFiles: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("OpenFiles passed a check that expected another memory limit")
			}
			if !strings.Contains(err.Error(), "another memory limit") {
				t.Fatalf("OpenFiles: %v, want the probe's error", err)
			}
		})
	}
}

// openEvents opens dir's events.csv in place and closes it again,
// returning the open's error.
func openEvents(t *testing.T, dir string) error {
	t.Helper()
	files, err := duckdb.OpenFiles(t.Context(), ingesttest.FilesCatalog(t, "events.csv"), dir)
	if err == nil {
		files.Close()
	}
	return err
}

// TestOpenFiles_NotRegular: a files dataset whose glob matches a named
// pipe, a directory or a device is refused as it opens, naming the file
// (ErrNotRegular). Before, DuckDB's reader opened a named pipe no one
// writes itself, in C, and waited there where no context reaches.
func TestOpenFiles_NotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), ingesttest.DemoCSV(t, 50), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "b.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Whatever OpenFiles did, no open stays blocked.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	if err := os.Mkdir(filepath.Join(dir, "c.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.DevNull, filepath.Join(dir, "d.csv")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, glob string }{
		{"named pipe", "b.csv"},
		{"a glob matching a named pipe", "?.csv"},
		{"directory", "c.csv"},
		{"device", "d.csv"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := ingesttest.FilesCatalog(t, tt.glob)
			done := make(chan error, 1)
			go func() {
				files, err := duckdb.OpenFiles(t.Context(), cat, dir)
				if err == nil {
					files.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, duckdb.ErrNotRegular) {
					t.Errorf("OpenFiles: %v, want ErrNotRegular", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("OpenFiles still running after 10 s")
			}
		})
	}
}

// TestOpenFiles_NotParquet: a dataset's file under a Parquet name that is
// no Parquet file, or whose footer or data is damaged, is refused in one
// line naming the defect, as import refuses it (TestParquet_NotParquet).
// Before, it was DuckDB's message as it came: "Invalid Input Error: No
// magic bytes found at end of file", "IO Error: Could not read enough
// bytes" or "Snappy decompression failure", the first two with the view's
// statement and a caret under it.
func TestOpenFiles_NotParquet(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csvPath, ingesttest.DemoCSV(t, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.parquet")
	csvToParquet(t, csvPath, good)
	g, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	damaged := func(from, to int) []byte {
		b := bytes.Clone(g)
		for i := from; i < to; i++ {
			b[i] ^= 0x5a
		}
		return b
	}
	tests := []struct {
		name string
		body []byte
	}{
		{"text", []byte("event_id\nXYZZY\n")},
		{"the magic at both ends only", []byte("PAR1XYZZYXYZZYPAR1")},
		{"a footer that reads past the end", append([]byte("PAR1"+strings.Repeat("XYZZYXYZZY", 9)), 16, 0, 0, 0, 'P', 'A', 'R', '1')},
		{"cut in half", g[:len(g)/2]},
		{"damaged data", damaged(len(g)/4, len(g)/4+400)},
	}
	const want = "read parquet: not a Parquet file, or its data is damaged"
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("n%d.parquet", i)
			if err := os.WriteFile(filepath.Join(dir, name), tt.body, 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := duckdb.OpenFiles(t.Context(), ingesttest.FilesCatalog(t, name), dir)
			if err == nil {
				files.Close()
				t.Fatal("OpenFiles opened the file")
			}
			if !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(err.Error(), want) ||
				strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "XYZZY") || strings.Contains(err.Error(), "SELECT") {
				t.Errorf("OpenFiles = %q, want ErrFilesInvalid, one line with %q", err, want)
			}
		})
	}
}

// TestOpenFiles_UnreadableColumns: files whose columns DuckDB's reader
// does not find as declared (an empty file, a header without a declared
// column, a line with more or fewer fields than the header, which makes
// the reader take each line as one column, bytes that are not text) are
// refused in one line naming the defect. Before, it was DuckDB's binder
// error about a column "referenced that exists in the SELECT clause", or
// its CSV sniffer's message of a dozen lines.
func TestOpenFiles_UnreadableColumns(t *testing.T) {
	dir := t.TempDir()
	lines := strings.SplitAfter(string(ingesttest.DemoCSV(t, 20)), "\n")
	header, rows := lines[0], strings.Join(lines[1:], "")
	noFault := strings.Replace(header, ",fault_code", "", 1)
	binary := make([]byte, 2560)
	for i := range binary {
		binary[i] = byte(i)
	}
	pqMissing := filepath.Join(dir, "missing.parquet")
	writeParquet(t, `SELECT 'e-1' AS event_id, 'XYZZY' AS status`, pqMissing)
	tests := []struct {
		name, file string
		body       []byte
		want       string
	}{
		{"an empty file", "empty.csv", nil, "column event_id is not among the files' columns"},
		{"a header without a column", "nofault.csv", []byte(noFault + rows), "column fault_code is not among the files' columns"},
		{"a short line", "short.csv", []byte(header + rows + "e-XYZZY,dev-0001\n"), "is not among the files' columns"},
		{"a long line", "long.csv", []byte(header + strings.TrimSuffix(rows, "\n") + ",XYZZY\n"), "is not among the files' columns"},
		{"bytes that are not text", "binary.csv", binary, "cannot be read as CSV"},
		{"a Parquet file without a column", "missing.parquet", nil, "column ts is not among the files' columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.body != nil || !strings.HasSuffix(tt.file, ".parquet") {
				if err := os.WriteFile(filepath.Join(dir, tt.file), tt.body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			files, err := duckdb.OpenFiles(t.Context(), ingesttest.FilesCatalog(t, tt.file), dir)
			if err == nil {
				files.Close()
				t.Fatal("OpenFiles opened the files")
			}
			msg := err.Error()
			if !errors.Is(err, duckdb.ErrFilesInvalid) || !strings.Contains(msg, tt.want) ||
				strings.Contains(msg, "\n") || strings.Contains(msg, "XYZZY") || strings.Contains(msg, "Binder") {
				t.Errorf("OpenFiles = %q, want ErrFilesInvalid, one line with %q", msg, tt.want)
			}
		})
	}
}
