package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// results is the artifact: how it was made, on what, and every cell.
type results struct {
	Command      string            `json:"command"`
	Started      string            `json:"started"`
	Finished     string            `json:"finished"`
	Machine      machineInfo       `json:"machine"`
	MachineAfter machineInfo       `json:"machine_after"`
	Note         string            `json:"note,omitempty"`
	Dataset      datasetInfo       `json:"dataset"`
	Servers      map[string]string `json:"servers"`
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
	return out
}
