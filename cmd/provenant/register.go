package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/provenant/provenant/register"
)

// runRegister runs `provenant register verify` and `provenant register
// export` over a decision register file (register's JSON Lines format).
func runRegister(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const synopsis = "register verify|export --register FILE"
	help := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: provenant %s\n\n"+
			"  verify  recompute the register's hash chain and name the first bad record;\n"+
			"          print the head (records and last hash) to publish\n"+
			"  export  verify, then write the register as canonical JSON Lines on standard output\n\n"+
			"Example:\n  provenant register verify --register decisions.jsonl\n", synopsis)
	}
	if len(args) == 0 {
		help(stderr)
		return errUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		help(stdout)
		return errHelp
	case "verify":
		return runRegisterVerify(ctx, args[1:], stdout, stderr, false)
	case "export":
		return runRegisterVerify(ctx, args[1:], stdout, stderr, true)
	}
	return usagef("register: unknown subcommand (want verify or export)")
}

// runRegisterVerify loads and verifies a register file, then prints its
// head (verify) or the register itself (export).
func runRegisterVerify(ctx context.Context, args []string, stdout, stderr io.Writer, export bool) error {
	name, example := "register verify", "provenant register verify --register decisions.jsonl"
	if export {
		name, example = "register export", "provenant register export --register decisions.jsonl > copy.jsonl"
	}
	fs := newFlagSet(name, name+" --register FILE", example, stderr)
	path := fs.String("register", "", "the decision register `FILE` (JSON Lines, one canonical record a line) (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, *path); err != nil {
		return err
	}
	f, err := os.Open(*path)
	if err != nil {
		return fmt.Errorf("open register: %w", err)
	}
	defer f.Close()
	store, err := register.Load(ctx, f)
	if err != nil {
		return fmt.Errorf("load register: %w", err)
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
