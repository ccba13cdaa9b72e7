package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/provenant/provenant/catalog"
	"github.com/provenant/provenant/catalogs"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/mcpserver"
	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/metrics"
	"github.com/provenant/provenant/server"
	"github.com/provenant/provenant/shape"
	"github.com/provenant/provenant/tool"
)

// registerLimits binds the limits' flags to l, with their defaults.
func registerLimits(fs *flag.FlagSet, l *server.Limits) {
	d := server.DefaultLimits()
	fs.DurationVar(&l.ReadHeaderTimeout, "read-header-timeout", d.ReadHeaderTimeout, "time a client has to send request headers")
	fs.DurationVar(&l.ReadTimeout, "read-timeout", d.ReadTimeout, "time a client has to send a whole request")
	fs.DurationVar(&l.BodyReadTimeout, "body-read-timeout", d.BodyReadTimeout, "time a client has to send a request body once its headers are in (at most read-timeout)")
	fs.DurationVar(&l.AskTimeout, "ask-timeout", d.AskTimeout, "time one question may take")
	fs.DurationVar(&l.WriteTimeout, "write-timeout", 0, "time to write a response (default: ask-timeout + 5s)")
	fs.DurationVar(&l.IdleTimeout, "idle-timeout", d.IdleTimeout, "how long an idle keep-alive connection is kept")
	fs.Int64Var(&l.MaxBodyBytes, "max-body-bytes", d.MaxBodyBytes, "largest request body accepted on /v1 and /mcp")
	fs.IntVar(&l.MaxHeaderBytes, "max-header-bytes", d.MaxHeaderBytes, "largest request header block accepted")
	fs.IntVar(&l.MaxInFlight, "max-in-flight", d.MaxInFlight, "requests served at once, once their bodies are in; more get 503")
	fs.IntVar(&l.MaxBodyReaders, "max-body-readers", d.MaxBodyReaders, "request bodies being received at once; more get 429")
	fs.IntVar(&l.MaxBodyReadersPerClient, "max-body-readers-per-client", d.MaxBodyReadersPerClient, "request bodies being received at once from one client address; more get 429")
}

