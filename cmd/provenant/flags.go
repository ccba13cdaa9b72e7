package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/provenant/provenant/retail/storefile"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/cassette"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/provider/openai"
	"github.com/provenant/provenant/provider/rules"
	"github.com/provenant/provenant/tool"
)

// The providers --provider accepts.
const providerNames = "rules, openai, anthropic, record, replay or noisy"

// engineFlags are the flags every command that answers questions shares.
type engineFlags struct {
	store string
	// catalog, db, postgres: a catalog engine over a database.
	catalog  string
	db       string
	postgres string
	// postgresInFlight is --postgres-in-flight
	// (postgres.PipelinerOptions.MaxInFlight).
	postgresInFlight int
	// duckdbThreads is --duckdb-threads.
	duckdbThreads duckdbThreadsFlag
	cat           *catalog.Catalog // --catalog, once loaded
	provider      string
	logLevel      string
	model         string
	baseURL       string
	apiKeyEnv     string
	cassettes     string
	verify        string
	// selfConsistency is --self-consistency: the proposals voted on for
	// the hard question classes; 0 is off.
	selfConsistency int
	// abstention is --abstention-policy: a calibrated policy file.
	abstention string
	// refuseUngrounded is --refuse-ungrounded.
	refuseUngrounded bool
	// freeSQL is --free-sql: free SQL on, as the catalog's `sql: {free:
	// true}` would turn it on.
	freeSQL bool

	// now is --now: the clock relative time in questions is resolved
	// against (RFC 3339, UTC); "" is the wall clock.
	now string
	// wallClock: without --now, read the wall clock at each question (a
	// server's) instead of once when the command starts.
	wallClock bool

	// --provider noisy: the instrument's fault rate, seed and inner provider.
	noise      float64
	noiseSeed  uint64
	noisyInner string

	// anthropic: --provider anthropic's flags, and --api for record and replay.
	anthropic anthropicFlags

	// gov: the event log, budget and seed flags (govern.go), registered
	// by the commands that take them.
	gov govFlags
	// repair: --repair-retries and --metric-noise (see repair.go).
	repair repairFlags
	// metricKeyDigests: --metric-key-digests (engine.Options.MetricRollups).
	metricKeyDigests bool
	// metricRollups: --metric-rollups (engine.Options.MetricValueRollups).
	metricRollups bool
	// windowKeyDigests: --window-key-digests (engine.Options.WindowDigests).
	windowKeyDigests bool
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.store, "store", "", "store file `PATH` (default: the embedded demo store)")
	fs.StringVar(&f.catalog, "catalog", "",
		"answer the tools of a catalog: `NAME` of an embedded one (retail, warehouse) or a catalog FILE, over --db or --postgres (warehouse alone has a demo database, built on first use)")
	fs.Var((*dbFile)(&f.db), "db", "with --catalog: the DuckDB database `FILE` holding the catalog's tables (opened read only)")
	fs.StringVar(&f.postgres, "postgres", "", "with --catalog: the PostgreSQL `DSN` holding the catalog's tables")
	fs.IntVar(&f.postgresInFlight, "postgres-in-flight", 0,
		"with --postgres: at most `N` calls answered in one round trip (point questions among them) in PostgreSQL at once, the others waiting their turn in arrival order; 0 is two per core (2 × GOMAXPROCS), -1 no bound")
	fs.Var(&f.duckdbThreads, "duckdb-threads",
		"with a DuckDB database (--db, the warehouse demo, or files read in place): DuckDB's worker `THREADS`, 1 by default: one thread a query, and as many calls at once as cores, the others waiting their turn in arrival order; N: N threads a query and no turns (for one caller with long queries); 0: DuckDB's own choice, one thread per core, and no turns; at most 256 (README, \"DuckDB's worker threads, and calls in turns\")")
	fs.StringVar(&f.provider, "provider", "rules",
		"model provider: rules (no model), openai (an OpenAI-compatible server), anthropic (Anthropic's Messages API), record (openai, or anthropic with --api anthropic, saving cassettes), replay (cassettes only, no network) or noisy (a deliberately error-prone instrument for evaluation: --noisy-inner with faults at --noise)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&f.model, "model", "", "model `NAME` for openai, anthropic, record and replay (e.g. llama3.2)")
	fs.StringVar(&f.baseURL, "base-url", "http://localhost:11434/v1", "OpenAI-compatible API root `URL` (default: Ollama's)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment `VAR` holding the API key (unset or empty is allowed for local servers)")
	fs.StringVar(&f.cassettes, "cassettes", "testdata/cassettes", "cassette `DIR` for record and replay")
	fs.StringVar(&f.verify, "verify", verifySQL,
		"deprecated, no effect: snapshot or sql. Every answer is re-derived independently of the executor: by SQL in a catalog's database, on the executor's snapshot; in memory for a store file")
	fs.BoolVar(&f.refuseUngrounded, "refuse-ungrounded", false,
		"abstain when the model's sentence cites a number no result backs (default: ship the fact with a sentence rendered by code)")
	fs.StringVar(&f.abstention, "abstention-policy", "",
		"calibrated abstention policy `FILE` (from eval --calibrate): abstain below its confidence thresholds")
	fs.BoolVar(&f.freeSQL, "free-sql", false,
		"turn free SQL on, as a catalog's sql: {free: true} does: a query_sql tool joins the menu for questions no tool or metric covers, its statements run in the sandbox (worker processes over a snapshot of the allowlisted tables) and its answers are tagged ungoverned")
	fs.IntVar(&f.selfConsistency, "self-consistency", 0,
		"vote over `N` sampled proposals (odd, 1 to 11) for aggregate, list and window questions, abstaining without a strict majority; 0 is off")
	fs.Float64Var(&f.noise, "noise", 0,
		"with --provider noisy: the `RATE` (0 to 1) of each fault: wrong tool, wrong parameter, hallucinated tool, raw query, wrong abstention, fabricated and transposed numerals")
	fs.Uint64Var(&f.noiseSeed, "noise-seed", 1, "with --provider noisy: the `SEED` of its random streams (a seed replays its noise exactly)")
	fs.StringVar(&f.noisyInner, "noisy-inner", "rules", "with --provider noisy: the `PROVIDER` it wraps (rules, openai, anthropic, record or replay)")
	fs.BoolVar(&f.metricKeyDigests, "metric-key-digests", false,
		"with --catalog: take a query_metric answer's provenance past the provenance limit from the per-hour key digests `import --key-digests` built (its count, an lthash16x1024 digest and the least keys), instead of reading and hashing every key")
	fs.BoolVar(&f.metricRollups, "metric-rollups", false,
		"with --catalog: compute a query_metric answer over a window of whole hours from the per-hour value rollups `import --value-rollups` built (the whole hours stored, the edge hours from the rows) and, with --metric-key-digests, re-derive it from them with a seeded spot check of stored hours against the rows")
	fs.BoolVar(&f.windowKeyDigests, "window-key-digests", false,
		"with --catalog: take a window count of more rows than the provenance limit from the per-hour window key digests `import --key-digests` built (its count, an lthash16x1024 digest and the least keys), instead of reading and digesting every key")
	f.anthropic.register(fs)
	f.repair.register(fs)
	fs.StringVar(&f.now, "now", "",
		"the clock `T` (RFC 3339, UTC, like 2026-01-07T12:00:00Z) that today, yesterday, last week or a question naming no time is resolved against (default: the wall clock)")
}

