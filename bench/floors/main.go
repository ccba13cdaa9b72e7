// Command floors measures what the engine's components cost before the
// engine does anything of its own: the CPU and latency of single DuckDB
// statements from concurrent clients on a served file, and DuckDB's own
// speed at loading a CSV or Parquet file, with and without the key index,
// beside `provenant import` of the same file. They are the floors under
// the scale targets of the catalog issue (README, "Floors under the
// targets"): a target that needs a call to cost less than the statements
// it must run cannot be met by tuning the engine.
//
//	go run ./bench/floors -db /work/scale-data/warehouse-1000000.duckdb -csv ev1m.csv
//
// -db is a warehouse dataset built by bench/scale (-build); -csv is the
// warehouse generator's CSV (`provenant gen --catalog warehouse ...`).
// Either may be left out to skip its part. Arguments are drawn from a
// seeded stream; wall-clock time is only measured.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/ingest"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/store/duckdb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "floors:", err)
		os.Exit(1)
	}
}

type config struct {
	db       string
	csv      string
	clients  int
	duration time.Duration
	seed     uint64
	tmp      string
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("floors", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.db, "db", "", "warehouse DuckDB `FILE` built by bench/scale, opened read-only as serve opens it (empty: skip the statements)")
	fs.StringVar(&c.csv, "csv", "", "the warehouse generator's CSV `FILE` to load (empty: skip the loads)")
	fs.IntVar(&c.clients, "clients", 16, "concurrent `N` clients for the statements")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "measured `TIME` per statement")
	fs.Uint64Var(&c.seed, "seed", 20261204, "argument `SEED`")
	fs.StringVar(&c.tmp, "tmp", os.TempDir(), "`DIR` for the loads' database files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 || c.clients < 1 || c.duration <= 0 || (c.db == "" && c.csv == "") {
		return errors.New("usage: floors [-db FILE] [-csv FILE] [-clients N] [-duration TIME]")
	}
	fmt.Fprintf(stdout, "machine: %d cores (GOMAXPROCS %d), %s %s/%s\n\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if c.db != "" {
		if err := statements(ctx, c, stdout); err != nil {
			return err
		}
	}
	if c.csv != "" {
		if err := loads(ctx, c, stdout); err != nil {
			return err
		}
	}
	return nil
}

// checkpointRows is DuckDB's default checkpoint spacing at 2,000 devices.
const checkpointRows = 4096

// statement is one measured statement and how each call draws its
// arguments.
type statement struct {
	name, sql string
	args      func(r *rand.Rand) []any
}

func statements(ctx context.Context, c config, stdout io.Writer) error {
	db, err := duckdb.OpenFileReadOnly(ctx, c.db)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxIdleConns(c.clients + 2)
	var lo, hi time.Time
	if err := db.QueryRowContext(ctx, "SELECT MIN(ts), MAX(ts) FROM status_events").Scan(&lo, &hi); err != nil {
		return fmt.Errorf("read period: %w", err)
	}
	var devices []string
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT device_id FROM status_events ORDER BY 1")
	if err != nil {
		return fmt.Errorf("read devices: %w", err)
	}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			rows.Close()
			return err
		}
		devices = append(devices, d)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil || len(devices) == 0 {
		return fmt.Errorf("read devices: %w", err)
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM status_events").Scan(&n); err != nil || n == 0 {
		return fmt.Errorf("count rows: %w", err)
	}
	// The range a point call reads since its checkpoint: on average as
	// long as 4,096 rows take, the spacing of DuckDB's checkpoints at
	// 2,000 devices (twice the series); at most twice that.
	width := time.Duration(float64(hi.Sub(lo)) * checkpointRows / float64(n))
	span := hi.Sub(lo) - width
	if span <= 0 || width <= 0 {
		return errors.New("the dataset spans too few rows")
	}
	rangeArgs := func(r *rand.Rand) (time.Time, time.Time) {
		from := lo.Add(time.Duration(r.Int64N(int64(span))))
		return from, from.Add(width)
	}
	list := []statement{
		{"`SELECT 1`", "SELECT 1", nil},
		{"data version: `SELECT MAX(_ingest_seq)`", "SELECT MAX(_ingest_seq) FROM status_events", nil},
		{"rows in a range of ~4,096 rows: `count(*)`", "SELECT count(*) FROM status_events WHERE ts > $1 AND ts <= $2",
			func(r *rand.Rand) []any { a, b := rangeArgs(r); return []any{a, b} }},
		{"a device's latest row in a range of ~4,096 rows (the executor's read since a checkpoint)",
			"SELECT event_id FROM status_events WHERE ts > $1 AND ts <= $2 AND device_id = $3 ORDER BY ts DESC, event_id DESC LIMIT 1",
			func(r *rand.Rand) []any { a, b := rangeArgs(r); return []any{a, b, devices[r.IntN(len(devices))]} }},
	}
	fmt.Fprintf(stdout, "## One DuckDB statement per call, %d clients, %s each (file %s, %d rows, read-only; a range is %s)\n\n", c.clients, c.duration, filepath.Base(c.db), n, width.Round(time.Second))
	fmt.Fprintln(stdout, "| statement | statements/s | p50 | p95 | CPU a statement (process, DuckDB's threads included) | one client p50 |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|")
	for i, st := range list {
		seed := c.seed + uint64(i)*100
		durs, cpu, elapsed, err := drive(ctx, db, st, c.clients, seed, c.duration)
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		one, _, _, err := drive(ctx, db, st, 1, seed+50, c.duration/4)
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		fmt.Fprintf(stdout, "| %s | %.0f | %s | %s | %s | %s |\n", st.name, float64(len(durs))/elapsed.Seconds(),
			ms(pct(durs, 0.50)), ms(pct(durs, 0.95)), ms(cpu/time.Duration(len(durs))), ms(pct(one, 0.50)))
	}
	fmt.Fprintln(stdout)
	return nil
}

