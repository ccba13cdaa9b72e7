// Command scale measures a catalog engine over the warehouse dataset at
// growing sizes, in a DuckDB file and in PostgreSQL: it builds each
// dataset once through the real import path (ingest.Import with
// shape.Derive in the import's transaction, as `provenant import` does),
// then, in a fresh process per database, opens it, times the first
// answer, and drives concurrent clients through the pipeline's Call, one
// tool shape at a time, every call executed and re-derived.
//
//	go run ./bench/scale -events 100000,1000000,10000000 -data /work/scale-data
//
// It prints one JSON object per database and size (see bench.ScaleReport), which
// bench/record stores and bench.ScaleTable renders. Generated data is kept
// in -data and reused when present; it never belongs in the repository.
//
// Wall-clock time is read only to measure; nothing passes or fails on it.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/bench"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/tool"
	"github.com/provenant/provenant/warehouse/demo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// config is one run's flags.
type config struct {
	events            []int
	backends          []string
	data              string
	dsn               string
	valueSliceMinRows int
	clients           int
	duration          time.Duration
	seed              uint64
	serve             string        // internal: serve one backend:events and print its report
	only              bool          // build the datasets, measure nothing
	threads           int           // DuckDB's worker threads (0: its default)
	sqlTurns          bool          // engine.Options.SQLTurns on DuckDB
	onceVer           bool          // on DuckDB, the data version read once at open (Source.Versions), as serve reads it
	shapes            string        // the tool shapes to measure (all when empty)
	profile           string        // CPU profile of the serving process
	memProfile        string        // allocations of the serving process
	every             int           // rows between checkpoints (0: the default spacing)
	metrics           bool          // measure query_metric instead of the tool shapes
	goRows            int           // engine.Options.MetricGoRows
	resolveRows       int           // engine.Options.MetricResolveRows
	resolveFrom       time.Duration // engine.Options.MetricResolveFrom
	schema            string        // PostgreSQL schema prefix, followed by the size
	rollups           bool          // build per-hour key digests and serve metrics from them
	values            bool          // build per-hour value rollups and serve metrics from them
	phases            int           // time each metric phase apart over this many calls
	calls             int           // with metrics: exactly this many one-client calls a phase, no sixteen-client run
	windows           bool          // build the per-hour window key digests and serve large windows from them
	memRows           int           // engine.Options.MemoryRows while serving
	// winPhases: time the window formulations apart over this many calls
	winPhases   int
	pgConns     int    // PostgreSQL pool size (0: postgres.MaxConns)
	pgGate      int    // pipelines in PostgreSQL at once (postgres.PipelinerOptions.MaxInFlight)
	pgPools     bool   // batches on pools of their own without BEGIN and COMMIT (postgres.OpenSnapshotPools)
	shiftMetric string // the shift phase's only metric ("": any)
	pgShare     bool   // a query_metric call's resolver beside its executor on an exported snapshot (postgres.OpenSnapshotSharer)
	// edges: the metric phases and the validated compiled queries bound
	// the edges' reads by the checkpoints and the census, as the engine
	// does on PostgreSQL (metric.Options.Edges); set by serve.
	edges bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	events := fs.String("events", "100000,1000000,10000000", "dataset `SIZES` in events, comma-separated; demo for the warehouse demo (demo.DefaultOptions)")
	backends := fs.String("backends", "duckdb,postgres", "`DATABASES` to measure: duckdb, postgres")
	var c config
	fs.StringVar(&c.data, "data", "/work/scale-data", "`DIR` for generated DuckDB files (outside the repository)")
	fs.StringVar(&c.dsn, "postgres", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL `DSN`; each size gets its own schema (-postgres-schema and the size)")
	fs.StringVar(&c.schema, "postgres-schema", "scale_", "PostgreSQL schema `PREFIX`: size N is built in and read from PREFIXN (dropped first when its -data build record is missing)")
	fs.IntVar(&c.clients, "clients", 16, "concurrent `N` clients")
	fs.DurationVar(&c.duration, "duration", 8*time.Second, "measured `TIME` per tool shape")
	fs.Uint64Var(&c.seed, "seed", 20261130, "generator and argument `SEED`")
	fs.BoolVar(&c.only, "build", false, "only build the missing datasets")
	fs.IntVar(&c.threads, "duckdb-threads", 0, "DuckDB worker `THREADS` while serving (0: DuckDB's default, one per core)")
	fs.BoolVar(&c.onceVer, "version-once", true, "on DuckDB, read each dataset's data version once when the file opens (shape.ReadVersions, as serve does) instead of in every call")
	fs.BoolVar(&c.sqlTurns, "sql-turns", false, "on DuckDB, calls answered by SQL take turns, as many at once as cores (engine.Options.SQLTurns; serve's default with -duckdb-threads 1)")
	fs.StringVar(&c.shapes, "shapes", "", "tool `SHAPES` to measure, comma-separated (all when empty)")
	fs.StringVar(&c.profile, "cpuprofile", "", "write a CPU profile of the serving process (the last database measured) to `FILE`")
	fs.StringVar(&c.memProfile, "memprofile", "", "write the serving process's allocations (pprof's allocs profile, the last database measured) to `FILE` when it ends")
	fs.IntVar(&c.every, "every", 0, "`ROWS` between checkpoints when building (0: the default spacing: on PostgreSQL the number of series, at least shape.MinEvery; on DuckDB twice that)")
	fs.BoolVar(&c.metrics, "metrics", false, "measure query_metric end to end (compile, validate, execute, re-derive) instead of the tool shapes, at -clients and at one client")
	fs.IntVar(&c.goRows, "metric-go-rows", 0, "most `ROWS` a metric's re-derivation reads into Go before it re-derives in SQL (0: metric.DefaultMaxGoRows)")
	fs.IntVar(&c.resolveRows, "metric-resolve-rows", 0, "most contributing `ROWS` for which the resolver re-derives a metric from the rows although the value rollups answer it (0: as serve, postgres.MetricResolveRows on PostgreSQL and metric.DefaultResolveRows on DuckDB; -1: the rollups always)")
	fs.DurationVar(&c.resolveFrom, "metric-resolve-from", 0, "least `SPAN` of whole hours the resolver re-derives from the value rollups (0: as serve, postgres.MetricResolveFrom on PostgreSQL and duckdb.MetricResolveFrom on DuckDB)")
	fs.IntVar(&c.valueSliceMinRows, "value-slice-min-rows", 0, "with -value-rollups and -build, shape.DeriveOptions.ValueSliceMinRows: the rows an hour from which the value rollups are also kept by ten-minute slice (0: the database's default, 5,000 on PostgreSQL, none on DuckDB; negative: always)")
	fs.BoolVar(&c.values, "value-rollups", false, "build the per-hour value rollups (shape.DeriveOptions.RollupValues; use another -data) and serve query_metric's values from them (engine.Options.MetricValueRollups; with -rollups the resolver re-derives from them too)")
	fs.BoolVar(&c.rollups, "rollups", false, "build the per-hour key digests (shape.DeriveOptions.RollupKeys; use another -data) and serve query_metric's large provenance from them (engine.Options.MetricRollups)")
	fs.StringVar(&c.shiftMetric, "shift-metric", "", "with -metrics: the shift phase asks only the metric `NAME` (a warehouse metric; default: any, drawn at random), to find which metric a shift's tail is")
	fs.IntVar(&c.calls, "metric-calls", 0, "with -metrics: run exactly `N` one-client calls of each phase (after one warm-up call) instead of -duration at -clients and at one client, for repeatable counts (valgrind's callgrind); -shapes names the phases")
	fs.IntVar(&c.phases, "metric-phases", 0, "with -metrics: time each step of `N` one-client calls apart (compile and run, the keys summed or read, the re-derivation) and print them")
	fs.IntVar(&c.memRows, "memory-rows", 0, "hold each dataset of at most ROWS rows in memory while serving (engine.Options.MemoryRows; 0: none)")
	fs.BoolVar(&c.windows, "window-digests", false, "add the per-hour window key digests (shape.DeriveWindowKeys) to each dataset that lacks them, and serve a window of more keys than the provenance limit from them (engine.Options.WindowDigests); without it the digests, if built, are not read")
	fs.IntVar(&c.winPhases, "window-phases", 0, "time the executor and the resolver of `N` one-client count_rows_in_window calls apart (with and without the pipeline on PostgreSQL) and print them, before the measured phases")
	fs.IntVar(&c.pgConns, "pg-conns", 0, "PostgreSQL pool `SIZE` while serving (0: postgres.MaxConns)")
	fs.IntVar(&c.pgGate, "pg-in-flight", 0, "at most `N` pipelined calls in PostgreSQL at once, the others waiting in arrival order (0: postgres.DefaultMaxInFlight, two per core; -1: no bound)")
	fs.BoolVar(&c.pgShare, "pg-share-snapshot", true, "on PostgreSQL, a query_metric call's resolver re-derives beside its executor on the executor's snapshot exported to a second transaction, as serve runs it (postgres.OpenSnapshotSharer); false: after it, on the same transaction")
	fs.BoolVar(&c.pgPools, "pg-snapshot-pools", true, "run pipelined batches on pools of their own without BEGIN and COMMIT (postgres.OpenSnapshotPools); false: each in its own transaction")
	fs.StringVar(&c.serve, "serve", "", "internal: serve one `BACKEND:EVENTS` and print its report")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./bench/scale [-events 100000,1000000] [-backends duckdb,postgres] [-data DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.clients < 1 || c.clients > 1024 {
		return errors.New("-clients must be 1 to 1024")
	}
	for _, s := range strings.Split(*events, ",") {
		if strings.TrimSpace(s) == "demo" {
			c.events = append(c.events, demoSize)
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > demo.MaxEvents {
			return fmt.Errorf("-events: each size must be 1 to %d", demo.MaxEvents)
		}
		c.events = append(c.events, n)
	}
	for _, b := range strings.Split(*backends, ",") {
		if b != "duckdb" && b != "postgres" {
			return errors.New("-backends: want duckdb, postgres or both")
		}
		c.backends = append(c.backends, b)
	}
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		return err
	}
	if c.serve != "" {
		b, n, _ := strings.Cut(c.serve, ":")
		events, err := strconv.Atoi(n)
		if n == "demo" {
			events, err = demoSize, nil
		}
		if err != nil {
			return errors.New("-serve: want BACKEND:EVENTS")
		}
		rep, err := serve(ctx, cat, c, b, events)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(rep)
	}
	if err := os.MkdirAll(c.data, 0o755); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	for _, n := range c.events {
		for _, b := range c.backends {
			if err := build(ctx, cat, c, b, n, stderr); err != nil {
				return err
			}
			if c.windows {
				if err := buildWindowKeys(ctx, cat, c, b, n, stderr); err != nil {
					return err
				}
			}
			if c.only {
				continue
			}
			// A fresh process per database: its peak memory and its first
			// answer are its own.
			cmd := exec.CommandContext(ctx, self, append(slices.Clone(args), "-serve", b+":"+sizeName(n))...)
			cmd.Stdout, cmd.Stderr = stdout, stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("serve %s with %d events: %w", b, n, err)
			}
		}
	}
	return nil
}

// demoSize stands for the warehouse demo (demo.DefaultOptions) among the
// sizes.
const demoSize = -1

func sizeName(n int) string {
	if n == demoSize {
		return "demo"
	}
	return strconv.Itoa(n)
}

// options are the generator's options for n events: 20 zones, 2,000
// devices, 30 days, whatever the size; the demo's own for demoSize.
func options(c config, n int) demo.Options {
	if n == demoSize {
		return demo.DefaultOptions()
	}
	return demo.Options{Seed: c.seed, Zones: 20, Devices: 2000, Events: n,
		Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), Days: 30}
}

