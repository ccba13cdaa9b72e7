package main

import (
	"context"
	"errors"
	"flag"
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

// limits bound what one client can hold: time to send headers and a
// body, time to receive a response, idle keep-alive time, body and header
// sizes, and requests in flight. The server speaks HTTP/1.1 only (no TLS,
// no h2c), so a connection carries one request at a time: the
// per-connection concurrency is 1 by protocol.
type limits struct {
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	askTimeout        time.Duration
	maxBodyBytes      int64
	maxHeaderBytes    int
	maxInFlight       int
}

func (l *limits) register(fs *flag.FlagSet) {
	fs.DurationVar(&l.readHeaderTimeout, "read-header-timeout", 5*time.Second, "time a client has to send request headers")
	fs.DurationVar(&l.readTimeout, "read-timeout", 10*time.Second, "time a client has to send a whole request")
	fs.DurationVar(&l.askTimeout, "ask-timeout", httpapi.DefaultAskTimeout, "time one question may take")
	fs.DurationVar(&l.writeTimeout, "write-timeout", 0, "time to write a response (default: ask-timeout + 5s)")
	fs.DurationVar(&l.idleTimeout, "idle-timeout", 2*time.Minute, "how long an idle keep-alive connection is kept")
	fs.Int64Var(&l.maxBodyBytes, "max-body-bytes", httpapi.DefaultMaxBodyBytes, "largest request body accepted on /v1")
	fs.IntVar(&l.maxHeaderBytes, "max-header-bytes", 16<<10, "largest request header block accepted")
	fs.IntVar(&l.maxInFlight, "max-in-flight", httpapi.DefaultMaxInFlight, "requests served at once; more get 503")
}

func (l *limits) validate() error {
	if l.writeTimeout == 0 {
		l.writeTimeout = l.askTimeout + 5*time.Second
	}
	for name, d := range map[string]time.Duration{"read-header-timeout": l.readHeaderTimeout, "read-timeout": l.readTimeout,
		"write-timeout": l.writeTimeout, "idle-timeout": l.idleTimeout, "ask-timeout": l.askTimeout} {
		if d <= 0 || d > time.Hour {
			return fmt.Errorf("configure limits: %s must be between 0 and 1h", name)
		}
	}
	switch {
	case l.maxBodyBytes < 1<<10 || l.maxBodyBytes > 16<<20:
		return errors.New("configure limits: max-body-bytes must be 1 KiB to 16 MiB")
	case l.maxHeaderBytes < 1<<10 || l.maxHeaderBytes > 1<<20:
		return errors.New("configure limits: max-header-bytes must be 1 KiB to 1 MiB")
	case l.maxInFlight < 1 || l.maxInFlight > 10000:
		return errors.New("configure limits: max-in-flight must be 1 to 10000")
	case l.writeTimeout <= l.askTimeout:
		return errors.New("configure limits: write-timeout must exceed ask-timeout")
	}
	return nil
}

// server builds the HTTP server with the limits around handler.
func (l *limits) server(handler http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           httpapi.LimitInFlight(l.maxInFlight, handler),
		ReadHeaderTimeout: l.readHeaderTimeout,
		ReadTimeout:       l.readTimeout,
		WriteTimeout:      l.writeTimeout,
		IdleTimeout:       l.idleTimeout,
		MaxHeaderBytes:    l.maxHeaderBytes,
		Protocols:         http1Only(),
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

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
	var lim limits
	lim.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := lim.validate(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	// A bad provider or auth configuration fails before listening.
	logger, opts, err := ef.setup(stderr)
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
	api := httpapi.New(&httpapi.Options{Logger: logger, Metrics: obs.Handler(), MaxBodyBytes: lim.maxBodyBytes, AskTimeout: lim.askTimeout})
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
	hs := lim.server(handler, logger)
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
		e, err := engine.Open(loadCtx, d, openDuckDB, &opts)
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
				MCP: mcpserver.HTTPHandlerWithLimit(mcpserver.New(eng.Pipeline, eng.Store, &mcpserver.Options{Logger: logger}),
					logger, lim.maxBodyBytes),
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

// http1Only is the protocol set the server speaks: HTTP/1.1, one request
// at a time on each connection.
func http1Only() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	return &p
}
