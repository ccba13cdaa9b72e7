package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/eventlog"
)

// startServe starts `provenant serve` (this test binary re-executed as
// main) with extra flags; it is killed at cleanup.
func startServe(t *testing.T, args ...string) (*replica, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "info"}, args...)...)
	cmd.Env = append(os.Environ(), "PROVENANT_RUN_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start serve: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	r := &replica{addr: make(chan string, 1)}
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if !found && json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" && line.Addr != "" {
				found = true
				r.addr <- line.Addr
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	return r, cmd
}

// askHTTP asks one question and returns the answer's outcome and result
// ids, or ok false when no answer came back (the server died).
func askHTTP(base, question string) (outcome string, ids []string, ok bool) {
	body, _ := json.Marshal(map[string]string{"question": question})
	resp, err := http.Post(base+"/v1/ask", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", nil, false
	}
	defer resp.Body.Close()
	var a struct {
		Outcome   string   `json:"outcome"`
		ResultIDs []string `json:"result_ids"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&a) != nil {
		return "", nil, false
	}
	return a.Outcome, a.ResultIDs, true
}

// killUnderLoad has four clients keep asking base the questions in turn,
// SIGKILLs cmd (the server) once 40 answers came back, and returns the
// result ids of the answered ones: what clients were acknowledged.
func killUnderLoad(t *testing.T, cmd *exec.Cmd, base string, questions []string) map[string]bool {
	t.Helper()
	var (
		mu    sync.Mutex
		acked = map[string]bool{} // result ids of answers received
		count int
		wg    sync.WaitGroup
	)
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				outcome, ids, ok := askHTTP(base, questions[(c+i)%len(questions)])
				if !ok {
					return
				}
				mu.Lock()
				count++
				if outcome == "answered" {
					for _, id := range ids {
						acked[id] = true
					}
				}
				mu.Unlock()
			}
		}()
	}
	for {
		mu.Lock()
		n := count
		mu.Unlock()
		if n >= 40 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	cmd.Wait()
	return acked
}

// TestServeLog_CrashKeepsAcknowledgedEvents kills `serve --log` with
// SIGKILL while four clients keep asking, restarts it on the same log,
// and checks that `log verify` passes and that every answer a client
// received has its answer.emitted event in the log: an answer is sent
// only after its events were appended and fsynced.
func TestServeLog_CrashKeepsAcknowledgedEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two serve processes")
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	deadline := time.After(replicaStartTimeout)
	r, cmd := startServe(t, "--log", path)
	base := r.ready(t, deadline)

	questions := stateQuestions[:3] // answerable
	acked := killUnderLoad(t, cmd, base, questions)

	// Restart on the same log (a torn last line, never acknowledged, is
	// truncated) and answer once more.
	r2, _ := startServe(t, "--log", path, "--log-repair")
	base2 := r2.ready(t, time.After(replicaStartTimeout))
	if outcome, _, ok := askHTTP(base2, questions[0]); !ok || outcome != "answered" {
		t.Fatalf("after the restart: %q, %t", outcome, ok)
	}

	out, _, err := runCLI(t, "log", "verify", "--log", path)
	if err != nil {
		t.Fatalf("log verify after the crash: %v", err)
	}
	if !strings.Contains(out, "2 runs") {
		t.Errorf("log verify: %q, want the two processes' runs", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		e, err := eventlog.Decode(line)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type != eventlog.TypeAnswerEmitted {
			continue
		}
		p, _ := e.Decoded()
		for _, id := range p.(eventlog.AnswerEmitted).ResultIDs {
			logged[id] = true
		}
	}
	if len(acked) == 0 {
		t.Fatal("no answer was received before the kill")
	}
	for id := range acked {
		if !logged[id] {
			t.Errorf("answer with result %s was received but its answer.emitted is not in the log", id)
		}
	}
	t.Logf("%d answers received before the kill, all in the log", len(acked))
}
