package adversarial_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// attack keeps n connections from each loopback source address sending a
// request body one byte at a time (reconnecting whenever the server cuts
// one off) until the test ends. The bodies are never complete.
func attack(t *testing.T, addr string, sources []string, n int, auth string) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() })
	head := "POST /v1/ask HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n"
	if auth != "" {
		head += "Authorization: Bearer " + auth + "\r\n"
	}
	head += "\r\n{"
	connected := make(chan struct{}, len(sources)*n)
	for _, src := range sources {
		for range n {
			wg.Go(func() {
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
				first := true
				for {
					conn, err := d.Dial("tcp", addr)
					if err != nil {
						return
					}
					io.WriteString(conn, head)
					if first {
						first = false
						connected <- struct{}{}
					}
					tick := time.NewTicker(20 * time.Millisecond)
					for alive := true; alive; {
						select {
						case <-stop:
							tick.Stop()
							conn.Close()
							return
						case <-tick.C:
							_, err := io.WriteString(conn, " ")
							alive = err == nil
						}
					}
					tick.Stop()
					conn.Close()
				}
			})
		}
	}
	for range len(sources) * n {
		<-connected
	}
}

// TestSlowBodies_GoodClientServed: with more slow-body connections open
// than there are in-flight slots, spread over several client addresses
// (each at its per-client bound), a good client is served on every
// request, with and without tokens (an attacker with a valid token that
// sees no store gets no further).
func TestSlowBodies_GoodClientServed(t *testing.T) {
	for _, withTokens := range []bool{false, true} {
		t.Run(map[bool]string{false: "no tokens", true: "tokens"}[withTokens], func(t *testing.T) {
			s := start(t, config{withTokens: withTokens, limits: smallLimits})
			attackToken, goodHeader := "", map[string]string{}
			if withTokens {
				attackToken = nobodyToken
				goodHeader["Authorization"] = "Bearer " + adminToken
			}
			// 3 addresses × 4 connections = 12 slow bodies against 4 slots,
			// plus 4 more from one address, past its per-client bound.
			attack(t, s.addr, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}, smallLimits.MaxBodyReadersPerClient, attackToken)
			attack(t, s.addr, []string{"127.0.0.2"}, 4, attackToken)
			for i := range 20 {
				r := s.doFrom(t, "127.0.0.1", "POST", "/v1/ask", goodQuestion, goodHeader)
				if r.status != http.StatusOK || !strings.Contains(r.body, `"outcome":"answered"`) {
					t.Fatalf("good request %d during the attack: %d %s", i, r.status, r.body)
				}
			}
			for _, path := range []string{"/healthz", "/metrics"} {
				if r := s.doFrom(t, "127.0.0.1", "GET", path, "", goodHeader); r.status != http.StatusOK {
					t.Errorf("%s during the attack: %d", path, r.status)
				}
			}
		})
	}
}
