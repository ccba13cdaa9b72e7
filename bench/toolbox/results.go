package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type datasetInfo struct {
	Version  string `json:"dataset_version"`
	Events   int    `json:"events"`
	Stores   int    `json:"stores"`
	Products int    `json:"products"`
	Days     int    `json:"days"`
	Seed     uint64 `json:"seed"`
}

// warehouseInfo is the warehouse data a run generated and imported.
type warehouseInfo struct {
	Version          string   `json:"dataset_version"`
	Seed             uint64   `json:"seed"`
	Events           int      `json:"events"`
	Devices          int      `json:"devices"`
	Zones            int      `json:"zones"`
	Days             int      `json:"days"`
	Start            string   `json:"start"`
	Schema           string   `json:"schema"`
	Table            string   `json:"table"`
	Rows             int64    `json:"rows"`
	CSVMB            float64  `json:"csv_mb"`
	ImportSeconds    float64  `json:"import_seconds"` // provenant import, derived structures included
	ImportRowsPerSec float64  `json:"import_rows_per_s"`
	TableMB          float64  `json:"table_mb"`
	IndexMB          float64  `json:"index_mb"`
	Indexes          []string `json:"indexes"`
	Reused           bool     `json:"reused,omitempty"` // -reuse: imported by an earlier run
	// Postgres is the server's version and memory settings (SHOW).
	Postgres map[string]string `json:"postgres,omitempty"`
}

// toolboxTool is one of the toolbox's tools as the run configured it.
type toolboxTool struct {
	Tool   string   `json:"tool"`
	Params []string `json:"params"`
	SQL    string   `json:"sql"`
}

// results is the artifact: how it was made, on what, and every cell.
type results struct {
	Command      string            `json:"command"`
	Catalog      string            `json:"catalog,omitempty"` // "" for retail
	Commit       string            `json:"commit,omitempty"`
	Started      string            `json:"started"`
	Finished     string            `json:"finished"`
	Machine      machineInfo       `json:"machine"`
	MachineAfter machineInfo       `json:"machine_after"`
	Note         string            `json:"note,omitempty"`
	Dataset      *datasetInfo      `json:"dataset,omitempty"`
	Warehouse    *warehouseInfo    `json:"warehouse,omitempty"`
	Servers      map[string]string `json:"servers"`
	ToolboxSQL   []toolboxTool     `json:"toolbox_sql,omitempty"`
	Checked      int               `json:"values_checked_equal"`
	MaxCalls     int               `json:"max_calls_per_cell"`
	MaxTimeMS    int64             `json:"max_time_per_cell_ms"`
	Rounds       int               `json:"rounds"`
	Cells        []cell            `json:"cells"`
}

