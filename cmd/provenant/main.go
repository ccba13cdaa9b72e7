// Command provenant is a grounded-answer engine: it answers questions about
// operational data with facts computed by deterministic code, each carrying
// the events behind it and re-derived before it ships, and abstains when no
// tool covers the question.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first interrupt asks the command to stop; the next one gets the
	// default action, so a command that cannot stop at once (a read
	// blocked in the kernel, a server draining) still ends without SIGKILL.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	for _, f := range atExit {
		f()
	}
	os.Exit(code)
}

// atExit runs just before main exits; only the profiling build
// (cpuprofile.go) adds to it.
var atExit []func()

func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := Run(ctx, args, stdout, stderr)
	if errors.Is(err, errUsage) {
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "provenant:", err)
		return 1
	}
	return 0
}
