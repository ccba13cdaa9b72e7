package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/provenant/provenant/budget"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/internal/strictjson"
	"github.com/provenant/provenant/ledger"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/register"
)

// govFlags are the audit flags of the commands that answer questions
// (ask, serve, mcp, eval): the event log, its profile, the seed of a
// deterministic run and the budgets.
type govFlags struct {
	surface     string
	logPath     string
	logRepair   bool
	profilePath string
	budgetPath  string
	seed        int64
	seedGiven   bool
	// state: --state-db and --state-schema (state.go); registerPath:
	// --register FILE.
	state        stateFlags
	registerPath string

	// Opened by open.
	store   eventlog.Store
	closers []func() error
	reg     *register.Register
	profile *os.File
	events  *pipeline.Events
	budget  *budget.Config
	// session is the session budget's account in the state database
	// (nil: in the pipeline's memory).
	session   *budget.Session
	resultIDs ledger.IDSource

	// auto: the autonomy flags (approve.go).
	auto autoFlags
}

// The surfaces, as the event log names them.
const (
	surfaceCLI  = pipeline.SurfaceCLI
	surfaceHTTP = pipeline.SurfaceHTTP
	surfaceMCP  = pipeline.SurfaceMCP
	surfaceEval = pipeline.SurfaceEval
)

// seedFlag is --seed: it records whether it was given, since every
// value given is checked (-1, once the default meaning "not given", ran
// a run that was not deterministic).
type seedFlag struct {
	v   *int64
	set *bool
}

func (f seedFlag) String() string {
	if f.v == nil || f.set == nil || !*f.set {
		return ""
	}
	return strconv.FormatInt(*f.v, 10)
}

func (f seedFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return errors.New("want an integer")
	}
	*f.v, *f.set = n, true
	return nil
}

// Get makes a bad value "want an integer" (valueKind).
func (f seedFlag) Get() any { return *f.v }

func (g *govFlags) register(fs *flag.FlagSet, surface string) {
	g.surface = surface
	fs.StringVar(&g.logPath, "log", "", "append every request's typed events to the event log `FILE` (JSON Lines, fsynced per event; read it with provenant log export and log verify)")
	fs.BoolVar(&g.logRepair, "log-repair", false, "with --log: truncate a torn last line (a crash mid-append, never acknowledged) instead of refusing to open the log")
	fs.StringVar(&g.profilePath, "profile", "", "with --log: write wall-clock timings, keyed by event id, to `FILE` (JSON Lines; never part of the log or its hash)")
	fs.StringVar(&g.budgetPath, "budget", "", "per-session and per-question budgets from `FILE` (YAML or JSON: session and question, each with usd, tokens, tool_calls, sim_seconds, rows_scanned); a call that does not fit abstains with budget_exhausted")
	g.state.register(fs, "keep the event log and the decision register")
	fs.StringVar(&g.registerPath, "register", "", "append decision records to the register `FILE` (JSON Lines, fsynced per record; one process; read it with provenant register verify)")
	g.auto.register(fs)
	fs.Var(seedFlag{&g.seed, &g.seedGiven}, "seed", "with --log: a deterministic run with this `SEED` (0 to 2^53-1; --provider rules or replay): event ids, the run id and result ids derive from it, so the same questions give the same log hash (default: not deterministic)")
}

