package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/provenant/provenant/calibration"
	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/eval"
)

// runEval drives a gold set through the pipeline and prints the report.
// The exit status is 0 whenever the run completes, gates met or not (a
// failing gate is a finding, reported in the table); with --require-gates
// a gate below 100% makes it non-zero, for CI.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", "eval [flags]",
		"provenant eval --json --require-gates > report.json\n  provenant eval --gold phrasing\n  provenant eval --free-sql --catalog warehouse", stderr)
	var ef engineFlags
	ef.register(fs)
	ef.gov.register(fs, surfaceEval)
	goldPath := fs.String("gold", "", "the gold set: `NAME` of an embedded suite for the demo store (demo, the default; phrasing, questions as people ask them, issue 9) or a gold file's PATH (./phrasing for a file so named); with --catalog warehouse, its demo database's set unless a PATH is given")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	requireGates := fs.Bool("require-gates", false, "exit non-zero when any gate is below 100%")
	calibrate := fs.Bool("calibrate", false,
		"calibrate an abstention policy on the calibration split (in-coverage items at even positions) over the noisy instrument at --noise (default 0.2) and write it to --out; exits non-zero, writing the curve but no policy, when no threshold qualifies")
	calSeeds := fs.Int("calibration-seeds", eval.DefaultSeeds, "with --calibrate: the `N` seeds 1..N of the noisy instrument, one pass of the split each")
	repairEval := fs.Bool("repair", false,
		"measure the repair loop: the metric items of the retail and warehouse demos (or the --catalog one) through the noisy instrument with metric-selection faults at --metric-noise (default 0.2), seeds 1..--repair-seeds, with the loop off and at --repair-retries, per failure class")
	repairSeeds := fs.Int("repair-seeds", eval.DefaultSeeds, "with --repair: the `K` seeds 1..K of the noisy instrument")
	outDir := fs.String("out", "", "with --calibrate (required): the `DIR` for policy.json, curve.json and risk-coverage.svg; eval/calibration holds the committed ones")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *calibrate && *outDir == "" {
		return usagef("--calibrate needs --out DIR (write to a new directory and compare it with eval/calibration, the committed artifact)")
	}
	// A flag of a mode not asked for is refused, never ignored.
	for _, f := range []struct {
		name, mode string
		on         bool
	}{{"out", "--calibrate", *calibrate}, {"calibration-seeds", "--calibrate", *calibrate}, {"repair-seeds", "--repair", *repairEval}} {
		if !f.on && flagSet(fs, f.name) {
			return usagef("--%s goes with %s", f.name, f.mode)
		}
	}
	if err := ef.gov.open(ctx, &ef); err != nil {
		return err
	}
	defer ef.gov.close()

	// One log line per question would bury the table; the pipeline's
	// request log goes to stderr only when --log-level is given.
	logger := slog.New(slog.DiscardHandler)
	if flagSet(fs, "log-level") {
		l, err := newLogger(stderr, ef.logLevel)
		if err != nil {
			return err
		}
		logger = l
	}
	if *repairEval {
		if *calibrate || ef.freeSQL {
			return usagef("--repair goes with neither --calibrate nor --free-sql")
		}
		return runEvalRepair(ctx, fs, &ef, *repairSeeds, *asJSON, logger, stdout)
	}
	if ef.freeSQL {
		if *calibrate {
			return usagef("--calibrate and --free-sql do not go together")
		}
		opts, err := ef.engineOptions(ctx, logger)
		if err != nil {
			return err
		}
		r, err := ef.evalFreeSQL(ctx, *goldPath, opts)
		if err != nil {
			return err
		}
		if *asJSON {
			err = eval.WriteFreeSQLJSON(stdout, r)
		} else {
			err = eval.WriteFreeSQLTable(stdout, r)
		}
		if err != nil {
			return err
		}
		if *requireGates && (r.WrongAnswers > 0 || r.Governed.Correct < r.Governed.Items) {
			return fmt.Errorf("check gates: not met: wrong answers %d, governed %d/%d", r.WrongAnswers, r.Governed.Correct, r.Governed.Items)
		}
		return nil
	}
	var report eval.Report
	if !ef.storeFile() {
		if *calibrate {
			return usagef("--calibrate runs over the retail store file, not with --catalog")
		}
		if _, named := eval.SuiteFile(*goldPath); named {
			return usagef("--gold %s: the named suites are for the demo store, not --catalog; give --gold FILE", *goldPath)
		}
		opts, err := ef.engineOptions(ctx, logger)
		if err != nil {
			return err
		}
		if report, err = ef.evalCatalog(ctx, *goldPath, opts); err != nil {
			return err
		}
	} else {
		gold, err := loadGold(ctx, *goldPath)
		if err != nil {
			return err
		}
		if *calibrate {
			return runCalibrate(ctx, fs, &ef, gold, *calSeeds, *outDir, stdout)
		}
		opts, err := ef.engineOptions(ctx, logger)
		if err != nil {
			return err
		}
		e, err := ef.openEngine(ctx, opts)
		if err != nil {
			return err
		}
		defer e.Close()
		if gold.DatasetVersion != e.DatasetVersion {
			return fmt.Errorf("run eval: the gold set is for dataset %s, the store is %s", gold.DatasetVersion, e.DatasetVersion)
		}
		if report, err = eval.Run(ctx, e.Pipeline, gold, e); err != nil {
			return err
		}
	}
	var err error
	if *asJSON {
		err = eval.WriteJSON(stdout, report)
	} else {
		err = eval.WriteTable(stdout, report)
	}
	if err != nil {
		return err
	}
	if *requireGates && !report.Passed {
		var unmet []string
		for _, ng := range report.Gates.All() {
			if !ng.Gate.Met() {
				unmet = append(unmet, fmt.Sprintf("%s %d/%d", ng.Name, ng.Gate.Passed, ng.Gate.Total))
			}
		}
		return fmt.Errorf("check gates: not met: %s", strings.Join(unmet, ", "))
	}
	return nil
}

