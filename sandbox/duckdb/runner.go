package duckdb

import (
	"bytes"
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

	command []string
}

// Runner runs free SQL: validated in this process, then executed by a
// worker process on a snapshot.
type Runner struct {
	snap   *Snapshot
	val    *Validator
	opts   Options
	policy *sandbox.Policy
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
	policy := sandbox.NewPolicy(snap.Tables)
	v, err := NewValidator(ctx, policy, &o)
	if err != nil {
		return nil, err
	}
	return &Runner{snap: snap, val: v, opts: o, policy: policy}, nil
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
	return o
}

// Close releases the validator.
func (r *Runner) Close() error { return r.val.Close() }

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
	req, err := json.Marshal(Request{DB: r.snap.Path, Tables: r.snap.Tables, SQL: stmt, Limits: r.opts.Limits})
	if err != nil {
		return sandbox.Result{Outcome: sandbox.OutcomeError}, fmt.Errorf("encode sandbox request: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, r.opts.Limits.WallClock)
	defer cancel()
	cmd := exec.CommandContext(wctx, r.opts.command[0], r.opts.command[1:]...)
	cmd.Env = r.opts.Env
	cmd.Dir = os.TempDir()
	cmd.Stdin = bytes.NewReader(req)
	var out limitedBuffer
	out.max = 2*r.opts.Limits.MaxBytes + 1<<20
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return sandbox.Result{Outcome: sandbox.OutcomeError}, fmt.Errorf("run sandbox worker: %w", ctx.Err())
	}
	if wctx.Err() != nil {
		rej := &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassBudgetExceeded, Kind: "wall_clock", Position: sandbox.NoPosition}
		return sandbox.Result{Outcome: sandbox.OutcomeError, Rejection: rej}, nil
	}
	var resp Response
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil || runErr != nil || out.over {
		// The worker died (a crash, the memory limit of the OS) or wrote
		// something else: the statement is an error, not a verdict.
		rej := &sandbox.Rejection{Layer: sandbox.LayerSandbox, Class: sandbox.ClassSQLError, Kind: "worker", Position: sandbox.NoPosition}
		return sandbox.Result{Outcome: sandbox.OutcomeError, Rejection: rej}, nil
	}
	return resp.result(), nil
}

// limitedBuffer keeps at most max bytes and notes that more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		b.over = true
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
