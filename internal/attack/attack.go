// Package attack holds the misbehaving HTTP clients the limit tests and
// the adversarial suite share.
package attack

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// SlowBodies keeps n connections from each loopback source address in
// sources sending a POST to /v1/ask whose body never completes: the
// headers (with header, e.g. "Authorization: Bearer x\r\n", added), then
// one byte every 20 ms, reconnecting whenever the server cuts one off,
// until tb ends. It returns once every connection has sent its headers.
func SlowBodies(tb testing.TB, addr string, sources []string, n int, header string) {
	tb.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	tb.Cleanup(func() { close(stop); wg.Wait() })
	head := "POST /v1/ask HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n" +
		header + "\r\n{"
	connected := make(chan struct{}, len(sources)*n)
	for _, src := range sources {
		for range n {
			wg.Go(func() {
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
				first := true
				for {
					conn, err := d.Dial("tcp", addr)
					if err != nil {
						if first {
							connected <- struct{}{}
						}
						return
					}
					io.WriteString(conn, head)
					if first {
						first = false
						connected <- struct{}{}
					}
					if !trickle(conn, stop) {
						return
					}
				}
			})
		}
	}
	for range len(sources) * n {
		<-connected
	}
}

// trickle writes a byte every 20 ms until the write fails (true: go on
// with a new connection) or stop closes (false). It closes conn.
func trickle(conn net.Conn, stop <-chan struct{}) bool {
	defer conn.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return false
		case <-tick.C:
			if _, err := io.WriteString(conn, " "); err != nil {
				return true
			}
		}
	}
}