// clock returns the clock --now chooses: that instant; else the wall
// clock, read once now, or at each question for a server (wallClock).
// It is read here, at the edge, and passed down; nothing below reads
// the wall clock to resolve a question.
func (f *engineFlags) clock() (func() time.Time, error) {
	if f.now == "" {
		if f.wallClock {
			return func() time.Time { return time.Now().UTC() }, nil
		}
		now := time.Now().UTC().Truncate(time.Second)
		return func() time.Time { return now }, nil
	}
	t, err := time.Parse(time.RFC3339, f.now)
	if err != nil || t.Location() != time.UTC || t.Nanosecond() != 0 {
		return nil, usagef("--now: want an RFC 3339 UTC instant to the second, like 2026-01-07T12:00:00Z")
	}
	return func() time.Time { return t }, nil
}

// setup builds a command's logger (on w) and the engine options the flags
// choose, with the provider built.
func (f *engineFlags) setup(ctx context.Context, w io.Writer) (*slog.Logger, engine.Options, error) {
	logger, err := newLogger(w, f.logLevel)
	if err != nil {
		return nil, engine.Options{}, err
	}
	opts, err := f.engineOptions(ctx, logger)
	return logger, opts, err
}

// engineOptions returns the engine options the flags choose, with the
// provider built.
func (f *engineFlags) engineOptions(ctx context.Context, logger *slog.Logger) (engine.Options, error) {
	if err := f.repair.parse(); err != nil {
		return engine.Options{}, err
	}
	p, err := f.buildProvider(logger)
	if err != nil {
		return engine.Options{}, err
	}
	if err := checkVerify(f.verify); err != nil {
		return engine.Options{}, err
	}
	now, err := f.clock()
	if err != nil {
		return engine.Options{}, err
	}
	opts := engine.Options{Provider: p, Logger: logger, RefuseUngrounded: f.refuseUngrounded, Now: now, Repair: f.repair.loop(), MetricRollups: f.metricKeyDigests, MetricValueRollups: f.metricRollups, WindowDigests: f.windowKeyDigests}
	f.gov.apply(&opts)
	if f.selfConsistency != 0 {
		sc := &pipeline.SelfConsistency{Samples: f.selfConsistency}
		if err := sc.Validate(); err != nil {
			return engine.Options{}, usagef("--self-consistency: want an odd number from 1 to %d, or 0 for off", pipeline.MaxSamples)
		}
		opts.SelfConsistency = sc
	}
	if f.abstention != "" {
		file, err := openStream(ctx, f.abstention)
		if err != nil {
			return engine.Options{}, fmt.Errorf("open abstention policy: %w", err)
		}
		defer file.Close()
		if opts.Abstention, err = calibration.Parse(file); err != nil {
			return engine.Options{}, fmt.Errorf("load abstention policy: %w", err)
		}
	}
	return opts, nil
}

