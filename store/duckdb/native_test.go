package duckdb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/shape/shapetest"
	"github.com/provenant/provenant/store/duckdb"
)

// column values for the warehouse layout: each a valid spelling or a
// defect a Reader refuses (want false).
type spelling struct {
	s     string
	valid bool
}

var spellings = map[string][]spelling{
	"device_id":   {{"dev-0001", true}, {"dev-0002", true}, {"dev-12", false}, {"DEV-0001", false}, {"", false}, {"dev-0001x", false}, {"xdev-0001", false}},
	"zone_id":     {{"zone-01", true}, {"zone-02", true}, {"zone-1", false}, {"", false}, {"zone-01\x00", false}},
	"device_type": {{"AGV", true}, {"LIFT", true}, {"agv", false}, {"", false}, {"AGV ", false}},
	"status":      {{"RUNNING", true}, {"FAULT", true}, {"running", false}, {"", false}},
	"battery_pct": {{"87", true}, {"007", true}, {"-5", true}, {"0", true}, {"1.5", false}, {"1e3", false}, {"", false}, {"abc", false}, {"99999999999999999999", false}, {" 5", false}, {"+5", false}},
	"temperature_c": {{"21.5", true}, {"-3", true}, {"1e2", true}, {"0.000", true}, {"2.5E-3", true}, {"1e400", false}, {"NaN", false}, {"inf", false},
		{"", false}, {".5", false}, {"5.", false}, {"+5", false}, {"1_0", false}},
	"fault_code": {{"", true}, {"E-JAM", true}, {"E-COMM", true}, {"e-jam", false}, {"NONE", false}},
	"ts": {{"2026-01-06T08:00:00Z", true}, {"2026-01-06T08:00:01.5Z", true}, {"2026-01-06T08:00:00.123456Z", true}, {"2024-02-29T23:59:59Z", true},
		{"2026-02-30T00:00:00Z", false}, {"2026-01-01T24:00:00Z", false}, {"2026-01-01 00:00:00Z", false}, {"2026-01-01T00:00:00+01:00", false},
		{"2026-01-01T00:00:00.1234567Z", false}, {"", false}, {"2026-13-01T00:00:00Z", false}, {"2026-01-01T00:00:60Z", false},
		{"2026-01-01T00:00:00z", false}, {"2026-01-01T00:00:00", false}, {"2025-02-29T00:00:00Z", false}, {"2026-01-01T00:00:00.Z", false},
		// At or past the open-end mark a row's validity would end before it begins.
		{"9999-12-30T23:59:59.999999Z", true}, {"9999-12-31T00:00:00Z", false}, {"9999-12-31T23:59:59Z", false}},
}