// runServe listens first, then loads the dataset in the background, so
// /healthz answers 503 "loading" until the engine is ready; package
// server runs that lifecycle. It shuts down gracefully when ctx is
// cancelled (SIGINT, SIGTERM).
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "serve [flags]", "provenant serve --addr 127.0.0.1:8080", stderr)
	var ef engineFlags
	ef.register(fs)
	ef.gov.register(fs, surfaceHTTP)
	ef.wallClock = true // a server reads the clock as each question arrives
	addr := fs.String("addr", "127.0.0.1:8080", "listen `ADDRESS` (loopback by default)")
	shutdownTimeout := fs.Duration("shutdown-timeout", server.DefaultShutdownTimeout, "how long to let in-flight requests finish on shutdown")
	allowedHosts := fs.String("allowed-hosts", "", "comma-separated `HOSTS` the Host header may name besides localhost, 127.0.0.0/8 and [::1] (name or name:port; * for any)")
	publicMetrics := fs.Bool("public-metrics", false, "serve /metrics without a token on a non-loopback address (it is always open on loopback)")
	var af authFlags
	af.register(fs)
	var lim server.Limits
	registerLimits(fs, &lim)
	var mem servedMemory
	mem.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := lim.Validate(); err != nil {
		return usagef("%v", err) // names the flag and its range, not the value
	}
	// 0 is the default; a negative one was taken for it.
	if *shutdownTimeout < 0 || *shutdownTimeout > time.Hour {
		return usagef("invalid limits: shutdown-timeout must be between 0 (the default, %s) and 1h", server.DefaultShutdownTimeout)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if err := ef.gov.open(ctx, &ef); err != nil {
		return err
	}
	defer ef.gov.close()
	var hosts []string
	if *allowedHosts != "" {
		hosts = strings.Split(*allowedHosts, ",")
		if err := httpapi.ValidateAllowedHosts(hosts); err != nil {
			return usagef("--allowed-hosts: %v", err)
		}
	}
	// A bad provider or auth configuration fails before listening.
	logger, opts, err := ef.setup(ctx, stderr)
	if err != nil {
		return err
	}
	principals, err := af.load(ctx, *addr)
	if err != nil {
		return err
	}
	scopeCat, err := catalogs.Load("retail") // the demo's, without --catalog
	if err != nil {
		return err
	}
	if ef.catalog != "" {
		if scopeCat, err = ef.loadedCatalog(ctx); err != nil {
			return err
		}
	} else if ef.freeSQL {
		scopeCat = scopeCat.WithFreeSQL() // the demo store's engine offers query_sql
	}
	// Flags that no engine opens fail here, not after the listener is up.
	var loaded *catalog.Catalog
	if ef.catalog != "" {
		loaded = scopeCat
	}
	if err := ef.checkSources(loaded); err != nil {
		return err
	}
	if ef.gov.auto.writes && ef.storeFile() {
		scopeCat = scopeCat.WithWrites() // --writes: the store file's write tool
	}
	// The menu the engine will serve (the catalog's tools and, when it
	// declares metrics, query_metric), described before it has loaded.
	registry, err := shape.NewMenuRegistry(scopeCat)
	if err != nil {
		return err
	}
	if principals != nil {
		// Every principal's scope holds ids of the catalog's scope entity.
		pattern, err := scopePattern(scopeCat)
		if err != nil {
			return err
		}
		if err := principals.CheckScopes(pattern, scopeCat.ScopeEntity.Value); err != nil {
			return err
		}
	}
	srvOpts := &server.Options{
		Registry: registry,
		Logger:   logger, Limits: lim, AllowedHosts: hosts, PublicMetrics: *publicMetrics, ShutdownTimeout: *shutdownTimeout,
	}
	if principals != nil {
		// Authenticated: every request carries its principal's scope, and
		// a path that somehow carries none sees nothing.
		none := tool.StoresOnly()
		opts.DefaultScope = &none
		srvOpts.Auth = principals
		srvOpts.Approvals = true // POST /v1/approvals, for approver principals
		logger.Info("principals configured", "principals", principals.Len())
	}
	memSvc, err := mem.service(ctx, ef.postgres)
	if err != nil {
		return err
	}
	defer mem.Close()
	if memSvc != nil && principals != nil {
		// Each principal writes and reads memory under its name.
		for _, name := range principals.Names() {
			if err := memory.CheckAgent(name); err != nil {
				return usagef("--memory: principal %s: its name is not a memory agent id: %v", name, err)
			}
		}
	}
	var mcpMemory *mcpserver.MemoryOptions
	if memSvc != nil {
		srvOpts.Memory = &httpapi.MemoryOptions{Service: memSvc, Agent: mem.jf.agent}
		mcpMemory = &mcpserver.MemoryOptions{Service: memSvc, Agent: mem.jf.agent}
	}
	obs := metrics.New(&metrics.Options{Runtime: true})
	opts.Observer = obs
	srvOpts.Metrics = obs.Handler()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return server.Run(ctx, ln, func(ctx context.Context) (server.Loaded, error) {
		start := time.Now()
		e, err := ef.openEngine(ctx, opts)
		if err != nil {
			return server.Loaded{}, err
		}
		ef.gov.auto.serving(e.Pipeline)
		var approvals httpapi.Approvals
		if principals != nil {
			// Approvals only from authenticated approvers.
			approvals = httpApprovals{auth: ef.gov.auto.auth, p: e.Pipeline}
		}
		version := e.DatasetVersion
		if version == "" {
			version = e.Catalog.Name.Value + "@" + e.Catalog.Version.Value
			logger.Info("catalog opened", "catalog", version, "load_ms", time.Since(start).Milliseconds())
		} else {
			logger.Info("dataset loaded", "dataset_version", version, "load_ms", time.Since(start).Milliseconds())
		}
		return server.Loaded{
			Backend: httpapi.Backend{
				Asker: e.Pipeline, DatasetVersion: version, Provider: e.Pipeline.ProviderName(), Rows: e.RowPager(), Approvals: approvals,
				MCP: mcpserver.HTTPHandlerWithLimit(mcpserver.New(e.Pipeline, e, &mcpserver.Options{Logger: logger, AskTimeout: lim.AskTimeout, Rows: e.RowPager(), Memory: mcpMemory}),
					logger, lim.MaxBodyBytes),
			},
			Close: e.Close,
		}, nil
	}, srvOpts)
}
