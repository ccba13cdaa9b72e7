// Command toolbox runs provenant and MCP Toolbox for Databases side by side
// on the same retail store and compares them tool by tool over MCP
// (streamable HTTP): the same six tools, the same calls, from the Go MCP
// SDK's client at 1 and 16 concurrent sessions.
//
// It generates the store with provenant's generator, loads it into a
// dedicated PostgreSQL schema (dropped and recreated), writes the
// toolbox's tools.yaml with each tool as parameterized SQL, starts
// `provenant serve` (re-derivation and grounding on the path, as always)
// and the toolbox on loopback ports, checks that both return equal values
// on the same calls, then measures each (server, tool, sessions) cell:
// calls per second, p50 and p95 latency, and server CPU per call from
// /proc/PID/stat (the toolbox's CPU also counted with the PostgreSQL
// backends serving it, which do its queries).
//
// Install the toolbox first (bench/toolbox/install.sh), then, from the
// repository root:
//
//	go run ./bench/toolbox
//
// It writes bench/results/toolbox.json and bench/results/toolbox.md.
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
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
)

type config struct {
	toolbox, provenant        string
	pgHost, pgDB, pgUser      string
	pgPassword                string
	pgPort                    int
	schema                    string
	seed                      uint64
	events, stores, products  int
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
	fs.StringVar(&c.toolbox, "toolbox", "bench/toolbox/node_modules/@toolbox-sdk/server-linux-x64/bin/toolbox", "toolbox `BINARY` (install.sh puts it here)")
	fs.StringVar(&c.provenant, "provenant", "", "provenant `BINARY` (default: go build ./cmd/provenant into a temporary directory)")
	fs.StringVar(&c.pgHost, "pg-host", "127.0.0.1", "PostgreSQL host")
	fs.IntVar(&c.pgPort, "pg-port", 5432, "PostgreSQL port")
	fs.StringVar(&c.pgDB, "pg-database", "test", "PostgreSQL database")
	fs.StringVar(&c.pgUser, "pg-user", "postgres", "PostgreSQL user (trust or .pgpass authentication)")
	fs.StringVar(&c.pgPassword, "pg-password", "unused-under-trust", "PostgreSQL password for the toolbox, which requires one (trust authentication ignores it)")
	fs.StringVar(&c.schema, "schema", "provenant_bench", "PostgreSQL schema to drop, recreate and load")
	fs.Uint64Var(&c.seed, "seed", 20260101, "generator and call seed")
	fs.IntVar(&c.events, "events", 100_000, "events in the generated store")
	fs.IntVar(&c.stores, "stores", 40, "stores in the generated store")
	fs.IntVar(&c.products, "products", 120, "products in the generated store")
	fs.IntVar(&c.days, "days", 28, "days the events span")
	fs.IntVar(&c.check, "check", 60, "calls per tool whose values must be equal on both servers")
	sessions := fs.String("sessions", "1,16", "concurrent MCP sessions per cell, comma-separated")
	fs.IntVar(&c.maxCalls, "max-calls", 3000, "calls per cell at most")
	fs.DurationVar(&c.maxTime, "max-time", 6*time.Second, "time per cell at most")
	fs.IntVar(&c.rounds, "rounds", 3, "rounds per cell, the servers alternating; a cell reports the median round")
	fs.IntVar(&c.warmup, "warmup", 50, "unmeasured calls per cell before measuring")
	fs.StringVar(&c.out, "out", "bench/results/toolbox", "results `PREFIX` (.json and .md are written)")
	fs.IntVar(&c.provenantPort, "provenant-port", 18471, "loopback port for provenant")
	fs.IntVar(&c.toolboxPrt, "toolbox-port", 18472, "loopback port for the toolbox")
	fs.StringVar(&c.note, "note", "", "free text recorded in the results (e.g. the machine's state)")
	if err := fs.Parse(args); err != nil {
		return err
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
	dsn := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", c.pgUser, c.pgHost, c.pgPort, c.pgDB)
	if err := loadPostgres(ctx, dsn, c.schema, d); err != nil {
		return err
	}
	const appName = "provenant-bench-toolbox"
	yamlPath := filepath.Join(tmp, "tools.yaml")
	if err := os.WriteFile(yamlPath, []byte(toolsYAML(c.pgHost, c.pgPort, c.pgDB, c.pgUser, c.pgPassword, c.schema, appName)), 0o600); err != nil {
		return fmt.Errorf("write tools.yaml: %w", err)
	}

	prov, err := startServer(ctx, "provenant", filepath.Join(tmp, "provenant.log"), c.provenant,
		"serve", "--store", storePath, "--addr", fmt.Sprintf("127.0.0.1:%d", c.provenantPort))
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
		{name: "provenant", url: provURL + "/mcp", proc: prov},
		{name: "toolbox", url: tbxURL + "/mcp", proc: tbx, pgApp: appName, dsn: dsn},
	}

	log.Info("checking values", "calls_per_tool", c.check)
	checked, err := checkEqual(ctx, d, targets, c.check, c.seed)
	if err != nil {
		return err
	}
	res := results{
		Command:   commandLine(args),
		Started:   time.Now().UTC().Format(time.RFC3339),
		Machine:   machine(),
		Note:      c.note,
		Dataset:   datasetInfo{Version: d.Version, Events: len(d.Events), Stores: len(d.Stores), Products: len(d.Products), Days: c.days, Seed: c.seed},
		Servers:   map[string]string{"provenant": "provenant serve (this commit; rules provider, re-derivation and grounding on every call)", "toolbox": toolboxVersion(ctx, c.toolbox)},
		Checked:   checked,
		MaxCalls:  c.maxCalls,
		MaxTimeMS: c.maxTime.Milliseconds(),
		Rounds:    c.rounds,
	}
	for _, name := range benchTools {
		calls := callArgs(d, name, 4096, c.seed+1)
		for _, n := range c.sessions {
			rounds := make([][]cell, len(targets))
			for r := range c.rounds {
				for i, t := range targets {
					log.Info("measuring", "server", t.name, "tool", name, "sessions", n, "round", r+1)
					cl, err := measure(ctx, t, name, calls, n, c.maxCalls, c.maxTime, c.warmup)
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
