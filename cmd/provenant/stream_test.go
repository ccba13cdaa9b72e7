package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest/ingesttest"
)

// TestFileInputs_NamedPipes: validate --catalog, log verify --log and
// --against, register verify and export --register, and import --catalog
// read a named pipe (or a process substitution) once, as a stream, and
// an interrupt ends a wait for its writer or for its writer's bytes.
// Before, each opened its file with os.Open: a named pipe no one writes
// blocked the command in open(2), deaf to the interrupt.
func TestFileInputs_NamedPipes(t *testing.T) {
	cat := ingesttest.WarehouseCatalogFile(t)
	catBody, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := os.ReadFile(filepath.Join("..", "..", "register", "testdata", "v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	emptyLog := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(emptyLog, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(csv, ingesttest.DemoCSV(t, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	// pipe makes a named pipe in dir (the catalog's, for its fixtures).
	pipe := func(t *testing.T, dir string) string {
		t.Helper()
		n++
		p := filepath.Join(dir, "pipe"+itoa(n))
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no named pipes: %v", err)
		}
		// Whatever the command did, no writer stays blocked.
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			os.Remove(p)
		})
		return p
	}
	write := func(p string, body []byte) {
		go func() {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Write(body)
				f.Close()
			}
		}()
	}
	// hold opens p for writing and writes nothing until the test ends.
	hold := func(t *testing.T, p string) {
		go func() {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				<-t.Context().Done()
				f.Close()
			}
		}()
	}
	const canceled = "context canceled"

	tests := []struct {
		name      string
		args      func(t *testing.T) []string
		interrupt bool // cancel the command's context after 300 ms
		wantCode  int
		wantOut   string // a regular expression
		wantErr   string // stderr, exactly
	}{
		{name: "validate, no writer", interrupt: true, wantCode: 1,
			args:    func(t *testing.T) []string { return []string{"validate", "--catalog", pipe(t, t.TempDir())} },
			wantErr: "provenant: open catalog file: " + canceled + "\n"},
		{name: "validate, a writer that writes nothing", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				hold(t, p)
				return []string{"validate", "--catalog", p}
			}},
		{name: "validate, written to",
			args: func(t *testing.T) []string {
				p := pipe(t, filepath.Dir(cat))
				write(p, catBody)
				return []string{"validate", "--catalog", p}
			},
			wantOut: `: valid \(catalog `},
		{name: "import --catalog, no writer", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				return []string{"import", "--catalog", pipe(t, t.TempDir()), "--dataset", "status_events",
					"--db", filepath.Join(t.TempDir(), "w.duckdb"), csv}
			},
			wantErr: "provenant: open catalog file: " + canceled + "\n"},
		{name: "log verify, no writer", interrupt: true, wantCode: 1,
			args:    func(t *testing.T) []string { return []string{"log", "verify", "--log", pipe(t, t.TempDir())} },
			wantErr: "provenant: open event log: " + canceled + "\n"},
		{name: "log verify, a writer that writes nothing", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				hold(t, p)
				return []string{"log", "verify", "--log", p}
			},
			wantErr: "provenant: verify event log: " + canceled + "\n"},
		{name: "log verify, written to",
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				write(p, nil)
				return []string{"log", "verify", "--log", p}
			},
			wantOut: `^ok: 0 events, 0 runs, log hash [0-9a-f]{64}\n$`},
		{name: "log verify --against, no writer", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				return []string{"log", "verify", "--log", emptyLog, "--against", pipe(t, t.TempDir())}
			},
			wantErr: "provenant: open reference log: " + canceled + "\n"},
		{name: "register verify, no writer", interrupt: true, wantCode: 1,
			args:    func(t *testing.T) []string { return []string{"register", "verify", "--register", pipe(t, t.TempDir())} },
			wantErr: "provenant: open register: " + canceled + "\n"},
		{name: "register export, a writer that writes nothing", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				hold(t, p)
				return []string{"register", "export", "--register", p}
			}},
		{name: "register verify, written to",
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				write(p, reg)
				return []string{"register", "verify", "--register", p}
			},
			wantOut: `^ok: \d+ records, head [0-9a-f]{64}\n$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.interrupt {
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- runMain(ctx, args, &stdout, &stderr) }()
			select {
			case code := <-done:
				if code != tt.wantCode {
					t.Errorf("exit code %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
				}
			case <-time.After(10 * time.Second):
				// The command is stuck; unblock its open so the test ends.
				for _, a := range args {
					if f, err := os.OpenFile(a, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				}
				t.Fatal("still running 10 s after the start")
			}
			if !regexp.MustCompile(tt.wantOut).MatchString(stdout.String()) || (tt.wantOut == "" && stdout.Len() > 0) {
				t.Errorf("stdout = %q, want a match for %q", stdout.String(), tt.wantOut)
			}
			if tt.wantErr != "" && stderr.String() != tt.wantErr {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantErr)
			}
			if tt.interrupt && !bytes.Contains(stderr.Bytes(), []byte(canceled)) {
				t.Errorf("stderr = %q, want it to say %q", stderr.String(), canceled)
			}
		})
	}
}
