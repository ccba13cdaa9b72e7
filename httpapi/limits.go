package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of LimitOptions.
const (
	// DefaultMaxInFlight bounds the requests served at once.
	DefaultMaxInFlight = 64
	// DefaultBodyReadTimeout is the time a client has to send a request
	// body once its headers are in.
	DefaultBodyReadTimeout = 5 * time.Second
	// DefaultMaxBodyReadersPerClient bounds the bodies one client address
	// may be sending at once.
	DefaultMaxBodyReadersPerClient = 8
	// DefaultMaxBodyReaders bounds the bodies being received at once from
	// every client together (so at most this many times MaxBodyBytes of
	// memory is held by bodies still arriving).
	DefaultMaxBodyReaders = 256
)

// Error codes of the limits.
const (
	CodeBusy            = "busy"              // 503: too many requests in flight
	CodeTooManyRequests = "too_many_requests" // 429: too many bodies arriving from one client, or from all
	CodeBodyTimeout     = "body_timeout"      // 408: the body did not arrive within the body-read budget
	CodeBodyUnreadable  = "body_unreadable"   // 400: the body could not be read (the client broke off)
	// 415: the body has a Content-Encoding other than identity, which the
	// server does not decode
	CodeUnsupportedContentEncoding = "unsupported_content_encoding"
)

// LimitOptions configures Limit; a zero field means its default.
type LimitOptions struct {
	MaxInFlight             int           // DefaultMaxInFlight
	MaxBodyBytes            int64         // DefaultMaxBodyBytes
	BodyReadTimeout         time.Duration // DefaultBodyReadTimeout
	MaxBodyReaders          int           // DefaultMaxBodyReaders
	MaxBodyReadersPerClient int           // DefaultMaxBodyReadersPerClient
}

