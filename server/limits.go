package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/provenant/provenant/httpapi"
)

// Limits bound what one client can hold: time to send headers and a
// body, time to receive a response, idle keep-alive time, body and header
// sizes, bodies being received, and requests in flight. The server speaks
// HTTP/1.1 only (no TLS, no h2c), so a connection carries one request at
// a time: the per-connection concurrency is 1 by protocol.
type Limits struct {
	ReadHeaderTimeout       time.Duration // time to send the request headers
	ReadTimeout             time.Duration // time to send a whole request
	BodyReadTimeout         time.Duration // time to send the body once the headers are in (at most ReadTimeout)
	WriteTimeout            time.Duration // 0: AskTimeout + 5s
	IdleTimeout             time.Duration
	AskTimeout              time.Duration
	MaxBodyBytes            int64
	MaxHeaderBytes          int
	MaxInFlight             int
	MaxBodyReaders          int
	MaxBodyReadersPerClient int
}

// DefaultLimits are the limits of a zero Limits.
func DefaultLimits() Limits {
	return Limits{
		ReadHeaderTimeout:       5 * time.Second,
		ReadTimeout:             10 * time.Second,
		BodyReadTimeout:         httpapi.DefaultBodyReadTimeout,
		IdleTimeout:             2 * time.Minute,
		AskTimeout:              httpapi.DefaultAskTimeout,
		MaxBodyBytes:            httpapi.DefaultMaxBodyBytes,
		MaxHeaderBytes:          16 << 10,
		MaxInFlight:             httpapi.DefaultMaxInFlight,
		MaxBodyReaders:          httpapi.DefaultMaxBodyReaders,
		MaxBodyReadersPerClient: httpapi.DefaultMaxBodyReadersPerClient,
	}
}

// withDefaults fills every zero field from DefaultLimits, and the write
// timeout from the ask timeout.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	fill := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	fill(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	fill(&l.ReadTimeout, d.ReadTimeout)
	fill(&l.BodyReadTimeout, d.BodyReadTimeout)
	fill(&l.IdleTimeout, d.IdleTimeout)
	fill(&l.AskTimeout, d.AskTimeout)
	fill(&l.WriteTimeout, l.AskTimeout+5*time.Second)
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxHeaderBytes == 0 {
		l.MaxHeaderBytes = d.MaxHeaderBytes
	}
	if l.MaxInFlight == 0 {
		l.MaxInFlight = d.MaxInFlight
	}
	if l.MaxBodyReaders == 0 {
		l.MaxBodyReaders = d.MaxBodyReaders
	}
	if l.MaxBodyReadersPerClient == 0 {
		l.MaxBodyReadersPerClient = d.MaxBodyReadersPerClient
	}
	return l
}

// ErrLimits is matched by every error Validate returns.
var ErrLimits = errors.New("invalid limits")

// Validate checks limits as given: a zero field is refused (Run fills
// zeros with defaults before it validates), but for WriteTimeout, whose
// zero means AskTimeout + 5s. The error names the flag (the field in
// kebab case) and its allowed range.
func (l Limits) Validate() error {
	if l.WriteTimeout == 0 {
		l.WriteTimeout = l.AskTimeout + 5*time.Second
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-header-timeout", l.ReadHeaderTimeout}, {"read-timeout", l.ReadTimeout}, {"body-read-timeout", l.BodyReadTimeout},
		// ask-timeout before write-timeout, whose default derives from it.
		{"ask-timeout", l.AskTimeout}, {"write-timeout", l.WriteTimeout}, {"idle-timeout", l.IdleTimeout}} {
		if d.v <= 0 || d.v > time.Hour {
			return fmt.Errorf("%w: %s must be between 0 and 1h", ErrLimits, d.name)
		}
	}
	switch {
	case l.MaxBodyBytes < 1<<10 || l.MaxBodyBytes > 16<<20:
		return fmt.Errorf("%w: max-body-bytes must be 1 KiB to 16 MiB", ErrLimits)
	case l.MaxHeaderBytes < 1<<10 || l.MaxHeaderBytes > 1<<20:
		return fmt.Errorf("%w: max-header-bytes must be 1 KiB to 1 MiB", ErrLimits)
	case l.MaxInFlight < 1 || l.MaxInFlight > 10000:
		return fmt.Errorf("%w: max-in-flight must be 1 to 10000", ErrLimits)
	case l.MaxBodyReaders < 1 || l.MaxBodyReaders > 100000:
		return fmt.Errorf("%w: max-body-readers must be 1 to 100000", ErrLimits)
	case l.MaxBodyReadersPerClient < 1 || l.MaxBodyReadersPerClient > l.MaxBodyReaders:
		return fmt.Errorf("%w: max-body-readers-per-client must be 1 to max-body-readers", ErrLimits)
	case l.BodyReadTimeout > l.ReadTimeout:
		return fmt.Errorf("%w: body-read-timeout must not exceed read-timeout", ErrLimits)
	case l.WriteTimeout <= l.AskTimeout:
		return fmt.Errorf("%w: write-timeout must exceed ask-timeout", ErrLimits)
	}
	return nil
}

func (l Limits) httpapi() *httpapi.LimitOptions {
	return &httpapi.LimitOptions{
		MaxInFlight: l.MaxInFlight, MaxBodyBytes: l.MaxBodyBytes, BodyReadTimeout: l.BodyReadTimeout,
		MaxBodyReaders: l.MaxBodyReaders, MaxBodyReadersPerClient: l.MaxBodyReadersPerClient,
	}
}

// httpServer is the net/http server with the limits it enforces itself.
func (l Limits) httpServer(handler http.Handler, logger *slog.Logger) *http.Server {
	var p http.Protocols
	p.SetHTTP1(true) // one request at a time on each connection
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		WriteTimeout:      l.WriteTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		Protocols:         &p,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}