// runCalibrate runs eval --calibrate: the noisy instrument wraps
// --noisy-inner (rules by default) at --noise (0.2 unless given), with
// self-consistency on every tool; the engine flags that choose a provider
// are otherwise ignored.
func runCalibrate(ctx context.Context, fs *flag.FlagSet, ef *engineFlags, gold *eval.GoldSet, seeds int, out string, stdout io.Writer) error {
	if seeds < 1 {
		return usagef("--calibration-seeds: want at least 1")
	}
	if flagSet(fs, "provider") && ef.provider != "noisy" {
		return usagef("--provider: the calibration instrument is the noisy provider; use --noisy-inner to choose what it wraps")
	}
	noise := eval.DefaultNoiseRate
	if flagSet(fs, "noise") {
		noise = ef.noise
	}
	if !(noise > 0 && noise <= 1) {
		return usagef("--noise: want a rate above 0, at most 1, with --calibrate")
	}
	inner := *ef
	inner.provider, inner.noise = ef.noisyInner, 0
	if inner.provider == "noisy" {
		return usagef("--noisy-inner: want rules, openai, anthropic, record or replay (not noisy)")
	}
	p, err := inner.buildProvider(nil)
	if err != nil {
		return err
	}
	d, err := loadStore(ctx, ef.store)
	if err != nil {
		return err
	}
	opts := eval.CalibrateOptions{
		Gold: gold, Inner: p, NoiseRate: noise, Commit: gitCommit(ctx),
		Open: func(ctx context.Context, o engine.Options) (*engine.Engine, error) {
			return engine.Open(ctx, d, openDuckDB, &o)
		},
	}
	for s := 1; s <= seeds; s++ {
		opts.Seeds = append(opts.Seeds, uint64(s))
	}
	c, err := eval.RunCalibration(ctx, opts)
	if err != nil {
		return err
	}
	if err := eval.WriteCalibration(out, c); err != nil {
		return err
	}
	r := c.Record
	fmt.Fprintf(stdout, "calibration: %s (a test instrument), %d split items x %d seeds, %d answered\n", r.Provider, r.SplitItems, r.Seeds, r.Answered)
	if !c.OK {
		fmt.Fprint(stdout, eval.NoPolicyTable(r))
		return fmt.Errorf("calibrate: no threshold reaches a Wilson %g%% lower bound of %g with %d answered; wrote %s and %s to %s, and no policy",
			r.Confidence*100, r.Target, r.MinSupport, eval.CurveFile, eval.SVGFile, out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tthreshold\tcoverage\taccuracy\twilson_lower\tsupport")
	row := func(name string, t calibration.Threshold) {
		fmt.Fprintf(tw, "%s\t%.4f\t%.3f\t%.4f\t%.4f\t%d\n", name, t.Threshold, t.Coverage, t.Accuracy, t.WilsonLower, t.Support)
	}
	for _, class := range calibration.Classes {
		if t, ok := c.Policy.Classes[class]; ok {
			row(class, t)
		} else {
			fmt.Fprintf(tw, "%s\t(global)\t\t\t\t\n", class)
		}
	}
	row("global", c.Policy.Global)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s, %s and %s to %s\n", eval.PolicyFile, eval.CurveFile, eval.SVGFile, out)
	return nil
}

// gitCommit returns the short commit of the working tree, or "unknown".
func gitCommit(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if s := strings.TrimSpace(string(out)); err == nil && s != "" {
		return s
	}
	return "unknown"
}

// evalCatalog runs a catalog engine's gold set (--gold, or the embedded
// one of an embedded catalog) over the database the flags name, the
// warehouse demo database by default, checking provenance against that
// database.
func (f *engineFlags) evalCatalog(ctx context.Context, goldPath string, opts engine.Options) (eval.Report, error) {
	cat, err := loadCatalog(ctx, f.catalog)
	if err != nil {
		return eval.Report{}, err
	}
	var gold *eval.GoldSet
	if goldPath == "" {
		if _, ok := eval.CatalogGoldFile(f.catalog); !ok {
			return eval.Report{}, usagef("--catalog %s: no embedded gold set; give --gold FILE", f.catalogShown())
		}
		gold, err = eval.CatalogGold(f.catalog)
	} else {
		gold, err = readGold(ctx, goldPath, func(g *eval.GoldSet) error { return g.ValidateCatalog(cat) })
	}
	if err != nil {
		return eval.Report{}, err
	}
	e, src, version, err := f.openCatalogOn(ctx, cat, opts)
	if err != nil {
		return eval.Report{}, err
	}
	defer e.Close()
	if version != "" && gold.DatasetVersion != version {
		return eval.Report{}, fmt.Errorf("run eval: the gold set is for dataset %s, the demo database is %s", gold.DatasetVersion, version)
	}
	t, err := eval.CatalogTarget(ctx, cat, src)
	if err != nil {
		return eval.Report{}, err
	}
	return eval.RunTarget(ctx, e.Pipeline, gold, t)
}

// loadGold reads and validates a retail gold set: the embedded suite of
// that name (eval.Suites: demo, phrasing), the demo suite when path is
// "", or else the file at path.
func loadGold(ctx context.Context, path string) (*eval.GoldSet, error) {
	if path == "" {
		return eval.DefaultGold()
	}
	if _, named := eval.SuiteFile(path); named {
		return eval.Suite(path)
	}
	return readGold(ctx, path, func(g *eval.GoldSet) error {
		if g.Catalog != "" {
			return usagef("--gold: the gold set is for a catalog engine; give --catalog with the catalog it names")
		}
		return g.Validate(toolRegistry())
	})
}

// readGold reads a gold file and validates it with validate.
func readGold(ctx context.Context, path string, validate func(*eval.GoldSet) error) (*eval.GoldSet, error) {
	f, err := openStream(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open gold file: %w", err)
	}
	defer f.Close()
	g, err := eval.Parse(f)
	if err != nil {
		return nil, err
	}
	if err := validate(g); err != nil {
		return nil, err
	}
	return g, nil
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}