// TestImportFiles_AgreesWithReaders: on random rows with random defects
// (a value refused by its pattern, enumeration, time or number syntax,
// an empty required field, a key repeated in the file or already stored),
// written as CSV or Parquet (text or typed columns), in one file or two,
// ImportFiles stores a file exactly when the row-by-row import does, with
// the same rows, numbers, validity ends and derived structures; when it
// reports an error itself (a repeated or stored key), the error is the
// row-by-row import's, word for word.
func TestImportFiles_AgreesWithReaders(t *testing.T) {
	l, cols, db, dir := nativeFixture(t)
	n := 0
	outcomes := map[string]int{}
	defer func() { t.Logf("outcomes: %v", outcomes) }()
	rapid.Check(t, func(rt *rapid.T) {
		n++
		ctx := context.Background()
		stored := rapid.IntRange(0, 3).Draw(rt, "stored rows")
		k := rapid.IntRange(0, 40).Draw(rt, "rows")
		order := rapid.Permutation(cols).Draw(rt, "column order")
		valid := func(c string) []spelling {
			var out []spelling
			for _, sp := range spellings[c] {
				if sp.valid {
					out = append(out, sp)
				}
			}
			return out
		}
		var lines [][]string
		for i := range k {
			f := make([]string, len(order))
			for j, c := range order {
				if c == "event_id" {
					f[j] = fmt.Sprintf("k-%03d", i)
					continue
				}
				f[j] = rapid.SampledFrom(valid(c)).Draw(rt, c).s
			}
			lines = append(lines, f)
		}
		// Defects, each at a random row and column: mostly none or one,
		// so that each is the only reason to refuse the file.
		defects := 0
		if k > 0 {
			defects = rapid.SampledFrom([]int{0, 1, 1, 1, 3}).Draw(rt, "defects")
		}
		for range defects {
			i := rapid.IntRange(0, k-1).Draw(rt, "defect row")
			j := rapid.IntRange(0, len(order)-1).Draw(rt, "defect column")
			if order[j] == "event_id" {
				lines[i][j] = rapid.SampledFrom([]string{"", "k-000", "s-000", strings.Repeat("k", ingest.MaxTextLen+1)}).Draw(rt, "bad key")
				continue
			}
			var bad []spelling
			for _, sp := range spellings[order[j]] {
				if !sp.valid {
					bad = append(bad, sp)
				}
			}
			lines[i][j] = rapid.SampledFrom(bad).Draw(rt, "bad value").s
		}
		cut := len(lines)
		if rapid.Bool().Draw(rt, "two files") {
			cut = rapid.IntRange(0, len(lines)).Draw(rt, "cut")
		}
		format := rapid.SampledFrom([]string{"csv", "csv", "parquet-text", "parquet-typed"}).Draw(rt, "format")
		quote := rapid.Bool().Draw(rt, "quote every field")
		var paths []string
		for p, part := range [][][]string{lines[:cut], lines[cut:]} {
			if p == 1 && cut == len(lines) {
				break
			}
			path := filepath.Join(dir, fmt.Sprintf("in-%d-%d.csv", n, p))
			writeCSV(rt, path, order, part, quote)
			if format != "csv" {
				path = toParquet(rt, db, path, order, format == "parquet-typed")
			}
			paths = append(paths, path)
		}
		every := rapid.SampledFrom([]int{1, 3, 1000}).Draw(rt, "every")
		opts := shape.ImportOptions(&shape.DeriveOptions{Every: every})
		ln, lg := *l, *l
		ln.Table, lg.Table = fmt.Sprintf("nat_%d", n), fmt.Sprintf("row_%d", n)
		if stored > 0 {
			// Rows already stored, whose keys s-000... a defect repeats.
			var b strings.Builder
			b.WriteString(strings.Join(cols, ",") + "\n")
			for i := range stored {
				fmt.Fprintf(&b, "s-%03d,2026-01-05T00:00:00Z,dev-0001,zone-01,AGV,RUNNING,50,20.5,\n", i)
			}
			for _, tl := range []*ingest.Layout{&ln, &lg} {
				if _, err := ingest.Import(ctx, duckdb.NewSink(db, opts), tl, ingest.NewCSV("stored.csv", tl, strings.NewReader(b.String()))); err != nil {
					rt.Fatal(err)
				}
			}
		}
		_, errN := duckdb.NewSink(db, opts).ImportFiles(ctx, &ln, paths)
		errG := importRows(ctx, db, opts, &lg, paths)
		if errG != nil && !errors.Is(errG, ingest.ErrInvalid) {
			rt.Fatalf("row-by-row import: %v", errG)
		}
		switch {
		case errN == nil:
			outcomes["stored"]++
		case errors.Is(errN, ingest.ErrNotNative):
			outcomes["refused in SQL"]++
		default:
			outcomes["key errors"]++
		}
		switch {
		case errN == nil && errG == nil:
			if msg := sameRows(ctx, db, ln.Table, lg.Table); msg != "" {
				rt.Fatal(msg)
			}
			if msg := shapetest.CompareDerived(ctx, db, l.Dataset, ln.Table, lg.Table); msg != "" {
				rt.Fatal(msg)
			}
		case errN == nil:
			rt.Fatalf("ImportFiles stored rows the row-by-row import refuses: %v", errG)
		case errors.Is(errN, ingest.ErrNotNative):
			if errG == nil {
				rt.Fatalf("ImportFiles refused rows the row-by-row import stores: %v", errN)
			}
		case errN.Error() != errG.Error():
			rt.Fatalf("ImportFiles error:\n%v\nrow-by-row error:\n%v", errN, errG)
		}
		if errN != nil {
			if msg := sameRows(ctx, db, ln.Table, lg.Table); msg != "" { // both: the stored rows only
				rt.Fatalf("after a refused import: %s", msg)
			}
		}
	})
}

