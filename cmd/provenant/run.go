package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"
)

var (
	// errUsage reports bad flags or arguments: the process exits 2. A
	// *usageError carries the message; a bare errUsage follows a usage the
	// command has printed itself.
	errUsage = errors.New("usage")
	// errHelp stops a command after its usage was printed on request.
	errHelp = errors.New("help requested")
)

// usageError is a bad flag or argument. Its message names the flag or the
// argument and never repeats a rejected value. It matches errUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

// usagef returns a *usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// command is one subcommand. args names its positional argument (all the
// words after the flags, joined), or is "" when it takes none.
type command struct{ name, summary, args string }

// commands lists the subcommands in the order the usage shows them;
// dispatch runs them.
var commands = []command{
	{"ask", "answer one question", "QUESTION"},
	{"serve", "serve the HTTP API", ""},
	{"eval", "run the gold set through the pipeline and score it", ""},
	{"gen", "write a store file (the demo store by default)", ""},
	{"ground", "check that every numeral in a text is backed by a ledger", "TEXT"},
	{"load", "drive concurrent questions through the pipeline and report latency", ""},
	{"mcp", "serve the Model Context Protocol on standard input and output", ""},
	{"validate", "check a catalog file and report every error with its position", ""},
	{"import", "validate JSON Lines, CSV or Parquet rows and append them to a dataset in one transaction", "INPUT..."},
	{"sql", "run one SQL statement in the sandbox, as a model's free SQL would run, and print one JSON object", "STATEMENT"},
	{"log", "export or verify an event log (log export, log verify)", "SUBCOMMAND"},
	{"register", "verify or export a decision register (register verify, register export)", "SUBCOMMAND"},
	{"approve", "grant a session named tools at a higher autonomy tier, as the local operator (for --grants)", ""},
	{"version", "print the version and VCS revision", ""},
	{"memory", "remember, annotate and recall an agent's notes (add, annotate, recall)", "SUBCOMMAND"},
}

// testCommands are hidden commands only the package's test binary has
// (signal_test.go); the command has none.
var testCommands map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// dispatch runs the named command, or reports it unknown.
func dispatch(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	switch name {
	case "ask":
		return runAsk(ctx, args, stdout, stderr)
	case "serve":
		return runServe(ctx, args, stdout, stderr)
	case "eval":
		return runEval(ctx, args, stdout, stderr)
	case "gen":
		return runGen(ctx, args, stdout, stderr)
	case "ground":
		return runGround(ctx, args, stdout, stderr)
	case "load":
		return runLoad(ctx, args, stdout, stderr)
	case "mcp":
		return runMCP(ctx, args, stdout, stderr)
	case "validate":
		return runValidate(ctx, args, stdout, stderr)
	case "import":
		return runImport(ctx, args, stdout, stderr)
	case "sql":
		return runSQL(ctx, args, stdout, stderr)
	case "log":
		return runLog(ctx, args, stdout, stderr)
	case "register":
		return runRegister(ctx, args, stdout, stderr)
	case "approve":
		return runApprove(ctx, args, stdout, stderr)
	case "memory":
		return runMemory(ctx, args, stdout, stderr)
	case workerSubcommand: // hidden: the sandbox's worker process
		return runSQLWorker(ctx, args)
	}
	if run, ok := testCommands[name]; ok {
		return run(ctx, args, stdout, stderr)
	}
	return usagef("unknown command (want one of %s)", commandNames())
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage() string {
	var b strings.Builder
	b.WriteString("provenant answers questions about operational data with grounded facts.\n\nUsage:\n" +
		"  provenant <command> [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-10s%s\n", c.name, c.summary)
	}
	b.WriteString("\nFlags may come before or after the arguments; \"--\" ends the flags, so a\n" +
		"question that starts with \"-\" goes after it. Run \"provenant help <command>\"\n" +
		"for a command's flags. Exit status: 0 ran (whatever the outcome), 1 could\n" +
		"not run, 2 bad flags or arguments.\n")
	return b.String()
}

// Run executes one command line. It is main without the exit: a
// *usageError's message is printed on stderr here, other errors are the
// caller's to print.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := run(ctx, args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if ue := (*usageError)(nil); errors.As(err, &ue) {
		name := "provenant"
		if len(args) > 0 {
			if c, ok := lookupCommand(args[0]); ok {
				name += " " + c.name
			}
		}
		fmt.Fprintf(stderr, "%s: %s\n", name, ue.msg)
		if name != "provenant" {
			fmt.Fprintf(stderr, "Run \"%s -h\" for its flags and an example.\n", name)
		} else {
			fmt.Fprintln(stderr, "Run \"provenant help\" for the commands.")
		}
	}
	return err
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return errUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			fmt.Fprint(stdout, usage())
			return nil
		}
		if _, ok := lookupCommand(rest[0]); !ok || len(rest) > 1 {
			return usagef("help: unknown command (want one of %s)", commandNames())
		}
		// The command's own usage, on standard output as asked.
		return run(ctx, []string{rest[0], "-h"}, stdout, stdout)
	case "version", "-version", "--version":
		if len(rest) > 0 {
			return usagef("version takes no arguments")
		}
		_, err := fmt.Fprintln(stdout, version())
		return err
	}
	return dispatch(ctx, name, rest, stdout, stderr)
}

