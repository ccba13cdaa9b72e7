package bench

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Renderers maps a README block's name to the function that renders its
// record (bench/results/NAME.txt) as Markdown.
var Renderers = map[string]func(*Record) (string, error){
	"load-demo":                             LoadTable,
	"load-big":                              LoadTable,
	"load-big-sql":                          LoadTable,
	"engine-tools":                          EngineToolsTable,
	"parse":                                 ParseTable,
	"scale-duckdb":                          ScaleTable,
	"scale-duckdb-turns":                    ScaleTable,
	"scale-postgres":                        ScaleTable,
	"scale-duckdb-earlier":                  ScaleTable,
	"scale-postgres-before-pipeline":        ScaleTable,
	"scale-postgres-every1024":              ScaleTable,
	"scale-postgres-e2s-xeon":               ScaleTable,
	"scale-duckdb-es-xeon":                  ScaleTable,
	"scale-metric-duckdb":                   ScaleMetricTable,
	"scale-metric-postgres":                 ScaleMetricTable,
	"repair-eval":                           RepairTable,
	"repair-eval-sc":                        RepairTable,
	"govstore":                              GovStoreTable,
	"memory-read":                           MemoryReadTable,
	"scale-metric-rollup-duckdb":            ScaleMetricTable,
	"scale-metric-rollup-postgres":          ScaleMetricTable,
	"scale-window-winroll-duckdb":           ScaleRunsTable,
	"scale-window-winroll-postgres":         ScaleRunsTable,
	"scale-window-winroll-postgres-noindex": ScaleRunsTable,
	"winscan-window-duckdb":                 ScaleCPURunsTable,
	"winscan-window-postgres":               ScaleCPURunsTable,
	"scale-metric-valroll-duckdb":           ScaleMetricTable,
	"scale-metric-valroll-postgres":         ScaleMetricTable,
	"scale-metric-now-duckdb":               ScaleMetricTable,
	"scale-metric-now-postgres":             ScaleMetricTable,
}

// Provenance is the line under every generated table: the command, the
// commit, the date and how busy the machine was.
func Provenance(rec *Record) string {
	h := rec.Header
	commit := h.Commit
	if h.Modified {
		commit += " plus uncommitted changes"
	}
	date, _, _ := strings.Cut(h.Date, "T")
	runs := fmt.Sprintf("%d runs", h.Runs)
	if h.Runs == 1 {
		runs = "1 run"
	}
	return fmt.Sprintf("Recorded in `bench/results/` from `%s` (%s) at commit `%s` on %s; %s, %s, %d cores, load average %s before and %s after (1, 5, 15 min).\n",
		h.Command, runs, commit, date, h.Go, h.CPU, h.Cores, h.LoadavgBefore, h.LoadavgAfter)
}

// loadReport is the part of `provenant load --json` a table shows.
type loadReport struct {
	Requests           int     `json:"requests"`
	Workers            int     `json:"workers"`
	QuestionsPerWorker int     `json:"questions_per_worker"`
	QuestionsPerSecond float64 `json:"questions_per_second"`
	OpenSeconds        float64 `json:"open_seconds"`
	P50                float64 `json:"deterministic_p50_us"`
	P95                float64 `json:"deterministic_p95_us"`
	P99                float64 `json:"deterministic_p99_us"`
	Metrics            struct {
		OK bool `json:"ok"`
	} `json:"metrics"`
}

// Load targets on the demo store.
const (
	loadTargetP95us = 1000
	loadTargetQPS   = 5000
)

// LoadTable renders runs of `provenant load --json`: one row per run, and
// whether each run met the targets.
func LoadTable(rec *Record) (string, error) {
	var b strings.Builder
	b.WriteString("| run | start-up | p50 | p95 | p99 | questions/s | metrics |\n|---|---|---|---|---|---|---|\n")
	metP95, metQPS := 0, 0
	var first loadReport
	for i, out := range rec.Outputs {
		var r loadReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			return "", fmt.Errorf("render load table: run %d: %w", i+1, err)
		}
		if i == 0 {
			first = r
		}
		ok := "OK"
		if !r.Metrics.OK {
			ok = "lost updates"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", i+1, Micros(r.OpenSeconds*1e6), Micros(r.P50), Micros(r.P95), Micros(r.P99), Thousands(r.QuestionsPerSecond), ok)
		if r.P95 < loadTargetP95us {
			metP95++
		}
		if r.QuestionsPerSecond > loadTargetQPS {
			metQPS++
		}
	}
	fmt.Fprintf(&b, "\n%d workers × %d questions (%s requests) per run. Targets on 2 cores: p95 under 1 ms, met in %d of %d runs; over 5,000 questions/s, met in %d of %d.\n\n",
		first.Workers, first.QuestionsPerWorker, Thousands(float64(first.Requests)), metP95, len(rec.Outputs), metQPS, len(rec.Outputs))
	b.WriteString(Provenance(rec))
	return b.String(), nil
}

