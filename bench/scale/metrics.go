package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/provenant/provenant/bench"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/metric"
	"github.com/provenant/provenant/sandbox"
	sandboxduckdb "github.com/provenant/provenant/sandbox/duckdb"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// metricPhases are the query_metric phases: a week of availability (the
// heaviest window the catalog's grain allows a person to ask for often),
// and a shift (eight hours) of any warehouse metric.
var metricPhases = []struct {
	name   string
	window time.Duration
	week   bool
}{
	{"metric_week", 7 * 24 * time.Hour, true},
	{"metric_shift", 8 * time.Hour, false},
}

// drawMetric draws one query_metric request and its proposal: the metric
// (for a shift, only when it is not empty),
// the dimensions (none, zone or device type), a zone filter now and then,
// and a window of the phase's length starting at a random second of the
// dataset's period.
func drawMetric(r *rand.Rand, cat *catalog.Catalog, gen *proposals, window time.Duration, week bool, only string) (metric.Request, tool.Proposal) {
	name := "availability"
	if !week {
		name = cat.Metrics[r.IntN(len(cat.Metrics))].Name.Value
		if only != "" {
			name = only
		}
	}
	span := max(gen.period-window, time.Hour)
	start := gen.start.Add(time.Duration(r.Int64N(int64(span)))).Truncate(time.Second)
	req := metric.Request{Metric: name, Start: start, End: start.Add(window), Scope: metric.All()}
	params := map[string]any{"metric": name, "start": start.Format(tool.TimestampLayout), "end": req.End.Format(tool.TimestampLayout)}
	switch r.IntN(3) {
	case 1:
		req.Dimensions = []string{"zone"}
	case 2:
		req.Dimensions = []string{"device_type"}
	}
	if len(req.Dimensions) > 0 {
		params["dimensions"] = []any{req.Dimensions[0]}
	}
	if len(req.Dimensions) == 0 && r.IntN(2) == 0 {
		z := gen.zones[r.IntN(len(gen.zones))].ID
		req.Filters = []metric.Filter{{Dimension: "zone", Op: "eq", Values: []string{z}}}
		params["filters"] = []any{map[string]any{"dimension": "zone", "op": "eq", "values": []any{z}}}
	}
	return req, tool.Proposal{Tool: shape.QueryMetric, Params: params}
}