func duckPath(c config, n int) string {
	return filepath.Join(c.data, "warehouse-"+sizeName(n)+".duckdb")
}

func buildPath(c config, b string, n int) string {
	return filepath.Join(c.data, "warehouse-"+sizeName(n)+"."+b+".build.json")
}

// pgDSN is c.dsn with the schema of size n first on the search path.
func pgDSN(c config, n int) string {
	sep := "?"
	if strings.Contains(c.dsn, "?") {
		sep = "&"
	}
	return c.dsn + sep + "search_path=" + pgSchema(c, n)
}

func pgSchema(c config, n int) string { return c.schema + sizeName(n) }

// build imports the generated dataset of n events into backend b, unless
// it is there already.
func build(ctx context.Context, cat *catalog.Catalog, c config, b string, n int, stderr io.Writer) error {
	if _, err := os.Stat(buildPath(c, b, n)); err == nil {
		return nil
	}
	l, err := ingest.NewLayout(cat, "status_events")
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "scale: building %s with %d events\n", b, n)
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 1<<20)
		err := demo.WriteCSV(ctx, bw, options(c, n))
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	opts := shape.ImportOptions(&shape.DeriveOptions{Every: c.every, RollupKeys: c.rollups, RollupValues: c.values, ValueSliceMinRows: c.valueSliceMinRows, Catalog: cat})
	r := ingest.NewCSV("generated.csv", l, pr)
	start := time.Now()
	var res ingest.Result
	switch b {
	case "duckdb":
		res, err = duckdb.CreateFile(ctx, duckPath(c, n), l, opts, r)
	case "postgres":
		var db *sql.DB
		if db, err = postgres.Open(ctx, c.dsn); err != nil {
			return err
		}
		defer db.Close()
		for _, q := range []string{"DROP SCHEMA IF EXISTS " + pgSchema(c, n) + " CASCADE", "CREATE SCHEMA " + pgSchema(c, n)} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
		var sdb *sql.DB
		if sdb, err = postgres.Open(ctx, pgDSN(c, n)); err != nil {
			return err
		}
		defer sdb.Close()
		res, err = ingest.Import(ctx, postgres.NewSink(sdb, opts), l, r)
		if err == nil {
			// What autovacuum does soon after an import: statistics, hint
			// bits and the visibility map, so that the first queries do not
			// pay for them.
			_, err = sdb.ExecContext(ctx, "VACUUM ANALYZE")
		}
	}
	if err != nil {
		return fmt.Errorf("build %s with %d events: %w", b, n, err)
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(stderr, "scale: imported %d rows into %s in %.1f s\n", res.Rows, b, secs)
	out, _ := json.Marshal(bench.ScaleBuild{Events: int(res.Rows), Seconds: secs, RowsPerSec: float64(res.Rows) / secs})
	return os.WriteFile(buildPath(c, b, n), out, 0o644)
}

