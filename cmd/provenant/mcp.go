package main

import (
	"context"
	"io"

	"github.com/provenant/provenant/mcpserver"
)

func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", "mcp [flags]",
		`provenant mcp --store scans.json   (Claude Desktop: {"mcpServers": {"provenant": {"command": "provenant", "args": ["mcp"]}}})`, stderr)
	var ef engineFlags
	ef.register(fs)
	ef.gov.register(fs, surfaceMCP)
	ef.wallClock = true // a server reads the clock as each question arrives
	var mem servedMemory
	mem.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	svc, err := mem.service(ctx, ef.postgres)
	if err != nil {
		return err
	}
	defer mem.Close()
	if err := ef.gov.open(ctx, &ef); err != nil {
		return err
	}
	defer ef.gov.close()
	// Standard output carries the protocol: logs go to standard error.
	logger, e, err := ef.start(ctx, stderr)
	if err != nil {
		return err
	}
	defer e.Close()
	opts := &mcpserver.Options{Logger: logger, Rows: e.RowPager()}
	if svc != nil {
		opts.Memory = &mcpserver.MemoryOptions{Service: svc, Agent: mem.jf.agent}
	}
	return mcpserver.ServeStdio(ctx, mcpserver.New(e.Pipeline, e, opts))
}
