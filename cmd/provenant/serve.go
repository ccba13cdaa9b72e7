package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/metrics"
	"github.com/provenant/provenant/tool"
)

// Server timeouts. WriteTimeout bounds a whole response, so it exceeds the
// per-question timeout.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = httpapi.DefaultAskTimeout + 5*time.Second
	idleTimeout       = 2 * time.Minute
)

// runServe listens first, then loads the dataset in the background, so
// /healthz answers 503 "loading" until the engine is ready. It shuts down
// gracefully when ctx is cancelled (SIGINT, SIGTERM).
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "serve [flags]", "provenant serve --addr 127.0.0.1:8080", stderr)
	var ef engineFlags
	ef.register(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "listen `ADDRESS` (loopback by default)")
	shutdownTimeout := fs.Duration("shutdown-timeout", 10*time.Second, "how long to let in-flight requests finish on shutdown")
	var af authFlags
	af.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	logger, err := newLogger(stderr, ef.logLevel)
	if err != nil {
		return err
	}
	// A bad provider or auth configuration fails before listening.
	opts, err := ef.engineOptions(logger)
	if err != nil {
		return err
	}
	principals, err := af.load(*addr)
	if err != nil {
		return err
	}
	var handler http.Handler

	obs := metrics.New(&metrics.Options{Runtime: true})
	opts.Observer = obs
	api := httpapi.New(&httpapi.Options{Logger: logger, Metrics: obs.Handler()})
	handler = api
	if principals != nil {
		// Authenticated: every request carries its principal's scope, and
		// a path that somehow carries none sees nothing.
		none := tool.StoresOnly()
		opts.DefaultScope = &none
		handler = httpapi.RequireToken(principals, api)
		logger.Info("bearer tokens required", "principals", principals.Len())
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String())

	type loadResult struct {
		e   *engine.Engine
		err error
	}
	loaded := make(chan loadResult, 1)
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	go func() {
		start := time.Now()
		d, err := engine.LoadDataset(ef.store)
		if err != nil {
			loaded <- loadResult{err: err}
			return
		}
		e, err := engine.Open(loadCtx, d, opts)
		if err == nil {
			logger.Info("dataset loaded", "dataset_version", e.Info.Version, "events", e.Info.Events,
				"load_ms", time.Since(start).Milliseconds())
		}
		loaded <- loadResult{e, err}
	}()

	var (
		eng     *engine.Engine
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
			eng = r.e
			api.SetBackend(httpapi.Backend{
				Asker: eng.Pipeline, DatasetVersion: eng.Info.Version, Provider: eng.Pipeline.ProviderName(),
				MCP: mcpserver.HTTPHandler(mcpserver.New(eng.Pipeline, eng.Store, &mcpserver.Options{Logger: logger}), logger),
			})
			logger.Info("ready", "provider", eng.Pipeline.ProviderName())
		}
	}

	shutdownCtx, cancel := context.WithTimeout(context.Background(), *shutdownTimeout)
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
			eng = r.e
		case <-shutdownCtx.Done():
			logger.Warn("dataset load did not stop before the shutdown deadline")
		}
	}
	if eng != nil {
		if err := eng.Close(); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("close engine: %w", err))
		}
	}
	return runErr
}