// buildWindowKeys adds the per-hour window key digests to the dataset of
// n events in backend b, in one transaction, unless its -data record says
// they are there: the same rows as the build, so that a run with
// -window-digests and one without serve the same data.
func buildWindowKeys(ctx context.Context, cat *catalog.Catalog, c config, b string, n int, stderr io.Writer) error {
	mark := filepath.Join(c.data, "warehouse-"+sizeName(n)+"."+b+".window-keys.json")
	if _, err := os.Stat(mark); err == nil {
		return nil
	}
	ds := cat.Dataset("status_events")
	var db *sql.DB
	var err error
	switch b {
	case "duckdb":
		db, err = duckdb.OpenFile(ctx, duckPath(c, n))
	case "postgres":
		db, err = postgres.Open(ctx, pgDSN(c, n))
	}
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintf(stderr, "scale: adding window key digests to %s with %d events\n", b, n)
	start := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := shape.DeriveWindowKeys(ctx, tx, ds, ds.Table.Value, shape.WindowGroups(cat, ds)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit window key digests: %w", err)
	}
	if b == "postgres" {
		if _, err := db.ExecContext(ctx, "VACUUM ANALYZE "+ds.Table.Value+shape.WindowKeysSuffix); err != nil {
			return fmt.Errorf("vacuum window key digests: %w", err)
		}
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(stderr, "scale: window key digests in %.1f s\n", secs)
	out, _ := json.Marshal(map[string]float64{"seconds": secs})
	return os.WriteFile(mark, out, 0o644)
}

// shapes are the phases, in order, with the tools each draws from.
var shapes = []struct {
	shape string
	tools []string
}{
	{catalog.ShapeLatestValue, []string{"get_device_status", "get_battery_level", "get_temperature"}},
	{catalog.ShapeCountEntitiesWhere, []string{"count_devices_with_condition"}},
	{catalog.ShapeListEntitiesInState, []string{"list_devices_in_status"}},
	{catalog.ShapeCountRowsInWindow, []string{"count_status_events_in_window"}},
}

// proposals draws varied calls of a tool: devices, zones, conditions,
// statuses, instants and windows over the dataset's period.
type proposals struct {
	zones   []demo.Zone
	devices []demo.Device
	start   time.Time
	period  time.Duration
}

func (g *proposals) draw(r *rand.Rand, toolName string) tool.Proposal {
	at := func() string {
		return g.start.Add(time.Duration(r.Int64N(int64(g.period)))).Truncate(time.Second).Format(time.RFC3339)
	}
	statuses := []string{"RUNNING", "IDLE", "BLOCKED", "FAULT", "MAINTENANCE"}
	conditions := []string{"FAULTED", "BLOCKED", "LOW_BATTERY", "OVERHEATING", "NEEDS_ATTENTION", "BATTERY_FAULT"}
	p := map[string]any{}
	switch toolName {
	case "get_device_status", "get_battery_level", "get_temperature":
		p["device_id"], p["as_of"] = g.devices[r.IntN(len(g.devices))].ID, at()
	case "count_devices_with_condition":
		p["condition"], p["as_of"] = conditions[r.IntN(len(conditions))], at()
	case "list_devices_in_status":
		p["zone_id"], p["status"], p["as_of"] = g.zones[r.IntN(len(g.zones))].ID, statuses[r.IntN(len(statuses))], at()
	case "count_status_events_in_window":
		s := g.start.Add(time.Duration(r.Int64N(int64(g.period - 24*time.Hour)))).Truncate(time.Second)
		e := s.Add(time.Duration(1+r.IntN(24)) * time.Hour)
		p["zone_id"], p["status"], p["start"], p["end"] = g.zones[r.IntN(len(g.zones))].ID, statuses[r.IntN(len(statuses))],
			s.Format(time.RFC3339), e.Format(time.RFC3339)
	}
	return tool.Proposal{Tool: toolName, Params: p}
}

// serve opens one database in this process and measures it.
func serve(ctx context.Context, cat *catalog.Catalog, c config, b string, n int) (bench.ScaleReport, error) {
	c.edges = b == "postgres"
	o := options(c, n)
	rep := bench.ScaleReport{Backend: b, Events: o.Events, Clients: c.clients, WindowDigests: c.windows}
	if n == demoSize {
		rep.Dataset = "demo"
	}
	if data, err := os.ReadFile(buildPath(c, b, n)); err == nil {
		var bd bench.ScaleBuild
		if json.Unmarshal(data, &bd) == nil {
			rep.Import = &bd
		}
	}
	zones, devices, err := demo.Layout(o)
	if err != nil {
		return bench.ScaleReport{}, err
	}
	gen := &proposals{zones: zones, devices: devices, start: o.Start, period: time.Duration(o.Days) * 24 * time.Hour}

	var peak atomic.Int64
	stopRSS := make(chan struct{})
	var rssDone sync.WaitGroup
	rssDone.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if v := procStatus("VmRSS:"); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stopRSS:
				return
			case <-t.C:
			}
		}
	})

	t0 := time.Now()
	var src shape.Source
	var meter cpuMeter
	switch b {
	case "duckdb":
		src.DB, err = duckdb.OpenFileReadOnly(ctx, duckPath(c, n))
	case "postgres":
		meter.appName = "provenant-scale-" + strconv.Itoa(os.Getpid())
		conns := postgres.MaxConns
		if c.pgConns > 0 {
			conns = c.pgConns
		}
		src.DB, err = postgres.OpenPool(ctx, pgDSN(c, n)+"&application_name="+meter.appName, conns)
		meter.db = src.DB
		src.Snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
		po := &postgres.PipelinerOptions{MaxInFlight: c.pgGate}
		if err == nil && c.pgPools {
			if po.Pools, err = postgres.OpenSnapshotPools(ctx, pgDSN(c, n)+"&application_name="+meter.appName, c.pgGate); err == nil && po.Pools != nil {
				defer po.Pools.Close()
			}
		}
		src.Pipeline = postgres.NewPipeliner(src.DB, po).WithoutSQLDigest()
		if err == nil && c.pgShare {
			// As serve opens it: as many connections as metric reads.
			var sharer *postgres.SnapshotSharer
			if sharer, err = postgres.OpenSnapshotSharer(ctx, pgDSN(c, n)+"&application_name="+meter.appName, runtime.GOMAXPROCS(0)); err == nil && sharer != nil {
				defer sharer.Close()
				src.Sharer = sharer
			}
		}
	default:
		return bench.ScaleReport{}, errors.New("-serve: unknown backend")
	}
	if err != nil {
		return bench.ScaleReport{}, err
	}
	defer src.DB.Close()
	if b == "duckdb" && c.onceVer {
		if src.Versions, err = shape.ReadVersions(ctx, cat, src); err != nil {
			return bench.ScaleReport{}, err
		}
	}
	if c.pgConns == 0 {
		src.DB.SetMaxIdleConns(c.clients + 2)
	}
	if c.threads > 0 && b == "duckdb" {
		// As serve --duckdb-threads sets them.
		if err := duckdb.SetThreads(ctx, src.DB, c.threads); err != nil {
			return bench.ScaleReport{}, err
		}
	}
	resolveRows, resolveFrom := c.resolveRows, c.resolveFrom
	if b == "postgres" {
		// As serve sets them.
		if resolveRows == 0 {
			resolveRows = postgres.MetricResolveRows
		}
		if resolveFrom == 0 {
			resolveFrom = postgres.MetricResolveFrom
		}
	} else if resolveFrom == 0 {
		resolveFrom = duckdb.MetricResolveFrom // as serve sets it
	}
	e, err := engine.OpenCatalog(ctx, cat, src, &engine.Options{MetricGoRows: c.goRows, MetricResolveRows: resolveRows, MetricResolveFrom: resolveFrom, MetricRollups: c.rollups, MetricValueRollups: c.values, WindowDigests: c.windows, MemoryRows: c.memRows, SQLTurns: c.sqlTurns && b == "duckdb"})
	if err != nil {
		return bench.ScaleReport{}, err
	}
	defer e.Close()
	rng := rand.New(rand.NewPCG(c.seed, 0))
	first := e.Pipeline.Call(ctx, gen.draw(rng, "get_device_status"))
	rep.FirstAnswerMS = ms(time.Since(t0))
	if o := first.Outcome(); o != "answered" && o != "absence" {
		return bench.ScaleReport{}, fmt.Errorf("first answer: outcome %s", o)
	}

	if c.memProfile != "" {
		f, err := os.Create(c.memProfile)
		if err != nil {
			return bench.ScaleReport{}, fmt.Errorf("create profile: %w", err)
		}
		defer func() {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}()
	}
	if c.profile != "" {
		f, err := os.Create(c.profile)
		if err != nil {
			return bench.ScaleReport{}, fmt.Errorf("create profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return bench.ScaleReport{}, fmt.Errorf("start profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if c.winPhases > 0 {
		if err := measureWindowPhases(ctx, cat, b, o.Events, src, gen, c, os.Stderr); err != nil {
			return bench.ScaleReport{}, err
		}
	}
	if c.metrics && c.phases > 0 {
		if err := measureMetricPhases(ctx, cat, src.DB, gen, c, os.Stderr); err != nil {
			return bench.ScaleReport{}, err
		}
	}
	if c.metrics {
		if err := measureMetrics(ctx, cat, e, src.DB, gen, c, &rep); err != nil {
			return bench.ScaleReport{}, err
		}
	}
	for i, sh := range shapes {
		if c.metrics {
			break
		}
		if c.shapes != "" && !slices.Contains(strings.Split(c.shapes, ","), sh.shape) {
			continue
		}
		// A short warm-up, not measured, then the measured phase.
		drive(ctx, e, gen, c.clients, sh.tools, c.seed+uint64(i)*1000+500, time.Second)
		cpu0 := meter.read(ctx)
		durs, outcomes, elapsed := drive(ctx, e, gen, c.clients, sh.tools, c.seed+uint64(i)*1000, c.duration)
		self, server := meter.read(ctx).since(cpu0)
		if err := ctx.Err(); err != nil {
			return bench.ScaleReport{}, err
		}
		one, _, _ := drive(ctx, e, gen, 1, sh.tools, c.seed+uint64(i)*1000+700, c.duration/4)
		slices.Sort(one)
		slices.Sort(durs)
		rep.Shapes = append(rep.Shapes, bench.ScalePhase{
			OneP50MS: ms(pct(one, 0.50)),
			Shape:    sh.shape, Calls: len(durs), PerSec: float64(len(durs)) / elapsed.Seconds(),
			P50MS: ms(pct(durs, 0.50)), P95MS: ms(pct(durs, 0.95)), P99MS: ms(pct(durs, 0.99)), MaxMS: ms(durs[len(durs)-1]),
			Outcomes:     outcomes,
			CPUMSPerCall: ms(self) / float64(len(durs)), ServerCPUMSPerCall: ms(server) / float64(len(durs)),
		})
	}
	close(stopRSS)
	rssDone.Wait()
	rep.PeakRSSMB = float64(peak.Load()) / 1024
	rep.HWMMB = float64(procStatus("VmHWM:")) / 1024
	return rep, nil
}

// drive runs clients concurrent callers of tools for d and returns every
// call's latency and the outcomes.
func drive(ctx context.Context, e *engine.Engine, gen *proposals, clients int, tools []string, seed uint64, d time.Duration) ([]time.Duration, map[string]int, time.Duration) {
	per := make([][]time.Duration, clients)
	outs := make([]map[string]int, clients)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := range clients {
		outs[w] = map[string]int{}
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for ctx.Err() == nil && time.Now().Before(deadline) {
				p := gen.draw(r, tools[r.IntN(len(tools))])
				t := time.Now()
				a := e.Pipeline.Call(ctx, p)
				per[w] = append(per[w], time.Since(t))
				outs[w][string(a.Outcome())]++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	outcomes := map[string]int{}
	for w := range clients {
		all = append(all, per[w]...)
		for k, v := range outs[w] {
			outcomes[k] += v
		}
	}
	return all, outcomes, elapsed
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// procStatus reads a kB field of /proc/self/status (0 where there is
// none).
func procStatus(field string) int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}
