package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

var (
	// errUsage reports bad flags or arguments; usage has been printed.
	errUsage = errors.New("usage")
	// errHelp stops a command after its usage was printed on request.
	errHelp = errors.New("help requested")
)

const usage = `provenant answers questions about operational data with grounded facts.

Usage:
  provenant <command> [flags] [arguments]

Commands:
  ask     answer one question
  serve   serve the HTTP API
  eval    run the gold set through the pipeline and score it
  gen     write a store file (the demo store by default)
  ground  check that every numeral in a text is backed by a ledger
  load    drive concurrent questions through the pipeline and report latency
  mcp     serve the Model Context Protocol on standard input and output

Run "provenant <command> -h" for a command's flags.
`

// Run executes one command line. It is main without the exit.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if err := run(ctx, args, stdout, stderr); !errors.Is(err, errHelp) {
		return err
	}
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "ask":
		return runAsk(ctx, rest, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "eval":
		return runEval(ctx, rest, stdout, stderr)
	case "gen":
		return runGen(ctx, rest, stdout, stderr)
	case "ground":
		return runGround(ctx, rest, stdout, stderr)
	case "load":
		return runLoad(ctx, rest, stdout, stderr)
	case "mcp":
		return runMCP(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "provenant: unknown command (want one of ask, serve, mcp, ground, eval, gen, load)\n\n%s", usage)
	return errUsage
}

// newFlagSet returns a flag set that prints its usage with an example and
// reports parse errors as errUsage.
func newFlagSet(name, synopsis, example string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: provenant %s\n\n", synopsis)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nExample:\n  %s\n", example)
	}
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return errUsage
	}
	return nil
}

// newLogger builds the process logger: JSON lines on w at the given level.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, fmt.Errorf("parse log level: want debug, info, warn or error")
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}