// drive runs clients closed-loop callers of st for d and returns every
// statement's latency, the process's CPU over them and the time taken.
func drive(ctx context.Context, db *sql.DB, st statement, clients int, seed uint64, d time.Duration) ([]time.Duration, time.Duration, time.Duration, error) {
	per := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	deadline := start.Add(d)
	for w := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for time.Now().Before(deadline) && ctx.Err() == nil {
				var args []any
				if st.args != nil {
					args = st.args(r)
				}
				t0 := time.Now()
				rows, err := db.QueryContext(ctx, st.sql, args...)
				if err == nil {
					for rows.Next() {
					}
					err = errors.Join(rows.Err(), rows.Close())
				}
				if err != nil {
					errs[w] = err
					return
				}
				per[w] = append(per[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	if err := errors.Join(append(errs, ctx.Err())...); err != nil {
		return nil, 0, 0, err
	}
	var all []time.Duration
	for _, p := range per {
		all = append(all, p...)
	}
	if len(all) == 0 {
		return nil, 0, 0, errors.New("no statement completed")
	}
	slices.Sort(all)
	return all, cpu, elapsed, nil
}

// loads times DuckDB's own loading of the CSV file, and of the same rows
// as Parquet, into a new database file, against `provenant import` of
// each: each step in a database file of its own, committed and
// checkpointed (durable), as an import is.
func loads(ctx context.Context, c config, stdout io.Writer) error {
	csvPath, err := filepath.Abs(c.csv)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(c.tmp, "floors-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pq := filepath.Join(dir, "events.parquet")
	if err := exec(ctx, filepath.Join(dir, "convert.duckdb"), "COPY (SELECT * FROM read_csv("+lit(csvPath)+")) TO "+lit(pq)+" (FORMAT parquet)"); err != nil {
		return fmt.Errorf("write parquet: %w", err)
	}
	var n int64
	if err := query(ctx, filepath.Join(dir, "count.duckdb"), "SELECT count(*) FROM read_parquet("+lit(pq)+")", &n); err != nil {
		return err
	}
	cols := "event_id VARCHAR, device_id VARCHAR, device_type VARCHAR, zone_id VARCHAR, ts TIMESTAMP, status VARCHAR, battery_pct DOUBLE, temperature_c DOUBLE, fault_code VARCHAR"
	type step struct {
		name  string
		input string
		stmts []string // DuckDB's own load; nil: provenant import
	}
	steps := []step{
		{"DuckDB: `CREATE TABLE AS` from the CSV, every column text, no index", csvPath, []string{"CREATE TABLE t AS SELECT * FROM read_csv(" + lit(csvPath) + ", all_varchar = true)"}},
		{"DuckDB: `CREATE TABLE AS` from the Parquet file, no index", pq, []string{"CREATE TABLE t AS SELECT * FROM read_parquet(" + lit(pq) + ")"}},
		{"DuckDB: `INSERT` from the CSV file into a table indexed on the key (text cast to each column's type)", csvPath, []string{"CREATE TABLE t (" + cols + ")", "CREATE INDEX t_key ON t (event_id)", "INSERT INTO t SELECT * FROM read_csv(" + lit(csvPath) + ", all_varchar = true)"}},
		{"DuckDB: `INSERT` from the Parquet file into a table indexed on the key", pq, []string{"CREATE TABLE t (" + cols + ")", "CREATE INDEX t_key ON t (event_id)", "INSERT INTO t SELECT * FROM read_parquet(" + lit(pq) + ")"}},
		{"`provenant import` of the CSV file (checks, key index, derived structures)", csvPath, nil},
		{"`provenant import` of the Parquet file (checks, key index, derived structures)", pq, nil},
	}
	fmt.Fprintf(stdout, "## Loading %d rows into a new DuckDB file\n\n", n)
	fmt.Fprintln(stdout, "| load | wall | CPU (process) | rows/s |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|")
	for i, st := range steps {
		path := filepath.Join(dir, fmt.Sprintf("load-%d.duckdb", i))
		cpu0, t0 := cpuTime(), time.Now()
		var err error
		if st.stmts != nil {
			err = exec(ctx, path, append(st.stmts, "CHECKPOINT")...)
		} else {
			err = provenantImport(ctx, path, st.input)
		}
		wall, cpu := time.Since(t0), cpuTime()-cpu0
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		fmt.Fprintf(stdout, "| %s | %.2f s | %.2f s | %.0f |\n", st.name, wall.Seconds(), cpu.Seconds(), float64(n)/wall.Seconds())
		os.Remove(path)
	}
	fmt.Fprintln(stdout)
	return nil
}

// provenantImport imports input into a new DuckDB file as `provenant
// import --catalog catalogs/warehouse.yaml --dataset status_events --db
// path input` does.
func provenantImport(ctx context.Context, path, input string) error {
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		return err
	}
	l, err := ingest.NewLayout(cat, "status_events")
	if err != nil {
		return err
	}
	db, err := duckdb.OpenFile(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	sink := duckdb.NewSink(db, shape.ImportOptions(&shape.DeriveOptions{}))
	fsink, ok := any(sink).(ingest.FileSink)
	if !ok {
		return errors.New("the DuckDB sink reads no files")
	}
	_, err = fsink.ImportFiles(ctx, l, []string{input})
	return err
}

func exec(ctx context.Context, path string, stmts ...string) error {
	db, err := duckdb.OpenFile(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func query(ctx context.Context, path, q string, dest any) error {
	db, err := duckdb.OpenFile(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.QueryRowContext(ctx, q).Scan(dest)
}

// lit quotes s as a SQL string literal.
func lit(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