// measureMetrics drives query_metric calls end to end: each call compiles
// the request (metric.Compile), validates the SQL with the sandbox's
// validator (DuckDB's parser and the catalog's allowlist with parameters
// admitted, as `validate` judges compiled queries), then runs it through
// the pipeline's Call (the wall, the compiled query, the re-derivation for
// the keys, the resolver's re-derivation and Verify). Each phase runs at
// c.clients and then at one client, each for c.duration.
func measureMetrics(ctx context.Context, cat *catalog.Catalog, e *engine.Engine, db *sql.DB, gen *proposals, c config, rep *bench.ScaleReport) error {
	// The compiled queries the engine runs: over the derived validity
	// intervals and, with -value-rollups, the value rollups, which the
	// compiled queries (not free SQL) may read.
	if c.shiftMetric != "" && cat.Metric(c.shiftMetric) == nil {
		return errors.New("-shift-metric: not a metric of the warehouse catalog")
	}
	allow := cat.Allowlist()
	co := &metric.Options{ValidTo: map[string]string{"status_events": shape.ValidToColumn}}
	if c.values {
		ru := shape.MetricValueRollup(cat, cat.Dataset("status_events"), "status_events")
		allow = append(allow, ru.Relation)
		// The slices when the file has them, as the engine takes them.
		if rows, err := db.QueryContext(ctx, "SELECT 1 FROM status_events"+shape.RollupValueSlicesSuffix+" LIMIT 0"); err == nil {
			rows.Close()
			ru.Slices, ru.SliceWidth = "status_events"+shape.RollupValueSlicesSuffix, shape.SliceWidth
			allow = append(allow, ru.Slices)
		}
		co.ValueRollups = map[string]metric.ValueRollup{"status_events": ru}
	}
	if c.edges {
		eb := shape.MetricEdges("status_events")
		co.Edges = map[string]metric.EdgeBound{"status_events": eb}
		allow = append(allow, eb.Checkpoints, eb.CheckpointIndex)
	}
	v, err := sandboxduckdb.NewValidator(ctx, sandbox.NewPolicy(allow).WithParameters(), nil)
	if err != nil {
		return fmt.Errorf("open validator: %w", err)
	}
	defer v.Close()
	var cpu0, cpu1 time.Duration
	call := func(r *rand.Rand, window time.Duration, week bool) (string, error) {
		req, p := drawMetric(r, cat, gen, window, week, c.shiftMetric)
		q, err := metric.Compile(cat, req, co)
		if err != nil {
			return "", fmt.Errorf("compile: %w", err)
		}
		if err := v.Validate(ctx, q.SQL); err != nil {
			return "", fmt.Errorf("validate: %w", err)
		}
		return string(e.Pipeline.Call(ctx, p).Outcome()), nil
	}
	run := func(clients int, seed uint64, d time.Duration, window time.Duration, week bool) ([]time.Duration, map[string]int, time.Duration, error) {
		cpu0 = cpuTime()
		per := make([][]time.Duration, clients)
		outs := make([]map[string]int, clients)
		errs := make([]error, clients)
		var wg sync.WaitGroup
		start := time.Now()
		deadline := start.Add(d)
		for w := range clients {
			outs[w] = map[string]int{}
			wg.Go(func() {
				r := rand.New(rand.NewPCG(seed, uint64(w)))
				// At least one call per client, however slow.
				for first := true; ctx.Err() == nil && (first || time.Now().Before(deadline)); first = false {
					t := time.Now()
					o, err := call(r, window, week)
					if err != nil {
						errs[w] = err
						return
					}
					per[w] = append(per[w], time.Since(t))
					outs[w][o]++
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		cpu1 = cpuTime()
		var all []time.Duration
		outcomes := map[string]int{}
		for w := range clients {
			if errs[w] != nil {
				return nil, nil, 0, errs[w]
			}
			all = append(all, per[w]...)
			for k, n := range outs[w] {
				outcomes[k] += n
			}
		}
		slices.Sort(all)
		return all, outcomes, elapsed, nil
	}
	for i, ph := range metricPhases {
		seed := c.seed + uint64(i)*1000
		if c.shapes != "" && !slices.Contains(strings.Split(c.shapes, ","), ph.name) {
			continue
		}
		if c.calls > 0 {
			// A fixed number of calls, one client: the same requests
			// every run (the seed), so instruction counts compare.
			r := rand.New(rand.NewPCG(seed+500, 0))
			if _, err := call(r, ph.window, ph.week); err != nil {
				return fmt.Errorf("%s: %w", ph.name, err)
			}
			cpu0 = cpuTime()
			durs := make([]time.Duration, 0, c.calls)
			outcomes := map[string]int{}
			start := time.Now()
			for range c.calls {
				t := time.Now()
				o, err := call(r, ph.window, ph.week)
				if err != nil {
					return fmt.Errorf("%s: %w", ph.name, err)
				}
				durs = append(durs, time.Since(t))
				outcomes[o]++
			}
			elapsed := time.Since(start)
			cpu1 = cpuTime()
			slices.Sort(durs)
			rep.Shapes = append(rep.Shapes, bench.ScalePhase{
				Shape: ph.name, Clients: 1, Calls: len(durs), PerSec: float64(len(durs)) / elapsed.Seconds(),
				P50MS: ms(pct(durs, 0.50)), P95MS: ms(pct(durs, 0.95)), P99MS: ms(pct(durs, 0.99)), MaxMS: ms(durs[len(durs)-1]),
				Outcomes: outcomes, CPUMSPerCall: ms(cpu1-cpu0) / float64(len(durs)),
			})
			continue
		}
		// A warm-up, not measured: one client (a call at 10,000,000
		// events takes seconds; sixteen of them would take minutes).
		if _, _, _, err := run(1, seed+500, time.Second, ph.window, ph.week); err != nil {
			return fmt.Errorf("%s: %w", ph.name, err)
		}
		for _, clients := range []int{c.clients, 1} {
			durs, outcomes, elapsed, err := run(clients, seed+uint64(clients), c.duration, ph.window, ph.week)
			if err != nil {
				return fmt.Errorf("%s: %w", ph.name, err)
			}
			rep.Shapes = append(rep.Shapes, bench.ScalePhase{
				Shape: ph.name, Clients: clients, Calls: len(durs), PerSec: float64(len(durs)) / elapsed.Seconds(),
				P50MS: ms(pct(durs, 0.50)), P95MS: ms(pct(durs, 0.95)), P99MS: ms(pct(durs, 0.99)), MaxMS: ms(durs[len(durs)-1]),
				Outcomes: outcomes, CPUMSPerCall: ms(cpu1-cpu0) / float64(len(durs)),
			})
		}
	}
	return nil
}

// cpuTime is the process's CPU time so far, user and system, all threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
