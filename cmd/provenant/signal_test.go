package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// hangCommand is a command of the test binary alone that cannot stop: it
// opens the named pipe its argument names with open(2) itself, deaf to
// its context, and waits there for a writer that never comes.
const hangCommand = "test-hang"

func init() {
	testCommands = map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		hangCommand: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			if len(args) != 1 {
				return usagef("%s: want PIPE", hangCommand)
			}
			fd, err := syscall.Open(args[0], syscall.O_RDONLY, 0)
			if err != nil {
				return err
			}
			return syscall.Close(fd)
		},
	}
}

// TestMain_SecondInterruptEnds: the first interrupt asks a command to
// stop; a second one ends the process at once, even when the command
// cannot stop (here the test binary's hangCommand, blocked in open(2) on
// a named pipe no one writes, where no context reaches). ground --ledger
// and validate --catalog were the examples until they opened their file as
// a stream an interrupt stops (TestFileInputs_NamedPipes), and `ask --db`
// of a named pipe (DuckDB opening it in C) until --db refused a file that
// is not a regular one (TestDBFlags_NotRegular). Before, every interrupt
// after the first was caught and ignored: only SIGKILL ended it.
func TestMain_SecondInterruptEnds(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Whatever happened, no open stays blocked.
	defer func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}()
	cmd := exec.Command(os.Args[0], hangCommand, fifo)
	cmd.Env = append(os.Environ(), "PROVENANT_RUN_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	// An interrupt every 200 ms, from a second after the start (when the
	// command has long been waiting in open), until the process ends: by
	// the first, the process would exit 1, not by SIGINT.
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
			if sent < 2 {
				t.Errorf("ended after %d interrupt(s), want the second to end it", sent)
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