// open reads the budget file and opens the event log and the decision
// register the flags name (a state database, --log, --register, or the
// --postgres default: stateDB); the caller defers close. provider is --provider (and inner its --noisy-inner).
func (g *govFlags) open(ctx context.Context, ef *engineFlags) error {
	// Source flags no engine opens are refused before any database is
	// (the state database is often --postgres's).
	if err := ef.checkSources(nil); err != nil {
		return err
	}
	g.auto.open()
	if g.budgetPath != "" {
		cfg, err := readBudget(ctx, g.budgetPath)
		if err != nil {
			return err
		}
		// The model's tokens are charged usd at its price: without one
		// the usd budget could not be kept, so nothing starts.
		if err := cfg.NeedPrice(ef.pricedModel()); err != nil {
			return fmt.Errorf("read budget: %w", err)
		}
		g.budget = &cfg
	}
	sdb, err := g.stateDB(ef)
	if err != nil {
		return err
	}
	deterministic := g.seedGiven
	hasLog := g.logPath != "" || sdb.kind != stateNone
	switch {
	case !hasLog && (deterministic || g.profilePath != ""):
		return usagef("--seed and --profile go with an event log (--log FILE or --state-db)")
	case g.logPath == "" && g.logRepair:
		return usagef("--log-repair goes with --log FILE")
	case deterministic && (g.seed < 0 || g.seed > eventlog.MaxSafeInteger):
		return usagef("--seed: want an integer from 0 to 2^53-1")
	case deterministic && !deterministicProvider(ef):
		return usagef("--seed: a deterministic run needs --provider rules or replay")
	}
	var (
		store eventlog.Store
		regs  register.Store
	)
	switch {
	case sdb.kind != stateNone:
		st, err := openState(ctx, sdb)
		if err != nil {
			if !g.state.given() {
				return fmt.Errorf("%w (the audit state of a catalog over --postgres goes to that database, schema provenant, by default: --state-db names another place, --state-db none keeps none)", err)
			}
			return err
		}
		g.closers = append(g.closers, st.close)
		store, regs = st.events, st.reg
		g.auto.ledger = st.grants
		if err := g.openSessionBudget(ctx, sdb); err != nil {
			g.close()
			return err
		}
	case g.logPath != "":
		fstore, err := eventlog.OpenFileStore(ctx, g.logPath, &eventlog.FileOptions{RepairTornTail: g.logRepair})
		if err != nil {
			if errors.Is(err, eventlog.ErrTornTail) {
				return fmt.Errorf("open event log: %w (a crash cut the last append short; --log-repair truncates it)", err)
			}
			return fmt.Errorf("open event log: %w", err)
		}
		g.closers = append(g.closers, fstore.Close)
		store = fstore
	}
	if g.registerPath != "" {
		rf, err := openRegisterFile(ctx, g.registerPath)
		if err != nil {
			g.close()
			return err
		}
		g.closers = append(g.closers, rf.Close)
		regs = rf
	}
	if regs != nil {
		if g.reg, err = register.Open(ctx, regs); err != nil {
			g.close()
			return fmt.Errorf("open register: %w", err)
		}
	}
	if store == nil {
		return nil
	}
	g.store = store
	opts := &eventlog.Options{}
	if deterministic {
		opts.Seed, opts.Deterministic = g.seed, true
		g.resultIDs = &ledger.Sequence{}
	}
	if g.profilePath != "" {
		f, err := os.OpenFile(g.profilePath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			g.close()
			return fmt.Errorf("open profile: %w", err)
		}
		g.profile = f
		opts.Profile = eventlog.NewProfileWriter(f)
	}
	l, err := eventlog.NewLog(ctx, store, opts)
	if err != nil {
		g.close()
		return fmt.Errorf("open event log: %w", err)
	}
	// A resumed run (the same seed appending again) goes on from its last
	// logical time, so its times never go back and no request id repeats.
	// (A run that is not deterministic has a random id: nothing to resume.)
	var last int64
	if deterministic {
		err = store.Scan(ctx, func(e eventlog.Event) error {
			if e.Run == l.Run() && e.Producer == producer {
				last = max(last, e.Time)
			}
			return nil
		})
	}
	if err != nil {
		g.close()
		return fmt.Errorf("open event log: %w", err)
	}
	g.events = &pipeline.Events{Log: l, Producer: producer, Surface: g.surface, Clock: last}
	return nil
}

// budgetScope names the session budget's account in a state database:
// one session budget per database schema, drawn on by every process
// there (ask, serve, mcp).
const budgetScope = "session"

// openSessionBudget keeps the session budget in the state database,
// when there is a budget: the account is created with the file's
// session budget, or resized to it. eval keeps its budget in memory: a
// measurement run must spend the same on every run.
func (g *govFlags) openSessionBudget(ctx context.Context, sdb stateDB) error {
	if g.budget == nil || g.surface == surfaceEval {
		return nil
	}
	bs, err := openBudgets(ctx, sdb)
	if err != nil {
		return err
	}
	g.closers = append(g.closers, bs.Close)
	if g.session, err = budget.OpenSession(ctx, bs, budgetScope, g.budget.Session); err != nil {
		return fmt.Errorf("open state database: %w", err)
	}
	return nil
}

// producer names the pipeline in the event log.
const producer = "pipeline"

