package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// subcommand is one verb of a command group (log, register, memory).
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// runGroup runs the subcommand args[0] names. With none, usage goes to
// standard error and it is a usage error; asked for help, usage goes to
// standard output. An unknown verb is a usage error naming the known
// ones, never the word given.
func runGroup(ctx context.Context, group, usage string, subs []subcommand, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return errHelp
	}
	names := make([]string, len(subs))
	for i, s := range subs {
		if s.name == args[0] {
			return s.run(ctx, args[1:], stdout, stderr)
		}
		names[i] = s.name
	}
	want := strings.Join(names, " or ")
	if len(names) > 2 {
		want = strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	}
	return usagef("%s: unknown subcommand (want %s)", group, want)
}
