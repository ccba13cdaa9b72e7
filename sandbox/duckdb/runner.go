package duckdb

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/provenant/provenant/sandbox"
)

// Options configure a Runner or a Validator; nil means defaults.
type Options struct {
	// Env is the worker's whole environment; nil is an empty one (the
	// worker needs none, and a statement could not read it anyway).
	Env []string
	// Limits; the zero value is sandbox.DefaultLimits.
	Limits sandbox.Limits
	// Logger; nil discards. It logs each statement's SHA-256, never its
	// text.
	Logger *slog.Logger
	// Warm is how many workers the runner keeps started ahead of need,
	// each having opened the snapshot and locked its connection, waiting
	// for its one statement: the process start leaves the statement's
	// path. 0 starts a worker per statement. Each still runs one
	// statement and exits.
	Warm int

	command []string
}

// Runner runs free SQL: validated in this process, then executed by a
// worker process on a snapshot. It is safe for concurrent use; Close
// must not run concurrently with Run.
type Runner struct {
	snap *Snapshot
	val  *Validator
	opts Options

	spares chan *worker // warm workers, at most Options.Warm
	mu     sync.Mutex   // held while refilling; guards closed
	closed bool
	wg     sync.WaitGroup
}

// NewRunner returns a runner over snap, whose tables are the allowlist;
// command is the worker's command line: the binary and its hidden
// subcommand (cmd/provenant: os.Executable() and "sql-worker"). Closing
// the runner does not close the snapshot.
func NewRunner(ctx context.Context, snap *Snapshot, command []string, opts *Options) (*Runner, error) {
	if len(command) == 0 {
		panic("sandbox/duckdb: NewRunner needs the worker's command")
	}
	o := withDefaults(opts)
	o.command = command
	v, err := NewValidator(ctx, sandbox.NewPolicy(snap.Tables), &o)
	if err != nil {
		return nil, err
	}
	r := &Runner{snap: snap, val: v, opts: o, spares: make(chan *worker, o.Warm)}
	r.refill()
	return r, nil
}

// withDefaults copies opts (nil is the zero Options) with defaults filled.
func withDefaults(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Limits == (sandbox.Limits{}) {
		o.Limits = sandbox.DefaultLimits()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Env == nil {
		o.Env = []string{}
	}
	o.Warm = max(o.Warm, 0)
	return o
}

// Close kills the warm workers and releases the validator.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
	for {
		select {
		case w := <-r.spares:
			w.kill()
		default:
			return r.val.Close()
		}
	}
}

// Limits returns the runner's limits.
func (r *Runner) Limits() sandbox.Limits { return r.opts.Limits }

// Hash is the statement's SHA-256 in hex: what the log keeps of it.
func Hash(stmt string) string {
	h := sha256.Sum256([]byte(stmt))
	return hex.EncodeToString(h[:])
}

// Run validates stmt and, when it passes, executes it in a worker. The
// result says what became of it; the error is the runner's own failure
// (the validator's database, the context), never the statement's.
func (r *Runner) Run(ctx context.Context, stmt string) (sandbox.Result, error) {
	start := time.Now()
	res, err := r.run(ctx, stmt)
	attrs := []any{"sql_sha256", Hash(stmt), "outcome", res.Outcome, "duration_ms", time.Since(start).Milliseconds()}
	if res.Rejection != nil {
		attrs = append(attrs, "layer", res.Rejection.Layer, "class", res.Rejection.Class, "kind", res.Rejection.Kind)
	}
	if err != nil {
		r.opts.Logger.Error("sandbox statement failed", append(attrs, "err", err)...)
	} else {
		r.opts.Logger.Info("sandbox statement", attrs...)
	}
	return res, err
}

func (r *Runner) run(ctx context.Context, stmt string) (sandbox.Result, error) {
	if err := r.val.Validate(ctx, stmt); err != nil {
		var rej *sandbox.Rejection
		if errors.As(err, &rej) {
			return sandbox.Result{Outcome: rej.Outcome(), Rejection: rej}, nil
		}
		return sandbox.Result{Outcome: sandbox.OutcomeError}, err
	}
	return r.Execute(ctx, stmt)
}