// benchLine matches a Go benchmark result line: name, GOMAXPROCS suffix,
// iterations, ns/op.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([0-9.e+]+) ns/op`)

// Benchmarks returns every ns/op sample in rec, by benchmark name (the
// GOMAXPROCS suffix removed), over all runs.
func Benchmarks(rec *Record) map[string][]float64 {
	m := map[string][]float64{}
	for _, out := range rec.Outputs {
		for _, line := range strings.Split(out, "\n") {
			if s := benchLine.FindStringSubmatch(line); s != nil {
				if v, err := strconv.ParseFloat(s[2], 64); err == nil {
					m[s[1]] = append(m[s[1]], v)
				}
			}
		}
	}
	return m
}

// Median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// spread is the range of xs as a share of the median: (max-min)/median.
func spread(xs []float64) float64 {
	m := Median(xs)
	if m == 0 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / m
}

// engineTools are the rows of the per-tool table.
var engineTools = []string{"get_stock_state", "get_price", "get_compliance_flag", "count_stores_with_condition", "list_products_in_state", "count_events_in_window"}

// EngineToolsTable renders the engine benchmarks BenchmarkTool and
// BenchmarkAsk: the median ns/op of each tool's call (wall, executor,
// resolver, staple) and of a question through the whole pipeline, and the
// largest run-to-run spread.
func EngineToolsTable(rec *Record) (string, error) {
	m := Benchmarks(rec)
	var b strings.Builder
	b.WriteString("| tool | per call |\n|---|---|\n")
	worst := 0.0
	cell := func(name string) (string, error) {
		xs := m[name]
		if len(xs) == 0 {
			return "", fmt.Errorf("render engine table: no samples of %s", name)
		}
		worst = max(worst, spread(xs))
		return Micros(Median(xs) / 1000), nil
	}
	n := 0
	for _, tool := range engineTools {
		c, err := cell("BenchmarkTool/" + tool)
		if err != nil {
			return "", err
		}
		n = max(n, len(m["BenchmarkTool/"+tool]))
		fmt.Fprintf(&b, "| `%s` | %s |\n", tool, c)
	}
	ask, err := cell("BenchmarkAsk")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "| whole pipeline (`BenchmarkAsk`: rules provider, ledger and grounding check) | %s |\n", ask)
	fmt.Fprintf(&b, "\nMedians of %d samples; the widest spread between a row's fastest and slowest sample is %.0f%% of its median.\n\n", n, worst*100)
	b.WriteString(Provenance(rec))
	return b.String(), nil
}

