// Package server runs the HTTP API's lifecycle: it serves on a listener
// at once, loads the engine in the background (so /healthz says
// "loading" until it is ready), swaps it in, and shuts down gracefully,
// also while a load is still running. It owns the limits the net/http
// server enforces (header, body, write and idle timeouts, header size)
// and hands the rest to httpapi (body-read budget, in-flight cap, host
// check, bearer tokens).
//
// The package does not link the engine: Run takes a Loader, so its
// tests run with stub backends.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/tool"
)

// DefaultShutdownTimeout is how long in-flight requests may finish on
// shutdown.
const DefaultShutdownTimeout = 10 * time.Second

// Loaded is what a Loader built: the backend to serve and how to release
// it once the server has stopped.
type Loaded struct {
	Backend httpapi.Backend
	Close   func() error // nil: nothing to release
}

// Loader builds the backend. Its context is cancelled when the server
// shuts down; it should then stop, releasing what it built.
type Loader func(ctx context.Context) (Loaded, error)

// Options configures Run; nil or a zero field means its default.
type Options struct {
	// Registry is the tool registry the HTTP API describes and serves
	// (httpapi.Options.Registry); required.
	Registry *tool.Registry
	Logger   *slog.Logger // nil: discard
	// Limits: a zero field takes its default (DefaultLimits); Run
	// refuses limits Validate refuses.
	Limits Limits
	// Auth, when set, requires bearer tokens. Without it the listener
	// must be on a loopback address: Run refuses anything else.
	Auth httpapi.Authenticator
	// PublicMetrics leaves /metrics open although Auth is set. On a
	// loopback listener /metrics is always open; on any other it needs a
	// token unless PublicMetrics.
	PublicMetrics bool
	// AllowedHosts extends the loopback names the Host header may name
	// (httpapi.Options.AllowedHosts).
	AllowedHosts []string
	// Metrics is served at GET /metrics; nil: not served.
	Metrics         http.Handler
	ShutdownTimeout time.Duration // 0: DefaultShutdownTimeout
	// Memory, when set, serves the memory endpoints
	// (httpapi.Options.Memory).
	Memory *httpapi.MemoryOptions
	// Approvals documents POST /v1/approvals (httpapi.Options.Approvals).
	Approvals bool
}

// ErrNeedsAuth is returned by Run for a non-loopback listener without
// Options.Auth.
var ErrNeedsAuth = errors.New("a non-loopback address needs bearer tokens")

// ErrNoRegistry is returned by Run without Options.Registry.
var ErrNoRegistry = errors.New("no tool registry")

// Run serves ln until ctx is done, the server fails, or the load fails,
// then shuts down within the shutdown timeout and releases the backend.
// A cancelled ctx is a normal end (nil). Run closes ln. nil opts means
// defaults.
func Run(ctx context.Context, ln net.Listener, load Loader, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Registry == nil {
		ln.Close()
		return fmt.Errorf("configure server: %w", ErrNoRegistry)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	lim := o.Limits.withDefaults()
	if err := lim.Validate(); err != nil {
		ln.Close()
		return err
	}
	if err := httpapi.ValidateAllowedHosts(o.AllowedHosts); err != nil {
		ln.Close()
		return fmt.Errorf("configure allowed hosts: %w", err)
	}
	onLoopback := IsLoopback(ln.Addr().String())
	if o.Auth == nil && !onLoopback {
		ln.Close()
		return fmt.Errorf("configure auth: %w", ErrNeedsAuth)
	}
	logger := o.Logger
	api := httpapi.New(&httpapi.Options{
		Registry: o.Registry, Logger: logger, Metrics: o.Metrics, MaxBodyBytes: lim.MaxBodyBytes, AskTimeout: lim.AskTimeout,
		AllowedHosts: o.AllowedHosts, Auth: o.Auth, PublicMetrics: o.PublicMetrics || onLoopback,
		Limits: lim.httpapi(), Memory: o.Memory, Approvals: o.Approvals,
	})
	if o.Auth != nil {
		logger.Info("bearer tokens required", "metrics_need_token", !(o.PublicMetrics || onLoopback))
	}
	hs := lim.httpServer(api, logger)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String())

	type loadResult struct {
		l   Loaded
		err error
	}
	loaded := make(chan loadResult, 1)
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	go func() {
		l, err := load(loadCtx)
		loaded <- loadResult{l, err}
	}()

	var (
		backend Loaded
		runErr  error
		waiting = true // the loader has not reported yet
	)
loop:
	for {
		select {
		case <-ctx.Done():
			logger.Info("shutting down")
			break loop
		case err := <-served:
			runErr = fmt.Errorf("serve http: %w", err)
			break loop
		case r := <-loaded:
			waiting = false
			if r.err != nil {
				runErr = fmt.Errorf("load engine: %w", r.err)
				break loop
			}
			backend = r.l
			api.SetBackend(backend.Backend)
			logger.Info("ready", "provider", backend.Backend.Provider)
		}
	}

	shutdownCtx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		logger.Warn("graceful shutdown timed out; closing connections", "error", err.Error())
		hs.Close()
	}
	// Let a load in progress stop (its context is cancelled) and release
	// what it built, within the same deadline.
	cancelLoad()
	if waiting {
		select {
		case r := <-loaded:
			if r.err == nil {
				backend = r.l
			}
		case <-shutdownCtx.Done():
			logger.Warn("dataset load did not stop before the shutdown deadline")
		}
	}
	if backend.Close != nil {
		if err := backend.Close(); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("close engine: %w", err))
		}
	}
	return runErr
}

// IsLoopback reports whether addr ("host:port") names a loopback address
// or localhost.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
