// Command provenant is a grounded-answer engine: it answers questions about
// operational data with facts computed by deterministic code, each carrying
// the events behind it and re-derived before it ships, and abstains when no
// tool covers the question.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, errUsage) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "provenant:", err)
		os.Exit(1)
	}
}
