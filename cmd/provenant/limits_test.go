package main

import (
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func defaultLimits(t *testing.T) limits {
	t.Helper()
	var l limits
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	l.register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLimits_Validate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*limits)
		wantErr string
	}{
		{"defaults", func(*limits) {}, ""},
		{"zero in flight", func(l *limits) { l.maxInFlight = 0 }, "max-in-flight"},
		{"huge body", func(l *limits) { l.maxBodyBytes = 1 << 30 }, "max-body-bytes"},
		{"negative timeout", func(l *limits) { l.readTimeout = -time.Second }, "read-timeout"},
		{"write shorter than ask", func(l *limits) { l.writeTimeout = time.Second }, "write-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := defaultLimits(t)
			tt.edit(&l)
			err := l.validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("validate() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestLimits_SlowClient: a client that never finishes its headers is cut
// off by the header timeout instead of holding a connection.
func TestLimits_SlowClient(t *testing.T) {
	l := defaultLimits(t)
	l.readHeaderTimeout = 200 * time.Millisecond
	conn := dialServer(t, l)
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
	conn := dialServer(t, defaultLimits(t))
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

// dialServer serves a 404 handler with limits l on loopback and returns a
// raw connection to it; both close when t ends.
func dialServer(t *testing.T, l limits) net.Conn {
	t.Helper()
	if err := l.validate(); err != nil {
		t.Fatal(err)
	}
	hs := l.server(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