// importRows imports paths row by row, as `provenant import` does.
func importRows(ctx context.Context, db *sql.DB, opts *ingest.SinkOptions, l *ingest.Layout, paths []string) error {
	var readers []*ingest.Reader
	for _, p := range paths {
		if strings.HasSuffix(p, ".parquet") {
			recs, err := duckdb.ReadParquet(ctx, db, p)
			if err != nil {
				return err
			}
			defer recs.Close()
			readers = append(readers, ingest.NewRecords(p, l, recs))
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		readers = append(readers, ingest.NewCSV(p, l, f))
	}
	_, err := ingest.Import(ctx, duckdb.NewSink(db, opts), l, readers...)
	return err
}

func writeCSV(t interface{ Fatal(...any) }, path string, header []string, lines [][]string, quote bool) {
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for _, f := range lines {
		for j, s := range f {
			if j > 0 {
				b.WriteString(",")
			}
			if quote {
				s = `"` + s + `"`
			}
			b.WriteString(s)
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toParquet writes the CSV file at path as Parquet: every column text, or
// typed (a value that does not convert becomes NULL).
func toParquet(t *rapid.T, db *sql.DB, path string, cols []string, typed bool) string {
	spec := make([]string, len(cols))
	sel := make([]string, len(cols))
	for i, c := range cols {
		spec[i] = "'" + c + "': 'VARCHAR'"
		q := ingest.Quote(c)
		sel[i] = q
		if typed {
			switch c {
			case "ts":
				sel[i] = "TRY_CAST(" + q + " AS TIMESTAMP) AS " + q
			case "battery_pct":
				sel[i] = "TRY_CAST(" + q + " AS BIGINT) AS " + q
			case "temperature_c":
				sel[i] = "TRY_CAST(" + q + " AS DOUBLE) AS " + q
			}
		}
	}
	out := strings.TrimSuffix(path, ".csv") + ".parquet"
	q := "COPY (SELECT " + strings.Join(sel, ", ") + " FROM read_csv('" + path + `', header = true, auto_detect = false, all_varchar = true, delim = ',', quote = '"', escape = '"', columns = {` +
		strings.Join(spec, ", ") + "})) TO '" + out + "' (FORMAT parquet)"
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameRows compares two tables row for row, every column.
func sameRows(ctx context.Context, db *sql.DB, one, two string) string {
	for _, dir := range [][2]string{{one, two}, {two, one}} {
		var extra int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT * FROM "+dir[0]+" EXCEPT ALL SELECT * FROM "+dir[1]+")").Scan(&extra)
		if err != nil {
			if strings.Contains(err.Error(), "does not exist") {
				continue
			}
			return err.Error()
		}
		if extra != 0 {
			return fmt.Sprintf("%d row(s) of %s are not in %s", extra, dir[0], dir[1])
		}
	}
	return ""
}

// TestImportFiles_RefusesEachDefect: each value a Reader refuses, alone in
// an otherwise valid one-row CSV file, is refused by ImportFiles too
// (ErrNotNative, so the row-by-row import reports it) and stores nothing;
// the random test above draws each defect too rarely to rely on it for
// every one.
func TestImportFiles_RefusesEachDefect(t *testing.T) {
	l, cols, db, dir := nativeFixture(t)
	valid := map[string]string{"event_id": "k-000"}
	for c, sps := range spellings {
		for _, sp := range sps {
			if sp.valid {
				valid[c] = sp.s
				break
			}
		}
	}
	n := 0
	for _, c := range cols {
		for _, sp := range spellings[c] {
			if sp.valid {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s/%d", c, n), func(t *testing.T) {
				row := make([]string, len(cols))
				for j, cc := range cols {
					row[j] = valid[cc]
				}
				row[slices.Index(cols, c)] = sp.s
				path := filepath.Join(dir, fmt.Sprintf("defect-%d.csv", n))
				writeCSV(t, path, cols, [][]string{row}, false)
				ln := *l
				ln.Table = fmt.Sprintf("defect_%d", n)
				_, err := duckdb.NewSink(db, nil).ImportFiles(t.Context(), &ln, []string{path})
				if !errors.Is(err, ingest.ErrNotNative) {
					t.Errorf("ImportFiles of a refused %s value: %v, want ErrNotNative", c, err)
				}
				if err := importRows(t.Context(), db, nil, &ln, []string{path}); !errors.Is(err, ingest.ErrInvalid) {
					t.Errorf("row-by-row import of a refused %s value: %v, want ErrInvalid", c, err)
				}
			})
		}
	}
}

// TestImportFiles_GlobCharactersReadRowByRow: a file whose name holds a
// glob character is not handed to DuckDB's reader, which would expand it
// to other files (here in1.csv, which is valid, where the file named holds
// a refused value), but left to the row-by-row import, which reads the
// file named and refuses it.
func TestImportFiles_GlobCharactersReadRowByRow(t *testing.T) {
	l, cols, db, dir := nativeFixture(t)
	row := func(status string) []string {
		v := map[string]string{"event_id": "k-000", "ts": "2026-01-06T08:00:00Z", "device_id": "dev-0001", "zone_id": "zone-01", "device_type": "AGV", "status": status, "battery_pct": "50", "temperature_c": "20.5", "fault_code": ""}
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = v[c]
		}
		return out
	}
	writeCSV(t, filepath.Join(dir, "in[1].csv"), cols, [][]string{row("running")}, false)
	writeCSV(t, filepath.Join(dir, "in1.csv"), cols, [][]string{row("RUNNING")}, false)
	ln := *l
	ln.Table = "glob_named"
	if _, err := duckdb.NewSink(db, nil).ImportFiles(t.Context(), &ln, []string{filepath.Join(dir, "in[1].csv")}); !errors.Is(err, ingest.ErrNotNative) {
		t.Fatalf("ImportFiles of a path with glob characters: %v, want ErrNotNative", err)
	}
	if err := importRows(t.Context(), db, nil, &ln, []string{filepath.Join(dir, "in[1].csv")}); !errors.Is(err, ingest.ErrInvalid) {
		t.Fatalf("row-by-row import of the file named: %v, want ErrInvalid", err)
	}
}

// nativeFixture gives the warehouse layout, its columns, an in-memory
// DuckDB closed when the test ends and a directory for input files.
func nativeFixture(t *testing.T) (*ingest.Layout, []string, *sql.DB, string) {
	t.Helper()
	l := ingesttest.WarehouseLayout(t)
	db, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return l, l.ColumnNames(), db, t.TempDir()
}

// TestImportFiles_TimesOutOfRange: a Parquet time outside the years 0000
// to 9999 (what RFC 3339 writes), DuckDB's infinities among them, is
// refused by ImportFiles (ErrNotNative) and by the row-by-row import,
// which names the row and field, with nothing stored; the first and last
// times inside the range are stored by both. Before the check, both
// stored the infinities, and PostgreSQL stored each as year 294247. A
// TIMESTAMP_NS with a part below the microsecond is refused by both, as
// a seventh fractional digit is in CSV and JSON Lines; both stored it
// cut to the microsecond.
func TestImportFiles_TimesOutOfRange(t *testing.T) {
	l, _, db, dir := nativeFixture(t)
	const others = `'dev-0001' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type, 'IDLE' AS status, 50 AS battery_pct, 20.5::DOUBLE AS temperature_c, NULL::VARCHAR AS fault_code`
	const outside, pastLimit = "time outside the years 0000 to 9999", "at or after 9999-12-31T00:00:00Z, where a row's validity is marked open"
	// What CSV and JSON Lines say of a seventh fractional digit.
	const sevenDigits = "more than 6 fractional digits (times are stored to the microsecond)"
	tests := []struct {
		name, ts string
		valid    bool
		reason   string // the row-by-row import's, when not valid
	}{
		{"infinity", `'infinity'::TIMESTAMP`, false, outside},
		{"minus infinity", `'-infinity'::TIMESTAMP`, false, outside},
		{"infinity with a time zone", `'infinity'::TIMESTAMPTZ`, false, outside},
		{"year 10000", `TIMESTAMP '10000-01-01 00:00:00'`, false, outside},
		{"44 BC", `TIMESTAMP '0044-03-15 (BC) 00:00:00'`, false, outside},
		{"seconds in year 20000", `CAST(TIMESTAMP '20000-01-01 00:00:00' AS TIMESTAMP_S)`, false, outside},
		{"year 0000", `TIMESTAMP '0000-01-01 00:00:00'`, true, ""},
		{"nanoseconds past the microsecond", `TIMESTAMP_NS '2026-01-06 08:00:00.123456789'`, false, sevenDigits},
		{"a nanosecond past the microsecond before 1970", `TIMESTAMP_NS '1969-12-31 23:59:59.999999001'`, false, sevenDigits},
		{"nanoseconds that are whole microseconds", `TIMESTAMP_NS '2026-01-06 08:00:00.123456'`, true, ""},
		{"nanosecond infinity", `'infinity'::TIMESTAMP_NS`, false, outside},
		{"the last microsecond before the open end", `TIMESTAMP '9999-12-30 23:59:59.999999'`, true, ""},
		// ingest.TimeLimit: the open end of a series' latest row.
		{"the last microsecond of 9999", `TIMESTAMP '9999-12-31 23:59:59.999999'`, false, pastLimit},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pq := filepath.Join(dir, fmt.Sprintf("t%d.parquet", i))
			writeParquet(t, "SELECT 'k-1' AS event_id, "+tt.ts+" AS ts, "+others, pq)
			ln, lg := *l, *l
			ln.Table, lg.Table = fmt.Sprintf("nat_t%d", i), fmt.Sprintf("row_t%d", i)
			_, errN := duckdb.NewSink(db, nil).ImportFiles(t.Context(), &ln, []string{pq})
			errG := importRows(t.Context(), db, nil, &lg, []string{pq})
			if tt.valid {
				if errN != nil || errG != nil {
					t.Fatalf("ImportFiles: %v; row by row: %v; want both stored", errN, errG)
				}
				if msg := sameRows(t.Context(), db, ln.Table, lg.Table); msg != "" {
					t.Error(msg)
				}
				return
			}
			if !errors.Is(errN, ingest.ErrNotNative) {
				t.Errorf("ImportFiles: %v, want ErrNotNative", errN)
			}
			if want := pq + ":row 1: field ts: " + tt.reason; errG == nil || errG.Error() != want {
				t.Errorf("row-by-row import: %v, want %q", errG, want)
			}
			for _, table := range []string{ln.Table, lg.Table} {
				var n int64
				// A table the failed import created holds nothing.
				if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM "+ingest.Quote(table)).Scan(&n); err == nil && n != 0 {
					t.Errorf("%s: %d rows stored by a failed import", table, n)
				}
			}
		})
	}
}

