// Package e2e drives the provenant binary with a client nobody on this
// project wrote: the official TypeScript MCP SDK client (e2e/ts/client.mjs,
// npm package @modelcontextprotocol/sdk), over stdio (`provenant mcp`) and
// over streamable HTTP (`provenant serve`, /mcp), and a catalog engine
// (`provenant serve --catalog warehouse`) with e2e/ts/catalog.mjs.
//
// It needs node and the client's packages (`npm ci --prefix e2e/ts`).
// Without them the test skips, except in CI (CI=true), where it fails.
//
//	go test ./e2e            # run the client; compare its transcripts with e2e/testdata
//	go test ./e2e -update    # rewrite e2e/testdata/transcript-{stdio,http}.txt (quoted in the README)
package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite e2e/testdata/transcript-*.txt from this run")

// Bounds on every external step.
const (
	buildTimeout    = 5 * time.Minute
	clientTimeout   = 2 * time.Minute // the script has its own 90 s watchdog
	healthyTimeout  = time.Minute
	shutdownTimeout = 10 * time.Second
)

// TestTypeScriptClient runs e2e/ts/client.mjs against the binary over both
// transports. The script makes the checks (seven read-only tools; get_price,
// count_stores_with_condition and ask answered; the event resource behind
// the price is a tainted envelope with the same price; the
// investigate_condition prompt asks to cite result ids; an injected
// store_id is a typed raw_query rejection that does not repeat it) and
// exits non-zero naming the first that fails. The test then compares each
// transcript it wrote with the committed one, and the README's quoted
// session with the stdio transcript.
func TestTypeScriptClient(t *testing.T) {
	root := moduleRoot(t)
	node := requireNode(t, root)
	bin := buildProvenant(t, root)
	recordServerInputs(t, root)

	t.Run("stdio", func(t *testing.T) {
		out := transcriptPath(t, root, "stdio")
		runClient(t, node, root, "stdio", bin, out)
		compareTranscript(t, root, "stdio", out)
		checkReadmeExcerpt(t, root, out)
	})
	t.Run("http", func(t *testing.T) {
		url := startServer(t, bin)
		out := transcriptPath(t, root, "http")
		runClient(t, node, root, "http", url+"/mcp", out)
		compareTranscript(t, root, "http", out)
	})
}

// TestTypeScriptClient_Catalog runs e2e/ts/catalog.mjs against
// `provenant serve --catalog warehouse` over streamable HTTP: the tools
// and their schemas come from the catalog, answers verify and name their
// data version, a large answer pages through the rows resource, ask
// routes a warehouse question, and an injected id is a typed rejection
// that does not repeat it.
func TestTypeScriptClient_Catalog(t *testing.T) {
	root := moduleRoot(t)
	node := requireNode(t, root)
	bin := buildProvenant(t, root)
	url := startServer(t, bin, "--catalog", "warehouse")
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "e2e", "ts", "catalog.mjs"), url+"/mcp")
	cmd.Dir = root
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node e2e/ts/catalog.mjs: %v\n%s", err, output)
	}
	t.Logf("%s", bytes.TrimSpace(output))
}

// moduleRoot is the nearest directory at or above the working directory
// that holds go.mod.
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// requireNode returns the path of node, or skips (fails in CI) when node
// or the client's packages are missing.
func requireNode(tb testing.TB, root string) string {
	tb.Helper()
	missing := func(what string) {
		tb.Helper()
		msg := what + "; install Node.js 20 or later, then run `npm ci --prefix e2e/ts` from the module root"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	sdk := filepath.Join(root, "e2e", "ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		missing("e2e/ts/node_modules has no @modelcontextprotocol/sdk")
	}
	return node
}

// buildProvenant builds the command once into a temporary directory.
func buildProvenant(tb testing.TB, root string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "provenant")
	ctx, cancel := context.WithTimeout(tb.Context(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/provenant")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/provenant: %v\n%s", err, out)
	}
	return bin
}

// recordServerInputs opens the directories of the binary's packages inside
// the module. go test caches a passing result keyed by the test binary and
// the files the test opens; the server is a separate binary, so without
// this an edit to mcpserver would leave `go test ./e2e` reporting a cached
// pass.
func recordServerInputs(tb testing.TB, root string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.Dir}}", "./cmd/provenant")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("go list -deps ./cmd/provenant: %v", err)
	}
	dirs := []string{root, filepath.Join(root, "e2e", "ts")}
	for _, d := range strings.Fields(string(out)) {
		if rel, err := filepath.Rel(root, d); err == nil && !strings.HasPrefix(rel, "..") {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if _, err := os.ReadDir(d); err != nil {
			tb.Fatal(err)
		}
	}
}

