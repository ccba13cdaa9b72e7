package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain_SecondInterruptEnds: the first interrupt asks a command to
// stop; a second one ends the process at once, even when the command
// cannot stop (here `ask --db` of a named pipe no one writes: DuckDB opens
// its database file itself, in C, and blocks in open(2) where no context
// reaches; a database file is no stream, so this stays). ground --ledger
// and validate --catalog were the examples until they opened their file as
// a stream an interrupt stops (TestFileInputs_NamedPipes). Before, every
// interrupt after the first was caught and ignored: only SIGKILL ended it.
func TestMain_SecondInterruptEnds(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "w.duckdb")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cmd := exec.Command(os.Args[0], "ask", "--log-level", "error", "--catalog", "warehouse", "--db", fifo, "How many zones?")
	cmd.Env = append(os.Environ(), "PROVENANT_RUN_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	// An interrupt every 200 ms, from a second after the start (when the
	// command has long been waiting in DuckDB's open), until the process
	// ends: by the first, the process would exit 1, not by SIGINT.
	time.Sleep(time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(15 * time.Second)
	sent := 0
	for {
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("wait: %v, want an exit by signal", err)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
				t.Errorf("process ended %v, want by SIGINT", err)
			}
			return
		case <-tick.C:
			if err := cmd.Process.Signal(os.Interrupt); err == nil {
				sent++
			}
		case <-deadline:
			t.Fatalf("still running after %d interrupts", sent)
		}
	}
}
