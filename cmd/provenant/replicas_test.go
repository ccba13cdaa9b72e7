package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replicaStartTimeout bounds how long a replica may take to listen and
// load the demo store.
const replicaStartTimeout = 60 * time.Second

// replica is one `provenant serve` process: this test binary re-executed
// as main, listening on a port the kernel picks.
type replica struct {
	addr chan string // the listening address, once serve logs it
}

// startReplica starts a replica (startServe); it is killed at cleanup,
// on failure too. Both replicas are started before either is waited
// for, so they load the demo store at the same time.
func startReplica(t *testing.T) *replica {
	t.Helper()
	r, _ := startServe(t)
	return r
}

// ready waits until the replica's /healthz is 200 and returns its base URL.
func (r *replica) ready(t *testing.T, deadline <-chan time.Time) string {
	t.Helper()
	var base string
	select {
	case addr := <-r.addr:
		base = "http://" + addr
	case <-deadline:
		t.Fatalf("replica did not log its address within %v", replicaStartTimeout)
	}
	for {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", base+"/healthz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case <-deadline:
			t.Fatalf("replica %s: /healthz not 200 within %v", base, replicaStartTimeout)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// roundRobin is a reverse proxy that sends each request to the next
// backend in turn, with no affinity of any kind, and counts what each got.
//
// It reads each request body whole before forwarding it, as production
// proxies do by default (nginx's proxy_request_buffering): streaming the
// inbound body to the backend through httputil.ReverseProxy races with
// net/http (golang.org/issue/40747). Once the backend has the declared
// Content-Length, the Transport's write loop reads the body once more to
// check it ends there; the proxy's own server drains and closes that body
// as soon as the proxy starts writing the response (an HTTP/1 handler is
// not full duplex). When the write loop loses that race it gets "invalid
// Read on closed Body", takes it for a failed request write and closes
// the backend connection mid-response: the proxy logs "read error during
// body copy: use of closed network connection" and the client gets a
// truncated body. Only a response the proxy flushes before it has read
// all of it is exposed: tools/list's, the one over 2 KiB, which the
// replica sends chunked. Buffered, the body the write loop reads is a
// bytes.Reader that nothing else drains or closes.
type roundRobin struct {
	backends []*url.URL
	next     atomic.Uint64
	mu       sync.Mutex
	served   map[string]int // backend host → requests
	proxy    *httputil.ReverseProxy
}

func newRoundRobin(t *testing.T, bases ...string) *roundRobin {
	t.Helper()
	rr := &roundRobin{served: map[string]int{}}
	for _, b := range bases {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		rr.backends = append(rr.backends, u)
	}
	// Its own connection pool, not http.DefaultTransport, which the MCP
	// client under test also uses; idle connections are dropped well
	// before the replicas' idle timeout (2 minutes) would close them.
	tr := &http.Transport{IdleConnTimeout: 30 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	rr.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			u := rr.backends[(rr.next.Add(1)-1)%uint64(len(rr.backends))]
			r.SetURL(u)
			rr.mu.Lock()
			rr.served[u.Host]++
			rr.mu.Unlock()
		},
		Transport: tr,
		// A request the proxy could not forward fails the test by name,
		// not only as the client's error; nothing is retried.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			t.Errorf("round-robin proxy: %s %s%s: %v", r.Method, r.URL.Host, r.URL.Path, err)
			w.WriteHeader(http.StatusBadGateway)
		},
		// Errors after the response started (a cut body) go to the test log.
		ErrorLog: log.New(t.Output(), "round-robin proxy: ", 0),
	}
	return rr
}

// ServeHTTP forwards r with its body read whole (see roundRobin).
func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rr.proxy.ErrorHandler(w, r, fmt.Errorf("read the request body: %w", err))
		return
	}
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	rr.proxy.ServeHTTP(w, out)
}

func (rr *roundRobin) counts() map[string]int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	out := map[string]int{}
	for _, u := range rr.backends {
		out[u.Host] = rr.served[u.Host]
	}
	return out
}

// TestServe_ReplicasBehindRoundRobin is the scale-out check: two `serve`
// processes behind a plain round-robin proxy serve one MCP client session
// (list tools, seven tool calls, a resource read) without sticky sessions,
// because the streamable HTTP transport keeps no protocol session.
func TestServe_ReplicasBehindRoundRobin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two server processes; skipped with -short")
	}
	a, b := startReplica(t), startReplica(t)
	deadline := time.After(replicaStartTimeout)
	bases := []string{a.ready(t, deadline), b.ready(t, deadline)}
	rr := newRoundRobin(t, bases...)
	proxy := httptest.NewServer(rr)
	t.Cleanup(proxy.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connect through the proxy: %v", err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 9 {
		t.Fatalf("ListTools() = %v, %v; want the 6 menu tools, query_metric, ask and check_grounding", tools, err)
	}
	const asOf = "2026-01-06T08:00:00Z"
	calls := []struct {
		name string
		args map[string]any
		want string // a fragment of the structured content
	}{
		{"get_price", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": asOf}, `"value":781`},
		{"get_stock_state", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": asOf}, `"outcome":"answered"`},
		{"get_compliance_flag", map[string]any{"store_id": "st-003", "product_id": "pr-007", "as_of": asOf}, `"outcome":"answered"`},
		{"count_stores_with_condition", map[string]any{"condition": "OUT_OF_STOCK", "as_of": asOf}, `"outcome":"answered"`},
		{"list_products_in_state", map[string]any{"store_id": "st-003", "state": "LOW_STOCK", "as_of": asOf}, `"product_ids":["pr-021","pr-024"]`},
		{"count_events_in_window", map[string]any{"store_id": "st-003", "state": "OUT_OF_STOCK",
			"start": "2026-01-01T00:00:00Z", "end": "2026-01-07T00:00:00Z"}, `"value":{"count":4}`},
		{"ask", map[string]any{"question": "What is the price of pr-007 at st-003 as of " + asOf + "?"}, `"value":781`},
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		if err != nil {
			t.Errorf("CallTool(%s) through the proxy: %v", c.name, err)
			continue
		}
		b, _ := json.Marshal(res.StructuredContent)
		if res.IsError || !strings.Contains(string(b), c.want) {
			t.Errorf("CallTool(%s) = %s (IsError %v); want it to contain %s", c.name, b, res.IsError, c.want)
		}
	}
	ev, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "provenant://events/evt-002357"})
	if err != nil || len(ev.Contents) != 1 || !strings.Contains(ev.Contents[0].Text, `"tainted":true`) ||
		!strings.Contains(ev.Contents[0].Text, `evt-002357`) {
		t.Errorf("ReadResource(evt-002357) through the proxy = %v, %v", ev, err)
	}

	// Every backend must have served part of the one session.
	for host, n := range rr.counts() {
		if n < 2 {
			t.Errorf("backend %s served %d requests; want at least 2 (counts %v)", host, n, rr.counts())
		}
	}
	t.Logf("requests per backend: %v", rr.counts())
}