func jsonBytes(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// find returns the cell of server, tool and sessions.
func (r *results) find(server, tool string, sessions int) (cell, bool) {
	for _, c := range r.Cells {
		if c.Server == server && c.Tool == tool && c.Sessions == sessions {
			return c, true
		}
	}
	return cell{}, false
}

// markdown is the side-by-side table: per tool and session count, both
// servers' calls/s, p50, p95 and CPU per call, and provenant's ratios
// (throughput: provenant / toolbox, higher is better; CPU: provenant /
// toolbox with its PostgreSQL backends, lower is better).
func (r *results) markdown() string {
	if r.Catalog == "warehouse" {
		return r.warehouseMarkdown()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# provenant vs MCP Toolbox for Databases over MCP (streamable HTTP)\n\n")
	fmt.Fprintf(&b, "Produced by `%s` (%s to %s).\n\n", r.Command, r.Started, r.Finished)
	fmt.Fprintf(&b, "- provenant: %s\n- toolbox: %s, over PostgreSQL on the same machine\n", r.Servers["provenant"], r.Servers["toolbox"])
	fmt.Fprintf(&b, "- store: %s, %d events, %d stores, %d products over %d days (seed %d)\n",
		r.Dataset.Version, r.Dataset.Events, r.Dataset.Stores, r.Dataset.Products, r.Dataset.Days, r.Dataset.Seed)
	fmt.Fprintf(&b, "- values checked equal on %d calls (the same calls to both servers)\n", r.Checked)
	fmt.Fprintf(&b, "- each cell: at most %d calls or %d ms per round, Go MCP SDK client sessions over loopback; %d rounds, the servers alternating, each figure the median round's (each metric's median)\n", r.MaxCalls, r.MaxTimeMS, r.Rounds)
	fmt.Fprintf(&b, "- machine: %d CPUs, load average %s before and %s after", r.Machine.CPUs, r.Machine.LoadAvg, r.MachineAfter.LoadAvg)
	if r.Note != "" {
		fmt.Fprintf(&b, "; %s", r.Note)
	}
	b.WriteString("\n\nCPU per call is user+system time from /proc/PID/stat over the cell; the toolbox's includes the PostgreSQL backends serving it (its own process alone in brackets).\n\n")
	b.WriteString("The client's CPU per call (the bench process's, the Go SDK client sessions) is shown for each server; it shares the two cores with the servers. Load is the 1-minute load average as the cell began (median round).\n\n")
	b.WriteString("| tool | sessions | provenant calls/s | toolbox calls/s | throughput ratio | provenant p50 / p95 ms | toolbox p50 / p95 ms | provenant CPU ms/call | toolbox CPU ms/call | CPU ratio | client CPU ms/call (provenant / toolbox) | load |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	cells, faster, cheaper := 0, 0, 0
	for _, name := range benchTools {
		for _, n := range r.sessionCounts() {
			p, ok1 := r.find("provenant", name, n)
			t, ok2 := r.find("toolbox", name, n)
			if !ok1 || !ok2 {
				continue
			}
			cells++
			if p.CallsPerSec >= t.CallsPerSec {
				faster++
			}
			if p.CPUmsPerCall < t.CPUmsPerCall {
				cheaper++
			}
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.2f× | %.2f / %.2f | %.2f / %.2f | %.3f | %.3f (%.3f) | %.2f× | %.3f / %.3f | %.1f |\n",
				name, n, p.CallsPerSec, t.CallsPerSec, ratio(p.CallsPerSec, t.CallsPerSec),
				p.P50ms, p.P95ms, t.P50ms, t.P95ms, p.CPUmsPerCall, t.CPUmsPerCall, t.ProcCPUms, ratio(p.CPUmsPerCall, t.CPUmsPerCall),
				p.ClientCPUms, t.ClientCPUms, p.Load1)
		}
	}
	fmt.Fprintf(&b, "\nTargets (issue 7): provenant's throughput at least the toolbox's in %d of %d cells; its server CPU per call below the toolbox's (with PostgreSQL) in %d of %d.\n", faster, cells, cheaper, cells)
	return b.String()
}

func (r *results) sessionCounts() []int {
	var out []int
	for _, c := range r.Cells {
		found := false
		for _, n := range out {
			found = found || n == c.Sessions
		}
		if !found {
			out = append(out, c.Sessions)
		}
	}
	return out
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// write writes prefix.json and prefix.md.
func (r *results) write(prefix string) error {
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if err := os.WriteFile(prefix+".json", append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if err := os.WriteFile(prefix+".md", []byte(r.markdown()), 0o644); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// median is the cell whose every metric is the median of rounds' (the
// upper median for an even count); Rounds keeps them all.
func median(rounds []cell) cell {
	out := rounds[0]
	out.Rounds = rounds
	pick := func(get func(cell) float64) float64 {
		v := make([]float64, len(rounds))
		for i, r := range rounds {
			v[i] = get(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	out.Calls = int(pick(func(c cell) float64 { return float64(c.Calls) }))
	out.Seconds = pick(func(c cell) float64 { return c.Seconds })
	out.CallsPerSec = pick(func(c cell) float64 { return c.CallsPerSec })
	out.P50ms = pick(func(c cell) float64 { return c.P50ms })
	out.P95ms = pick(func(c cell) float64 { return c.P95ms })
	out.CPUmsPerCall = pick(func(c cell) float64 { return c.CPUmsPerCall })
	out.ProcCPUms = pick(func(c cell) float64 { return c.ProcCPUms })
	out.PostgresCPUms = pick(func(c cell) float64 { return c.PostgresCPUms })
	out.ClientCPUms = pick(func(c cell) float64 { return c.ClientCPUms })
	out.Load1 = pick(func(c cell) float64 { return c.Load1 })
	out.Backends = int(pick(func(c cell) float64 { return float64(c.Backends) }))
	out.BackendsOpened = int(pick(func(c cell) float64 { return float64(c.BackendsOpened) }))
	return out
}

// warehouseShapes is each warehouse tool's shape (catalogs/warehouse.yaml).
var warehouseShapes = map[string]string{
	"get_device_status": "latest_value", "get_battery_level": "latest_value", "get_temperature": "latest_value",
	"count_devices_with_condition":  "count_entities_where",
	"list_devices_in_status":        "list_entities_in_state",
	"count_status_events_in_window": "count_rows_in_window",
}

// shapeOrder is the order the per-shape summary lists the shapes in.
var shapeOrder = []string{"latest_value", "count_entities_where", "list_entities_in_state", "count_rows_in_window"}

// loaded reports whether the machine was busy during the run: a 1-minute
// load average, before, after or as a cell began, above half its CPUs
// (the two servers and the client already keep them busy), and the
// highest such figure.
func (r *results) loaded() (bool, float64) {
	peak := 0.0
	for _, s := range []string{r.Machine.LoadAvg, r.MachineAfter.LoadAvg} {
		if f := strings.Fields(s); len(f) > 0 {
			if v, err := strconv.ParseFloat(f[0], 64); err == nil {
				peak = max(peak, v)
			}
		}
	}
	for _, c := range r.Cells {
		for _, rc := range append([]cell{c}, c.Rounds...) {
			peak = max(peak, rc.Load1)
		}
	}
	return r.Machine.CPUs > 0 && peak > float64(r.Machine.CPUs)/2, peak
}

// warehouseMarkdown is the side-by-side table of a warehouse run, with
// the per-shape throughput ratios, the toolbox's SQL and the indexes
// both servers' queries use.
func (r *results) warehouseMarkdown() string {
	var b strings.Builder
	w := r.Warehouse
	if w == nil {
		w = &warehouseInfo{}
	}
	b.WriteString("# provenant vs MCP Toolbox for Databases over MCP, on the same PostgreSQL data (warehouse catalog)\n\n")
	fmt.Fprintf(&b, "Produced by `%s` from the repository root", r.Command)
	if r.Commit != "" {
		fmt.Fprintf(&b, " at commit %s", r.Commit)
	}
	fmt.Fprintf(&b, " (measured %s to %s), after `bench/toolbox/install.sh`. Rerunning that command regenerates this file and its .json.\n\n", r.Started, r.Finished)
	if busy, peak := r.loaded(); busy {
		fmt.Fprintf(&b, "**Taken under machine load**: the 1-minute load average reached %.2f on %d CPUs during the run (other processes share the machine). Both servers ran under the same load, alternating round by round, so the ratios compare; the absolute figures are lower than on an idle machine.\n\n", peak, r.Machine.CPUs)
	}
	fmt.Fprintf(&b, "- provenant: %s\n- toolbox: %s, each tool the plain parameterized SQL below\n", r.Servers["provenant"], r.Servers["toolbox"])
	fmt.Fprintf(&b, "- data: the warehouse demo (package warehouse/demo), %s: %d events, %d devices, %d zones over %d days from %s (seed %d); ",
		w.Version, w.Events, w.Devices, w.Zones, w.Days, w.Start, w.Seed)
	if w.Reused {
		fmt.Fprintf(&b, "imported into %s.%s by an earlier run (-reuse)\n", w.Schema, w.Table)
	} else {
		fmt.Fprintf(&b, "a %.1f MB CSV imported by `provenant import --catalog catalogs/warehouse.yaml --dataset status_events --postgres DSN` (derived structures included) into %s.%s in %.1f s (%.0f rows/s); then VACUUM (ANALYZE) of the schema's tables\n",
			w.CSVMB, w.Schema, w.Table, w.ImportSeconds, w.ImportRowsPerSec)
	}
	if len(w.Postgres) > 0 {
		fmt.Fprintf(&b, "- PostgreSQL %s on the same machine, its settings as installed: shared_buffers %s, work_mem %s, max_parallel_workers_per_gather %s, jit %s\n",
			w.Postgres["server_version"], w.Postgres["shared_buffers"], w.Postgres["work_mem"], w.Postgres["max_parallel_workers_per_gather"], w.Postgres["jit"])
	}
	fmt.Fprintf(&b, "- both servers read the same table (%d rows, %.1f MB, indexes %.1f MB) on the same PostgreSQL; provenant also reads the structures import derives (%[4]s__cp, %[4]s__cpi, %[4]s__series)\n", w.Rows, w.TableMB, w.IndexMB, w.Table)
	fmt.Fprintf(&b, "- values checked equal on %d calls (the same calls to both servers; counts with their device ids, lists, readings, absences)\n", r.Checked)
	fmt.Fprintf(&b, "- each cell: at most %d calls or %d ms per round (calls in flight at the deadline are waited for and counted), Go MCP SDK client sessions over loopback; %d rounds, the servers alternating, each figure the median round's (each metric's median); a cell of slow calls rests on few of them (the calls column of the .json)\n", r.MaxCalls, r.MaxTimeMS, r.Rounds)
	fmt.Fprintf(&b, "- machine: %d CPUs, Linux %s, %s; load average %s before and %s after", r.Machine.CPUs, r.Machine.Kernel, r.Machine.GoVer, r.Machine.LoadAvg, r.MachineAfter.LoadAvg)
	if r.Note != "" {
		fmt.Fprintf(&b, "; %s", r.Note)
	}
	b.WriteString("\n\nServer CPU per call is user+system time from /proc/PID/stat over the cell, of the server's process and of the PostgreSQL backends serving it (found by application_name), for both servers; the process alone in brackets. The client's CPU per call is the bench process's (the Go SDK client sessions), which shares the CPUs with the servers. PG backends are the PostgreSQL backends seen serving the server during the cell (sampled every 50 ms) and how many of them it connected during the cell (median round): a pool that closes idle connections reconnects under concurrency, and a backend that lives less than a sample is missed, so its CPU too. Load is the 1-minute load average as the cell began (median round).\n\n")
	b.WriteString("| shape | tool | sessions | provenant calls/s | toolbox calls/s | throughput ratio | provenant p50 / p95 ms | toolbox p50 / p95 ms | provenant CPU ms/call | toolbox CPU ms/call | CPU ratio | client CPU ms/call (provenant / toolbox) | PG backends, opened (provenant / toolbox) | load |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	type span struct{ lo, hi float64 }
	byShape := map[string]map[int]*span{}
	cells, faster := 0, 0
	for _, name := range warehouseTools {
		for _, n := range r.sessionCounts() {
			p, ok1 := r.find("provenant", name, n)
			t, ok2 := r.find("toolbox", name, n)
			if !ok1 || !ok2 {
				continue
			}
			cells++
			if p.CallsPerSec >= t.CallsPerSec {
				faster++
			}
			q := ratio(p.CallsPerSec, t.CallsPerSec)
			sh := warehouseShapes[name]
			if byShape[sh] == nil {
				byShape[sh] = map[int]*span{}
			}
			if s := byShape[sh][n]; s == nil {
				byShape[sh][n] = &span{q, q}
			} else {
				s.lo, s.hi = min(s.lo, q), max(s.hi, q)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %.2f× | %.2f / %.2f | %.2f / %.2f | %.3f (%.3f) | %.3f (%.3f) | %.2f× | %.3f / %.3f | %d, %d / %d, %d | %.1f |\n",
				sh, name, n, rate(p.CallsPerSec), rate(t.CallsPerSec), q,
				p.P50ms, p.P95ms, t.P50ms, t.P95ms, p.CPUmsPerCall, p.ProcCPUms, t.CPUmsPerCall, t.ProcCPUms,
				ratio(p.CPUmsPerCall, t.CPUmsPerCall), p.ClientCPUms, t.ClientCPUms, p.Backends, p.BackendsOpened, t.Backends, t.BackendsOpened, p.Load1)
		}
	}
	b.WriteString("\n## Throughput ratio per tool shape (provenant ÷ toolbox calls/s; a range over the shape's tools)\n\n")
	b.WriteString("| shape |")
	for _, n := range r.sessionCounts() {
		fmt.Fprintf(&b, " %d session(s) |", n)
	}
	b.WriteString("\n|---|")
	for range r.sessionCounts() {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, sh := range shapeOrder {
		if byShape[sh] == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s |", sh)
		for _, n := range r.sessionCounts() {
			s := byShape[sh][n]
			switch {
			case s == nil:
				b.WriteString(" – |")
			case s.lo == s.hi || fmt.Sprintf("%.2f", s.lo) == fmt.Sprintf("%.2f", s.hi):
				fmt.Fprintf(&b, " %.2f× |", s.lo)
			default:
				fmt.Fprintf(&b, " %.2f× to %.2f× |", s.lo, s.hi)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nTarget (issue 8, scale and speed): provenant's throughput at least the toolbox's on every tool shape, doing provenance and re-derivation besides: met in %d of %d cells.\n", faster, cells)
	if len(r.ToolboxSQL) > 0 {
		b.WriteString("\n## The toolbox's tools\n\nEach tool is the SQL a PostgreSQL user would write for it, its parameters strings in the order of $1, $2, …; timestamps are RFC 3339 text, cast to the column's type. The point lookups take a device's latest event with ORDER BY … LIMIT 1 (one index probe); the store-wide ones every device's latest event with DISTINCT ON, which reads every event up to as_of. count_devices_with_condition is one tool, as in provenant, whose condition is a CASE over the condition's name, each branch the catalog's condition; it returns the devices with the count, as provenant does. list_devices_in_status filters zone and status after taking each device's latest event, as the catalog defines it. Neither server nor PostgreSQL was tuned for this run; both read the indexes import creates, listed below.\n")
		for _, t := range r.ToolboxSQL {
			fmt.Fprintf(&b, "\n`%s` (%s):\n\n```sql\n%s\n```\n", t.Tool, strings.Join(t.Params, ", "), t.SQL)
		}
	}
	if len(w.Indexes) > 0 {
		b.WriteString("\n## Indexes of the table (created by `provenant import`; no other)\n\n")
		for _, ix := range w.Indexes {
			fmt.Fprintf(&b, "- `%s`\n", ix)
		}
	}
	return b.String()
}

// rate is a throughput as the warehouse table shows it: whole calls per
// second, or one decimal below 10.
func rate(x float64) string {
	if x < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// readResults reads a results .json.
func readResults(path string) (*results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var r results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	return &r, nil
}
