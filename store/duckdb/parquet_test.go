package duckdb_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/store/duckdb"
)

// writeParquet writes the rows of query (DuckDB SQL) to a Parquet file.
func writeParquet(tb testing.TB, query, path string) {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), "COPY ("+query+") TO '"+strings.ReplaceAll(path, "'", "''")+"' (FORMAT parquet)"); err != nil {
		tb.Fatal(err)
	}
}

// csvToParquet writes the rows of a CSV file to a Parquet file, with ts as
// a TIMESTAMP and the numbers typed.
func csvToParquet(tb testing.TB, csvPath, path string) {
	tb.Helper()
	writeParquet(tb, "SELECT * REPLACE (CAST(ts AS TIMESTAMP) AS ts) FROM read_csv('"+csvPath+"', all_varchar = false)", path)
}

// importParquet imports the Parquet file pq into a new DuckDB file's
// warehouse table, row by row through ReadParquet, failing the test on
// any error.
func importParquet(t *testing.T, pq string) (*sql.DB, ingest.Result) {
	t.Helper()
	db, sink := openFile(t, nil)
	l := ingesttest.WarehouseLayout(t)
	recs, err := duckdb.ReadParquet(t.Context(), db, pq)
	if err != nil {
		t.Fatal(err)
	}
	defer recs.Close()
	res, err := ingest.Import(t.Context(), sink, l, ingest.NewRecords(pq, l, recs))
	if err != nil {
		t.Fatal(err)
	}
	return db, res
}