func commandNames() string {
	names := make([]string, 0, len(commands))
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// version is the module version and VCS revision the binary was built
// from, as the Go toolchain recorded them (go build stamps both; go run
// and go test stamp neither).
func version() string {
	v, rev, modified, at := "(devel)", "unknown", "", ""
	goVersion := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			case "vcs.time":
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					at = ", " + t.UTC().Format(time.RFC3339)
				}
			}
		}
	}
	if goVersion != "" {
		goVersion = ", " + goVersion
	}
	return fmt.Sprintf("provenant %s (revision %s%s%s%s)", v, rev, modified, at, goVersion)
}

// newFlagSet returns a flag set that prints its usage with an example.
// Parse it with parseFlags.
func newFlagSet(name, synopsis, example string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: provenant %s\n\n", synopsis)
		printFlags(stderr, fs)
		fmt.Fprintf(stderr, "\nExample:\n  %s\n", example)
	}
	return fs
}

// printFlags prints each flag with its help, and its default value unless
// the help already names the default in words.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		if !strings.Contains(help, "default") && !isZeroDefault(f) {
			if _, ok := f.Value.(flag.Getter).Get().(string); ok {
				help += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				help += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(help, "\n", "\n    \t"))
	})
}

func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return true
	}
	return false
}

// parseFlags parses a command line whose flags may stand anywhere: before,
// between or after the positional words, which are joined by the caller.
// "--" ends the flags, so text that starts with "-" can follow it. A flag
// is never folded into the text: an unknown one is a usage error. It then
// checks the positional words against the command's declaration: present
// when the command takes them, absent when it does not.
//
// A flag given twice is a usage error: one value would silently replace
// the other (Go's flag package keeps the last), and a reader of
// "--scope a --scope b" could take it for both.
//
// Messages name the flag and never repeat a value.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var pos []string
	seen := make(map[string]bool)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name := strings.TrimPrefix(a[1:], "-")
		name, value, hasValue := strings.Cut(name, "=")
		if name == "h" || name == "help" {
			fs.Usage()
			return errHelp
		}
		f := fs.Lookup(name)
		if f == nil || name == "" || name[0] == '-' {
			return usagef("unknown flag %s (text that starts with \"-\" goes after \"--\")", safeFlagName(name))
		}
		if seen[f.Name] {
			return usagef("--%s given more than once (give it once)", f.Name)
		}
		seen[f.Name] = true
		if !hasValue {
			if isBoolFlag(f) {
				value = "true"
			} else {
				if i+1 == len(args) {
					return usagef("--%s needs a value", f.Name)
				}
				i++
				value = args[i]
			}
		}
		if value == "" && !isBoolFlag(f) {
			// An empty value, typically an unset shell variable
			// (--catalog=$CATALOG), would read as the flag left out, and
			// a command would answer from its default (the demo's data)
			// while the caller meant their own.
			return usagef("--%s: empty value (leave the flag out for its default)", f.Name)
		}
		if err := fs.Set(f.Name, value); err != nil {
			if errors.Is(err, errNotRegular) {
				return usagef("--%s: %v", f.Name, err)
			}
			return usagef("--%s: want %s", f.Name, valueKind(f))
		}
	}
	// Mark the set parsed, with pos as its arguments.
	if err := fs.Parse(append([]string{"--"}, pos...)); err != nil {
		return usagef("parse flags: %v", err)
	}
	if c, ok := lookupCommand(fs.Name()); ok {
		switch {
		case c.args == "" && len(pos) > 0:
			return usagef("unexpected argument (%s takes only flags; text that starts with \"-\" is a flag)", c.name)
		case c.args != "" && len(pos) == 0:
			return usagef("missing %s", c.args)
		}
	}
	return nil
}

// safeFlagName returns an unknown flag's name for a message: "--" and the
// name when it is short and printable, else a placeholder.
func safeFlagName(name string) string {
	if name == "" || len(name) > 32 || !utf8.ValidString(name) {
		return "(not shown)"
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "(not shown)"
		}
	}
	return "--" + name
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// valueKind says what a flag's value must look like.
func valueKind(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a valid value"
	}
	switch g.Get().(type) {
	case bool:
		return "true or false"
	case int, int64:
		return "an integer"
	case uint, uint64:
		return "a non-negative integer"
	case float64:
		return "a number"
	case time.Duration:
		return "a duration such as 500ms, 5s or 2m"
	}
	return "a valid value"
}

// newLogger builds the process logger: JSON lines on w at the given level.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, usagef("--log-level: want debug, info, warn or error")
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}
