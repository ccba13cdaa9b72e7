// Command record runs a measurement command a number of times and writes
// its standard output, under a header describing the machine and the
// commit, as a record package bench reads (format in bench/doc.go):
//
//	go run ./bench/record -o bench/results/load-demo.txt -runs 3 -- go run ./cmd/provenant load --json
//
// The command runs from the current directory; its standard error passes
// through. A run that fails stops the recording and writes nothing.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/provenant/provenant/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	out := fs.String("o", "", "record `FILE` to write (required)")
	runs := fs.Int("runs", 1, "times to run the command (1 to 100)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cmd := fs.Args()
	if *out == "" || len(cmd) == 0 || *runs < 1 || *runs > 100 {
		return fmt.Errorf("usage: record -o FILE [-runs N] -- COMMAND [ARGS...]")
	}
	rec := &bench.Record{Header: bench.Header{
		Command: shellJoin(cmd),
		Date:    time.Now().UTC().Format(time.RFC3339),
		Go:      runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		CPU:     cpuModel(),
		Cores:   runtime.NumCPU(),
	}}
	rec.Commit = strings.TrimSpace(output(ctx, "git", "rev-parse", "--short", "HEAD"))
	if rec.Commit == "" {
		rec.Commit = "unknown"
	}
	rec.Modified = strings.TrimSpace(output(ctx, "git", "status", "--porcelain", "--untracked-files=no")) != ""
	rec.LoadavgBefore = loadavg()
	for i := range *runs {
		var stdout bytes.Buffer
		c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
		c.Stdout, c.Stderr = &stdout, os.Stderr
		if err := c.Run(); err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		rec.Outputs = append(rec.Outputs, stdout.String())
	}
	rec.LoadavgAfter = loadavg()
	rec.Runs = len(rec.Outputs)
	var buf bytes.Buffer
	if err := bench.Write(&buf, rec); err != nil {
		return err
	}
	if _, err := bench.Parse(bytes.NewReader(buf.Bytes())); err != nil {
		return fmt.Errorf("check record: %w", err)
	}
	return os.WriteFile(*out, buf.Bytes(), 0o644)
}

func output(ctx context.Context, name string, args ...string) string {
	b, _ := exec.CommandContext(ctx, name, args...).Output()
	return string(b)
}

// loadavg is the first three fields of /proc/loadavg, or "unknown".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// shellJoin joins args as a shell command line that gives back the same
// words: a word with anything but letters, digits and _./=:,@%+- is put in
// single quotes.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		safe := a != ""
		for _, r := range a {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./=:,@%+-", r)) {
				safe = false
				break
			}
		}
		if safe {
			quoted[i] = a
		} else {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
