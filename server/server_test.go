package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/httpapi"
	"github.com/provenant/provenant/principal"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/server"
	"github.com/provenant/provenant/tool"
)

// stubAsker abstains on every question and call.
type stubAsker struct{}

func (stubAsker) Ask(context.Context, string) answer.Answer {
	return answer.Abstain(answer.ReasonNoTool, "stub")
}
func (stubAsker) Call(context.Context, tool.Proposal) answer.Answer {
	return answer.Abstain(answer.ReasonNoTool, "stub")
}

func stubLoaded(closed *atomic.Int32) server.Loaded {
	return server.Loaded{
		Backend: httpapi.Backend{Asker: stubAsker{}, DatasetVersion: "stub-v1", Provider: "stub"},
		Close:   func() error { closed.Add(1); return nil },
	}
}

// run starts server.Run on addr and returns its base URL and a function
// that stops it and returns Run's error.
func run(t *testing.T, addr string, load server.Loader, opts *server.Options) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	if opts == nil {
		opts = &server.Options{}
	}
	if opts.Registry == nil {
		o := *opts
		o.Registry = retail.Registry()
		opts = &o
	}
	go func() { done <- server.Run(ctx, ln, load, opts) }()
	var once bool
	var result error
	stop := func() error {
		if !once {
			once = true
			cancel()
			result = <-done
		}
		return result
	}
	t.Cleanup(func() { stop() })
	return "http://127.0.0.1:" + port, stop
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitReady polls /healthz until it is 200 (bounded by the test's own
// deadline, not a measurement).
func waitReady(t *testing.T, base string) {
	t.Helper()
	for {
		if code, _ := get(t, base+"/healthz", ""); code == http.StatusOK {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatal("the server never became ready")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestRun_LoadsThenServesThenCloses(t *testing.T) {
	var closed atomic.Int32
	release := make(chan struct{})
	base, stop := run(t, "127.0.0.1:0", func(ctx context.Context) (server.Loaded, error) {
		<-release
		return stubLoaded(&closed), nil
	}, nil)
	if code, body := get(t, base+"/healthz", ""); code != http.StatusServiceUnavailable || !strings.Contains(body, "loading") {
		t.Errorf("/healthz while loading: %d %s", code, body)
	}
	close(release)
	waitReady(t, base)
	if code, body := get(t, base+"/v1/tools", ""); code != http.StatusOK {
		t.Errorf("/v1/tools: %d %s", code, body)
	}
	if err := stop(); err != nil {
		t.Errorf("Run() = %v after cancel, want nil", err)
	}
	if n := closed.Load(); n != 1 {
		t.Errorf("backend closed %d times, want 1", n)
	}
}

// TestRun_ShutdownWhileLoading: cancelling while the loader runs cancels
// the loader's context, waits for it, and releases what it built.
func TestRun_ShutdownWhileLoading(t *testing.T) {
	var closed atomic.Int32
	started := make(chan struct{})
	var loaderSawCancel atomic.Bool
	base, stop := run(t, "127.0.0.1:0", func(ctx context.Context) (server.Loaded, error) {
		close(started)
		<-ctx.Done()
		loaderSawCancel.Store(true)
		// A loader that built something before it noticed returns it.
		return stubLoaded(&closed), nil
	}, nil)
	<-started
	if code, _ := get(t, base+"/healthz", ""); code != http.StatusServiceUnavailable {
		t.Errorf("/healthz while loading: %d", code)
	}
	if err := stop(); err != nil {
		t.Errorf("Run() = %v, want nil", err)
	}
	if !loaderSawCancel.Load() || closed.Load() != 1 {
		t.Errorf("loader cancelled %t, closed %d times; want true, 1", loaderSawCancel.Load(), closed.Load())
	}
	if _, err := net.Dial("tcp", strings.TrimPrefix(base, "http://")); err == nil {
		t.Error("still listening after Run returned")
	}
}

func TestRun_LoadError(t *testing.T) {
	boom := errors.New("boom")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Run returns on its own when the load fails.
	err = server.Run(t.Context(), ln, func(context.Context) (server.Loaded, error) { return server.Loaded{}, boom }, &server.Options{Registry: retail.Registry()})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "load engine") {
		t.Errorf("Run() = %v, want load engine: boom", err)
	}
}

func TestRun_Refuses(t *testing.T) {
	tests := []struct {
		name string
		addr string
		opts server.Options
		want error
	}{
		{"no tokens on a network address", "0.0.0.0:0", server.Options{Registry: retail.Registry()}, server.ErrNeedsAuth},
		{"bad limits", "127.0.0.1:0", server.Options{Registry: retail.Registry(), Limits: server.Limits{MaxInFlight: -1}}, server.ErrLimits},
		{"bad allowed host", "127.0.0.1:0", server.Options{Registry: retail.Registry(), AllowedHosts: []string{"http://x"}}, httpapi.ErrAllowedHost},
		{"no registry", "127.0.0.1:0", server.Options{}, server.ErrNoRegistry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			err = server.Run(t.Context(), ln, func(context.Context) (server.Loaded, error) {
				t.Error("loaded although the configuration is refused")
				return server.Loaded{}, nil
			}, &tt.opts)
			if !errors.Is(err, tt.want) {
				t.Errorf("Run() = %v, want %v", err, tt.want)
			}
		})
	}
}

const token = "metrics-test-token-0123456789"

func tokenSet(t *testing.T) *principal.Set {
	t.Helper()
	set, err := principal.Single("ops", principal.Source{Env: "T"}, principal.Sources{
		LookupEnv: func(string) (string, bool) { return token, true },
	})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestRun_MetricsPolicy: /metrics is open on loopback; on a network
// address with tokens it needs one, unless PublicMetrics.
func TestRun_MetricsPolicy(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "provenant_requests_total 0\n") })
	tests := []struct {
		name       string
		addr       string
		public     bool
		wantNoAuth int
	}{
		{"loopback", "127.0.0.1:0", false, http.StatusOK},
		{"network", "0.0.0.0:0", false, http.StatusUnauthorized},
		{"network, public", "0.0.0.0:0", true, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var closed atomic.Int32
			base, _ := run(t, tt.addr, func(context.Context) (server.Loaded, error) { return stubLoaded(&closed), nil },
				&server.Options{Registry: retail.Registry(), Auth: tokenSet(t), Metrics: metrics, PublicMetrics: tt.public})
			waitReady(t, base)
			if code, _ := get(t, base+"/metrics", ""); code != tt.wantNoAuth {
				t.Errorf("/metrics without a token: %d, want %d", code, tt.wantNoAuth)
			}
			if code, _ := get(t, base+"/metrics", token); code != http.StatusOK {
				t.Errorf("/metrics with a token: %d, want 200", code)
			}
			if code, _ := get(t, base+"/v1/tools", ""); code != http.StatusUnauthorized {
				t.Errorf("/v1/tools without a token: %d, want 401", code)
			}
		})
	}
}