func TestParquet_Import(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csvPath, ingesttest.DemoCSV(t, 500), 0o644); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, "events.parquet")
	csvToParquet(t, csvPath, pq)
	db, res := importParquet(t, pq)
	if res != (ingest.Result{Rows: 500, MaxSeq: 500}) {
		t.Errorf("import = %+v", res)
	}
	// The same rows from CSV into a second table agree column by column.
	var diff int64
	err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM (SELECT event_id, ts, device_id, zone_id, device_type, status, battery_pct, temperature_c, fault_code FROM status_events
		EXCEPT SELECT event_id, CAST(ts AS TIMESTAMP), device_id, zone_id, device_type, status, battery_pct, temperature_c, nullif(fault_code, '') FROM read_csv('`+csvPath+`', all_varchar = true))`).Scan(&diff)
	if err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Errorf("%d imported rows differ from the CSV's", diff)
	}
}

func TestParquet_Errors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, query string
		want        string
	}{
		{"bad entity id and missing column",
			`SELECT 'e1' AS event_id, TIMESTAMP '2026-01-06 08:00:00' AS ts, 'dev-XYZZY' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type, 'IDLE' AS status, 50 AS battery_pct, 20.5 AS temperature_c`,
			"p.parquet:header: field fault_code: missing column"},
		{"value errors name row and field",
			`SELECT * FROM (VALUES ('e1', TIMESTAMP '2026-01-06 08:00:00', 'dev-0001', 'zone-01', 'AGV', 'IDLE', 50, 20.5, NULL),
				('e2', TIMESTAMP '2026-01-06 08:00:00', 'dev-XYZZY', 'zone-01', 'AGV', 'IDLE', 50, 20.5, NULL)) v(event_id, ts, device_id, zone_id, device_type, status, battery_pct, temperature_c, fault_code)`,
			"p.parquet:row 2: field device_id: does not match the entity's pattern ^dev-[0-9]{4}$"},
		{"a TIMESTAMPTZ is read as UTC; a null in a required column",
			`SELECT 'e1' AS event_id, TIMESTAMPTZ '2026-01-06 08:00:00+02' AS ts, 'dev-0001' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type, NULL AS status, 50 AS battery_pct, 20.5 AS temperature_c, NULL AS fault_code`,
			"p.parquet:row 1: field status: empty or null, and the column is not optional"},
		{"nested values are refused, not stored as their text form",
			`SELECT {'a': 'XYZZY'} AS event_id, TIMESTAMP '2026-01-06 08:00:00' AS ts, ['dev-0001'] AS device_id, MAP {'zone-01': 1} AS zone_id, ['AGV']::VARCHAR[1] AS device_type, 'IDLE' AS status, [50] AS battery_pct, 20.5 AS temperature_c, NULL AS fault_code`,
			"p.parquet:row 1: field event_id: want a string\np.parquet:row 1: field device_id: want a string\np.parquet:row 1: field zone_id: want a string\n" +
				"p.parquet:row 1: field device_type: want a string\np.parquet:row 1: field battery_pct: want a number"},
		{"a BLOB is text of its bytes, which must be UTF-8",
			`SELECT * FROM (VALUES (encode('e-é'), TIMESTAMP '2026-01-06 08:00:00', 'dev-0001', 'zone-01', 'AGV', 'IDLE', 50, 20.5, NULL),
				('e-\xFFXYZZY'::BLOB, TIMESTAMP '2026-01-06 08:00:00', 'dev-0001', 'zone-01', 'AGV', 'IDLE', 50, 20.5, NULL)) v(event_id, ts, device_id, zone_id, device_type, status, battery_pct, temperature_c, fault_code)`,
			"p.parquet:row 2: field event_id: not valid UTF-8"},
	}
	l := ingesttest.WarehouseLayout(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pq := filepath.Join(dir, string(rune('a'+i))+".parquet")
			writeParquet(t, tt.query, pq)
			db, sink := openFile(t, nil)
			recs, err := duckdb.ReadParquet(t.Context(), db, pq)
			if err != nil {
				t.Fatal(err)
			}
			defer recs.Close()
			_, err = ingest.Import(t.Context(), sink, l, ingest.NewRecords("p.parquet", l, recs))
			if !errors.Is(err, ingest.ErrInvalid) || err.Error() != tt.want {
				t.Errorf("import = %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "XYZZY") {
				t.Errorf("error echoes the value: %v", err)
			}
		})
	}
}

// TestParquet_BlobIsText: a string column some writers leave without the
// UTF-8 annotation, which DuckDB reads as a BLOB, is stored as the text
// its bytes spell, not DuckDB's escaped text form of them (e-\xC3\xA9).
func TestParquet_BlobIsText(t *testing.T) {
	pq := filepath.Join(t.TempDir(), "b.parquet")
	writeParquet(t, `SELECT encode('e-é') AS event_id, TIMESTAMP '2026-01-06 08:00:00' AS ts, encode('dev-0001') AS device_id, 'zone-01' AS zone_id,
		encode('AGV') AS device_type, 'IDLE' AS status, 50 AS battery_pct, 20.5 AS temperature_c, NULL AS fault_code`, pq)
	db, _ := importParquet(t, pq)
	var key, device, typ string
	if err := db.QueryRowContext(t.Context(), `SELECT event_id, device_id, device_type FROM status_events`).Scan(&key, &device, &typ); err != nil {
		t.Fatal(err)
	}
	if key != "e-é" || device != "dev-0001" || typ != "AGV" {
		t.Errorf("stored %q, %q, %q; want e-é, dev-0001, AGV", key, device, typ)
	}
}

// TestParquet_InvalidUTF8String: a string column (annotated UTF-8) whose
// bytes are not UTF-8, which DuckDB's reader refuses before any row
// reaches the validation, is an input error naming the file's column,
// never the value. Before, DuckDB's own message was the error, quoting
// the value: Invalid string encoding found in Parquet file "p.parquet":
// value "e-\xFFXYZZY" is not valid UTF8!
func TestParquet_InvalidUTF8String(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, query string
		want        string
	}{
		{"in the key of row 1",
			`SELECT 'e-QQXYZZY' AS event_id, TIMESTAMP '2026-01-06 08:00:00' AS ts, 'dev-0001' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type, 'IDLE' AS status, 50 AS battery_pct, 20.5 AS temperature_c, NULL AS fault_code`,
			"read parquet: column 1 of the file holds text that is not valid UTF-8: invalid input"},
		{"in a status of a later chunk",
			`SELECT 'e-' || i AS event_id, TIMESTAMP '2026-01-06 08:00:00' + INTERVAL (i) SECOND AS ts, 'dev-0001' AS device_id, 'zone-01' AS zone_id, 'AGV' AS device_type,
				CASE WHEN i = 5000 THEN 'QQXYZZY' ELSE 'IDLE' END AS status, 50 AS battery_pct, 20.5 AS temperature_c, NULL AS fault_code FROM range(6000) t(i)`,
			"read parquet: column 6 of the file holds text that is not valid UTF-8: invalid input"},
	}
	l := ingesttest.WarehouseLayout(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pq := filepath.Join(dir, string(rune('a'+i))+".parquet")
			mem, err := sql.Open("duckdb", "")
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			if _, err := mem.ExecContext(t.Context(), "COPY ("+tt.query+") TO '"+pq+"' (FORMAT parquet, COMPRESSION 'uncompressed')"); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(pq)
			if err != nil {
				t.Fatal(err)
			}
			// QQ becomes two bytes that begin no UTF-8 sequence, in the
			// page and in the statistics alike.
			if err := os.WriteFile(pq, bytes.ReplaceAll(b, []byte("QQ"), []byte{0xff, 0xfe}), 0o644); err != nil {
				t.Fatal(err)
			}
			db, sink := openFile(t, nil)
			recs, err := duckdb.ReadParquet(t.Context(), db, pq)
			if err != nil {
				t.Fatal(err)
			}
			defer recs.Close()
			_, err = ingest.Import(t.Context(), sink, l, ingest.NewRecords("p.parquet", l, recs))
			if !errors.Is(err, ingest.ErrInvalid) || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("import = %v, want ErrInvalid ending %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "XYZZY") {
				t.Errorf("error echoes the value: %v", err)
			}
		})
	}
}

// TestParquet_NotParquet: a file under a Parquet name that is no Parquet
// file, or one whose footer is damaged, is an input error of one line
// saying so, with none of the file's bytes and none of DuckDB's SQL; one
// whose footer reads but whose data is damaged is one too, when read.
// Before, it was DuckDB's message of three lines: "Invalid Input Error:
// No magic bytes found at end of file ..." and the DESCRIBE statement
// with a caret under it; damaged data was "Invalid Error: don't know
// what type: " and a byte of the file.
func TestParquet_NotParquet(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeParquet(t, `SELECT 'XYZZY' AS event_id, 1 AS n`, good)
	g, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	damaged := func(from, to int) []byte {
		b := bytes.Clone(g)
		for i := len(b) + from; i < len(b)+to; i++ {
			b[i] ^= 0x5a
		}
		return b
	}
	tests := []struct {
		name string
		body []byte
	}{
		{"empty", nil},
		{"text", []byte("event_id\nXYZZY\n")},
		{"the magic at both ends only", []byte("PAR1XYZZYXYZZYPAR1")},
		// A footer length that fits in the file, over bytes whose schema
		// reads past the end: DuckDB's "IO Error: Could not read enough
		// bytes", with the statement and a caret, was printed as it came.
		{"a footer that reads past the end", append([]byte("PAR1"+strings.Repeat("XYZZYXYZZY", 9)), 16, 0, 0, 0, 'P', 'A', 'R', '1')},
		{"cut in half", g[:len(g)/2]},
		{"a damaged footer length", damaged(-8, -4)},
		{"a damaged footer", damaged(-60, -8)},
		{"damaged data", damaged(4-len(g), 40-len(g))},
	}
	const want, wantData = "read parquet: not a Parquet file: invalid input", "read parquet: damaged data: invalid input"
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pq := filepath.Join(dir, fmt.Sprintf("n%d.parquet", i))
			if err := os.WriteFile(pq, tt.body, 0o644); err != nil {
				t.Fatal(err)
			}
			db, _ := openFile(t, nil)
			recs, err := duckdb.ReadParquet(t.Context(), db, pq)
			if err == nil {
				defer recs.Close()
				err = recs.Next(make([]any, len(recs.Columns())))
				if !errors.Is(err, ingest.ErrInvalid) || err.Error() != wantData {
					t.Errorf("Next = %q, want %q", err, wantData)
				}
				return
			}
			if !errors.Is(err, ingest.ErrInvalid) || err.Error() != want {
				t.Errorf("ReadParquet = %v, want %q", err, want)
			}
		})
	}
}
