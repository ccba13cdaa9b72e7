package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest/ingesttest"
)

// TestDBFlags_NotRegular: a flag naming a DuckDB database file (--db of
// every command that takes it, --journal, --state-db duckdb:PATH) that
// names a named pipe, a directory or a device is a usage error naming the
// flag, before DuckDB opens it. Before, DuckDB opened it itself, in C: a
// named pipe no one writes blocked the command in open(2), deaf to the
// interrupt, and a directory or a device gave DuckDB's message quoting
// the path.
func TestDBFlags_NotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "w.duckdb")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Whatever a command did, no open stays blocked.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link.duckdb")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	cat := ingesttest.WarehouseCatalogFile(t)
	csv := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(csv, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args func(path string) []string
		flag string
	}{
		{"ask --db", func(p string) []string {
			return []string{"ask", "--log-level", "error", "--catalog", "warehouse", "--db", p, "How many zones?"}
		}, "--db"},
		{"serve --db", func(p string) []string {
			return []string{"serve", "--addr", "127.0.0.1:0", "--catalog", "warehouse", "--db", p}
		}, "--db"},
		{"mcp --db", func(p string) []string { return []string{"mcp", "--catalog", "warehouse", "--db", p} }, "--db"},
		{"eval --db", func(p string) []string { return []string{"eval", "--catalog", "warehouse", "--db", p} }, "--db"},
		{"import --db", func(p string) []string {
			return []string{"import", "--catalog", cat, "--dataset", "status_events", "--db", p, csv}
		}, "--db"},
		{"sql --db", func(p string) []string { return []string{"sql", "--catalog", "warehouse", "--db", p, "SELECT 1"} }, "--db"},
		{"memory recall --journal", func(p string) []string {
			return []string{"memory", "recall", "--journal", p, "--agent", "a", "--subject", "s"}
		}, "--journal"},
		{"mcp --memory --journal", func(p string) []string { return []string{"mcp", "--memory", "--journal", p} }, "--journal"},
		{"ask --state-db duckdb:", func(p string) []string {
			return []string{"ask", "--log-level", "error", "--state-db", "duckdb:" + p, "How many products are there?"}
		}, "--state-db: duckdb"},
		{"log verify --state-db duckdb:", func(p string) []string {
			return []string{"log", "verify", "--state-db", "duckdb:" + p}
		}, "--state-db: duckdb"},
	}
	for _, tt := range tests {
		for _, f := range []struct{ kind, path string }{
			{"named pipe", fifo}, {"link to a named pipe", link}, {"directory", dir}, {"device", os.DevNull},
		} {
			t.Run(tt.name+", "+f.kind, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				args := tt.args(f.path)
				var stdout, stderr bytes.Buffer
				done := make(chan int, 1)
				go func() { done <- runMain(ctx, args, &stdout, &stderr) }()
				var code int
				select {
				case code = <-done:
				case <-time.After(15 * time.Second):
					// Blocked where the context does not reach: let
					// the open go on.
					if w, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
						defer w.Close()
					}
					t.Fatal("still running 15 s after the start")
				}
				if code != 2 {
					t.Errorf("exit %d, want 2 (stderr %q)", code, stderr.String())
				}
				first, _, _ := strings.Cut(stderr.String(), "\n")
				if !strings.HasSuffix(first, ": "+tt.flag+": not a regular file") {
					t.Errorf("stderr = %q, want a first line ending %q", stderr.String(), tt.flag+": not a regular file")
				}
				if strings.Contains(stderr.String(), f.path) || stdout.Len() > 0 {
					t.Errorf("stdout %q, stderr %q: want nothing but the message, which names no path", stdout.String(), stderr.String())
				}
			})
		}
	}
}
