package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/ingest/ingesttest"
	"github.com/provenant/provenant/retail"
	"github.com/provenant/provenant/retail/demo"
)

// TestFileInputs_NamedPipes: validate --catalog, log verify --log and
// --against, register verify and export --register, import --catalog,
// ground --ledger, a catalog's fixture files (validate),
// serve --principals (and its token_file: entries),
// serve --token-file, eval --gold, --abstention-policy,
// --budget, a --catalog FILE of the commands that answer, and memory
// recall --policy read a named pipe (or a process substitution) once, as
// a stream, and an interrupt ends a wait for its writer or for its
// writer's bytes; a pipe written to gives what a regular file gives.
// Before, each opened its file with os.Open (or os.ReadFile): a named
// pipe no one writes blocked the command in open(2), deaf to the
// interrupt, and a writer that wrote nothing blocked it in read.
func TestFileInputs_NamedPipes(t *testing.T) {
	cat := ingesttest.WarehouseCatalogFile(t)
	catBody, err := os.ReadFile(cat)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := os.ReadFile(filepath.Join("..", "..", "register", "testdata", "v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	emptyLog := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(emptyLog, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(csv, ingesttest.DemoCSV(t, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	// pipe makes a named pipe in dir (the catalog's, for its fixtures).
	pipe := func(t *testing.T, dir string) string {
		t.Helper()
		n++
		p := filepath.Join(dir, "pipe"+itoa(n))
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no named pipes: %v", err)
		}
		// Whatever the command did, no writer stays blocked.
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			os.Remove(p)
		})
		return p
	}
	write := func(p string, body []byte) {
		go func() {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Write(body)
				f.Close()
			}
		}()
	}
	// hold opens p for writing and writes nothing until the test ends.
	hold := func(t *testing.T, p string) {
		go func() {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				<-t.Context().Done()
				f.Close()
			}
		}()
	}
	const canceled = "context canceled"

	type fileCase struct {
		name      string
		args      func(t *testing.T) []string
		interrupt bool          // cancel the command's context after 300 ms
		after     time.Duration // or after this long
		wantCode  int
		wantOut   string                      // a regular expression
		wantErr   string                      // stderr, exactly
		regular   func(t *testing.T) []string // the args with a regular file: the same output wanted
	}
	tests := []fileCase{
		{name: "validate, no writer", interrupt: true, wantCode: 1,
			args:    func(t *testing.T) []string { return []string{"validate", "--catalog", pipe(t, t.TempDir())} },
			wantErr: "provenant: open catalog file: " + canceled + "\n"},
		{name: "validate, a writer that writes nothing", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				hold(t, p)
				return []string{"validate", "--catalog", p}
			}},
		{name: "validate, written to",
			args: func(t *testing.T) []string {
				p := pipe(t, filepath.Dir(cat))
				write(p, catBody)
				return []string{"validate", "--catalog", p}
			},
			wantOut: `: valid \(catalog `},
		// The fixtures are read after every metric's queries are
		// checked (half a second): the interrupt comes later.
		{name: "validate, a fixture's rows, no writer", interrupt: true, after: 3 * time.Second, wantCode: 1,
			args:    func(t *testing.T) []string { return []string{"validate", "--catalog", fixtureRows(t, pipe)} },
			wantErr: "provenant: validate catalog: " + canceled + "\n"},
		{name: "validate, a fixture's rows, a writer that writes nothing", interrupt: true, after: 3 * time.Second, wantCode: 1,
			args: func(t *testing.T) []string {
				return []string{"validate", "--catalog", fixtureRows(t, func(t *testing.T, dir string) string {
					p := pipe(t, dir)
					hold(t, p)
					return p
				})}
			}},
		{name: "import --catalog, no writer", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				return []string{"import", "--catalog", pipe(t, t.TempDir()), "--dataset", "status_events",
					"--db", filepath.Join(t.TempDir(), "w.duckdb"), csv}
			},
			wantErr: "provenant: open catalog file: " + canceled + "\n"},
		{name: "log verify, no writer", interrupt: true, wantCode: 1,
			args:    func(t *testing.T) []string { return []string{"log", "verify", "--log", pipe(t, t.TempDir())} },
			wantErr: "provenant: open event log: " + canceled + "\n"},
		{name: "log verify, a writer that writes nothing", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				hold(t, p)
				return []string{"log", "verify", "--log", p}
			},
			wantErr: "provenant: verify event log: " + canceled + "\n"},
		{name: "log verify, written to",
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				write(p, nil)
				return []string{"log", "verify", "--log", p}
			},
			wantOut: `^ok: 0 events, 0 runs, log hash [0-9a-f]{64}\n$`},
		{name: "log verify --against, no writer", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				return []string{"log", "verify", "--log", emptyLog, "--against", pipe(t, t.TempDir())}
			},
			wantErr: "provenant: open reference log: " + canceled + "\n"},
		{name: "register verify, no writer", interrupt: true, wantCode: 1,
			args:    func(t *testing.T) []string { return []string{"register", "verify", "--register", pipe(t, t.TempDir())} },
			wantErr: "provenant: open register: " + canceled + "\n"},
		{name: "register export, a writer that writes nothing", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				hold(t, p)
				return []string{"register", "export", "--register", p}
			}},
		{name: "register verify, written to",
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				write(p, reg)
				return []string{"register", "verify", "--register", p}
			},
			wantOut: `^ok: \d+ records, head [0-9a-f]{64}\n$`},
	}
	// The other inputs read once: each is ended by the interrupt with no
	// writer and with a writer that writes nothing, and a pipe written
	// body gives what a regular file of body gives.
	var store bytes.Buffer
	d, err := demo.Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := retail.Write(&store, d); err != nil {
		t.Fatal(err)
	}
	storeBody := store.String()
	inputs := []struct {
		name string
		dir  string // where the file goes ("": a temporary directory)
		body string
		args func(path string) []string
		open string // the error of an interrupt before a writer
	}{
		{name: "ground --ledger", body: groundLedger, open: "open ledger file",
			args: func(p string) []string { return []string{"ground", "--ledger", p, "pr-007 costs $7.81."} }},
		{name: "serve --principals", body: "principals:\n  - name: east\n    token_env: PROVENANT_TEST_UNSET\n", open: "open principals file",
			args: func(p string) []string {
				return []string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error", "--principals", p}
			}},
		{name: "serve --token-file", body: "short\n", open: "configure token: token_file FILE",
			args: func(p string) []string {
				return []string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error", "--token-file", p}
			}},
		{name: "eval --gold", body: "version: 1\nitems: 3\n", open: "open gold file",
			args: func(p string) []string { return []string{"eval", "--log-level", "error", "--gold", p} }},
		{name: "ask --abstention-policy", body: `{"global": {"threshold": 2}}`, open: "open abstention policy",
			args: func(p string) []string {
				return []string{"ask", "--log-level", "error", "--abstention-policy", p, budgetQuestion}
			}},
		{name: "ask --budget", body: strings.Replace(budgetYAML("1"), "sim_seconds: 600", "sim_secs: 600", 1), open: "open budget",
			args: func(p string) []string { return []string{"ask", "--log-level", "error", "--budget", p, budgetQuestion} }},
		{name: "ask --catalog", dir: filepath.Dir(cat), body: string(catBody), open: "open catalog file",
			args: func(p string) []string {
				return []string{"ask", "--log-level", "error", "--catalog", p, "How many zones?"}
			}},
		{name: "ask --store", body: storeBody, open: "open store file",
			args: func(p string) []string {
				return []string{"ask", "--log-level", "error", "--store", p, "How many products are out of stock at store-01 as of 2026-01-06T12:00:00Z?"}
			}},
		{name: "memory recall --policy", body: `{"max_backfill_pulls": 7}`, open: "open policy",
			args: func(p string) []string {
				return []string{"memory", "recall", "--journal", filepath.Join(t.TempDir(), "j.duckdb"), "--agent", "a",
					"--subject", "s", "--check=false", "--json", "--policy", p}
			}},
	}
	// A principals file's token_file: entry is read as --token-file is.
	tokenEntry := func(t *testing.T, p string) []string {
		principals := filepath.Join(t.TempDir(), "principals.yaml")
		if err := os.WriteFile(principals, []byte("principals:\n  - name: east\n    token_file: "+p+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"serve", "--addr", "127.0.0.1:0", "--log-level", "error", "--principals", principals}
	}
	tests = append(tests, []fileCase{
		{name: "serve --principals token_file, no writer", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string { return tokenEntry(t, pipe(t, t.TempDir())) }},
		{name: "serve --principals token_file, a writer that writes nothing", interrupt: true, wantCode: 1,
			args: func(t *testing.T) []string {
				p := pipe(t, t.TempDir())
				hold(t, p)
				return tokenEntry(t, p)
			}},
	}...)
	for _, in := range inputs {
		dir := func(t *testing.T) string {
			if in.dir != "" {
				return in.dir
			}
			return t.TempDir()
		}
		tests = append(tests, []fileCase{
			{name: in.name + ", no writer", interrupt: true, wantCode: 1,
				args:    func(t *testing.T) []string { return in.args(pipe(t, dir(t))) },
				wantErr: "provenant: " + in.open + ": " + canceled + "\n"},
			{name: in.name + ", a writer that writes nothing", interrupt: true, wantCode: 1,
				args: func(t *testing.T) []string {
					p := pipe(t, dir(t))
					hold(t, p)
					return in.args(p)
				}},
			{name: in.name + ", written to",
				args: func(t *testing.T) []string {
					p := pipe(t, dir(t))
					write(p, []byte(in.body))
					return in.args(p)
				},
				regular: func(t *testing.T) []string {
					n++
					p := filepath.Join(dir(t), "regular"+itoa(n))
					if err := os.WriteFile(p, []byte(in.body), 0o644); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { os.Remove(p) })
					return in.args(p)
				}},
		}...)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wantCode int
			var wantOut, wantErr string
			if tt.regular != nil {
				// What the same command gives a regular file, its name
				// aside.
				args := tt.regular(t)
				var stdout, stderr bytes.Buffer
				wantCode = runMain(t.Context(), args, &stdout, &stderr)
				wantOut, wantErr = unnamed(stdout.String(), args), unnamed(stderr.String(), args)
			}
			args := tt.args(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.interrupt {
				after := 300 * time.Millisecond
				if tt.after > 0 {
					after = tt.after
				}
				time.AfterFunc(after, cancel)
			}
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- runMain(ctx, args, &stdout, &stderr) }()
			select {
			case code := <-done:
				if tt.regular != nil {
					if code != wantCode || unnamed(stdout.String(), args) != wantOut || unnamed(stderr.String(), args) != wantErr {
						t.Errorf("exit %d, stdout %q, stderr %q; a regular file: exit %d, stdout %q, stderr %q",
							code, unnamed(stdout.String(), args), unnamed(stderr.String(), args), wantCode, wantOut, wantErr)
					}
					return
				}
				if code != tt.wantCode {
					t.Errorf("exit code %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
				}
			case <-time.After(10 * time.Second):
				// The command is stuck; unblock its open so the test ends.
				for _, a := range args {
					if f, err := os.OpenFile(a, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				}
				t.Fatal("still running 10 s after the start")
			}
			if !regexp.MustCompile(tt.wantOut).MatchString(stdout.String()) || (tt.wantOut == "" && stdout.Len() > 0) {
				t.Errorf("stdout = %q, want a match for %q", stdout.String(), tt.wantOut)
			}
			if tt.wantErr != "" && unnamed(stderr.String(), args) != tt.wantErr {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantErr)
			}
			if tt.interrupt && !bytes.Contains(stderr.Bytes(), []byte(canceled)) {
				t.Errorf("stderr = %q, want it to say %q", stderr.String(), canceled)
			}
		})
	}
}

