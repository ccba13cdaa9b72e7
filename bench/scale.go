package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ScaleReport is one line `go run ./bench/scale` prints: one database's
// measurement at one size. The command writes it; ScaleTable reads it.
type ScaleReport struct {
	Backend string `json:"backend"`
	// Dataset names a dataset other than the generated one of Events
	// (demo: the warehouse demo); empty for the generated one.
	Dataset string `json:"dataset,omitempty"`
	Events  int    `json:"events"`
	Clients int    `json:"clients"`
	// Import is how the dataset was built (absent when not recorded).
	Import *ScaleBuild `json:"import,omitempty"`
	// FirstAnswerMS is the time from opening the database to the first
	// answer (a latest_value call, executed and re-derived).
	FirstAnswerMS float64 `json:"first_answer_ms"`
	// PeakRSSMB is the largest resident set sampled while serving, and
	// HWMMB the kernel's high-water mark of the process.
	PeakRSSMB float64      `json:"peak_rss_mb"`
	HWMMB     float64      `json:"hwm_mb"`
	Shapes    []ScalePhase `json:"shapes"`
	// WindowDigests: large windows were served from the per-hour window
	// key digests (bench/scale -window-digests).
	WindowDigests bool `json:"window_digests,omitempty"`
}

// ScaleBuild is how a dataset was imported.
type ScaleBuild struct {
	Events     int     `json:"events"`
	Seconds    float64 `json:"import_seconds"`
	RowsPerSec float64 `json:"import_rows_per_second"`
}

// ScalePhase is one tool shape driven by every client for the phase's
// time.
type ScalePhase struct {
	Shape string `json:"shape"`
	// Clients is the phase's concurrent clients when it is not the
	// report's (a metric phase is measured at both and at one).
	Clients  int            `json:"clients,omitempty"`
	Calls    int            `json:"calls"`
	PerSec   float64        `json:"calls_per_second"`
	P50MS    float64        `json:"p50_ms"`
	P95MS    float64        `json:"p95_ms"`
	P99MS    float64        `json:"p99_ms"`
	MaxMS    float64        `json:"max_ms"`
	Outcomes map[string]int `json:"outcomes"`
	// OneP50MS is the median latency with one client (measured for a
	// quarter of the phase's time, after it): the cost of a call without
	// queueing.
	OneP50MS float64 `json:"one_client_p50_ms"`
	// CPUMSPerCall is the serving process's CPU time (user and system,
	// every thread: an in-process DuckDB's included, PostgreSQL's server
	// processes not) over the phase, per call: the work a call costs,
	// which other load on the machine stretches less than its latency.
	// ServerCPUMSPerCall is that of the PostgreSQL backends serving the
	// process's connections (bench/scale's -shapes phases; zero when not
	// read).
	CPUMSPerCall       float64 `json:"cpu_ms_per_call,omitempty"`
	ServerCPUMSPerCall float64 `json:"server_cpu_ms_per_call,omitempty"`
}

// scaleTargets are the p95 targets per tool shape, in ms.
var scaleTargets = []struct {
	shape string
	p95ms float64
}{
	{"latest_value", 5},
	{"count_entities_where", 50},
	{"list_entities_in_state", 50},
	{"count_rows_in_window", 20},
}

// scaleReports reads the JSON report lines of every run of rec, in order.
func scaleReports(rec *Record) ([]ScaleReport, error) {
	var reps []ScaleReport
	for i, out := range rec.Outputs {
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if !strings.HasPrefix(line, "{") {
				continue
			}
			var r ScaleReport
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				return nil, fmt.Errorf("read report: run %d: %w", i+1, err)
			}
			reps = append(reps, r)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("read report: run %d: %w", i+1, err)
		}
	}
	if len(reps) == 0 {
		return nil, fmt.Errorf("read reports: %w: none", ErrRecord)
	}
	return reps, nil
}

