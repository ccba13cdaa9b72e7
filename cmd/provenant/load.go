package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/provenant/provenant/eval/loadgen"
)

// runLoad is `provenant load`: package loadgen drives the questions and
// checks the metrics; this parses flags and prints the report.
func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("load", "load [flags]", "provenant load --workers 16 --questions 200 --json", stderr)
	var cfg loadgen.Config
	fs.IntVar(&cfg.Workers, "workers", 16, "concurrent workers (1 to 1024)")
	fs.IntVar(&cfg.QuestionsPerWorker, "questions", 200, "questions per worker (1 to 1000000)")
	store := fs.String("store", "", "store file `PATH` (default: the embedded demo store)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the question mix")
	verify := fs.String("verify", verifySQL, "deprecated, no effect: snapshot or sql (every answer is re-derived independently, in memory for the store file load runs)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkVerify(*verify); err != nil {
		return err
	}
	if fs.NArg() > 0 || cfg.Workers < 1 || cfg.Workers > 1024 || cfg.QuestionsPerWorker < 1 || cfg.QuestionsPerWorker > 1_000_000 {
		fs.Usage()
		return errUsage
	}
	d, err := loadStore(ctx, *store)
	if err != nil {
		return err
	}
	rep, err := loadgen.Run(ctx, d, openDuckDB, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("encode report: %w", err)
		}
		if _, err := fmt.Fprintf(stdout, "%s\n", b); err != nil {
			return err
		}
	} else if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if !rep.Metrics.OK {
		return fmt.Errorf("check metrics: %s", rep.Metrics.Detail)
	}
	return nil
}
