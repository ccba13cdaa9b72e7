// Package govchild lets a store's test binary run itself as a writer
// process: the multi-process and crash tests of eventlog/postgres and
// eventlog/duckdb start copies of their own test binary in child mode
// (TestMain calls Main), which append to the event log and the decision
// register and print every acknowledged id on standard output. The parent
// then checks, on a fresh handle, that both verify, that sequences are
// dense and unique, and that every acknowledged id is there.
package govchild

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/eventlogtest"
	"github.com/provenant/provenant/register"
	"github.com/provenant/provenant/register/registertest"
)

// The variables that put a test binary in child mode.
const (
	EnvMode = "PROVENANT_GOVCHILD_MODE" // "hammer" (N rounds, then exit) or "crash" (until killed)
	EnvID   = "PROVENANT_GOVCHILD_ID"   // the child's number
	EnvN    = "PROVENANT_GOVCHILD_N"    // rounds, for hammer
)

// SharedRun and SharedProducer name the one stream every child appends
// to: each reads the producer's last seq from the store and appends the
// next, retrying when another child took it (eventlog.ErrSequence).
const (
	SharedRun      = "run-shared"
	SharedProducer = "shared"
)

// LastReader is what a store offers a writer that shares a producer with
// other processes.
type LastReader interface {
	Last(ctx context.Context, run, producer string) (seq, time int64, err error)
}

// Opener opens the stores a child writes to, from its environment.
type Opener func(ctx context.Context) (eventlog.Store, register.Store, func(), error)

// Main runs the child if the environment asks for one, and returns its
// exit code and true; otherwise 0 and false.
func Main(open Opener) (int, bool) {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return 0, false
	}
	id, _ := strconv.Atoi(os.Getenv(EnvID))
	n, _ := strconv.Atoi(os.Getenv(EnvN))
	if mode == "crash" {
		n = 1 << 30
	}
	if err := child(context.Background(), open, id, n); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1, true
	}
	return 0, true
}

// child appends, per round, one event of its own run (alternating two
// producers), one event of the shared stream (if the store is a
// LastReader) and one decision record, printing "E id" and "R id" after
// each acknowledgement.
func child(ctx context.Context, open Opener, id, n int) error {
	events, records, closeAll, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	run := fmt.Sprintf("run-child-%d", id)
	l, err := eventlog.NewLog(ctx, events, &eventlog.Options{Run: run, Seed: int64(id), Deterministic: true})
	if err != nil {
		return err
	}
	g, err := register.Open(ctx, records)
	if err != nil {
		return err
	}
	// A child that continues a killed one's run goes on from its logical
	// time, and names its records apart.
	shared, _ := events.(LastReader)
	var base int64
	if shared != nil {
		for _, p := range []string{"pipeline", "budget"} {
			_, tm, err := shared.Last(ctx, run, p)
			if err != nil {
				return err
			}
			base = max(base, tm)
		}
	}
	start := g.Head().Len
	out := bufio.NewWriter(os.Stdout)
	ack := func(kind, id string) {
		fmt.Fprintln(out, kind, id)
		out.Flush()
	}
	for i := range n {
		e, err := l.Append(ctx, eventlog.Entry{Producer: []string{"pipeline", "budget"}[i%2], Time: base + int64(i), Payload: eventlogtest.Payload(i)})
		if err != nil {
			return err
		}
		ack("E", e.ID)
		if shared != nil {
			id, err := appendShared(ctx, events, shared, id, i)
			if err != nil {
				return err
			}
			ack("E", id)
		}
		r, err := g.Append(ctx, registertest.Decision(fmt.Sprintf("c%d-%d-%d", id, start, i), uint64(i)))
		if err != nil {
			return err
		}
		ack("R", r.ID)
	}
	return nil
}