// start builds the logger and opens the engine the flags describe: the
// prologue of a command that answers in the foreground.
func (f *engineFlags) start(ctx context.Context, w io.Writer) (*slog.Logger, *engine.Engine, error) {
	logger, opts, err := f.setup(ctx, w)
	if err != nil {
		return nil, nil, err
	}
	e, err := f.openEngine(ctx, opts)
	if err == nil {
		f.gov.auto.serving(e.Pipeline)
	}
	return logger, e, err
}

// storeFile reports whether the flags name a store file's engine: no
// --catalog, or the embedded retail catalog with no database (whose data
// is the demo store file).
func (f *engineFlags) storeFile() bool {
	return f.catalog == "" || f.catalog == storefile.Catalog && f.db == "" && f.postgres == ""
}

// openEngine loads the store file the flags name (the demo store by
// default) and opens an engine over it with opts.
func (f *engineFlags) openEngine(ctx context.Context, opts engine.Options) (*engine.Engine, error) {
	if f.catalog == "" {
		if err := f.checkSources(nil); err != nil {
			return nil, err
		}
	}
	switch {
	case f.catalog != "" && f.store != "":
		return nil, usagef("want at most one of --store PATH and --catalog NAME")
	case f.storeFile():
	case f.catalog != "":
		return f.openCatalogEngine(ctx, opts)
	}
	d, err := loadStore(ctx, f.store)
	if err != nil {
		return nil, err
	}
	if f.freeSQL {
		return openStoreFileFreeSQL(ctx, d, opts)
	}
	return engine.Open(ctx, d, openDuckDB, &opts)
}

// The values --verify accepts. Both mean what every engine does since the
// retail demo runs on the catalog's shapes: re-derive independently (by
// SQL in a database, in memory for a store file).
const (
	verifySnapshot = "snapshot"
	verifySQL      = "sql"
)

// checkVerify checks a --verify value.
func checkVerify(v string) error {
	if v != verifySnapshot && v != verifySQL {
		return usagef("--verify: want %s or %s", verifySnapshot, verifySQL)
	}
	return nil
}

