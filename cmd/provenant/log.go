package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventschema"
)

// runLog runs `provenant log export` and `provenant log verify`.
func runLog(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const synopsis = "log export|verify --log FILE [flags]"
	help := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: provenant %s\n\n"+
			"  export  write the event log as canonical JSON Lines (sorted by logical time,\n"+
			"          producer, seq) on standard output, and its log hash on standard error\n"+
			"  verify  check every event (decoding, JSON Schema, ids, dense seqs, logical\n"+
			"          time, causation, the hash) and name the first bad one\n\n"+
			"Example:\n  provenant log verify --log events.jsonl\n", synopsis)
	}
	if len(args) == 0 {
		help(stderr)
		return errUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		help(stdout)
		return errHelp
	case "export":
		return runLogExport(ctx, args[1:], stdout, stderr)
	case "verify":
		return runLogVerify(ctx, args[1:], stdout, stderr)
	}
	return usagef("log: unknown subcommand (want export or verify)")
}

func runLogExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("log export", "log export --log FILE",
		"provenant log export --log events.jsonl > export.jsonl", stderr)
	path := fs.String("log", "", "the event log `FILE` to export (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, *path); err != nil {
		return err
	}
	store, err := openLogForReading(ctx, *path)
	if err != nil {
		return err
	}
	defer store.Close()
	r, err := eventlog.Export(ctx, stdout, store)
	if err != nil {
		return fmt.Errorf("export event log: %w", err)
	}
	fmt.Fprintf(stderr, "exported %d events, log hash %s\n", r.Events, r.Hash)
	return nil
}

func runLogVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("log verify", "log verify --log FILE [--want HASH | --against FILE] [--canonical]",
		"provenant log verify --log events.jsonl --want 9f2c…e1 (the log hash another run printed)", stderr)
	path := fs.String("log", "", "the event log `FILE` to verify: a store file (--log of ask, serve, mcp, eval) or an export (required)")
	want := fs.String("want", "", "the expected log `HASH` (64 hex digits), as log verify or log export printed it for another run")
	canonical := fs.Bool("canonical", false, "require canonical order, as log export writes it")
	against := fs.String("against", "", "compare with the log `FILE` of another run (or an earlier copy): name the first event, in canonical order, where the hash chains part")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, *path); err != nil {
		return err
	}
	opts := &eventlog.VerifyOptions{Canonical: *canonical}
	if *want != "" {
		d, err := eventlog.ParseDigest(*want)
		if err != nil {
			return usagef("--want: want 64 lowercase hex digits")
		}
		opts.Want = &d
	}
	if *against != "" {
		ref, err := os.Open(*against)
		if err != nil {
			return fmt.Errorf("open reference log: %w", err)
		}
		r, err := eventlog.Verify(ctx, ref, nil)
		ref.Close()
		if err != nil {
			return fmt.Errorf("read reference log: %w", err)
		}
		opts.Chain = r.Chain
	}
	v, err := eventschema.Load()
	if err != nil {
		return fmt.Errorf("load event schemas: %w", err)
	}
	opts.Schema = v
	f, err := os.Open(*path)
	if err != nil {
		return fmt.Errorf("open event log: %w", err)
	}
	defer f.Close()
	r, err := eventlog.Verify(ctx, f, opts)
	if err != nil {
		if ve, ok := errors.AsType[*eventlog.VerifyError](err); ok && ve.Check != eventlog.CheckHash {
			return fmt.Errorf("%w (line %d of the file)", err, ve.Index+1)
		}
		return err
	}
	_, err = fmt.Fprintf(stdout, "ok: %d events, %d runs, log hash %s\n", r.Events, r.Runs, r.Hash)
	return err
}

// noArgs checks a subcommand got no positional words and its required
// file flag.
func noArgs(fs interface{ NArg() int }, path string) error {
	switch {
	case fs.NArg() > 0:
		return usagef("unexpected argument (the file goes after its flag)")
	case path == "":
		return usagef("missing the file flag (see -h)")
	}
	return nil
}

// openLogForReading opens an existing event log file, checking every
// line; it never creates one.
func openLogForReading(ctx context.Context, path string) (*eventlog.FileStore, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	s, err := eventlog.OpenFileStore(ctx, path, nil)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return s, nil
}