func (o *LimitOptions) withDefaults() LimitOptions {
	var l LimitOptions
	if o != nil {
		l = *o
	}
	if l.MaxInFlight <= 0 {
		l.MaxInFlight = DefaultMaxInFlight
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.BodyReadTimeout <= 0 {
		l.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if l.MaxBodyReaders <= 0 {
		l.MaxBodyReaders = DefaultMaxBodyReaders
	}
	if l.MaxBodyReadersPerClient <= 0 {
		l.MaxBodyReadersPerClient = DefaultMaxBodyReadersPerClient
	}
	return l
}

// unlimitedPaths are never refused for load: a prober and a scraper must
// always reach them, and neither reads a body.
var unlimitedPaths = map[string]bool{"/healthz": true, "/metrics": true}

// Limit wraps next in two stages, so that a client sending its body
// slowly cannot hold what the engine's work needs:
//
//  1. A body with a Content-Encoding other than identity is refused
//     unread (415 unsupported_content_encoding, with Accept-Encoding:
//     identity; the server decodes none). Then the body is read whole, capped at MaxBodyBytes (413), within
//     BodyReadTimeout (408), before anything else happens. A body being
//     received holds no in-flight slot; it holds one of MaxBodyReaders
//     places, and its client address one of MaxBodyReadersPerClient
//     (past either, 429 with Retry-After at once).
//  2. Then at most MaxInFlight requests are served at once; the next one
//     gets 503 busy with Retry-After at once instead of queueing, so a
//     flood of slow requests cannot pile up work.
//
// /healthz and /metrics pass through both stages untouched, reading no
// body (a declared one closes the connection after the answer,
// answerWithoutBody). nil opts means defaults.
func Limit(next http.Handler, opts *LimitOptions) http.Handler {
	l := &limiter{
		opts:    opts.withDefaults(),
		next:    next,
		clients: map[string]int{},
	}
	l.slots = make(chan struct{}, l.opts.MaxInFlight)
	return l
}

type limiter struct {
	opts  LimitOptions
	next  http.Handler
	slots chan struct{}

	mu      sync.Mutex
	readers int            // bodies being received
	clients map[string]int // of those, per client address
}

func (l *limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if unlimitedPaths[r.URL.Path] {
		answerWithoutBody(w, r)
		l.next.ServeHTTP(w, r)
		return
	}
	if hasBody(r) {
		if !identityEncoded(r.Header) {
			// Refused before the body is read: the server decodes no
			// content coding, and must not read encoded bytes as plain.
			w.Header().Set("Accept-Encoding", "identity")
			refuse(w, http.NewResponseController(w), http.StatusUnsupportedMediaType, CodeUnsupportedContentEncoding,
				"the body must be sent without a Content-Encoding (or with identity)")
			return
		}
		body, ok := l.readBody(w, r)
		if !ok {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	select {
	case l.slots <- struct{}{}:
		defer func() { <-l.slots }()
		l.next.ServeHTTP(w, r)
	default:
		w.Header().Set("Retry-After", strconv.Itoa(1))
		writeError(w, http.StatusServiceUnavailable, CodeBusy, "too many requests in flight; retry shortly")
	}
}

// answerWithoutBody readies w for an answer to r that reads no body (a
// route that takes none, or a refusal before the body): when r declares
// one, the connection is closed after the answer and nothing more is read
// from it. Otherwise net/http would discard the unread body before
// sending the answer, waiting up to the server's read timeout for a body
// a client declared and never sends; and a body left on a connection kept
// open could be read as the next request.
func answerWithoutBody(w http.ResponseWriter, r *http.Request) {
	if !hasBody(r) {
		return
	}
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
}

// identityEncoded reports whether h gives the body no content coding: no
// Content-Encoding, or identity alone (RFC 9110, section 8.4), in any
// letter case; empty list elements are ignored.
func identityEncoded(h http.Header) bool {
	for _, v := range h.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return false
			}
		}
	}
	return true
}

func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// readBody reads r's body under the body-read budget and bounds. On
// failure it has written the response and returns false.
func (l *limiter) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	rc := http.NewResponseController(w)
	if r.ContentLength > l.drainLimit() {
		refuse(w, rc, http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body exceeds the size limit")
		return nil, false
	}
	client := clientKey(r.RemoteAddr)
	if !l.acquireReader(client) {
		w.Header().Set("Retry-After", strconv.Itoa(1))
		refuse(w, rc, http.StatusTooManyRequests, CodeTooManyRequests, "too many request bodies arriving at once; retry shortly")
		return nil, false
	}
	defer l.releaseReader(client)

	// A deadline on the connection is what bounds a read already blocked;
	// a writer that cannot set one (a test recorder) reads unbounded.
	deadlineSet := rc.SetReadDeadline(time.Now().Add(l.opts.BodyReadTimeout)) == nil
	if r.ContentLength > l.opts.MaxBodyBytes {
		l.refuseTooLarge(w, rc, r.Body)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, l.opts.MaxBodyBytes))
	var (
		tooLarge *http.MaxBytesError
		netErr   net.Error
	)
	switch {
	case err == nil:
		if deadlineSet {
			// The body is in: the handler's work is not bound by the
			// client's sending time.
			rc.SetReadDeadline(time.Time{})
		}
		return body, true
	case errors.As(err, &tooLarge):
		l.refuseTooLarge(w, rc, r.Body)
	case errors.As(err, &netErr) && netErr.Timeout():
		refuse(w, rc, http.StatusRequestTimeout, CodeBodyTimeout, "the body did not arrive in time")
	default:
		refuse(w, rc, http.StatusBadRequest, CodeBodyUnreadable, "the body could not be read")
	}
	return nil, false
}

// refuse answers a request whose body is not (all) read and ends the
// connection after the reply: the read deadline is set to now, so the
// server does not wait for the rest of the body to discard it.
// drainLimit is the largest body a 413 reads to its end first: a client
// that writes its whole body before reading (most do) would otherwise see
// its connection reset instead of the 413. Bodies past it are refused
// unread and the connection closed.
func (l *limiter) drainLimit() int64 { return 4 * l.opts.MaxBodyBytes }

// refuseTooLarge answers 413 after discarding what remains of body, up to
// drainLimit and within the body-read deadline already set, so that the
// connection's close sends no reset over the 413.
func (l *limiter) refuseTooLarge(w http.ResponseWriter, rc *http.ResponseController, body io.Reader) {
	io.Copy(io.Discard, io.LimitReader(body, l.drainLimit()))
	refuse(w, rc, http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body exceeds the size limit")
}

func refuse(w http.ResponseWriter, rc *http.ResponseController, status int, code, msg string) {
	w.Header().Set("Connection", "close")
	rc.SetReadDeadline(time.Now())
	writeError(w, status, code, msg)
}

func (l *limiter) acquireReader(client string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.readers >= l.opts.MaxBodyReaders || l.clients[client] >= l.opts.MaxBodyReadersPerClient {
		return false
	}
	l.readers++
	l.clients[client]++
	return true
}

func (l *limiter) releaseReader(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.readers--
	if l.clients[client]--; l.clients[client] <= 0 {
		delete(l.clients, client)
	}
}

// clientKey is the client's IP address without the port: the unit the
// per-client bound counts. (Behind a reverse proxy every client shares
// the proxy's address; the bound is then the proxy's.)
func clientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	return host
}