// ScaleTable renders `go run ./bench/scale`: per tool shape and database,
// p50 / p95 / p99 and calls per second at each size; then, per database
// and size, the first answer after opening, the peak resident memory and
// the import rate. Every run's lines are shown (a later run of the same
// database and size is a separate row).
func ScaleTable(rec *Record) (string, error) {
	reps, err := scaleReports(rec)
	if err != nil {
		return "", fmt.Errorf("render scale table: %w", err)
	}
	var sizes []int
	var backends []string
	for _, r := range reps {
		if !slices.Contains(sizes, r.Events) {
			sizes = append(sizes, r.Events)
		}
		if !slices.Contains(backends, r.Backend) {
			backends = append(backends, r.Backend)
		}
	}
	slices.Sort(sizes)
	find := func(b string, n int) *ScaleReport {
		for i := range reps {
			if reps[i].Backend == b && reps[i].Events == n {
				return &reps[i]
			}
		}
		return nil
	}
	var b strings.Builder
	b.WriteString("| tool shape | database |")
	for _, n := range sizes {
		fmt.Fprintf(&b, " %s events: p50 / p95 / p99, calls/s |", Thousands(float64(n)))
	}
	b.WriteString(" p95 target |\n|---|---|" + strings.Repeat("---|", len(sizes)) + "---|\n")
	met, cells, failed := 0, 0, 0
	for _, t := range scaleTargets {
		for _, be := range backends {
			fmt.Fprintf(&b, "| `%s` | %s |", t.shape, be)
			for _, n := range sizes {
				r := find(be, n)
				if r == nil {
					b.WriteString(" — |")
					continue
				}
				i := slices.IndexFunc(r.Shapes, func(s ScalePhase) bool { return s.Shape == t.shape })
				if i < 0 {
					b.WriteString(" — |")
					continue
				}
				s := r.Shapes[i]
				for o, k := range s.Outcomes {
					if o != "answered" && o != "absence" {
						failed += k
					}
				}
				cells++
				mark := ""
				if s.P95MS < t.p95ms {
					met++
					mark = " ✓"
				}
				fmt.Fprintf(&b, " %s / %s / %s, %s%s |", Micros(s.P50MS*1000), Micros(s.P95MS*1000), Micros(s.P99MS*1000), Thousands(s.PerSec), mark)
			}
			fmt.Fprintf(&b, " %s |\n", Micros(t.p95ms*1000))
		}
	}
	b.WriteString("\nOne client (the cost of a call without queueing), p50:\n\n| tool shape | database |")
	for _, n := range sizes {
		fmt.Fprintf(&b, " %s events |", Thousands(float64(n)))
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(sizes)) + "\n")
	for _, t := range scaleTargets {
		for _, be := range backends {
			fmt.Fprintf(&b, "| `%s` | %s |", t.shape, be)
			for _, n := range sizes {
				r := find(be, n)
				i := -1
				if r != nil {
					i = slices.IndexFunc(r.Shapes, func(s ScalePhase) bool { return s.Shape == t.shape })
				}
				if i < 0 || r.Shapes[i].OneP50MS == 0 {
					b.WriteString(" — |")
					continue
				}
				fmt.Fprintf(&b, " %s |", Micros(r.Shapes[i].OneP50MS*1000))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n| database | events | first answer after opening | peak resident memory while serving | import (with deriving) |\n|---|---|---|---|---|\n")
	for _, be := range backends {
		for _, n := range sizes {
			r := find(be, n)
			if r == nil {
				continue
			}
			imp := "—"
			if r.Import != nil {
				imp = fmt.Sprintf("%s s, %s rows/s", sig3(r.Import.Seconds), Thousands(r.Import.RowsPerSec))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s MB | %s |\n", be, Thousands(float64(n)), Micros(r.FirstAnswerMS*1000), Thousands(r.PeakRSSMB), imp)
		}
	}
	fmt.Fprintf(&b, "\n%d concurrent clients, one tool shape at a time, every call executed and re-derived (the pipeline's Call); ✓ marks a p95 under the issue's target (met in %d of %d cells); %d call(s) ended otherwise than answered or a grounded zero.\n\n",
		reps[0].Clients, met, cells, failed)
	b.WriteString(Provenance(rec))
	return b.String(), nil
}

// metricTargetMS is the p95 target for a query_metric call end to
// end, in ms.
const metricTargetMS = 50

// ScaleMetricTable renders `go run ./bench/scale -metrics`: per metric
// phase, database and number of clients, p50 / p95 / p99 and calls per
// second at each dataset (the demo first, then the generated sizes).
func ScaleMetricTable(rec *Record) (string, error) {
	reps, err := scaleReports(rec)
	if err != nil {
		return "", fmt.Errorf("render scale metric table: %w", err)
	}
	label := func(r ScaleReport) string {
		if r.Dataset != "" {
			return r.Dataset + " (" + Thousands(float64(r.Events)) + " events)"
		}
		return Thousands(float64(r.Events)) + " events"
	}
	// Columns: the datasets in the order first seen (the command lists
	// the demo first).
	var cols []string
	var backends, phases []string
	var clients []int
	for _, r := range reps {
		if !slices.Contains(cols, label(r)) {
			cols = append(cols, label(r))
		}
		if !slices.Contains(backends, r.Backend) {
			backends = append(backends, r.Backend)
		}
		for _, s := range r.Shapes {
			if !slices.Contains(phases, s.Shape) {
				phases = append(phases, s.Shape)
			}
			c := s.Clients
			if c == 0 {
				c = r.Clients
			}
			if !slices.Contains(clients, c) {
				clients = append(clients, c)
			}
		}
	}
	slices.Sort(clients)
	slices.Reverse(clients)
	var b strings.Builder
	b.WriteString("| phase | database | clients |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s: p50 / p95 / p99, calls/s |", c)
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(cols)) + "\n")
	met, cells, failed := 0, 0, 0
	for _, ph := range phases {
		for _, be := range backends {
			for _, cl := range clients {
				fmt.Fprintf(&b, "| `%s` | %s | %d |", ph, be, cl)
				for _, col := range cols {
					var s *ScalePhase
					for i := range reps {
						if reps[i].Backend != be || label(reps[i]) != col {
							continue
						}
						for j := range reps[i].Shapes {
							x := &reps[i].Shapes[j]
							c := x.Clients
							if c == 0 {
								c = reps[i].Clients
							}
							if x.Shape == ph && c == cl {
								s = x
							}
						}
					}
					if s == nil {
						b.WriteString(" — |")
						continue
					}
					for o, k := range s.Outcomes {
						if o != "answered" && o != "absence" {
							failed += k
						}
					}
					cells++
					mark := ""
					if s.P95MS < metricTargetMS {
						met++
						mark = " ✓"
					}
					fmt.Fprintf(&b, " %s / %s / %s, %s%s |", Micros(s.P50MS*1000), Micros(s.P95MS*1000), Micros(s.P99MS*1000), sig3(s.PerSec), mark)
				}
				b.WriteString("\n")
			}
		}
	}
	fmt.Fprintf(&b, "\nEach call compiled, validated (the sandbox's validator), executed and re-derived (the pipeline's Call); ✓ marks a p95 under the issue's %d ms (met in %d of %d cells); %d call(s) ended otherwise than answered or a grounded zero.\n\n",
		metricTargetMS, met, cells, failed)
	b.WriteString(Provenance(rec))
	return b.String(), nil
}

// ScaleRunsTable renders a record of repeated bench/scale runs (options
// alternated over the same data, as the window digests' records are)
// one row per run and tool shape, in the order they ran: the database,
// the size, whether large windows were served from the window digests,
// 16 clients' p50 / p95 / p99 and calls per second, one client's p50 and
// the serving process's peak resident memory.
func ScaleRunsTable(rec *Record) (string, error) {
	return scaleRunsTable(rec, "peak resident memory", func(r ScaleReport, _ ScalePhase) string {
		return Thousands(r.PeakRSSMB) + " MB"
	}, "")
}

// ScaleCPURunsTable is ScaleRunsTable with a call's CPU beside its
// latencies (ScalePhase.CPUMSPerCall, and ServerCPUMSPerCall on
// PostgreSQL): what the machine's load does not change the way it
// changes a latency.
func ScaleCPURunsTable(rec *Record) (string, error) {
	return scaleRunsTable(rec, "CPU a call: engine + PostgreSQL", func(r ScaleReport, s ScalePhase) string {
		if s.CPUMSPerCall <= 0 {
			return "—"
		}
		cpu := Micros(s.CPUMSPerCall * 1000)
		if r.Backend == "postgres" {
			cpu += " + " + Micros(s.ServerCPUMSPerCall*1000)
		}
		return cpu
	}, "; CPU a call is the serving process's user and system time (every thread, DuckDB's included) over the 16-client phase's calls, plus on PostgreSQL its backends'")
}

// scaleRunsTable renders one row per run and tool shape; the last
// column, its heading and a note on it are the caller's.
func scaleRunsTable(rec *Record, lastHeading string, last func(ScaleReport, ScalePhase) string, lastNote string) (string, error) {
	reps, err := scaleReports(rec)
	if err != nil {
		return "", fmt.Errorf("render scale runs: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| run | database | events | window digests | tool shape | p50 / p95 / p99, calls/s | one client p50 | %s |\n|---|---|---|---|---|---|---|---|\n", lastHeading)
	failed := 0
	for i, r := range reps {
		on := "off"
		if r.WindowDigests {
			on = "on"
		}
		for _, s := range r.Shapes {
			for o, k := range s.Outcomes {
				if o != "answered" && o != "absence" {
					failed += k
				}
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | `%s` | %s / %s / %s, %s | %s | %s |\n", i+1, r.Backend, Thousands(float64(r.Events)), on, s.Shape,
				Micros(s.P50MS*1000), Micros(s.P95MS*1000), Micros(s.P99MS*1000), Thousands(s.PerSec), Micros(s.OneP50MS*1000), last(r, s))
		}
	}
	fmt.Fprintf(&b, "\n%d concurrent clients, every call executed and re-derived (the pipeline's Call); the one-client column is the same shape driven alone%s; %d call(s) ended otherwise than answered or a grounded zero.\n\n", clientsOf(reps), lastNote, failed)
	b.WriteString(Provenance(rec))
	return b.String(), nil
}

func clientsOf(reps []ScaleReport) int {
	if len(reps) == 0 {
		return 0
	}
	return reps[0].Clients
}