// TestRun_HostIsTheArrivalAddress: on a network address, a client that
// names the server by the IP address it connected to is served without
// --allowed-hosts (an address literal cannot be rebound); a DNS name
// needs --allowed-hosts.
func TestRun_HostIsTheArrivalAddress(t *testing.T) {
	ip := nonLoopbackIP(t)
	var closed atomic.Int32
	base, _ := run(t, "0.0.0.0:0", func(context.Context) (server.Loaded, error) { return stubLoaded(&closed), nil },
		&server.Options{Registry: retail.Registry(), Auth: tokenSet(t)})
	waitReady(t, base)
	port := base[strings.LastIndex(base, ":")+1:]
	ipBase := "http://" + net.JoinHostPort(ip.String(), port)
	if code, body := get(t, ipBase+"/v1/tools", token); code != http.StatusOK {
		t.Errorf("Host %s: %d %s, want 200", ip, code, body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", ipBase+"/v1/tools", nil)
	req.Host = "server.example:" + port
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host server.example without --allowed-hosts: %d, want 403", resp.StatusCode)
	}
}

// nonLoopbackIP is an address of this machine's that is not loopback, or
// the test is skipped.
func nonLoopbackIP(t *testing.T) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	t.Skip("no non-loopback IPv4 address")
	return nil
}