// TestImportFiles_FirstImportInFileOrder: a first import of one file,
// which DuckDB reads and checks on every thread (a Parquet file of many
// row groups numbered by the reader's file_row_number; a CSV file
// numbered on one thread into a materialized table of its text), gives
// each row its place in the file as _ingest_seq and stores the rows in
// file order, with the validity ends and derived structures the
// row-by-row import gives. The times run against the file's order, so the
// validity ends' window reorders the rows. Numbered from 0, or stored
// without the sort after the window, the rows fail it.
func TestImportFiles_FirstImportInFileOrder(t *testing.T) {
	l, _, db, dir := nativeFixture(t)
	const rows = 60000
	// Row i: key k-i, one of 37 devices, its time going backwards in
	// the file (seconds (rows - i) * 7 mod 86,400 after midnight).
	src := fmt.Sprintf(`SELECT printf('k-%%06d', i) AS event_id,
		strftime(TIMESTAMP '2026-01-05 00:00:00' + to_seconds(((%d - i) * 7) %% 86400), '%%Y-%%m-%%dT%%H:%%M:%%SZ') AS ts,
		printf('dev-%%04d', i %% 37) AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type,
		'IDLE' AS status, CAST(i %% 100 AS VARCHAR) AS battery_pct, '20.5' AS temperature_c, NULL::VARCHAR AS fault_code
		FROM range(1, %d) t(i)`, rows+1, rows+1)
	for _, tt := range []struct{ name, file, format string }{
		{"parquet", "groups.parquet", "FORMAT parquet, ROW_GROUP_SIZE 2048"},
		{"csv", "rows.csv", "FORMAT csv, HEADER true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if _, err := db.ExecContext(t.Context(), "COPY ("+src+") TO '"+path+"' ("+tt.format+")"); err != nil {
				t.Fatal(err)
			}
			if tt.name == "parquet" {
				var groups int
				if err := db.QueryRowContext(t.Context(), "SELECT count(DISTINCT row_group_id) FROM parquet_metadata('"+path+"')").Scan(&groups); err != nil {
					t.Fatal(err)
				}
				if groups < 20 {
					t.Fatalf("%d row groups, want many", groups)
				}
			}
			opts := shape.ImportOptions(&shape.DeriveOptions{Every: 1000})
			ln, lg := *l, *l
			ln.Table, lg.Table = "nat_"+tt.name, "row_"+tt.name
			if _, err := duckdb.NewSink(db, opts).ImportFiles(t.Context(), &ln, []string{path}); err != nil {
				t.Fatalf("ImportFiles: %v", err)
			}
			if err := importRows(t.Context(), db, opts, &lg, []string{path}); err != nil {
				t.Fatalf("row by row: %v", err)
			}
			var misplaced, outOfOrder int
			q := "SELECT count(*) FILTER (WHERE _ingest_seq <> CAST(substr(event_id, 3) AS BIGINT)), " +
				"count(*) FILTER (WHERE rowid + 1 <> _ingest_seq) FROM " + ln.Table
			if err := db.QueryRowContext(t.Context(), q).Scan(&misplaced, &outOfOrder); err != nil {
				t.Fatal(err)
			}
			if misplaced != 0 || outOfOrder != 0 {
				t.Errorf("%d rows numbered apart from their place in the file, %d stored out of file order", misplaced, outOfOrder)
			}
			for _, suffix := range []string{"", "__cp", "__series"} {
				if msg := sameRows(t.Context(), db, ln.Table+suffix, lg.Table+suffix); msg != "" {
					t.Errorf("%s: %s", suffix, msg)
				}
			}
		})
	}
}
