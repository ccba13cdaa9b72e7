package bench_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/bench"
)

func TestScaleTable(t *testing.T) {
	line := func(backend string, events int, pointP95 string, outcome string) string {
		return `{"backend":"` + backend + `","events":` + itoa(events) + `,"clients":16,"import":{"import_seconds":12.5,"import_rows_per_second":80000},` +
			`"first_answer_ms":120.5,"peak_rss_mb":310.2,"shapes":[` +
			`{"shape":"latest_value","calls":100,"calls_per_second":1500,"p50_ms":1.2,"p95_ms":` + pointP95 + `,"p99_ms":9.5,"outcomes":{"answered":100},"one_client_p50_ms":2.5},` +
			`{"shape":"count_rows_in_window","calls":10,"calls_per_second":50,"p50_ms":30,"p95_ms":45,"p99_ms":60,"outcomes":{"` + outcome + `":10}}]}`
	}
	rec := sampleRecord()
	rec.Runs = 1
	rec.Outputs = []string{"scale: building duckdb\n" + line("duckdb", 100000, "4.5", "answered") + "\n" + line("duckdb", 1000000, "7.5", "error") + "\n"}
	got, err := bench.ScaleTable(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| `latest_value` | duckdb | 1.20 ms / 4.50 ms / 9.50 ms, 1,500 ✓ | 1.20 ms / 7.50 ms / 9.50 ms, 1,500 | 5.00 ms |",
		"| `count_entities_where` | duckdb | — | — | 50.0 ms |",
		"| `latest_value` | duckdb | 2.50 ms | 2.50 ms |",
		"| `count_rows_in_window` | duckdb | — | — |",
		"| duckdb | 1,000,000 | 120 ms | 310 MB | 12.5 s, 80,000 rows/s |",
		"met in 1 of 4 cells); 10 call(s) ended otherwise",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ScaleTable is missing %q:\n%s", want, got)
		}
	}
	rec.Outputs = []string{"no reports\n"}
	if _, err := bench.ScaleTable(rec); !errors.Is(err, bench.ErrRecord) {
		t.Errorf("ScaleTable of a record without reports: err = %v, want ErrRecord", err)
	}
}

func itoa(n int) string {
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestScaleMetricTable(t *testing.T) {
	phase := func(clients int, p95 string, outcome string) string {
		return `{"shape":"metric_week","clients":` + itoa(clients) + `,"calls":10,"calls_per_second":2.5,"p50_ms":20,"p95_ms":` + p95 + `,"p99_ms":90,"outcomes":{"` + outcome + `":10}}`
	}
	rec := sampleRecord()
	rec.Runs = 1
	rec.Outputs = []string{"scale: building duckdb\n" +
		`{"backend":"duckdb","dataset":"demo","events":20000,"clients":16,"shapes":[` + phase(16, "45", "answered") + `,` + phase(1, "30", "answered") + "]}\n" +
		`{"backend":"duckdb","events":10000000,"clients":16,"shapes":[` + phase(16, "4500", "error") + "]}\n"}
	got, err := bench.ScaleMetricTable(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| phase | database | clients | demo (20,000 events): p50 / p95 / p99, calls/s | 10,000,000 events: p50 / p95 / p99, calls/s |",
		"| `metric_week` | duckdb | 16 | 20.0 ms / 45.0 ms / 90.0 ms, 2.50 ✓ | 20.0 ms / 4.50 s / 90.0 ms, 2.50 |",
		"| `metric_week` | duckdb | 1 | 20.0 ms / 30.0 ms / 90.0 ms, 2.50 ✓ | — |",
		"met in 2 of 3 cells); 10 call(s) ended otherwise",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ScaleMetricTable is missing %q:\n%s", want, got)
		}
	}
	rec.Outputs = []string{"no reports\n"}
	if _, err := bench.ScaleMetricTable(rec); !errors.Is(err, bench.ErrRecord) {
		t.Errorf("ScaleMetricTable of a record without reports: err = %v, want ErrRecord", err)
	}
}

func TestScaleCPURunsTable(t *testing.T) {
	rec := sampleRecord()
	rec.Runs = 1
	rec.Outputs = []string{`{"backend":"postgres","events":10000000,"clients":16,"window_digests":true,"shapes":[{"shape":"count_rows_in_window","calls":10,"calls_per_second":50,"p50_ms":30,"p95_ms":45,"p99_ms":60,"outcomes":{"answered":9,"error":1},"one_client_p50_ms":2.5,"cpu_ms_per_call":3.25,"server_cpu_ms_per_call":1.5}]}
{"backend":"duckdb","events":1000000,"clients":16,"shapes":[{"shape":"count_rows_in_window","calls":10,"calls_per_second":50,"p50_ms":30,"p95_ms":45,"p99_ms":60,"outcomes":{"answered":10},"one_client_p50_ms":2.5,"cpu_ms_per_call":9.5}]}
{"backend":"duckdb","events":1000000,"clients":16,"shapes":[{"shape":"count_rows_in_window","calls":10,"calls_per_second":50,"p50_ms":30,"p95_ms":45,"p99_ms":60,"outcomes":{"answered":10},"one_client_p50_ms":2.5}]}
`}
	got, err := bench.ScaleCPURunsTable(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 1 | postgres | 10,000,000 | on | `count_rows_in_window` | 30.0 ms / 45.0 ms / 60.0 ms, 50 | 2.50 ms | 3.25 ms + 1.50 ms |",
		"| 2 | duckdb | 1,000,000 | off | `count_rows_in_window` | 30.0 ms / 45.0 ms / 60.0 ms, 50 | 2.50 ms | 9.50 ms |",
		"| 3 | duckdb | 1,000,000 | off | `count_rows_in_window` | 30.0 ms / 45.0 ms / 60.0 ms, 50 | 2.50 ms | — |",
		"1 call(s) ended otherwise",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ScaleCPURunsTable is missing %q:\n%s", want, got)
		}
	}
}
