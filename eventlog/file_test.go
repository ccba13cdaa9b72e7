package eventlog_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/eventlog"
)

// fill appends the samples to a new file store at path and closes it.
func fill(t *testing.T, path string) []eventlog.Event {
	t.Helper()
	s, err := eventlog.OpenFileStore(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	events := sampleLog(t)
	for _, e := range events {
		if err := s.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return events
}

func TestFileStore_Reopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	want := fill(t, path)
	s, err := eventlog.OpenFileStore(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := eventlog.ReadAll(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || s.Len() != len(want) {
		t.Errorf("reopened store holds %d events, differing from the %d appended", len(got), len(want))
	}
	// A Log over it continues the run's seqs.
	l, err := eventlog.NewLog(t.Context(), s, &eventlog.Options{Seed: 7, Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := l.Append(t.Context(), eventlog.Entry{Producer: "pipeline", Time: 9, Payload: abstain("q")})
	if err != nil || e.Seq != int64(len(want)+1) {
		t.Errorf("append after reopen: seq %d, %v; want %d", e.Seq, err, len(want)+1)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), e); !errors.Is(err, eventlog.ErrClosed) {
		t.Errorf("append after close: %v; want ErrClosed", err)
	}
}

func TestFileStore_Damage(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(b []byte) []byte
		repair   bool
		wantErr  error
		wantLine int // for ErrCorrupt
		wantLen  int // events after a successful open
	}{
		{"torn tail refused", func(b []byte) []byte { return append(b, `{"id":"evt-0`...) }, false, eventlog.ErrTornTail, 0, 0},
		{"torn tail repaired", func(b []byte) []byte { return append(b, `{"id":"evt-0`...) }, true, nil, 0, 14},
		{"complete last line without newline is torn", func(b []byte) []byte {
			lines := strings.SplitAfter(string(b), "\n")
			last := lines[len(lines)-2]
			return append(b, strings.TrimSuffix(last, "\n")...)
		}, true, nil, 0, 14},
		{"corrupt last line with its newline is never repaired", func(b []byte) []byte { return append(b, "{\"id\":1}\n"...) }, true, eventlog.ErrCorrupt, 14, 0},
		{"corrupt middle line", func(b []byte) []byte {
			i := strings.Index(string(b), "\n")
			return append(append(append([]byte{}, b[:i+1]...), "garbage\n"...), b[i+1:]...)
		}, true, eventlog.ErrCorrupt, 1, 0},
		{"a flipped byte inside a line", func(b []byte) []byte {
			i := strings.Index(string(b), `"seq":3`)
			b[i+6] = '4'
			return b
		}, false, nil, 0, 14}, // decodes: Verify, not the store, catches the broken seq
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.jsonl")
			fill(t, path)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			intact := len(b)
			if err := os.WriteFile(path, tt.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := eventlog.OpenFileStore(t.Context(), path, &eventlog.FileOptions{RepairTornTail: tt.repair})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("open = %v; want %v", err, tt.wantErr)
			}
			var le *eventlog.LineError
			if errors.As(err, &le) && le.Line != tt.wantLine {
				t.Errorf("corrupt line %d; want %d", le.Line, tt.wantLine)
			}
			var te *eventlog.TailError
			if errors.As(err, &te) && te.Offset != int64(intact) {
				t.Errorf("torn tail at %d; want %d", te.Offset, intact)
			}
			if err != nil {
				return
			}
			defer s.Close()
			if s.Len() != tt.wantLen {
				t.Errorf("%d events; want %d", s.Len(), tt.wantLen)
			}
			if tt.repair && s.Repaired == nil && strings.Contains(tt.name, "torn") {
				t.Error("repair not reported")
			}
			if info, _ := os.Stat(path); tt.repair && info.Size() != int64(intact) {
				t.Errorf("file is %d bytes after repair; want %d", info.Size(), intact)
			}
		})
	}
}

// TestFileStore_KillDuringAppend: a child process appends as fast as it
// can and prints each seq once Append acknowledged it; it is killed with
// SIGKILL. Reopening (repairing a torn tail) finds every acknowledged
// event, and the file verifies.
func TestFileStore_KillDuringAppend(t *testing.T) {
	if path := os.Getenv("EVENTLOG_CRASH_CHILD"); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	for round := range 3 {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestFileStore_KillDuringAppend$")
		cmd.Env = append(os.Environ(), "EVENTLOG_CRASH_CHILD="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := 0
		sc := bufio.NewScanner(out)
		var deadline time.Time
		for sc.Scan() {
			n, err := strconv.Atoi(sc.Text())
			if err != nil {
				continue
			}
			if deadline.IsZero() { // the child has started appending
				deadline = time.Now().Add(time.Duration(100+50*round) * time.Millisecond)
			}
			acked = max(acked, n)
			if time.Now().After(deadline) {
				break
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() { // acknowledgements printed before the kill landed
			if n, err := strconv.Atoi(sc.Text()); err == nil {
				acked = max(acked, n)
			}
		}
		cmd.Wait()
		s, err := eventlog.OpenFileStore(t.Context(), path, &eventlog.FileOptions{RepairTornTail: true})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		events, err := eventlog.ReadAll(t.Context(), s)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if acked == 0 {
			t.Fatalf("round %d: the child acknowledged nothing", round)
		}
		if len(events) < acked {
			t.Fatalf("round %d: %d events on disk; %d were acknowledged", round, len(events), acked)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eventlog.Verify(t.Context(), f, nil)
		f.Close()
		if err != nil || rep.Events != len(events) {
			t.Fatalf("round %d: verify: %v (%d events)", round, err, rep.Events)
		}
		t.Logf("round %d: %d acknowledged, %d on disk, torn tail repaired: %v", round, acked, len(events), s.Repaired != nil)
	}
}

// crashChild appends until killed, printing the count of acknowledged
// events of this process after each.
func crashChild(path string) {
	ctx := context.Background()
	s, err := eventlog.OpenFileStore(ctx, path, &eventlog.FileOptions{RepairTornTail: true})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	l, err := eventlog.NewLog(ctx, s, &eventlog.Options{Seed: 1, Deterministic: true})
	if err != nil {
		fmt.Println("log:", err)
		os.Exit(2)
	}
	total := s.Len()
	for i := 0; ; i++ {
		q := eventlog.QuestionReceived{QuestionID: fmt.Sprintf("q-%d", i), Surface: "cli", Question: strings.Repeat("how many? ", 1+i%50)}
		if _, err := l.Append(ctx, eventlog.Entry{Producer: "child", Time: int64(total), Payload: q}); err != nil {
			fmt.Println("append:", err)
			os.Exit(2)
		}
		total++
		fmt.Println(total)
	}
}
