package httpapi_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/internal/attack"
)

func TestLimit_InFlight(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	h := httpapi.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			started.Done()
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}), &httpapi.LimitOptions{MaxInFlight: 2})
	srv := httptest.NewServer(h)
	defer srv.Close()
	var done sync.WaitGroup
	for i := 0; i < 2; i++ {
		done.Add(1)
		go func() {
			defer done.Done()
			resp, err := http.Get(srv.URL + "/slow")
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	started.Wait() // both slots held
	resp, err := http.Get(srv.URL + "/v1/tools")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("third request: %d (Retry-After %q), want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp, err := http.Get(srv.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz while full: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	close(release)
	done.Wait()
	if resp, err := http.Get(srv.URL + "/v1/tools"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("after release: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestLimit_SlowBodies: connections that trickle a request body hold no
// in-flight slot, so with every slot's worth of them (and more) open, a
// good client is served on every request; and a body that does not
// arrive within the body-read budget is cut off with 408.
func TestLimit_SlowBodies(t *testing.T) {
	var entered atomic.Int64
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	limited := limitForTest(app)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered.Add(1)
		limited.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the slow clients stop (cleanups run last first)
	addr := srv.Listener.Addr().String()
	// Four source addresses, three connections each: 12 slow bodies
	// against 4 in-flight slots.
	attack.SlowBodies(t, addr, []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"}, 3, "")
	waitEntered(t, &entered, 12)

	good := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 20 {
		resp, err := good.Post(srv.URL+"/v1/ask", "application/json", strings.NewReader(`{"question":"q"}`))
		if err != nil {
			t.Fatalf("good request %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("good request %d during the slow-body attack: %d, want 200", i, resp.StatusCode)
		}
	}
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := good.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s during the attack: %d, want 200", path, resp.StatusCode)
		}
	}
}

// testLimits are small, so that the attack tests are quick.
var testLimits = httpapi.LimitOptions{
	MaxInFlight:             4,
	BodyReadTimeout:         300 * time.Millisecond,
	MaxBodyReaders:          64,
	MaxBodyReadersPerClient: 4,
}

func limitForTest(next http.Handler) http.Handler {
	o := testLimits
	return httpapi.Limit(next, &o)
}

// TestLimit_BodyReadTimeout: a body that does not arrive within the
// body-read budget is answered 408 and the connection closed; a body over
// the cap is 413 whether or not Content-Length announced it.
func TestLimit_BodyReadTimeout(t *testing.T) {
	srv := httptest.NewServer(limitForTest(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.WriteHeader(http.StatusOK)
	})))
	t.Cleanup(srv.Close)
	tests := []struct {
		name, request string
		wantStatus    string
	}{
		{"stalled body", "POST /v1/ask HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n{", "408"},
		{"announced too large", fmt.Sprintf("POST /v1/ask HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n{", httpapi.DefaultMaxBodyBytes+1), "413"},
		{"chunked too large", "POST /v1/ask HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", httpapi.DefaultMaxBodyBytes+1, strings.Repeat("x", httpapi.DefaultMaxBodyBytes+1)), "413"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go io.WriteString(conn, tt.request)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound for the test, not a measurement
			b, err := io.ReadAll(conn)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("the server kept the connection open (read %q)", b)
			}
			if !strings.HasPrefix(string(b), "HTTP/1.1 "+tt.wantStatus+" ") {
				t.Errorf("reply = %q, want %s", b, tt.wantStatus)
			}
		})
	}
}

// TestLimit_OversizedBodyWrittenWhole: a client that writes its whole
// body before reading, as most do, reads the 413 and not a reset, for a
// body up to four times the cap, announced or chunked; a larger
// announced body is refused before it is read.
func TestLimit_OversizedBodyWrittenWhole(t *testing.T) {
	var handled atomic.Int64
	srv := httptest.NewServer(limitForTest(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handled.Add(1)
		w.WriteHeader(http.StatusOK)
	})))
	t.Cleanup(srv.Close)
	limit := int(httpapi.DefaultMaxBodyBytes)
	announced := func(n int) string {
		return fmt.Sprintf("POST /v1/ask HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n%s", n, strings.Repeat("x", n))
	}
	chunked := func(n int) string {
		return fmt.Sprintf("POST /v1/ask HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", n, strings.Repeat("x", n))
	}
	tests := []struct{ name, request string }{
		{"announced, one byte over", announced(limit + 1)},
		{"announced, four times", announced(4 * limit)},
		{"chunked, twice", chunked(2 * limit)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 20 {
				conn, err := net.Dial("tcp", srv.Listener.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				conn.SetDeadline(time.Now().Add(10 * time.Second)) // a bound for the test, not a measurement
				if _, err := io.WriteString(conn, tt.request); err != nil {
					conn.Close()
					t.Fatalf("try %d: writing the body: %v", i, err)
				}
				b, err := io.ReadAll(conn)
				conn.Close()
				if err != nil {
					t.Fatalf("try %d: reading the reply: %v (read %q)", i, err, b)
				}
				if !strings.HasPrefix(string(b), "HTTP/1.1 413 ") {
					t.Fatalf("try %d: reply = %.60q, want 413", i, b)
				}
			}
		})
	}
	t.Run("announced past the drain limit", func(t *testing.T) {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		// Headers only: a server that waited for the body would answer
		// 408 after the body-read budget, not 413.
		fmt.Fprintf(conn, "POST /v1/ask HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n", 4*limit+1)
		b, _ := io.ReadAll(conn)
		if !strings.HasPrefix(string(b), "HTTP/1.1 413 ") {
			t.Fatalf("reply = %.60q, want 413", b)
		}
	})
	if n := handled.Load(); n != 0 {
		t.Errorf("the handler ran %d times for bodies over the cap", n)
	}
}

// TestLimit_BodyReadersPerClient: one client address cannot hold more
// than its share of body readers; past it, 429 at once, while another
// address is still served.
func TestLimit_BodyReadersPerClient(t *testing.T) {
	var entered atomic.Int64
	limited := limitForTest(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered.Add(1)
		limited.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	attack.SlowBodies(t, addr, []string{"127.0.0.2"}, testLimits.MaxBodyReadersPerClient, "")
	waitEntered(t, &entered, int64(testLimits.MaxBodyReadersPerClient))

	post := func(src string) int {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
		c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
		resp, err := c.Post(srv.URL+"/v1/ask", "application/json", strings.NewReader(`{"question":"q"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("127.0.0.2"); got != http.StatusTooManyRequests {
		t.Errorf("one more body from the busy client: %d, want 429", got)
	}
	if got := post("127.0.0.3"); got != http.StatusOK {
		t.Errorf("a body from another client: %d, want 200", got)
	}
}

// waitEntered waits until the server has read the headers of n requests
// (bounded by the test's deadline).
func waitEntered(t *testing.T, entered *atomic.Int64, n int64) {
	t.Helper()
	for entered.Load() < n {
		select {
		case <-t.Context().Done():
			t.Fatal("the slow clients never reached the server")
		case <-time.After(5 * time.Millisecond):
		}
	}
}
