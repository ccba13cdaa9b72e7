// Command toolbox runs provenant and MCP Toolbox for Databases side by side
// and compares them tool by tool over MCP (streamable HTTP): the same six
// tools, the same calls, from the Go MCP SDK's client at 1 and 16
// concurrent sessions. It has two workloads (-catalog):
//
//   - retail (the default): provenant's retail engine, its store in
//     memory, against the toolbox over the same store loaded into
//     PostgreSQL;
//   - warehouse: `provenant serve --catalog warehouse --postgres DSN` and
//     the toolbox over the same PostgreSQL table: the warehouse demo
//     (package warehouse/demo) at the size the flags give (1,000,000
//     events, 2,000 devices, 20 zones, 30 days by default), imported by
//     `provenant import` (derived structures included) into a dedicated
//     schema that the DSN's search_path names.
//
// It generates the data, loads it into a dedicated PostgreSQL schema
// (dropped and recreated), writes the toolbox's tools.yaml with each tool
// as parameterized SQL, starts `provenant serve` (re-derivation and
// grounding on the path, as always) and the toolbox on loopback ports,
// checks that both return equal values on the same calls, then measures
// each (server, tool, sessions) cell: calls per second, p50 and p95
// latency, and server CPU per call from /proc/PID/stat (with the CPU of
// the PostgreSQL backends doing the server's queries, found by
// application_name and sampled through the cell).
//
// Install the toolbox first (bench/toolbox/install.sh), then, from the
// repository root:
//
//	go run ./bench/toolbox                                # bench/results/toolbox.{json,md}
//	go run ./bench/toolbox -catalog warehouse -rounds 3   # bench/results/toolbox-warehouse.{json,md}
//
// The results record the command line, the commit, the machine and its
// load; -note adds free text. -render FILE.json writes the .md of a
// results file again; -tools measures some tools only; -reuse (warehouse)
// measures the data an earlier run imported.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
	whdemo "github.com/provenant/provenant/warehouse/demo"
)

type config struct {
	catalog                   string
	toolbox, provenant        string
	pgHost, pgDB, pgUser      string
	pgPassword                string
	pgPort                    int
	schema                    string
	seed                      uint64
	events, stores, products  int
	devices, zones            int
	days                      int
	check                     int
	sessions                  []int
	maxCalls                  int
	maxTime                   time.Duration
	warmup                    int
	rounds                    int
	out                       string
	provenantPort, toolboxPrt int
	note                      string
	reuse                     bool
}