// Execute runs stmt in a worker without validating it here first (the
// worker validates it again itself). Tests use it to reach the worker's
// own checks; Run is the path for callers.
func (r *Runner) Execute(ctx context.Context, stmt string) (sandbox.Result, error) {
	w, err := r.take()
	if err != nil {
		return sandbox.Result{Outcome: sandbox.OutcomeError}, err
	}
	defer r.refill()
	return w.execute(ctx, stmt, r.opts.Limits.WallClock)
}

// worker is one started worker process that has been sent its Request
// and waits for its Statement.
type worker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	reply chan []byte // the first line it writes, or nil
	done  chan error  // the process's exit
}

// start starts a worker and sends it the Request: it opens the snapshot
// and locks its connection while no statement waits for it.
func (r *Runner) start() (*worker, error) {
	req, err := json.Marshal(Request{DB: r.snap.Path, Tables: r.snap.Tables, Limits: r.opts.Limits})
	if err != nil {
		return nil, fmt.Errorf("encode sandbox request: %w", err)
	}
	cmd := exec.Command(r.opts.command[0], r.opts.command[1:]...)
	cmd.Env = r.opts.Env
	cmd.Dir = os.TempDir()
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox worker: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox worker: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start sandbox worker: %w", err)
	}
	w := &worker{cmd: cmd, stdin: stdin, reply: make(chan []byte, 1), done: make(chan error, 1)}
	limit := int64(2*r.opts.Limits.MaxBytes + 1<<20)
	go func() {
		// The answer is the first line, read as soon as it is written:
		// the worker's exit is not waited for.
		line, err := bufio.NewReader(io.LimitReader(stdout, limit)).ReadBytes('\n')
		if err != nil {
			line = nil
		}
		w.reply <- line
		io.Copy(io.Discard, stdout)
		w.done <- cmd.Wait()
	}()
	// A worker that died already fails its statement, not this write.
	stdin.Write(append(req, '\n'))
	return w, nil
}

// kill ends the worker and waits for it.
func (w *worker) kill() {
	w.cmd.Process.Kill()
	w.stdin.Close()
	<-w.done
}

// execute sends the statement and reads the answer, killing the worker
// at the wall clock or when ctx ends.
func (w *worker) execute(ctx context.Context, stmt string, wall time.Duration) (sandbox.Result, error) {
	b, err := json.Marshal(Statement{SQL: stmt})
	if err != nil {
		w.kill()
		return sandbox.Result{Outcome: sandbox.OutcomeError}, fmt.Errorf("encode sandbox statement: %w", err)
	}
	w.stdin.Write(append(b, '\n'))
	w.stdin.Close()
	timer := time.NewTimer(wall)
	defer timer.Stop()
	var line []byte
	select {
	case line = <-w.reply:
	case <-timer.C:
		w.kill()
		rej := &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassBudgetExceeded, Kind: "wall_clock", Position: sandbox.NoPosition}
		return sandbox.Result{Outcome: sandbox.OutcomeError, Rejection: rej}, nil
	case <-ctx.Done():
		w.kill()
		return sandbox.Result{Outcome: sandbox.OutcomeError}, fmt.Errorf("run sandbox worker: %w", ctx.Err())
	}
	go func() { <-w.done }() // the worker exits by itself after answering
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil || line == nil {
		// The worker died (a crash, the memory limit of the OS) or wrote
		// something else: the statement is an error, not a verdict.
		rej := &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassSQLError, Kind: "worker", Position: sandbox.NoPosition}
		return sandbox.Result{Outcome: sandbox.OutcomeError, Rejection: rej}, nil
	}
	return resp.result(), nil
}

// take returns a warm worker if one waits, else starts one.
func (r *Runner) take() (*worker, error) {
	select {
	case w := <-r.spares:
		return w, nil
	default:
		return r.start()
	}
}

// refill starts workers until Options.Warm of them wait, in the
// background.
func (r *Runner) refill() {
	if r.opts.Warm == 0 {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.mu.Lock()
		defer r.mu.Unlock()
		for !r.closed && len(r.spares) < r.opts.Warm {
			w, err := r.start()
			if err != nil {
				r.opts.Logger.Error("start sandbox worker", "err", err)
				return
			}
			r.spares <- w
		}
	}()
}
