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
	const usage = "Usage: provenant log export|verify (--log FILE | --state-db DSN) [flags]\n\n" +
		"  export  write the event log as canonical JSON Lines (sorted by logical time,\n" +
		"          producer, seq) on standard output, and its log hash on standard error\n" +
		"  verify  check every event (decoding, JSON Schema, ids, dense seqs, logical\n" +
		"          time, causation, the hash) and name the first bad one\n\n" +
		"Example:\n  provenant log verify --log events.jsonl\n  provenant log verify --state-db postgres://provenant@db.internal/shop\n"
	return runGroup(ctx, "log", usage, []subcommand{{"export", runLogExport}, {"verify", runLogVerify}}, args, stdout, stderr)
}

func runLogExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("log export", "log export (--log FILE | --state-db DSN)",
		"provenant log export --log events.jsonl > export.jsonl", stderr)
	path := fs.String("log", "", "the event log `FILE` to export (this or --state-db)")
	var sf stateFlags
	sf.register(fs, "the event log to export")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	store, closeStore, err := openLogSource(ctx, fs, *path, &sf)
	if err != nil {
		return err
	}
	defer closeStore()
	r, err := eventlog.Export(ctx, stdout, store)
	if err != nil {
		return fmt.Errorf("export event log: %w", err)
	}
	fmt.Fprintf(stderr, "exported %d events, log hash %s\n", r.Events, r.Hash)
	return nil
}

func runLogVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("log verify", "log verify (--log FILE | --state-db DSN) [--want HASH | --against FILE] [--canonical]",
		"provenant log verify --log events.jsonl --want 9f2c…e1 (the log hash another run printed)", stderr)
	path := fs.String("log", "", "the event log `FILE` to verify: a store file (--log of ask, serve, mcp, eval) or an export (this or --state-db)")
	var sf stateFlags
	sf.register(fs, "the event log to verify")
	want := fs.String("want", "", "the expected log `HASH` (64 hex digits), as log verify or log export printed it for another run")
	canonical := fs.Bool("canonical", false, "require canonical order, as log export writes it")
	against := fs.String("against", "", "compare with the log `FILE` of another run (or an earlier copy): name the first event, in canonical order, where the hash chains part")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sdb, fromDB, err := logSource(fs, *path, &sf)
	if err != nil {
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
		ref, err := openStream(ctx, *against)
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
	var r eventlog.Report
	if fromDB {
		r, err = verifyStateLog(ctx, sdb, opts)
	} else {
		f, ferr := openStream(ctx, *path)
		if ferr != nil {
			return fmt.Errorf("open event log: %w", ferr)
		}
		defer f.Close()
		r, err = eventlog.Verify(ctx, f, opts)
		if err != nil && ctx.Err() != nil {
			// Interrupted: no event is at fault.
			return fmt.Errorf("verify event log: %w", ctx.Err())
		}
		if ve, ok := errors.AsType[*eventlog.VerifyError](err); ok && ve.Check != eventlog.CheckHash {
			return fmt.Errorf("%w (line %d of the file)", err, ve.Index+1)
		}
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "ok: %d events, %d runs, log hash %s\n", r.Events, r.Runs, r.Hash)
	return err
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

// logSource checks that a log subcommand names its log once: a file
// (--log) or a state database (--state-db). fromDB reports the latter.
func logSource(fs interface{ NArg() int }, path string, sf *stateFlags) (sdb stateDB, fromDB bool, err error) {
	sdb, given, err := sf.parse()
	switch {
	case err != nil:
		return stateDB{}, false, err
	case fs.NArg() > 0:
		return stateDB{}, false, usagef("unexpected argument (the file goes after its flag)")
	case given && path != "":
		return stateDB{}, false, usagef("want one of --log FILE and --state-db, not both")
	case given && sdb.kind == stateNone:
		return stateDB{}, false, usagef("--state-db none names no log: want a database")
	case given:
		return sdb, true, nil
	case sf.schema != "":
		return stateDB{}, false, usagef("--state-schema goes with --state-db")
	case path == "":
		return stateDB{}, false, usagef("want --log FILE or --state-db (see -h)")
	}
	return stateDB{}, false, nil
}

// openLogSource opens the event log a log subcommand names, for reading.
func openLogSource(ctx context.Context, fs interface{ NArg() int }, path string, sf *stateFlags) (eventlog.Store, func() error, error) {
	sdb, fromDB, err := logSource(fs, path, sf)
	if err != nil {
		return nil, nil, err
	}
	if !fromDB {
		s, err := openLogForReading(ctx, path)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	}
	st, err := openStateForReading(ctx, sdb, tableEvents)
	if err != nil {
		return nil, nil, err
	}
	return st.events, st.close, nil
}

// verifyStateLog exports the event log of a state database in canonical
// order and verifies the export (an error names the event by its index
// in that order).
func verifyStateLog(ctx context.Context, sdb stateDB, opts *eventlog.VerifyOptions) (eventlog.Report, error) {
	st, err := openStateForReading(ctx, sdb, tableEvents)
	if err != nil {
		return eventlog.Report{}, err
	}
	defer st.close()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := eventlog.Export(ctx, pw, st.events)
		pw.CloseWithError(err)
		done <- err
	}()
	r, err := eventlog.Verify(ctx, pr, opts)
	pr.CloseWithError(errStop) // let a blocked export return
	if xerr := <-done; xerr != nil && !errors.Is(xerr, errStop) {
		return eventlog.Report{}, fmt.Errorf("read event log: %w", xerr)
	}
	if ve, ok := errors.AsType[*eventlog.VerifyError](err); ok && ve.Check != eventlog.CheckHash {
		return r, fmt.Errorf("%w (event %d in canonical order)", err, ve.Index+1)
	}
	return r, err
}