// appendShared appends the next event of the shared stream, trying again
// while other children take the seq first.
func appendShared(ctx context.Context, s eventlog.Store, last LastReader, child, i int) (string, error) {
	for range 1000 {
		seq, tm, err := last.Last(ctx, SharedRun, SharedProducer)
		if err != nil {
			return "", err
		}
		env := eventlog.Envelope{Run: SharedRun, Producer: SharedProducer, Seq: seq + 1, Time: tm, Correlation: fmt.Sprintf("child-%d", child)}
		env.ID = eventlog.EventID(0, env.Run, env.Producer, env.Seq)
		e, err := eventlog.NewEvent(env, eventlogtest.Payload(i))
		if err != nil {
			return "", err
		}
		err = s.Append(ctx, e)
		if err == nil {
			return e.ID, nil
		}
		if !errors.Is(err, eventlog.ErrSequence) {
			return "", err
		}
	}
	return "", errors.New("shared stream: 1000 tries")
}

// Child is a running child process.
type Child struct {
	Cmd    *exec.Cmd
	Out    *bufio.Scanner
	Stderr *bytes.Buffer
}

// Start runs the current test binary in child mode, with env added (the
// store's place), and no tests of its own.
func Start(t *testing.T, mode string, id, n int, env ...string) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), EnvMode+"="+mode, EnvID+"="+strconv.Itoa(id), EnvN+"="+strconv.Itoa(n))
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return &Child{Cmd: cmd, Out: bufio.NewScanner(stdout), Stderr: &stderr}
}

// Acks are the ids children acknowledged.
type Acks struct {
	Events, Records []string
}

// Read reads ack lines until the output ends or stop returns true.
func (a *Acks) Read(sc *bufio.Scanner, stop func() bool) error {
	for sc.Scan() {
		kind, id, ok := strings.Cut(sc.Text(), " ")
		switch {
		case ok && kind == "E":
			a.Events = append(a.Events, id)
		case ok && kind == "R":
			a.Records = append(a.Records, id)
		default:
			return fmt.Errorf("child printed an unexpected line")
		}
		if stop != nil && stop() {
			return nil
		}
	}
	return sc.Err()
}

// Check fails t unless the stores verify, the event log's sequences are
// dense and unique, and every acknowledged id is stored; with exact, the
// stores also hold nothing else.
func Check(t *testing.T, events eventlog.Store, records register.Store, acks Acks, exact bool) {
	t.Helper()
	ctx := t.Context()
	all, err := eventlog.ReadAll(ctx, events)
	if err != nil {
		t.Fatalf("scan events: %v", err)
	}
	eventlogtest.CheckDense(t, all)
	var buf bytes.Buffer
	if _, err := eventlog.Export(ctx, &buf, events); err != nil {
		t.Fatalf("export events: %v", err)
	}
	if _, err := eventlog.Verify(ctx, &buf, &eventlog.VerifyOptions{Canonical: true}); err != nil {
		t.Fatalf("verify events: %v", err)
	}
	head, err := register.Verify(ctx, records)
	if err != nil {
		t.Fatalf("verify register: %v", err)
	}
	stored := map[string]bool{}
	for _, e := range all {
		stored[e.ID] = true
	}
	for _, id := range acks.Events {
		if !stored[id] {
			t.Fatalf("acknowledged event %s is missing", id)
		}
	}
	ids := map[string]bool{}
	err = records.Scan(ctx, 0, func(_ int, r register.Record) error { ids[r.ID] = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range acks.Records {
		if !ids[id] {
			t.Fatalf("acknowledged record %s is missing", id)
		}
	}
	if exact && (len(all) != len(acks.Events) || head.Len != len(acks.Records)) {
		t.Fatalf("stored %d events and %d records; the children acknowledged %d and %d", len(all), head.Len, len(acks.Events), len(acks.Records))
	}
	t.Logf("%d events and %d records stored, %d and %d acknowledged; register head %s", len(all), head.Len, len(acks.Events), len(acks.Records), head.Hash[:12])
}
