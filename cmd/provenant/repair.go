package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/eval"
	"github.com/provenant/provenant/pipeline"
	"github.com/provenant/provenant/provider"
	"github.com/provenant/provenant/provider/noisy"
	"github.com/provenant/provenant/repair"
)

// repairFlags are the repair loop's flags, shared by every command that
// answers questions.
type repairFlags struct {
	// retriesText is --repair-retries as given; retries is it parsed
	// (0..3, 0 off) by parse.
	retriesText string
	retries     int
	// metricNoise is --metric-noise: the noisy instrument's
	// metric-selection fault rate.
	metricNoise float64
	// minHistoryText and widenText are --repair-min-history and
	// --repair-widen as given; policy is them parsed by parse.
	minHistoryText, widenText string
	policy                    repair.Policy
}

// maxWiden bounds --repair-widen: a band widened by ten times its width on
// each side already admits nearly anything.
const maxWiden = 10

func (r *repairFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.retriesText, "repair-retries", strconv.Itoa(repair.DefaultRetries),
		fmt.Sprintf("the repair loop: at most `N` (0 to %d; 0 is off) corrected proposals the model is asked for when an executed query_metric or free SQL call fails verification (sql_error, empty_result, implausible_magnitude, budget_exceeded, permission_denied, schema_violation), per sample under --self-consistency; only a provider that can repair (openai, anthropic, noisy) is asked. Above 0, an MCP or REST client's own failing call gets the same repair information in its answer's repair object", repair.MaxRetries))
	def := repair.DefaultPolicy()
	fs.StringVar(&r.minHistoryText, "repair-min-history", strconv.Itoa(def.MinHistory),
		fmt.Sprintf("the plausibility check: the least `N` (1 to %d) values of a metric's own history (the same request over its %d earlier windows that hold data) before a value outside the history's p1..p99 band, widened by --repair-widen, is implausible_magnitude", engine.HistoryWindows, engine.HistoryWindows))
	fs.StringVar(&r.widenText, "repair-widen", strconv.FormatFloat(def.Widen, 'g', -1, 64),
		fmt.Sprintf("the plausibility check: widen the history's p1..p99 band on each side by `F` (0 to %d) times its width", maxWiden))
	fs.Float64Var(&r.metricNoise, "metric-noise", 0,
		"with --provider noisy, or eval --repair (default 0.2 there): the `RATE` (0 to 1) of each metric-selection fault: wrong metric, wrong dimension, wrong window")
}

// parse reads --repair-retries strictly: one digit from 0 to 3.
func (r *repairFlags) parse() error {
	n, err := repair.ParseRetries(r.retriesText)
	if err != nil {
		return usagef("--repair-retries: want an integer from 0 to %d", repair.MaxRetries)
	}
	r.retries = n
	// Strict: a decimal integer, no sign, no spaces.
	minHistory, err := strconv.Atoi(r.minHistoryText)
	if err != nil || minHistory < 1 || minHistory > engine.HistoryWindows || strconv.Itoa(minHistory) != r.minHistoryText {
		return usagef("--repair-min-history: want an integer from 1 to %d", engine.HistoryWindows)
	}
	widen, err := strconv.ParseFloat(r.widenText, 64)
	if err != nil || !(widen >= 0 && widen <= maxWiden) || strings.ContainsAny(r.widenText, "xXpP_") {
		return usagef("--repair-widen: want a number from 0 to %d", maxWiden)
	}
	r.policy = repair.Policy{MinHistory: minHistory, Widen: widen}
	return nil
}

// loop is the engine's repair configuration; nil when off.
func (r *repairFlags) loop() *pipeline.Repair {
	if r.retries == 0 {
		return nil
	}
	return &pipeline.Repair{Retries: r.retries, Policy: r.policy}
}

// rates are the noisy instrument's: every fault at noise, the metric
// faults at --metric-noise.
func (r *repairFlags) rates(noise float64) (noisy.Rates, error) {
	if !(r.metricNoise >= 0 && r.metricNoise <= 1) {
		return noisy.Rates{}, usagef("--metric-noise: want a rate from 0 to 1")
	}
	rates := noisy.Uniform(noise)
	m := noisy.MetricUniform(r.metricNoise)
	rates.WrongMetric, rates.WrongDimension, rates.WrongWindow = m.WrongMetric, m.WrongDimension, m.WrongWindow
	return rates, nil
}

