package ingest_test

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
)

// distinctive appears in every rejected value of these tests, so a test
// can check that no error repeats it.
const distinctive = "QQZX"

// readAll reads every row of r, returning the valid rows' values and every
// error, as strings.
func readAll(t *testing.T, r *ingest.Reader) (rows [][]any, errs []string) {
	t.Helper()
	for range 10_000 {
		vals, _, err := r.Next()
		if err == io.EOF {
			return rows, errs
		}
		var list ingest.Errors
		if errors.As(err, &list) {
			for _, e := range list {
				if e.Row < 0 || (e.Reason == "") {
					t.Errorf("error without a reason or with a bad row: %+v", e)
				}
				errs = append(errs, e.Error())
			}
			continue
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		rows = append(rows, append([]any(nil), vals...))
	}
	t.Fatal("reader does not end")
	return nil, nil
}

const csvHeader = "event_id,device_id,device_type,zone_id,ts,status,battery_pct,temperature_c,fault_code"

// csvRow is a valid row with field name set to value.
func csvRow(field, value string) string {
	vals := map[string]string{
		"event_id": "e-1", "device_id": "dev-0001", "device_type": "AGV", "zone_id": "zone-01",
		"ts": "2026-01-06T08:00:00Z", "status": "FAULT", "battery_pct": "55", "temperature_c": "31.5", "fault_code": "E-JAM",
	}
	if field != "" {
		vals[field] = value
	}
	var out []string
	for _, c := range strings.Split(csvHeader, ",") {
		out = append(out, vals[c])
	}
	return strings.Join(out, ",")
}

func TestCSV_Errors(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	tests := []struct {
		name string
		body string
		want []string // every error, in order
	}{
		{"valid", csvHeader + "\n" + csvRow("", "") + "\n" + csvRow("fault_code", "") + "\n", nil},
		{"no header", "", []string{"in.csv:header: no header row"}},
		{"missing column", strings.TrimSuffix(csvHeader, ",fault_code") + "\n", []string{"in.csv:header: field fault_code: missing column"}},
		{"unknown column", csvHeader + "," + distinctive + "\n", []string{"in.csv:header: unknown column (column 10 of the header)"}},
		{"duplicate column", csvHeader + ",status\n", []string{"in.csv:header: field status: duplicate column"}},
		{"empty key", csvHeader + "\n" + csvRow("event_id", "") + "\n", []string{"in.csv:row 1: field event_id: empty or null, and the column is not optional"}},
		{"time with a space", csvHeader + "\n" + csvRow("ts", "2026-01-06 08:00:00"+distinctive) + "\n",
			[]string{"in.csv:row 1: field ts: want an RFC 3339 UTC time like 2026-01-06T08:00:00Z"}},
		{"time with an offset", csvHeader + "\n" + csvRow("ts", "2026-01-06T08:00:00+01:00") + "\n",
			[]string{"in.csv:row 1: field ts: want UTC, written with Z (no other offset)"}},
		{"time with a lower-case z", csvHeader + "\n" + csvRow("ts", "2026-01-06T08:00:00z") + "\n",
			[]string{"in.csv:row 1: field ts: want UTC, written with Z (no other offset)"}},
		{"time to the nanosecond", csvHeader + "\n" + csvRow("ts", "2026-01-06T08:00:00.1234567Z") + "\n",
			[]string{"in.csv:row 1: field ts: more than 6 fractional digits (times are stored to the microsecond)"}},
		{"no such date", csvHeader + "\n" + csvRow("ts", "2026-02-30T08:00:00Z") + "\n",
			[]string{"in.csv:row 1: field ts: not a valid date and time"}},
		{"time at the open-end mark", csvHeader + "\n" + csvRow("ts", "9999-12-31T00:00:00Z") + "\n",
			[]string{"in.csv:row 1: field ts: at or after 9999-12-31T00:00:00Z, where a row's validity is marked open"}},
		{"time past the open-end mark", csvHeader + "\n" + csvRow("ts", "9999-12-31T23:59:59.5Z") + "\n",
			[]string{"in.csv:row 1: field ts: at or after 9999-12-31T00:00:00Z, where a row's validity is marked open"}},
		{"entity id off pattern", csvHeader + "\n" + csvRow("device_id", "dev-"+distinctive) + "\n",
			[]string{"in.csv:row 1: field device_id: does not match the entity's pattern ^dev-[0-9]{4}$"}},
		{"undeclared value", csvHeader + "\n" + csvRow("status", distinctive) + "\n",
			[]string{"in.csv:row 1: field status: not one of the attribute's declared values"}},
		{"fraction for an integer", csvHeader + "\n" + csvRow("battery_pct", "5.5") + "\n",
			[]string{"in.csv:row 1: field battery_pct: want an integer, not a fraction"}},
		{"text for an integer", csvHeader + "\n" + csvRow("battery_pct", distinctive) + "\n",
			[]string{"in.csv:row 1: field battery_pct: want a decimal number"}},
		{"integer out of range", csvHeader + "\n" + csvRow("battery_pct", "99999999999999999999") + "\n",
			[]string{"in.csv:row 1: field battery_pct: integer out of range"}},
		{"exponent for an integer", csvHeader + "\n" + csvRow("battery_pct", "1e2") + "\n",
			[]string{"in.csv:row 1: field battery_pct: want an integer, without an exponent"}},
		// encoding/csv gathers a record whole: unbounded, a line without an
		// end would take all memory.
		{"record too long", csvHeader + "\n" + csvRow("", "") + "\n" + csvRow("event_id", `"`+strings.Repeat(distinctive+"\n", 1<<18)+`"`) + "\n" + csvRow("", "") + "\n",
			[]string{"in.csv:row 2: record longer than 1048576 bytes"}},
		{"header too long", csvHeader + "," + strings.Repeat(distinctive, 1<<19) + "\n", []string{"in.csv:header: header longer than 1048576 bytes"}},
		{"long record within the bound", csvHeader + "\n" + csvRow("", "") + "\n" + csvRow("fault_code", strings.Repeat(distinctive, 200_000)) + "\n",
			[]string{"in.csv:row 2: field fault_code: not one of the attribute's declared values"}},
		{"key too long", csvHeader + "\n" + csvRow("event_id", strings.Repeat(distinctive, 300)) + "\n",
			[]string{"in.csv:row 1: field event_id: longer than 1024 bytes"}},
		{"number out of range", csvHeader + "\n" + csvRow("temperature_c", "1e999") + "\n",
			[]string{"in.csv:row 1: field temperature_c: number out of range"}},
		{"NaN", csvHeader + "\n" + csvRow("temperature_c", "NaN") + "\n",
			[]string{"in.csv:row 1: field temperature_c: want a decimal number"}},
		{"hexadecimal", csvHeader + "\n" + csvRow("temperature_c", "0x1p4") + "\n",
			[]string{"in.csv:row 1: field temperature_c: want a decimal number"}},
		{"empty required attribute", csvHeader + "\n" + csvRow("status", "") + "\n",
			[]string{"in.csv:row 1: field status: empty or null, and the column is not optional"}},
		{"invalid UTF-8", csvHeader + "\n" + csvRow("event_id", "e\xff"+distinctive) + "\n",
			[]string{"in.csv:row 1: field event_id: not valid UTF-8"}},
		{"NUL", csvHeader + "\n" + csvRow("event_id", "e\x00"+distinctive) + "\n",
			[]string{"in.csv:row 1: field event_id: contains a NUL character"}},
		{"several errors in one row, then a good row", csvHeader + "\n" + csvRow("zone_id", distinctive) + "\n" +
			strings.Replace(csvRow("battery_pct", "1.5"), "FAULT", distinctive, 1) + "\n" + csvRow("", "") + "\n",
			[]string{"in.csv:row 1: field zone_id: does not match the entity's pattern ^zone-[0-9]{2}$",
				"in.csv:row 2: field status: not one of the attribute's declared values",
				"in.csv:row 2: field battery_pct: want an integer, not a fraction"}},
		{"ragged row, reading goes on", csvHeader + "\n" + csvRow("", "") + "," + distinctive + "\n" + csvRow("status", distinctive) + "\n",
			[]string{"in.csv:row 1: want 9 fields, as the header has, not 10",
				"in.csv:row 2: field status: not one of the attribute's declared values"}},
		{"bare quote ends the input", csvHeader + "\n" + csvRow("event_id", `e"`+distinctive) + "\n" + csvRow("status", distinctive) + "\n",
			[]string{`in.csv:row 1: malformed CSV: bare " in non-quoted-field`}},
		{"quoted fields with a comma are one field", csvHeader + "\n" + csvRow("event_id", `"e,1"`) + "\n", nil},
		{"byte-order mark", "\uFEFF" + csvHeader + "\n" + csvRow("", "") + "\n", nil},
		// A byte-order mark before a quoted header (Excel's CSV UTF-8
		// quotes its fields) was a bare quote in the header.
		{"byte-order mark before a quoted header", "\uFEFF\"" + strings.ReplaceAll(csvHeader, ",", "\",\"") + "\"\n" + csvRow("", "") + "\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := readAll(t, ingest.NewCSV("in.csv", l, strings.NewReader(tt.body)))
			if strings.Join(errs, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, e := range errs {
				if strings.Contains(e, distinctive) {
					t.Errorf("error repeats the value: %s", e)
				}
			}
		})
	}
}

// jsonRow is a valid JSON Lines row with key set to the JSON text value
// (or removed when value is "-").
func jsonRow(key, value string) string {
	keys := strings.Split(csvHeader, ",")
	vals := map[string]string{
		"event_id": `"e-1"`, "device_id": `"dev-0001"`, "device_type": `"AGV"`, "zone_id": `"zone-01"`,
		"ts": `"2026-01-06T08:00:00Z"`, "status": `"FAULT"`, "battery_pct": "55", "temperature_c": "31.5", "fault_code": `"E-JAM"`,
	}
	if key != "" {
		vals[key] = value
	}
	var parts []string
	for _, k := range keys {
		if vals[k] != "-" {
			parts = append(parts, `"`+k+`":`+vals[k])
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func TestJSONL_Errors(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"valid, with null and empty optionals and blank lines", jsonRow("", "") + "\n\n" + jsonRow("fault_code", "null") + "\n" + jsonRow("fault_code", `""`) + "\n  \n", nil},
		{"valid without a final newline, spaces and escapes", ` { "event_id" : "e-\u0031" , ` + jsonRow("event_id", "-")[1:], nil},
		{"missing column", jsonRow("status", "-") + "\n", []string{"in.jsonl:row 1: field status: missing"}},
		{"unknown column", `{"` + distinctive + `":1,` + jsonRow("", "")[1:] + "\n", []string{"in.jsonl:row 1: unknown column (key 1 of the object)"}},
		{"duplicate column", strings.TrimSuffix(jsonRow("", ""), "}") + `,"status":"` + distinctive + `"}` + "\n",
			[]string{"in.jsonl:row 1: field status: duplicate column"}},
		{"bad JSON, reading goes on", jsonRow("", "")[:30] + distinctive + "\n" + jsonRow("status", `"`+distinctive+`"`) + "\n",
			[]string{"in.jsonl:row 1: malformed JSON: bad value",
				"in.jsonl:row 2: field status: not one of the attribute's declared values"}},
		{"not an object", `["` + distinctive + `"]` + "\n", []string{"in.jsonl:row 1: malformed JSON: want an object"}},
		{"text after the object", jsonRow("", "") + distinctive + "\n", []string{"in.jsonl:row 1: malformed JSON: text after the object"}},
		{"a number as a string", jsonRow("battery_pct", `"55"`) + "\n", []string{"in.jsonl:row 1: field battery_pct: want a number, not a string"}},
		{"a string as a number", jsonRow("device_id", "12345") + "\n", []string{"in.jsonl:row 1: field device_id: want a string, not a number"}},
		{"a boolean", jsonRow("status", "true") + "\n", []string{"in.jsonl:row 1: field status: want a string"}},
		{"an object", jsonRow("temperature_c", `{"a":["`+distinctive+`"]}`) + "\n", []string{"in.jsonl:row 1: field temperature_c: want a number"}},
		{"null for a required column", jsonRow("zone_id", "null") + "\n", []string{"in.jsonl:row 1: field zone_id: empty or null, and the column is not optional"}},
		{"empty string for a required column", jsonRow("zone_id", `""`) + "\n", []string{"in.jsonl:row 1: field zone_id: empty, and the column is not optional"}},
		{"fraction for an integer", jsonRow("battery_pct", "55.0") + "\n", []string{"in.jsonl:row 1: field battery_pct: want an integer, not a fraction"}},
		{"leading zero", jsonRow("battery_pct", "055") + "\n", []string{"in.jsonl:row 1: malformed JSON: bad value"}},
		{"control character in a string", jsonRow("event_id", "\"e\t"+distinctive+"\"") + "\n", []string{"in.jsonl:row 1: malformed JSON: bad value"}},
		{"rows are lines", "\n\n" + jsonRow("status", `"`+distinctive+`"`) + "\n", []string{"in.jsonl:row 3: field status: not one of the attribute's declared values"}},
		{"escaped value still checked", jsonRow("status", `"FAUL\u0054"`) + "\n" + jsonRow("status", `"F\u0041ULT`+distinctive+`"`) + "\n",
			[]string{"in.jsonl:row 2: field status: not one of the attribute's declared values"}},
		{"byte-order mark", "\uFEFF" + jsonRow("", "") + "\n", nil},
		// encoding/json turns a lone surrogate into U+FFFD: two distinct
		// keys would be stored alike, and a value would change silently.
		{"escaped surrogate pair", jsonRow("event_id", `"e-\ud83d\ude00"`) + "\n", nil},
		{"unpaired surrogates", jsonRow("event_id", `"e-\udc00`+distinctive+`"`) + "\n" +
			jsonRow("device_id", `"dev-\ud800"`) + "\n" +
			jsonRow("status", `"\ud83d\u0041"`) + "\n" +
			jsonRow("zone_id", `"\ude00\ud83d"`) + "\n" +
			jsonRow("battery_pct", `"\ud800"`) + "\n",
			[]string{"in.jsonl:row 1: field event_id: not valid Unicode (an escaped surrogate without its pair)",
				"in.jsonl:row 2: field device_id: not valid Unicode (an escaped surrogate without its pair)",
				"in.jsonl:row 3: field status: not valid Unicode (an escaped surrogate without its pair)",
				"in.jsonl:row 4: field zone_id: not valid Unicode (an escaped surrogate without its pair)",
				"in.jsonl:row 5: field battery_pct: want a number, not a string"}},
		{"line too long", `{"event_id":"` + strings.Repeat("x", 1<<20) + `"}` + "\n" + jsonRow("status", `"`+distinctive+`"`) + "\n",
			[]string{"in.jsonl:row 1: line longer than 1048576 bytes",
				"in.jsonl:row 2: field status: not one of the attribute's declared values"}},
		{"long line within the bound", jsonRow("event_id", strings.Repeat(" ", 100_000)+`"e-1"`) + "\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := readAll(t, ingest.NewJSONL("in.jsonl", l, strings.NewReader(tt.body)))
			if strings.Join(errs, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, e := range errs {
				if strings.Contains(e, distinctive) {
					t.Errorf("error repeats the value: %s", e)
				}
			}
		})
	}
}

func TestReaders_Values(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	want := []any{"e-1", time.Date(2026, 1, 6, 8, 0, 0, 500_000_000, time.UTC), "dev-0001", "zone-01", "AGV", "FAULT", int64(55), 31.5, nil}
	csvBody := csvHeader + "\n" + strings.Replace(csvRow("fault_code", ""), "08:00:00Z", "08:00:00.5Z", 1) + "\n"
	jsonBody := strings.Replace(jsonRow("fault_code", "null"), "08:00:00Z", "08:00:00.5Z", 1) + "\n"
	for name, r := range map[string]*ingest.Reader{
		"csv":   ingest.NewCSV("in.csv", l, strings.NewReader(csvBody)),
		"jsonl": ingest.NewJSONL("in.jsonl", l, strings.NewReader(jsonBody)),
	} {
		t.Run(name, func(t *testing.T) {
			rows, errs := readAll(t, r)
			if len(errs) > 0 || len(rows) != 1 {
				t.Fatalf("rows %v, errors %v", rows, errs)
			}
			for i, v := range rows[0] {
				if tm, ok := v.(time.Time); ok {
					if !tm.Equal(want[i].(time.Time)) || tm.Location() != time.UTC {
						t.Errorf("column %s = %v, want %v", l.Columns[i].Name, v, want[i])
					}
					continue
				}
				if v != want[i] {
					t.Errorf("column %s = %#v, want %#v", l.Columns[i].Name, v, want[i])
				}
			}
		})
	}
}

func TestLayout_Columns(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	want := "event_id ts device_id zone_id device_type status battery_pct temperature_c fault_code"
	if got := strings.Join(l.ColumnNames(), " "); got != want {
		t.Errorf("columns = %s, want %s", got, want)
	}
}

// typedRecords is an in-memory ingest.Records of typed values.
type typedRecords struct {
	cols []string
	rows [][]any
}

func (r *typedRecords) Columns() []string { return r.cols }

func (r *typedRecords) Next(rec []any) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	copy(rec, r.rows[0])
	r.rows = r.rows[1:]
	return nil
}

func TestRecords_Typed(t *testing.T) {
	l := ingesttest.WarehouseLayout(t)
	cols := strings.Split(csvHeader, ",")
	ts := time.Date(2026, 1, 6, 8, 0, 0, 0, time.UTC)
	// good returns a valid record with column name set to v.
	good := func(name string, v any) []any {
		rec := []any{"e-1", "dev-0001", "AGV", "zone-01", ts, "FAULT", int64(55), 31.5, "E-JAM"}
		for i, c := range cols {
			if c == name {
				rec[i] = v
			}
		}
		return rec
	}
	tests := []struct {
		name string
		rec  []any
		want string // "" when valid
	}{
		{"typed values", good("", nil), ""},
		{"text values", good("ts", "2026-01-06T08:00:00Z"), ""},
		{"an integer for a number", good("temperature_c", int64(31)), ""},
		{"a null optional", good("fault_code", nil), ""},
		{"a time in another zone is the same instant", good("ts", ts.In(time.FixedZone("x", 3600))), ""},
		{"a fraction for an integer", good("battery_pct", 55.5), "in.parquet:row 1: field battery_pct: want an integer, not a fraction"},
		{"NaN", good("temperature_c", math.NaN()), "in.parquet:row 1: field temperature_c: want a finite number"},
		{"NaN for an integer", good("battery_pct", math.NaN()), "in.parquet:row 1: field battery_pct: want a finite number"},
		{"an infinity for an integer", good("battery_pct", math.Inf(1)), "in.parquet:row 1: field battery_pct: want a finite number"},
		{"minus infinity for an integer", good("battery_pct", math.Inf(-1)), "in.parquet:row 1: field battery_pct: want a finite number"},
		{"a time at the open-end mark", good("ts", time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)), "in.parquet:row 1: field ts: at or after 9999-12-31T00:00:00Z, where a row's validity is marked open"},
		{"nanoseconds", good("ts", ts.Add(1)), "in.parquet:row 1: field ts: more than 6 fractional digits (times are stored to the microsecond)"},
		{"the first time RFC 3339 writes", good("ts", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)), ""},
		{"the last time before the open-end mark", good("ts", time.Date(9999, 12, 30, 23, 59, 59, 999_999_000, time.UTC)), ""},
		{"the last time RFC 3339 writes", good("ts", time.Date(9999, 12, 31, 23, 59, 59, 999_999_000, time.UTC)), "in.parquet:row 1: field ts: at or after 9999-12-31T00:00:00Z, where a row's validity is marked open"},
		{"a year after 9999", good("ts", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)), "in.parquet:row 1: field ts: time outside the years 0000 to 9999"},
		{"a year before 0000", good("ts", time.Date(-43, 3, 15, 0, 0, 0, 0, time.UTC)), "in.parquet:row 1: field ts: time outside the years 0000 to 9999"},
		{"a number for a time", good("ts", int64(1767686400)), "in.parquet:row 1: field ts: want a time"},
		{"a time for an id", good("device_id", ts), "in.parquet:row 1: field device_id: want a string, not a time"},
		{"a number for an enumeration", good("status", 3.0), "in.parquet:row 1: field status: want a string, not a number"},
		{"another type", good("zone_id", true), "in.parquet:row 1: field zone_id: want a string"},
		{"a text number for an integer", good("battery_pct", "5.5"), "in.parquet:row 1: field battery_pct: want an integer, not a fraction"},
		{"a null for a required column", good("status", nil), "in.parquet:row 1: field status: empty or null, and the column is not optional"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, errs := readAll(t, ingest.NewRecords("in.parquet", l, &typedRecords{cols: cols, rows: [][]any{tt.rec}}))
			if got := strings.Join(errs, "\n"); got != tt.want {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
			if tt.want == "" && len(rows) != 1 {
				t.Errorf("%d valid rows, want 1", len(rows))
			}
		})
	}
}
