package bench_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/provenant/provenant/bench"
)

func sampleRecord() *bench.Record {
	return &bench.Record{
		Header: bench.Header{Command: "go run ./cmd/provenant load --json", Runs: 2, Commit: "abc1234", Date: "2026-11-30T20:00:00Z",
			Go: "go1.26 linux/amd64", CPU: "AMD EPYC", Cores: 2, LoadavgBefore: "1.00 1.00 1.00", LoadavgAfter: "1.10 1.00 1.00"},
		Outputs: []string{
			`{"requests":3200,"workers":16,"questions_per_worker":200,"questions_per_second":21359.4,"open_seconds":0.0421,"deterministic_p50_us":28.3,"deterministic_p95_us":184,"deterministic_p99_us":604,"metrics":{"ok":true}}` + "\n",
			`{"requests":3200,"workers":16,"questions_per_worker":200,"questions_per_second":4000,"open_seconds":2.5,"deterministic_p50_us":28.3,"deterministic_p95_us":1840,"deterministic_p99_us":6040,"metrics":{"ok":false}}` + "\n",
		},
	}
}

func TestRecord_RoundTrip(t *testing.T) {
	rec := sampleRecord()
	var buf bytes.Buffer
	if err := bench.Write(&buf, rec); err != nil {
		t.Fatal(err)
	}
	got, err := bench.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header != rec.Header || len(got.Outputs) != 2 || got.Outputs[1] != rec.Outputs[1] {
		t.Errorf("round trip: got %+v, want %+v", got, rec)
	}
}

func TestParse_Rejects(t *testing.T) {
	var buf bytes.Buffer
	bench.Write(&buf, sampleRecord())
	good := buf.String()
	tests := []struct{ name, text string }{
		{"no title", strings.TrimPrefix(good, "# provenant measurement record\n")},
		{"missing header", strings.Replace(good, "# cpu: AMD EPYC\n", "", 1)},
		{"run count differs", strings.Replace(good, "# runs: 2", "# runs: 3", 1)},
		{"runs out of order", strings.Replace(good, "=== run 2", "=== run 3", 1)},
		{"stray text", strings.Replace(good, "# runs: 2\n", "# runs: 2\nstray\n", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := bench.Parse(strings.NewReader(tt.text)); !errors.Is(err, bench.ErrRecord) {
				t.Errorf("Parse() = %v, want ErrRecord", err)
			}
		})
	}
}

func TestLoadTable(t *testing.T) {
	got, err := bench.LoadTable(sampleRecord())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 1 | 42.1 ms | 28.3 µs | 184 µs | 604 µs | 21,359 | OK |",
		"| 2 | 2.50 s | 28.3 µs | 1.84 ms | 6.04 ms | 4,000 | lost updates |",
		"p95 under 1 ms, met in 1 of 2 runs; over 5,000 questions/s, met in 1 of 2.",
		"`go run ./cmd/provenant load --json` (2 runs) at commit `abc1234`",
		"load average 1.00 1.00 1.00 before",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

func TestEngineToolsTable(t *testing.T) {
	rec := sampleRecord()
	var out strings.Builder
	for _, tool := range []string{"get_stock_state", "get_price", "get_compliance_flag", "count_stores_with_condition", "list_products_in_state", "count_events_in_window"} {
		out.WriteString("BenchmarkTool/" + tool + "-2   \t    2000\t      3600 ns/op\t    1200 B/op\n")
		out.WriteString("BenchmarkTool/" + tool + "-2   \t    2000\t      4400 ns/op\n")
	}
	out.WriteString("BenchmarkAsk-2   \t    2000\t     52000 ns/op\n")
	rec.Outputs = []string{out.String()}
	rec.Runs = 1
	got, err := bench.EngineToolsTable(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `get_price` | 4.00 µs |", "| 52.0 µs |", "Medians of 2 samples", "20%"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	rec.Outputs = []string{"BenchmarkAsk-2 2000 52000 ns/op\n"}
	if _, err := bench.EngineToolsTable(rec); err == nil {
		t.Error("a record without the tool benchmarks renders a table")
	}
}

func TestMicros(t *testing.T) {
	for _, tt := range []struct {
		us   float64
		want string
	}{{9.634, "9.63 µs"}, {22.84, "22.8 µs"}, {134.2, "134 µs"}, {1680, "1.68 ms"}, {227000, "227 ms"}, {29e6, "29.0 s"}} {
		if got := bench.Micros(tt.us); got != tt.want {
			t.Errorf("Micros(%v) = %q, want %q", tt.us, got, tt.want)
		}
	}
}