// warehouseDefaults are the flags whose default differs under -catalog
// warehouse, with that default.
var warehouseDefaults = map[string]string{
	"seed":   "20260105",
	"events": "1000000",
	"days":   "30",
	"schema": "provenant_bench_wh",
	"out":    "bench/results/toolbox-warehouse",
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "toolbox bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("toolbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.catalog, "catalog", "retail", "`WORKLOAD`: retail (provenant's retail engine, the store file imported and held in memory, against the toolbox on PostgreSQL) or warehouse (serve --catalog warehouse and the toolbox on the same PostgreSQL data); under warehouse -seed, -events, -days, -schema and -out default to 20260105, 1000000, 30, provenant_bench_wh and bench/results/toolbox-warehouse")
	fs.StringVar(&c.toolbox, "toolbox", "bench/toolbox/node_modules/@toolbox-sdk/server-linux-x64/bin/toolbox", "toolbox `BINARY` (install.sh puts it here)")
	fs.StringVar(&c.provenant, "provenant", "", "provenant `BINARY` (default: go build ./cmd/provenant into a temporary directory)")
	fs.StringVar(&c.pgHost, "pg-host", "127.0.0.1", "PostgreSQL host")
	fs.IntVar(&c.pgPort, "pg-port", 5432, "PostgreSQL port")
	fs.StringVar(&c.pgDB, "pg-database", "test", "PostgreSQL database")
	fs.StringVar(&c.pgUser, "pg-user", "postgres", "PostgreSQL user (trust or .pgpass authentication)")
	fs.StringVar(&c.pgPassword, "pg-password", "unused-under-trust", "PostgreSQL password for the toolbox, which requires one (trust authentication ignores it)")
	fs.StringVar(&c.schema, "schema", "provenant_bench", "PostgreSQL schema to drop, recreate and load")
	fs.Uint64Var(&c.seed, "seed", 20260101, "generator and call seed")
	fs.IntVar(&c.events, "events", 100_000, "events in the generated data")
	fs.IntVar(&c.stores, "stores", 40, "retail: stores in the generated store")
	fs.IntVar(&c.products, "products", 120, "retail: products in the generated store")
	fs.IntVar(&c.devices, "devices", 2000, "warehouse: devices in the generated data")
	fs.IntVar(&c.zones, "zones", 20, "warehouse: zones in the generated data")
	fs.IntVar(&c.days, "days", 28, "days the events span")
	fs.IntVar(&c.check, "check", 60, "calls per tool whose values must be equal on both servers")
	only := fs.String("tools", "", "measure only these `TOOLS` (comma-separated; default all six)")
	sessions := fs.String("sessions", "1,16", "concurrent MCP sessions per cell, comma-separated")
	fs.IntVar(&c.maxCalls, "max-calls", 3000, "calls per cell at most")
	fs.DurationVar(&c.maxTime, "max-time", 6*time.Second, "time per cell at most")
	fs.IntVar(&c.rounds, "rounds", 3, "rounds per cell, the servers alternating; a cell reports the median round")
	fs.IntVar(&c.warmup, "warmup", 50, "unmeasured calls per cell before measuring")
	fs.StringVar(&c.out, "out", "bench/results/toolbox", "results `PREFIX` (.json and .md are written)")
	fs.IntVar(&c.provenantPort, "provenant-port", 18471, "loopback port for provenant")
	fs.IntVar(&c.toolboxPrt, "toolbox-port", 18472, "loopback port for the toolbox")
	fs.BoolVar(&c.reuse, "reuse", false, "warehouse: measure the data a previous run imported into -schema (same -seed, -events, -devices, -zones, -days) instead of generating and importing it again; only while import and its derived structures are unchanged since")
	render := fs.String("render", "", "write the .md of a results `FILE.json` again, measuring nothing")
	fs.StringVar(&c.note, "note", "", "free text recorded in the results (e.g. the machine's state)")
	stateSchema := fs.String("state-schema", "", "warehouse: pass serve this --state-schema (`NAME`), so that runs beside others on one database keep their audit state apart; default: serve's own, provenant")
	stateDB := fs.String("state-db", "", "warehouse: pass serve this --state-db (`VALUE`; for example none: no audit state in the database); default: serve's own default, the --postgres database")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *render != "" {
		r, err := readResults(*render)
		if err != nil {
			return err
		}
		md := strings.TrimSuffix(*render, ".json") + ".md"
		if err := os.WriteFile(md, []byte(r.markdown()), 0o644); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
		return nil
	}
	switch c.catalog {
	case "retail":
	case "warehouse":
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for name, v := range warehouseDefaults {
			if !set[name] {
				if err := fs.Set(name, v); err != nil {
					return fmt.Errorf("default -%s: %w", name, err)
				}
			}
		}
	default:
		return fmt.Errorf("parse -catalog: want retail or warehouse")
	}
	for s := range strings.SplitSeq(*sessions, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("parse -sessions: want positive integers")
		}
		c.sessions = append(c.sessions, n)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))

	if _, err := os.Stat(c.toolbox); err != nil {
		return fmt.Errorf("find toolbox: %w (run bench/toolbox/install.sh)", err)
	}
	tmp, err := os.MkdirTemp("", "provenant-toolbox-bench-")
	if err != nil {
		return fmt.Errorf("make temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	if c.provenant == "" {
		c.provenant = filepath.Join(tmp, "provenant")
		log.Info("building provenant")
		if err := goBuild(ctx, c.provenant); err != nil {
			return err
		}
	}

	const appName = "provenant-bench-toolbox"
	dsn := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", c.pgUser, c.pgHost, c.pgPort, c.pgDB)
	res := results{
		Command: commandLine(args),
		Commit:  gitCommit(ctx),
		Machine: machine(),
		Note:    c.note,
		Servers: map[string]string{"toolbox": toolboxVersion(ctx, c.toolbox)},
	}
	var (
		w        *workload
		tools    []sqlTool
		provArgs []string
		provApp  string // warehouse: application_name of provenant's PostgreSQL backends
	)
	switch c.catalog {
	case "retail":
		o := demo.DefaultOptions()
		o.Seed, o.Events, o.Stores, o.Products, o.Days = c.seed, c.events, c.stores, c.products, c.days
		o.Version = fmt.Sprintf("retail-bench-s%d-e%d", c.seed, c.events)
		d, err := demo.Generate(o)
		if err != nil {
			return err
		}
		storePath := filepath.Join(tmp, "store.json")
		if err := writeStore(storePath, d); err != nil {
			return err
		}
		log.Info("loading postgres", "schema", c.schema, "events", len(d.Events))
		if err := loadPostgres(ctx, dsn, c.schema, d); err != nil {
			return err
		}
		cat, err := catalogs.Load("retail")
		if err != nil {
			return err
		}
		w, tools = retailWorkload(d), retailSQLTools(cat, c.schema)
		provArgs = []string{"serve", "--store", storePath}
		res.Dataset = &datasetInfo{Version: d.Version, Events: len(d.Events), Stores: len(d.Stores), Products: len(d.Products), Days: c.days, Seed: c.seed}
		res.Servers["provenant"] = "provenant serve (this commit; rules provider, re-derivation and grounding on every call)"
	case "warehouse":
		res.Catalog = "warehouse"
		wh, info, err := setupWarehouse(ctx, log, &c, dsn, tmp)
		if err != nil {
			return err
		}
		provApp = "provenant-bench-provenant"
		provDSN, err := warehouseDSN(dsn, c.schema, provApp)
		if err != nil {
			return err
		}
		cat, err := warehouseCatalog()
		if err != nil {
			return err
		}
		w, tools = warehouseWorkload(wh), warehouseSQLTools(cat, c.schema)
		provArgs = []string{"serve", "--catalog", "warehouse", "--postgres", provDSN}
		res.Warehouse = info
		res.Servers["provenant"] = "provenant serve --catalog warehouse --postgres (this commit; package shape: each call runs the executor's SQL and the resolver's on one REPEATABLE READ snapshot, then grounding)"
		if *stateSchema != "" {
			provArgs = append(provArgs, "--state-schema", *stateSchema)
		}
		if *stateDB != "" {
			provArgs = append(provArgs, "--state-db", *stateDB)
			res.Servers["provenant"] = "provenant serve --catalog warehouse --postgres --state-db " + *stateDB + " (this commit; package shape: each call runs the executor's SQL and the resolver's on one REPEATABLE READ snapshot, then grounding)"
		} else {
			res.Servers["provenant"] += "; the audit state (event log, register, grants) in the --postgres database, serve's default"
		}
	}
	if *only != "" {
		var keep []string
		for name := range strings.SplitSeq(*only, ",") {
			if !slices.Contains(w.tools, strings.TrimSpace(name)) {
				return fmt.Errorf("parse -tools: want tools of the %s workload (%s)", c.catalog, strings.Join(w.tools, ", "))
			}
			keep = append(keep, strings.TrimSpace(name))
		}
		w.tools = keep
	}
	for _, t := range tools {
		res.ToolboxSQL = append(res.ToolboxSQL, toolboxTool{Tool: t.name, Params: t.params, SQL: t.statement})
	}
	yamlPath := filepath.Join(tmp, "tools.yaml")
	if err := os.WriteFile(yamlPath, []byte(toolsYAML(c.pgHost, c.pgPort, c.pgDB, c.pgUser, c.pgPassword, appName, tools)), 0o600); err != nil {
		return fmt.Errorf("write tools.yaml: %w", err)
	}

	prov, err := startServer(ctx, "provenant", filepath.Join(tmp, "provenant.log"), c.provenant,
		append(provArgs, "--addr", fmt.Sprintf("127.0.0.1:%d", c.provenantPort))...)
	if err != nil {
		return err
	}
	defer prov.stop()
	tbx, err := startServer(ctx, "toolbox", filepath.Join(tmp, "toolbox.log"), c.toolbox,
		"--config", yamlPath, "--address", "127.0.0.1", "--port", strconv.Itoa(c.toolboxPrt),
		"--disable-reload", "--disable-version-check")
	if err != nil {
		return err
	}
	defer tbx.stop()
	provURL := fmt.Sprintf("http://127.0.0.1:%d", c.provenantPort)
	tbxURL := fmt.Sprintf("http://127.0.0.1:%d", c.toolboxPrt)
	if err := waitReady(ctx, provURL+"/healthz", prov); err != nil {
		return err
	}
	if err := waitReady(ctx, tbxURL+"/", tbx); err != nil {
		return err
	}
	targets := []*target{
		{name: "provenant", url: provURL + "/mcp", proc: prov, pgApp: provApp, dsn: dsn},
		{name: "toolbox", url: tbxURL + "/mcp", proc: tbx, pgApp: appName, dsn: dsn, toolbox: true},
	}

	log.Info("checking values", "calls_per_tool", c.check)
	checked, err := checkEqual(ctx, w, targets, c.check, c.seed)
	if err != nil {
		return err
	}
	res.Checked = checked
	res.MaxCalls, res.MaxTimeMS, res.Rounds = c.maxCalls, c.maxTime.Milliseconds(), c.rounds
	res.Started = time.Now().UTC().Format(time.RFC3339)
	for _, name := range w.tools {
		calls := w.args(name, 4096, c.seed+1)
		for _, n := range c.sessions {
			rounds := make([][]cell, len(targets))
			for r := range c.rounds {
				for i, t := range targets {
					log.Info("measuring", "server", t.name, "tool", name, "sessions", n, "round", r+1)
					cl, err := measure(ctx, w, t, name, calls, n, c.maxCalls, c.maxTime, c.warmup)
					if err != nil {
						return fmt.Errorf("measure %s %s x%d: %w", t.name, name, n, err)
					}
					rounds[i] = append(rounds[i], cl)
				}
			}
			for _, rs := range rounds {
				res.Cells = append(res.Cells, median(rs))
			}
		}
	}
	res.Finished = time.Now().UTC().Format(time.RFC3339)
	res.MachineAfter = machine()
	return res.write(c.out)
}