// runEvalRepair runs eval --repair: the metric items of the retail
// phrasing suite and of the warehouse demo set (or the one --catalog
// names), through the noisy instrument with metric-selection faults at
// --metric-noise around --noisy-inner, once per seed 1..--repair-seeds,
// with the loop off and with --repair-retries.
func runEvalRepair(ctx context.Context, fs *flag.FlagSet, ef *engineFlags, seeds int, asJSON bool, logger *slog.Logger, stdout io.Writer) error {
	if err := ef.repair.parse(); err != nil {
		return err
	}
	if seeds < 1 {
		return usagef("--repair-seeds: want at least 1")
	}
	if flagSet(fs, "provider") && ef.provider != "noisy" {
		return usagef("--provider: the repair eval's instrument is the noisy provider; use --noisy-inner to choose what it wraps")
	}
	if flagSet(fs, "gold") {
		return usagef("--gold: the repair eval runs the demos' metric items; choose one with --catalog retail or warehouse")
	}
	if ef.noise != 0 {
		return usagef("--noise: the repair eval injects metric-selection faults only (--metric-noise)")
	}
	if ef.repair.retries == 0 {
		return usagef("--repair-retries: want 1 to %d with --repair (0 is the loop off, which the eval runs anyway)", repair.MaxRetries)
	}
	rate := eval.DefaultMetricNoise
	if flagSet(fs, "metric-noise") {
		rate = ef.repair.metricNoise
	}
	if !(rate > 0 && rate <= 1) {
		return usagef("--metric-noise: want a rate above 0, at most 1, with --repair")
	}
	if ef.noisyInner == "noisy" {
		return usagef("--noisy-inner: want rules, openai, anthropic, record or replay (not noisy)")
	}
	inner := *ef
	inner.provider, inner.repair.metricNoise = ef.noisyInner, 0
	p, err := inner.buildProvider(logger)
	if err != nil {
		return err
	}
	base, err := inner.engineOptions(ctx, logger)
	if err != nil {
		return err
	}
	var sets []eval.RepairSet
	switch ef.catalog {
	case "", "retail":
		s, err := retailRepairSet(ctx, ef, base)
		if err != nil {
			return err
		}
		sets = append(sets, s)
	}
	switch ef.catalog {
	case "", "warehouse":
		s, err := warehouseRepairSet(ctx, ef, base)
		if err != nil {
			return err
		}
		sets = append(sets, s)
	}
	if len(sets) == 0 {
		return usagef("--catalog: the repair eval runs the retail or the warehouse demo")
	}
	o := eval.RepairOptions{Sets: sets, Inner: p, MetricNoise: rate, Retries: ef.repair.retries, Policy: ef.repair.policy, SelfConsistency: ef.selfConsistency}
	for s := 1; s <= seeds; s++ {
		o.Seeds = append(o.Seeds, uint64(s))
	}
	r, err := eval.RunRepair(ctx, o)
	if err != nil {
		return err
	}
	if asJSON {
		return eval.WriteRepairJSON(stdout, r)
	}
	return eval.WriteRepairTable(stdout, r)
}

// merged is base with the run's provider, loop and vote.
func merged(base, o engine.Options) engine.Options {
	base.Provider, base.Repair, base.SelfConsistency = o.Provider, o.Repair, o.SelfConsistency
	return base
}

// retailRepairSet is the retail demo store's phrasing suite.
func retailRepairSet(ctx context.Context, ef *engineFlags, base engine.Options) (eval.RepairSet, error) {
	g, err := eval.Suite("phrasing")
	if err != nil {
		return eval.RepairSet{}, err
	}
	d, err := loadStore(ctx, ef.store)
	if err != nil {
		return eval.RepairSet{}, err
	}
	return eval.RepairSet{Name: "retail", Gold: g, Open: func(ctx context.Context, o engine.Options) (*engine.Engine, eval.Target, error) {
		opts := merged(base, o)
		e, err := engine.Open(ctx, d, openDuckDB, &opts)
		if err != nil {
			return nil, eval.Target{}, err
		}
		return e, eval.Target{Keys: e.Known, WithNow: provider.WithNow}, nil
	}}, nil
}

// warehouseRepairSet is the warehouse demo database's gold set.
func warehouseRepairSet(ctx context.Context, ef *engineFlags, base engine.Options) (eval.RepairSet, error) {
	g, err := eval.CatalogGold("warehouse")
	if err != nil {
		return eval.RepairSet{}, err
	}
	cat, err := catalogs.Load("warehouse")
	if err != nil {
		return eval.RepairSet{}, err
	}
	wf := *ef
	wf.catalog, wf.db, wf.postgres = "warehouse", "", ""
	return eval.RepairSet{Name: "warehouse", Gold: g, Open: func(ctx context.Context, o engine.Options) (*engine.Engine, eval.Target, error) {
		e, src, version, err := wf.openCatalogOn(ctx, cat, merged(base, o))
		if err != nil {
			return nil, eval.Target{}, err
		}
		if version != "" && g.DatasetVersion != version {
			e.Close()
			return nil, eval.Target{}, fmt.Errorf("run eval: the gold set is for dataset %s, the demo database is %s", g.DatasetVersion, version)
		}
		t, err := eval.CatalogTarget(ctx, cat, src)
		if err != nil {
			e.Close()
			return nil, eval.Target{}, err
		}
		return e, t, nil
	}}, nil
}