// ParseTable renders the parser benchmarks BenchmarkParse and
// BenchmarkParser: the median and the range of ns/op, per question.
func ParseTable(rec *Record) (string, error) {
	m := Benchmarks(rec)
	var b strings.Builder
	b.WriteString("| benchmark | per question (median) | fastest to slowest sample |\n|---|---|---|\n")
	for _, name := range []string{"BenchmarkParse", "BenchmarkParser"} {
		xs := m[name]
		if len(xs) == 0 {
			return "", fmt.Errorf("render parse table: no samples of %s", name)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s to %s |\n", name, Micros(Median(xs)/1000), Micros(slices.Min(xs)/1000), Micros(slices.Max(xs)/1000))
	}
	fmt.Fprintf(&b, "\nTarget: under 20 µs a question; the slowest sample is %s.\n\n", Micros(slices.Max(append(m["BenchmarkParse"], m["BenchmarkParser"]...))/1000))
	b.WriteString(Provenance(rec))
	return b.String(), nil
}

// Micros formats a duration given in microseconds with three significant
// figures: 9.63 µs, 134 µs, 1.68 ms, 227 ms, 29.0 s.
func Micros(us float64) string {
	switch {
	case us < 1000:
		return sig3(us) + " µs"
	case us < 1e6:
		return sig3(us/1e3) + " ms"
	}
	return sig3(us/1e6) + " s"
}

func sig3(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// Thousands formats v rounded to an integer with comma separators.
func Thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// rateLine matches a Go benchmark result line that reports a throughput
// metric: name, GOMAXPROCS suffix, and the events/s or records/s value.
var rateLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s.*?\s([0-9.e+]+) (?:events|records)/s`)

// Rates returns every events/s or records/s sample in rec, by benchmark
// name, over all runs.
func Rates(rec *Record) map[string][]float64 {
	m := map[string][]float64{}
	for _, out := range rec.Outputs {
		for _, line := range strings.Split(out, "\n") {
			if s := rateLine.FindStringSubmatch(line); s != nil {
				if v, err := strconv.ParseFloat(s[2], 64); err == nil {
					m[s[1]] = append(m[s[1]], v)
				}
			}
		}
	}
	return m
}

// govStoreRows are the rows of the audit store table: a label and the
// benchmarks of its append (one writer, four writers) and verify columns
// ("" for none).
var govStoreRows = []struct{ label, append1, append4, verify string }{
	{"event log, JSONL file (fsync per event)", "BenchmarkFileAppend", "", "BenchmarkEventFileVerify"},
	{"event log, DuckDB file", "BenchmarkEventDuckDBAppend", "", "BenchmarkEventDuckDBVerify"},
	{"event log, PostgreSQL", "BenchmarkEventPostgresAppend", "BenchmarkEventPostgresAppend4", "BenchmarkEventPostgresVerify"},
	{"decision register, DuckDB file", "BenchmarkRecordDuckDBAppend", "", "BenchmarkRecordDuckDBVerify"},
	{"decision register, PostgreSQL", "BenchmarkRecordPostgresAppend", "BenchmarkRecordPostgresAppend4", "BenchmarkRecordPostgresVerify"},
}

// GovStoreTable renders the audit stores' benchmarks: acknowledged
// appends per second (one writer; four at once where the store is
// shared) and events or records verified per second (read back from the
// store and checked), each the median of its samples with the range.
func GovStoreTable(rec *Record) (string, error) {
	m := Rates(rec)
	var b strings.Builder
	b.WriteString("| store | appends/s, 1 writer | appends/s, 4 writers | verified/s |\n|---|---|---|---|\n")
	n := 0
	cell := func(name string) (string, error) {
		if name == "" {
			return "—", nil
		}
		xs := m[name]
		if len(xs) == 0 {
			return "", fmt.Errorf("render audit store table: no samples of %s", name)
		}
		n = max(n, len(xs))
		return fmt.Sprintf("%s (%s–%s)", Thousands(Median(xs)), Thousands(slices.Min(xs)), Thousands(slices.Max(xs))), nil
	}
	for _, r := range govStoreRows {
		var cells [3]string
		for i, name := range []string{r.append1, r.append4, r.verify} {
			c, err := cell(name)
			if err != nil {
				return "", err
			}
			cells[i] = c
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.label, cells[0], cells[1], cells[2])
	}
	fmt.Fprintf(&b, "\nMedian (fastest–slowest) of up to %d samples. An append counts when it is acknowledged: fsynced (file) or committed (DuckDB, PostgreSQL). Verify reads 1,000 events or records back from the store and checks them (the event log: export in canonical order, then Verify; the register: register.Verify, every hash recomputed).\n\n", n)
	b.WriteString(Provenance(rec))
	return b.String(), nil
}

// latencyLine matches a Go benchmark result line that reports p50-ms and
// p95-ms metrics (memorytest.BenchRead).
var latencyLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s.*?\s([0-9.e+]+) p50-ms\s+([0-9.e+]+) p95-ms`)

// MemoryReadTable renders the belief-sheet read benchmark
// (bench/results/memory-read.txt): per store, the median and the range
// of the samples' p50 and p95, against the 5 ms p95.
func MemoryReadTable(rec *Record) (string, error) {
	p50, p95 := map[string][]float64{}, map[string][]float64{}
	for _, out := range rec.Outputs {
		for _, line := range strings.Split(out, "\n") {
			s := latencyLine.FindStringSubmatch(line)
			if s == nil {
				continue
			}
			a, err1 := strconv.ParseFloat(s[2], 64)
			b, err2 := strconv.ParseFloat(s[3], 64)
			if err1 != nil || err2 != nil {
				return "", fmt.Errorf("render memory read table: bad sample for %s", s[1])
			}
			p50[s[1]] = append(p50[s[1]], a)
			p95[s[1]] = append(p95[s[1]], b)
		}
	}
	stores := []struct{ bench, label string }{
		{"BenchmarkRead", "in memory (`memstore`)"},
		{"BenchmarkRead/copy", "DuckDB file, read from its in-memory copy"},
		{"BenchmarkRead/read-through", "DuckDB file, read through to the tables"},
	}
	var b strings.Builder
	b.WriteString("| journal | p50 (median, range) | p95 (median, range) | p95 under 5 ms |\n|---|---|---|---|\n")
	for _, st := range stores {
		a, c := p50[st.bench], p95[st.bench]
		if len(a) == 0 {
			return "", fmt.Errorf("render memory read table: %w: no samples of %s", ErrRecord, st.bench)
		}
		met := "no"
		if slices.Max(c) < 5 {
			met = "yes, every sample"
		}
		fmt.Fprintf(&b, "| %s | %s (%s to %s) | %s (%s to %s) | %s |\n", st.label,
			Micros(Median(a)*1000), Micros(slices.Min(a)*1000), Micros(slices.Max(a)*1000),
			Micros(Median(c)*1000), Micros(slices.Min(c)*1000), Micros(slices.Max(c)*1000), met)
	}
	b.WriteString("\nA read: a sheet over a journal of 100,000 records with `max_items` 50 and chains of up to 20 annotations (`memorytest.BenchJournal`); p50 and p95 over each sample's 1,000 reads.\n\n")
	b.WriteString(Provenance(rec))
	return b.String(), nil
}