// pricedModel is the model whose tokens the budget charges: --model
// for a provider that runs one (openai, anthropic, record, replay, or
// noisy over one), "" for rules.
func (ef *engineFlags) pricedModel() string {
	p := ef.provider
	if p == "noisy" {
		p = ef.noisyInner
	}
	if p == "rules" {
		return ""
	}
	return strings.TrimSpace(ef.model)
}

// deterministicProvider reports whether the flags choose a provider that
// answers the same questions the same way every run.
func deterministicProvider(ef *engineFlags) bool {
	p := ef.provider
	if p == "noisy" {
		p = ef.noisyInner // the noise is seeded (--noise-seed)
	}
	return p == "rules" || p == "replay"
}

// apply puts the opened log and budgets in an engine's options.
func (g *govFlags) apply(opts *engine.Options) {
	opts.Events, opts.Budget = g.events, g.budget
	if g.session != nil {
		opts.SessionBudget = g.session
	}
	if g.reg != nil {
		opts.Register = g.reg
	}
	g.auto.apply(opts, opts.Logger)
	if g.resultIDs != nil {
		opts.ResultIDs = g.resultIDs
	}
}

// stateDB resolves where the audit state goes: --state-db when given;
// else, for ask, serve and mcp with neither --log nor --register, the
// PostgreSQL database of a catalog over --postgres, schema provenant;
// else none.
func (g *govFlags) stateDB(ef *engineFlags) (stateDB, error) {
	sdb, given, err := g.state.parse()
	if err != nil {
		return stateDB{}, err
	}
	files := g.logPath != "" || g.registerPath != ""
	switch {
	case given && files:
		return stateDB{}, usagef("--state-db holds the event log and the register: it goes with neither --log nor --register")
	case given && sdb.kind == stateDuckDB && ef.db != "" && sdb.where == ef.db:
		return stateDB{}, usagef("--state-db: the catalog's --db file is opened read only: name another DuckDB file")
	case given:
		return sdb, nil
	case !files && g.surface != surfaceEval && ef.postgres != "" && !ef.storeFile():
		return stateDB{kind: statePostgres, where: ef.postgres, schema: g.state.schema}, nil
	case g.state.schema != "":
		return stateDB{}, usagef("--state-schema goes with --state-db, or with --postgres when the audit state goes there by default")
	}
	return stateDB{}, nil
}

// close closes the event log and the profile.
func (g *govFlags) close() error {
	var errs []error
	for _, c := range slices.Backward(g.closers) {
		errs = append(errs, c())
	}
	g.closers, g.store, g.reg = nil, nil, nil
	if g.profile != nil {
		errs = append(errs, g.profile.Close())
		g.profile = nil
	}
	return errors.Join(errs...)
}

// readBudget reads a budget file: JSON when it starts with "{", YAML
// otherwise (parseBudgetYAML). Errors name the key at fault
// (and the nearest valid one), never a value the file wrote.
func readBudget(ctx context.Context, path string) (budget.Config, error) {
	f, err := openStream(ctx, path)
	if err != nil {
		return budget.Config{}, fmt.Errorf("open budget: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, budget.MaxConfigBytes+1))
	if err != nil {
		return budget.Config{}, fmt.Errorf("read budget: %w", err)
	}
	if len(b) > budget.MaxConfigBytes {
		return budget.Config{}, fmt.Errorf("read budget: file exceeds %d bytes", budget.MaxConfigBytes)
	}
	return parseBudget(b)
}

// parseBudget reads a budget document: JSON when it starts with "{",
// YAML otherwise (parseBudgetYAML).
func parseBudget(b []byte) (budget.Config, error) {
	var (
		cfg budget.Config
		err error
	)
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		var m map[string]any
		if err := strictjson.Decode(t, &m, nil); err != nil {
			return budget.Config{}, fmt.Errorf("read budget: %s", strictjson.Message(err, "malformed JSON"))
		}
		cfg, err = budget.FromMap(numbersAsText(m).(map[string]any))
	} else {
		cfg, err = parseBudgetYAML(b)
	}
	if err != nil {
		return budget.Config{}, fmt.Errorf("read budget: %w", err)
	}
	return cfg, nil
}

// numbersAsText turns the json.Numbers strictjson decodes into their text,
// which budget.FromMap reads exactly, as it reads a YAML amount's text.
func numbersAsText(v any) any {
	switch v := v.(type) {
	case json.Number:
		return string(v)
	case map[string]any:
		for k, x := range v {
			v[k] = numbersAsText(x)
		}
	}
	return v
}