// transcriptPath is where the client writes its transcript: the committed
// file with -update, a temporary one otherwise.
func transcriptPath(tb testing.TB, root, mode string) string {
	tb.Helper()
	if !*update {
		return filepath.Join(tb.TempDir(), "transcript-"+mode+".txt")
	}
	dir := filepath.Join(root, "e2e", "testdata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(dir, "transcript-"+mode+".txt")
}

func runClient(tb testing.TB, node, root, mode, target, out string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), clientTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "e2e", "ts", "client.mjs"), mode, target, out)
	cmd.Dir = root
	// Over stdio the server inherits node's standard error; if node is
	// killed, stop waiting for the pipe after a while.
	cmd.WaitDelay = 5 * time.Second
	output, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("node e2e/ts/client.mjs %s: %v\n%s", mode, err, output)
	}
	tb.Logf("%s (%v)", bytes.TrimSpace(output), time.Since(start).Round(time.Millisecond))
	normaliseResultIDs(tb, out)
}

// resultID is a result id as a server hands it out: res-, 15 digits of
// milliseconds and a 20-digit random suffix (package ledger).
var resultID = regexp.MustCompile(`res-[0-9]{35}`)

// normaliseResultIDs rewrites the transcript at path with each distinct
// result id replaced, in order of first appearance, by a fixed id of the
// same form (res-, 34 zeros, then 1, 2, ...): ids are unique per process
// and run, so only their form and which are equal can be compared. An id
// of any other form stays as it is, and fails the comparison.
func normaliseResultIDs(tb testing.TB, path string) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[string]string{}
	b = resultID.ReplaceAllFunc(b, func(id []byte) []byte {
		n, ok := seen[string(id)]
		if !ok {
			n = fmt.Sprintf("res-%035d", len(seen)+1)
			seen[string(id)] = n
		}
		return []byte(n)
	})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// compareTranscript keeps the committed transcript (quoted in the README)
// true to what the server does.
func compareTranscript(tb testing.TB, root, mode, out string) {
	tb.Helper()
	if *update {
		return
	}
	got, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	golden := filepath.Join("e2e", "testdata", "transcript-"+mode+".txt")
	want, err := os.ReadFile(filepath.Join(root, golden))
	if err != nil {
		tb.Fatalf("read committed transcript: %v; run `go test ./e2e -update`", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; ; i++ {
		gl, wl := line(g, i), line(w, i)
		if gl != wl {
			tb.Errorf("transcript differs from %s at line %d:\n got: %s\nwant: %s\n"+
				"If the change is intended, run `go test ./e2e -update` and update the README's excerpt.", golden, i+1, gl, wl)
			return
		}
	}
}

// readmeExcerptEnd is the heading after the part of the stdio transcript
// that the README quotes (tool list, one call, one resource read).
const readmeExcerptEnd = "\n## tools/call get_price with an injected"

// checkReadmeExcerpt keeps the README's quoted session equal to the
// transcript this run produced.
func checkReadmeExcerpt(tb testing.TB, root, out string) {
	tb.Helper()
	if *update {
		return
	}
	got, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	excerpt, _, found := strings.Cut(string(got), readmeExcerptEnd)
	if !found {
		tb.Fatalf("transcript has no %q section", strings.TrimSpace(readmeExcerptEnd))
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		tb.Fatal(err)
	}
	if !strings.Contains(string(readme), strings.TrimRight(excerpt, "\n")) {
		tb.Errorf("README.md (section MCP) does not quote e2e/testdata/transcript-stdio.txt up to %q; paste that part of the file into it",
			strings.TrimSpace(readmeExcerptEnd))
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}

// startServer runs `provenant serve` on a free loopback port, waits until
// /healthz is 200, and stops the server when the test ends. It returns the
// server's base URL.
func startServer(tb testing.TB, bin string, args ...string) string {
	tb.Helper()
	addr := freeAddr(tb)
	logPath := filepath.Join(tb.TempDir(), "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--log-level", "error"}, args...)...)
	// A cache of its own: the warehouse demo database is built there.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+tb.TempDir())
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		tb.Fatalf("start provenant serve: %v", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	tb.Cleanup(func() {
		// Graceful shutdown first (SIGINT), then kill.
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(shutdownTimeout):
			_ = cmd.Process.Kill()
			<-exited
			tb.Errorf("provenant serve did not stop within %v of SIGINT; killed", shutdownTimeout)
		}
		if log, _ := os.ReadFile(logPath); tb.Failed() && len(log) > 0 {
			tb.Logf("provenant serve log:\n%s", log)
		}
	})

	url := "http://" + addr
	ctx, cancel := context.WithTimeout(tb.Context(), healthyTimeout)
	defer cancel()
	for {
		if healthy(ctx, url+"/healthz") {
			return url
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			tb.Fatalf("provenant serve exited before /healthz was 200: %v\n%s", waitErr, log)
		case <-ctx.Done():
			tb.Fatalf("provenant serve: /healthz not 200 within %v", healthyTimeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func healthy(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// freeAddr returns a loopback address no one was listening on a moment ago.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
