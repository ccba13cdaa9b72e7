package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/provenant/provenant/eval"
)

// runEval drives a gold set through the pipeline and prints the report.
// The exit status is 0 whenever the run completes, gates met or not (a
// failing gate is a finding, reported in the table); with --require-gates
// a gate below 100% makes it non-zero, for CI.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", "eval [flags]",
		"provenant eval --json --require-gates > report.json", stderr)
	var ef engineFlags
	ef.register(fs)
	goldPath := fs.String("gold", "", "gold file `PATH` (default: the embedded gold set for the demo store)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	requireGates := fs.Bool("require-gates", false, "exit non-zero when any gate is below 100%")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}

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
	gold, err := loadGold(*goldPath)
	if err != nil {
		return err
	}
	opts, err := ef.engineOptions(logger)
	if err != nil {
		return err
	}
	e, err := ef.openEngine(ctx, opts)
	if err != nil {
		return err
	}
	defer e.Close()
	if gold.DatasetVersion != e.Info.Version {
		return fmt.Errorf("run eval: the gold set is for dataset %s, the store is %s", gold.DatasetVersion, e.Info.Version)
	}

	report, err := eval.Run(ctx, e.Pipeline, gold, e.Store)
	if err != nil {
		return err
	}
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

// loadGold reads and validates a gold file, or the embedded one when path
// is "".
func loadGold(path string) (*eval.GoldSet, error) {
	if path == "" {
		return eval.DefaultGold()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open gold file: %w", err)
	}
	defer f.Close()
	g, err := eval.Parse(f)
	if err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
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