// fixtureRows is a copy of the warehouse catalog with its fixtures, the
// rows file they share (status_events.jsonl) a link to a named pipe
// made by pipe: the catalog's path.
func fixtureRows(t *testing.T, pipe func(t *testing.T, dir string) string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "fixtures"), os.DirFS(filepath.Join("..", "..", "catalogs", "fixtures"))); err != nil {
		t.Fatal(err)
	}
	wh, err := os.ReadFile(filepath.Join("..", "..", "catalogs", "warehouse.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cat := filepath.Join(dir, "warehouse.yaml")
	if err := os.WriteFile(cat, wh, 0o644); err != nil {
		t.Fatal(err)
	}
	rows := filepath.Join(dir, "fixtures", "warehouse", "status_events.jsonl")
	if err := os.Remove(rows); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pipe(t, dir), rows); err != nil {
		t.Fatal(err)
	}
	return cat
}

// unnamed is s with the files args name (those of the args after a flag)
// written FILE.
func unnamed(s string, args []string) string {
	for i, a := range args {
		if i > 0 && strings.HasPrefix(args[i-1], "--") && strings.Contains(a, string(filepath.Separator)) {
			s = strings.ReplaceAll(s, a, "FILE")
		}
	}
	return s
}

// TestCatalogDirFS_Confined: a catalog's fixture files are read from its
// directory only, a symbolic link leading out of it refused as a path
// would be. Before, the link was followed, and validate printed the
// YAML parser's error quoting the lines of the file it led to (a link to
// /etc/passwd printed its first lines).
func TestCatalogDirFS_Confined(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.yaml")
	if err := os.WriteFile(secret, []byte("XYZZY: secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "in.yaml"), []byte("rows: r.jsonl\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"out.yaml": secret, "in-link.yaml": "in.yaml", "up.yaml": "../../" + filepath.Base(outside) + "/secret.yaml"} {
		if err := os.Symlink(target, filepath.Join(dir, "fixtures", name)); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	fsys := catalogDirFS(t.Context(), filepath.Join(dir, "c.yaml"))
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"fixtures/in.yaml", true},
		{"fixtures/in-link.yaml", true},
		{"fixtures/out.yaml", false},
		{"fixtures/up.yaml", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := fs.ReadFile(fsys, tt.name)
			_, statErr := fs.Stat(fsys, tt.name)
			if tt.ok {
				if err != nil || statErr != nil || string(b) != "rows: r.jsonl\n" {
					t.Errorf("ReadFile = %q, %v; Stat: %v", b, err, statErr)
				}
				return
			}
			if err == nil || statErr == nil || strings.Contains(string(b), "XYZZY") {
				t.Errorf("ReadFile = %q, %v; Stat: %v; want both refused", b, err, statErr)
			}
		})
	}
	// validate says why, and prints nothing of the file the link leads to.
	cat := fixtureRows(t, func(t *testing.T, dir string) string {
		return filepath.Join(dir, "fixtures", "warehouse", "status_events.jsonl.orig")
	})
	fx := filepath.Join(filepath.Dir(cat), "fixtures", "warehouse", "availability.yaml")
	if err := os.Remove(fx); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, fx); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMainCLI(t, "validate", "--catalog", cat)
	if code != 1 || !strings.Contains(stderr, "metric `availability`: fixture file `fixtures/warehouse/availability.yaml`: a symbolic link leads outside the catalog's directory") ||
		strings.Contains(stdout+stderr, "XYZZY") {
		t.Errorf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
}
