package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// proc is a server the bench started.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func goBuild(ctx context.Context, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/provenant")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build provenant: %w", err)
	}
	return nil
}

// startServer starts bin with args, its output to logPath.
func startServer(ctx context.Context, name, logPath, bin string, args ...string) (*proc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("create %s log: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// stop ends the server by its pid: SIGTERM, then SIGKILL after 10 s.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// logTail is the end of the server's log, for an error message.
func (p *proc) logTail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// waitReady polls url until it answers 200, for up to two minutes.
func waitReady(ctx context.Context, url string, p *proc) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%w: %s exited:\n%s", errNotReady, p.name, p.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: %s:\n%s", errNotReady, p.name, p.logTail())
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on
// Linux on every architecture Go supports.
const clockTicks = 100

// cpuTime is a process's user plus system CPU time so far, from
// /proc/PID/stat (fields 14 and 15, counted after the command name).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read cpu time: %w", err)
	}
	return parseStatCPU(b)
}

func parseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("parse /proc stat: no command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("parse /proc stat: %d fields", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc stat: utime or stime not a number")
	}
	return time.Duration(u+s) * time.Second / clockTicks, nil
}

// backendWatch follows the CPU time of the PostgreSQL backends with one
// application_name over a span, sampling them every so often, so that a
// backend that exits during the span (a pool closing an idle connection)
// keeps the CPU it was last seen with, and one that starts during it
// counts from zero. A backend that starts and exits between two samples
// is missed: the figure is a lower bound.
type backendWatch struct {
	conn        *pgx.Conn
	app         string
	mu          sync.Mutex
	first, last map[int]time.Duration
	err         error
	stop, done  chan struct{}
}

// watchBackends takes the first sample of app's backends and samples
// them again every interval until finish.
func watchBackends(ctx context.Context, dsn, app string, every time.Duration) (*backendWatch, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	w := &backendWatch{conn: conn, app: app, last: map[int]time.Duration{}, stop: make(chan struct{}), done: make(chan struct{})}
	if err := w.sample(ctx); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	w.first = maps.Clone(w.last)
	go func() {
		defer close(w.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				if err := w.sample(ctx); err != nil {
					w.mu.Lock()
					w.err = cmp.Or(w.err, err)
					w.mu.Unlock()
					return
				}
			}
		}
	}()
	return w, nil
}

// sample records the CPU time of every backend of the application now.
func (w *backendWatch) sample(ctx context.Context) error {
	rows, err := w.conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", w.app)
	if err != nil {
		return fmt.Errorf("list backends: %w", err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return fmt.Errorf("list backends: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, pid := range pids {
		if c, err := cpuTime(int(pid)); err == nil { // a backend may exit meanwhile
			w.last[int(pid)] = c
		}
	}
	return nil
}

// finish takes a last sample and returns the backends' CPU time over
// the span, how many backends were seen and how many of them started
// during it.
func (w *backendWatch) finish(ctx context.Context) (time.Duration, int, int, error) {
	close(w.stop)
	<-w.done
	defer w.conn.Close(ctx)
	err := w.sample(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err = cmp.Or(w.err, err); err != nil {
		return 0, 0, 0, err
	}
	cpu, opened := backendCPU(w.first, w.last)
	return cpu, len(w.last), opened, nil
}

// backendCPU is the CPU time backends spent between two samples (last
// includes every backend of first), and how many backends of last first
// lacks (started in between; they count from zero).
func backendCPU(first, last map[int]time.Duration) (time.Duration, int) {
	var cpu time.Duration
	opened := 0
	for pid, c := range last {
		c0, ok := first[pid]
		if !ok {
			opened++
		}
		cpu += max(0, c-c0)
	}
	return cpu, opened
}

// machineInfo is what the results record of the machine.
type machineInfo struct {
	CPUs    int    `json:"cpus"`
	LoadAvg string `json:"loadavg"`
	Kernel  string `json:"kernel,omitempty"`
	GoVer   string `json:"go"`
}

func machine() machineInfo {
	m := machineInfo{CPUs: runtime.NumCPU(), GoVer: runtime.Version()}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

func toolboxVersion(ctx context.Context, bin string) string {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "MCP Toolbox for Databases (version unknown)"
	}
	return "MCP Toolbox for Databases, " + strings.TrimSpace(string(out))
}

// loadAvg1 is the 1-minute load average, or 0 if /proc/loadavg is
// unreadable.
func loadAvg1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// gitCommit is the working tree's commit, with "+dirty" when it has
// uncommitted changes, or "" outside a git checkout.
func gitCommit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+dirty"
	}
	return c
}