// setupWarehouse generates the warehouse demo the flags size, imports it
// into c.schema through `provenant import`, and describes what it made.
func setupWarehouse(ctx context.Context, log *slog.Logger, c *config, dsn, tmp string) (*whData, *warehouseInfo, error) {
	o := whdemo.DefaultOptions()
	o.Seed, o.Events, o.Devices, o.Zones, o.Days = c.seed, c.events, c.devices, c.zones, c.days
	if err := o.Validate(); err != nil {
		return nil, nil, fmt.Errorf("warehouse options: %w", err)
	}
	zones, devices, err := whdemo.Layout(o)
	if err != nil {
		return nil, nil, err
	}
	importDSN, err := warehouseDSN(dsn, c.schema, "provenant-bench-import")
	if err != nil {
		return nil, nil, err
	}
	log.Info("generating and importing the warehouse demo", "reuse", c.reuse, "schema", c.schema, "events", o.Events, "devices", o.Devices, "zones", o.Zones, "days", o.Days)
	var (
		took     time.Duration
		csvBytes int64
	)
	if !c.reuse {
		if took, csvBytes, err = importWarehouse(ctx, c.provenant, "catalogs/warehouse.yaml", tmp, importDSN, c.schema, o); err != nil {
			return nil, nil, err
		}
	}
	info := &warehouseInfo{
		Version: o.DatasetVersion(), Seed: o.Seed, Events: o.Events, Devices: o.Devices, Zones: o.Zones, Days: o.Days,
		Start: o.Start.UTC().Format(time.RFC3339), Schema: c.schema, Table: warehouseTable,
		CSVMB: round(float64(csvBytes)/(1<<20), 1), ImportSeconds: round(took.Seconds(), 1),
		Reused: c.reuse,
	}
	if !c.reuse {
		info.ImportRowsPerSec = round(float64(o.Events)/took.Seconds(), 0)
	}
	if info.Rows, info.TableMB, info.IndexMB, err = tableStats(ctx, dsn, c.schema); err != nil {
		return nil, nil, err
	}
	if info.Indexes, err = tableIndexes(ctx, dsn, c.schema); err != nil {
		return nil, nil, err
	}
	if info.Postgres, err = postgresSettings(ctx, dsn); err != nil {
		return nil, nil, err
	}
	if c.reuse && info.Rows != int64(o.Events) {
		return nil, nil, fmt.Errorf("reuse %s: the table holds %d rows, not -events %d (run without -reuse)", c.schema, info.Rows, o.Events)
	}
	log.Info("imported", "rows", info.Rows, "seconds", info.ImportSeconds, "table_mb", info.TableMB, "index_mb", info.IndexMB)
	return &whData{opts: o, zones: zones, devices: devices}, info, nil
}

func writeStore(path string, d *retail.Dataset) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create store file: %w", err)
	}
	if err := retail.Write(f, d); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// errNotReady means a server did not come up in time.
var errNotReady = errors.New("server not ready")

// commandLine is the command that reproduces this run, each argument
// quoted for a POSIX shell when it needs to be.
func commandLine(args []string) string {
	parts := []string{"go", "run", "./bench/toolbox"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
