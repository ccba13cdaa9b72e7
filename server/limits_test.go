package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/server"
)

func TestLimits_Validate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*server.Limits)
		wantErr string
	}{
		{"defaults", func(*server.Limits) {}, ""},
		{"zero in flight", func(l *server.Limits) { l.MaxInFlight = 0 }, "max-in-flight"},
		{"huge body", func(l *server.Limits) { l.MaxBodyBytes = 1 << 30 }, "max-body-bytes"},
		{"negative timeout", func(l *server.Limits) { l.ReadTimeout = -time.Second }, "read-timeout"},
		{"write shorter than ask", func(l *server.Limits) { l.WriteTimeout = time.Second }, "write-timeout"},
		{"body budget over read timeout", func(l *server.Limits) { l.BodyReadTimeout = time.Minute }, "body-read-timeout"},
		{"per client over all", func(l *server.Limits) { l.MaxBodyReadersPerClient = l.MaxBodyReaders + 1 }, "max-body-readers-per-client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := server.DefaultLimits()
			tt.edit(&l)
			err := l.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (!errors.Is(err, server.ErrLimits) || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// dial serves a stub backend with limits l on loopback and returns a raw
// connection to it.
func dial(t *testing.T, l server.Limits) net.Conn {
	t.Helper()
	var closed atomic.Int32
	base, _ := run(t, "127.0.0.1:0", func(context.Context) (server.Loaded, error) { return stubLoaded(&closed), nil },
		&server.Options{Registry: retail.Registry(), Limits: l})
	waitReady(t, base)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestLimits_HalfSentHeaders: a client that never finishes its headers is
// cut off by the header timeout instead of holding a connection.
func TestLimits_HalfSentHeaders(t *testing.T) {
	conn := dial(t, server.Limits{ReadHeaderTimeout: 200 * time.Millisecond})
	io.WriteString(conn, "POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1\r\n") // and never the blank line
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))               // a bound for the test, not a measurement
	b, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept the half-sent request open (read %q)", b)
	}
}

// TestLimits_OneRequestPerConnection: the server speaks HTTP/1.1 only, so
// a connection carries one request at a time; a client that opens with
// HTTP/2's prior-knowledge preface gets no HTTP/2 session.
func TestLimits_OneRequestPerConnection(t *testing.T) {
	conn := dial(t, server.Limits{})
	io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, _ := io.ReadAll(conn)
	// An HTTP/2 server would answer with a binary SETTINGS frame (type 4
	// at byte 3); this one answers in HTTP/1.1 text, or closes.
	if len(b) >= 9 && b[3] == 0x4 {
		t.Fatalf("the server started an HTTP/2 session: % x", b[:9])
	}
	if len(b) > 0 && !strings.HasPrefix(string(b), "HTTP/1.1 ") {
		t.Errorf("reply = %q, want HTTP/1.1", b)
	}
}
