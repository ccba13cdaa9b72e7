package ingest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/ingest/ingesttest"
)

// checkReader reads r to its end and checks what every reader promises:
// it ends; an error names a declared column (or none) and a row, and never
// repeats the distinctive value; a valid row has the column kinds'
// types. It returns the number of valid rows.
func checkReader(t *testing.T, l *ingest.Layout, r *ingest.Reader) int {
	t.Helper()
	valid := 0
	for range 100_000 {
		vals, row, err := r.Next()
		if err == io.EOF {
			return valid
		}
		var list ingest.Errors
		if errors.As(err, &list) {
			for _, e := range list {
				if e.Field != "" && l.ColumnIndex(e.Field) < 0 {
					t.Fatalf("error names an undeclared field: %+v", e)
				}
				if e.Row < 0 || e.Reason == "" {
					t.Fatalf("error without a row or a reason: %+v", e)
				}
				if strings.Contains(e.Error(), distinctive) {
					t.Fatalf("error repeats the value: %s", e)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if row < 1 {
			t.Fatalf("valid row numbered %d", row)
		}
		valid++
		for i, c := range l.Columns {
			v := vals[i]
			ok := false
			switch c.Kind {
			case ingest.KindKey, ingest.KindEntity, ingest.KindEnum:
				s, isStr := v.(string)
				ok = (isStr && s != "") || (v == nil && c.Nullable)
			case ingest.KindTime:
				tm, isTime := v.(time.Time)
				ok = isTime && tm.Location() == time.UTC
			case ingest.KindInteger:
				_, ok = v.(int64)
			case ingest.KindNumber:
				_, ok = v.(float64)
			}
			if !ok {
				t.Fatalf("column %s: value %#v does not fit its kind", c.Name, v)
			}
		}
	}
	t.Fatal("reader does not end")
	return 0
}

func FuzzJSONL(f *testing.F) {
	f.Add(jsonRow("", ""))
	f.Add(jsonRow("fault_code", "null") + "\n" + jsonRow("status", `"`+distinctive+`"`))
	f.Add(jsonRow("device_id", `"dev-`+distinctive+`"`))
	f.Add(jsonRow("ts", `"2026-01-06T08:00:00.123456Z"`))
	f.Add(jsonRow("temperature_c", `{"a":[1,{"b":"`+distinctive+`"}]}`))
	f.Add(jsonRow("event_id", `"\u00e9\ud83d\ude00`+distinctive+`"`))
	f.Add(`{"event_id":"` + distinctive + `",}`)
	f.Add("\n\n{}\n")
	l := ingesttest.WarehouseLayout(f)
	f.Fuzz(func(t *testing.T, s string) {
		n := checkReader(t, l, ingest.NewJSONL("in.jsonl", l, strings.NewReader(s)))
		// A line the reader accepts is JSON that encoding/json reads, with
		// the same key.
		if n == 1 && !strings.ContainsAny(s, "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatalf("accepted a line encoding/json rejects: %v", err)
			}
			r := ingest.NewJSONL("in.jsonl", l, strings.NewReader(s))
			vals, _, err := r.Next()
			if err != nil || vals[0] != m["event_id"] {
				t.Fatalf("key %#v, encoding/json reads %#v (%v)", vals[0], m["event_id"], err)
			}
		}
	})
}

func FuzzCSV(f *testing.F) {
	f.Add(csvHeader + "\n" + csvRow("", ""))
	f.Add(csvHeader + "\n" + csvRow("fault_code", "") + "\n" + csvRow("status", distinctive))
	f.Add(csvHeader + "\n" + csvRow("event_id", `"a,`+distinctive+`"`))
	f.Add(csvHeader + "\n" + csvRow("battery_pct", "1.5"+distinctive))
	f.Add(csvHeader + ",x\n" + csvRow("", ""))
	f.Add("\uFEFF" + csvHeader + "\r\n" + csvRow("ts", "2026-01-06T08:00:00+01:00") + "\r\n")
	f.Add("\uFEFF\"" + strings.ReplaceAll(csvHeader, ",", "\",\"") + "\"\n" + csvRow("", ""))
	l := ingesttest.WarehouseLayout(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkReader(t, l, ingest.NewCSV("in.csv", l, strings.NewReader(s)))
		// The same rows read as text records (the Parquet path) agree.
		if !bytes.ContainsAny([]byte(s), "\"\r") {
			lines := strings.Split(s, "\n")
			recs := &records{}
			for i, line := range lines {
				if line == "" {
					continue
				}
				fields := strings.Split(line, ",")
				if i == 0 {
					recs.cols = fields
				} else {
					recs.rows = append(recs.rows, fields)
				}
			}
			if len(recs.cols) > 0 && !slices.ContainsFunc(recs.rows, func(r []string) bool { return len(r) != len(recs.cols) }) {
				checkReader(t, l, ingest.NewRecords("in.parquet", l, recs))
			}
		}
	})
}

// records is an in-memory ingest.Records.
type records struct {
	cols []string
	rows [][]string
}

func (r *records) Columns() []string { return r.cols }

func (r *records) Next(rec []any) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	for i, s := range r.rows[0] {
		rec[i] = s
	}
	r.rows = r.rows[1:]
	return nil
}
