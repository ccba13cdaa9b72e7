package main

import (
	"context"
	"fmt"
	"io"

	"github.com/provenant/provenant/register"
)

// runRegister runs `provenant register verify` and `provenant register
// export` over a decision register file (register's JSON Lines format).
func runRegister(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "Usage: provenant register verify|export (--register FILE | --state-db DSN)\n\n" +
		"  verify  recompute the register's hash chain and name the first bad record;\n" +
		"          print the head (records and last hash) to publish\n" +
		"  export  verify, then write the register as canonical JSON Lines on standard output\n\n" +
		"Example:\n  provenant register verify --register decisions.jsonl\n  provenant register verify --state-db postgres://provenant@db.internal/shop\n"
	verify := func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return runRegisterVerify(ctx, args, stdout, stderr, false)
	}
	export := func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return runRegisterVerify(ctx, args, stdout, stderr, true)
	}
	return runGroup(ctx, "register", usage, []subcommand{{"verify", verify}, {"export", export}}, args, stdout, stderr)
}

// runRegisterVerify loads and verifies a register file, then prints its
// head (verify) or the register itself (export).
func runRegisterVerify(ctx context.Context, args []string, stdout, stderr io.Writer, export bool) error {
	name, example := "register verify", "provenant register verify --register decisions.jsonl"
	if export {
		name, example = "register export", "provenant register export --register decisions.jsonl > copy.jsonl"
	}
	fs := newFlagSet(name, name+" (--register FILE | --state-db DSN)", example, stderr)
	path := fs.String("register", "", "the decision register `FILE` (JSON Lines, one canonical record a line) (this or --state-db)")
	var sf stateFlags
	sf.register(fs, "the decision register")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sdb, given, err := sf.parse()
	switch {
	case err != nil:
		return err
	case fs.NArg() > 0:
		return usagef("unexpected argument (the file goes after its flag)")
	case given && *path != "":
		return usagef("want one of --register FILE and --state-db, not both")
	case given && sdb.kind == stateNone:
		return usagef("--state-db none names no register: want a database")
	case !given && sf.schema != "":
		return usagef("--state-schema goes with --state-db")
	case !given && *path == "":
		return usagef("want --register FILE or --state-db (see -h)")
	}
	var store register.Store
	if given {
		st, err := openStateForReading(ctx, sdb, tableRecords)
		if err != nil {
			return err
		}
		defer st.close()
		store = st.reg
	} else {
		f, err := openStream(ctx, *path)
		if err != nil {
			return fmt.Errorf("open register: %w", err)
		}
		defer f.Close()
		if store, err = register.Load(ctx, f); err != nil {
			return fmt.Errorf("load register: %w", err)
		}
	}
	head, err := register.Verify(ctx, store)
	if err != nil {
		return err
	}
	if export {
		if err := register.Export(ctx, stdout, store); err != nil {
			return fmt.Errorf("export register: %w", err)
		}
		fmt.Fprintf(stderr, "exported %d records, head %s\n", head.Len, head.Hash)
		return nil
	}
	_, err = fmt.Fprintf(stdout, "ok: %d records, head %s\n", head.Len, head.Hash)
	return err
}