// buildProvider returns the configured provider, logging on logger (nil
// discards). It reads the API key from the environment for openai,
// anthropic and record, and makes no request.
func (f *engineFlags) buildProvider(logger *slog.Logger) (provider.Provider, error) {
	if f.provider == "noisy" {
		return f.buildNoisy(logger)
	}
	if f.noise != 0 {
		return nil, usagef("--noise needs --provider noisy")
	}
	if f.repair.metricNoise != 0 {
		return nil, usagef("--metric-noise needs --provider noisy (or eval --repair)")
	}
	var transport http.RoundTripper
	switch f.provider {
	case "rules":
		return rules.Provider{}, nil
	case "openai", "anthropic":
	case "record":
		if f.cassettes == "" {
			return nil, usagef("--provider record needs --cassettes DIR")
		}
		transport = &cassette.Recorder{Dir: f.cassettes}
	case "replay":
		if f.cassettes == "" {
			return nil, usagef("--provider replay needs --cassettes DIR")
		}
		transport = &cassette.Replayer{Dir: f.cassettes}
	default:
		return nil, usagef("--provider: unknown provider (want %s)", providerNames)
	}
	messagesAPI, err := f.anthropic.usesAnthropic(f.provider)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(f.model) == "" {
		return nil, usagef("--provider %s needs --model NAME", f.provider)
	}
	if messagesAPI {
		return f.anthropic.build(f.provider, f.model, transport, logger)
	}
	var key string
	if f.provider != "replay" { // replay sends nothing, so it needs no key
		if f.apiKeyEnv == "" {
			return nil, usagef("--api-key-env: names no variable")
		}
		key = os.Getenv(f.apiKeyEnv)
	}
	p, err := openai.New(openai.Options{BaseURL: f.baseURL, Model: f.model, APIKey: key, Transport: transport, Logger: logger})
	if errors.Is(err, openai.ErrOptions) {
		// --base-url, --model, or the key --api-key-env names.
		return nil, &usageError{msg: fmt.Sprintf("choose provider: %v", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("choose provider: %w", err)
	}
	return p, nil
}

// buildNoisy wraps the --noisy-inner provider in the noisy instrument, with
// every fault at --noise.
func (f *engineFlags) buildNoisy(logger *slog.Logger) (provider.Provider, error) {
	if !(f.noise >= 0 && f.noise <= 1) {
		return nil, usagef("--noise: want a rate from 0 to 1")
	}
	if f.noisyInner == "noisy" {
		return nil, usagef("--noisy-inner: want rules, openai, anthropic, record or replay (not noisy)")
	}
	inner := *f
	inner.provider, inner.noise, inner.repair.metricNoise = f.noisyInner, 0, 0
	p, err := inner.buildProvider(logger)
	if err != nil {
		return nil, err
	}
	rates, err := f.repair.rates(f.noise)
	if err != nil {
		return nil, err
	}
	n, err := noisy.New(p, noisy.Options{Seed: f.noiseSeed, Rates: rates})
	if err != nil {
		return nil, fmt.Errorf("choose provider: %w", err)
	}
	return n, nil
}

// toolRegistry is the registry of the retail demo's engine (no
// --catalog), derived from the embedded catalogs/retail.yaml: what serve
// describes before the engine has loaded, and what a gold file for the
// demo is validated against.
func toolRegistry() *tool.Registry {
	reg, err := engine.RetailRegistry()
	if err != nil {
		// The embedded catalog is fixed data; a test loads it.
		panic("provenant: " + err.Error())
	}
	return reg
}

// duckdbThreadsFlag is --duckdb-threads: DuckDB's worker threads on a
// served DuckDB database, 1 when not given.
type duckdbThreadsFlag struct {
	n     int
	given bool
}

func (d *duckdbThreadsFlag) String() string { return strconv.Itoa(d.threads()) }

// Get makes the flag a flag.Getter of an int, so that a bad value is
// reported as "want an integer".
func (d *duckdbThreadsFlag) Get() any { return d.threads() }

func (d *duckdbThreadsFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not an integer")
	}
	d.n, d.given = n, true
	return nil
}

// threads is the count: 1 unless given (0: DuckDB's default).
func (d *duckdbThreadsFlag) threads() int {
	if d == nil || !d.given {
		return 1
	}
	return d.n
}

// turns reports whether calls answered by SQL take turns: with one
// thread a query (engine.Options.SQLTurns).
func (d *duckdbThreadsFlag) turns() bool { return d.threads() == 1 }
