package adversarial_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHalfOpen: clients that connect and send nothing, that stall in
// their headers, or that stall in their body are cut off (the server
// closes the connection, after a 408 for a stalled body), and a good
// client is served while they hang on.
func TestHalfOpen(t *testing.T) {
	s := start(t, config{limits: smallLimits})
	tests := []struct {
		name, send, wantReply string // wantReply: a prefix of what the server sends before closing, "" for nothing
	}{
		{"connects and sends nothing", "", ""},
		{"stalls in the request line", "POST /v1/as", ""},
		{"stalls in the headers", "POST /v1/ask HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: app", ""},
		{"stalls before the blank line", "POST /v1/ask HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Length: 10\r\n", ""},
		{"stalls in the body", "POST /v1/ask HTTP/1.1\r\nHost: " + s.addr + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"quest", "HTTP/1.1 408 "},
	}
	conns := make([]net.Conn, len(tests))
	for i, tt := range tests {
		conn, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		io.WriteString(conn, tt.send)
		conns[i] = conn
	}
	// While all of them hang on, a good client is served.
	if r := s.do(t, "POST", "/v1/ask", goodQuestion, nil); r.status != http.StatusOK {
		t.Errorf("good client among half-open ones: %d %s", r.status, r.body)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conns[i].SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound for the test, not a measurement
			b, err := io.ReadAll(conns[i])
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("the server kept the connection open (read %q)", b)
			}
			if tt.wantReply != "" && !strings.HasPrefix(string(b), tt.wantReply) {
				t.Errorf("reply = %q, want %q…", b, tt.wantReply)
			}
			if tt.wantReply == "" && strings.Contains(string(b), "HTTP/1.1 200") {
				t.Errorf("a half-sent request was served: %q", b)
			}
		})
	}
}
