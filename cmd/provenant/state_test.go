package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/engine"
	"github.com/provenant/provenant/register"
)

func TestParseStateDB(t *testing.T) {
	tests := []struct {
		in       string
		wantKind stateKind
		wantErr  bool
	}{
		{"none", stateNone, false},
		{"postgres://provenant:s3cret@db.internal/shop", statePostgres, false},
		{"postgresql://db.internal/shop?sslmode=require", statePostgres, false},
		{"host=db.internal dbname=shop password=s3cret", statePostgres, false},
		{" user = provenant", statePostgres, false},
		{"duckdb:audit.duckdb", stateDuckDB, false},
		{"duckdb:/var/lib/provenant/audit.duckdb", stateDuckDB, false},
		{"duckdb:", 0, true},
		{"audit.duckdb", 0, true},
		{"mysql://provenant:s3cret@db/shop", 0, true},
		{"Postgres://x", 0, true},
		{"NONE", 0, true},
		{"=s3cret", 0, true},
		{"s3cret", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseStateDB(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseStateDB() = %+v, want an error", got)
				}
				if strings.Contains(err.Error(), "s3cret") || (len(tt.in) > 2 && tt.in != duckdbPrefix && strings.Contains(err.Error(), tt.in)) {
					t.Errorf("the error repeats the value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseStateDB() = %v", err)
			}
			if got.kind != tt.wantKind {
				t.Errorf("kind = %d, want %d", got.kind, tt.wantKind)
			}
		})
	}
}

// TestStateFlags_Usage: --state-db, --state-schema and --register are
// parsed strictly; every mistake is a usage error (exit 2) naming the
// flag, and a DSN (which may hold a password) is never repeated.
func TestStateFlags_Usage(t *testing.T) {
	const secret = "postgres://provenant:hunter2@127.0.0.1:1/none"
	dir := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"ask: unknown kind", []string{"ask", "--state-db", "mysql://u:hunter2@h/d", "q"}, "--state-db: want postgres://"},
		{"ask: duckdb without a path", []string{"ask", "--state-db", "duckdb:", "q"}, "--state-db: duckdb: wants a file PATH"},
		{"ask: --state-db and --log", []string{"ask", "--state-db", secret, "--log", filepath.Join(dir, "e.jsonl"), "q"}, "goes with neither --log nor --register"},
		{"serve: --state-db and --register", []string{"serve", "--state-db", "duckdb:" + filepath.Join(dir, "s.duckdb"), "--register", filepath.Join(dir, "r.jsonl")}, "goes with neither --log nor --register"},
		{"ask: --state-db none and --log", []string{"ask", "--state-db", "none", "--log", filepath.Join(dir, "e.jsonl"), "q"}, "goes with neither"},
		{"ask: bad schema", []string{"ask", "--state-db", secret, "--state-schema", "Hunter2", "q"}, "--state-schema: want"},
		{"ask: schema without a database", []string{"ask", "--state-schema", "audit", "q"}, "--state-schema goes with --state-db"},
		{"ask: schema with none", []string{"ask", "--state-db", "none", "--state-schema", "audit", "q"}, "not none"},
		{"ask: --log-repair with --state-db", []string{"ask", "--state-db", secret, "--log-repair", "q"}, "--log-repair goes with --log"},
		{"ask: --seed without a log", []string{"ask", "--seed", "1", "q"}, "--seed and --profile go with an event log"},
		{"mcp: the --db file as state", []string{"mcp", "--catalog", "warehouse", "--db", "w.duckdb", "--state-db", "duckdb:w.duckdb"}, "opened read only"},
		{"log verify: neither", []string{"log", "verify"}, "want --log FILE or --state-db"},
		{"log verify: both", []string{"log", "verify", "--log", "x", "--state-db", secret}, "not both"},
		{"log export: none", []string{"log", "export", "--state-db", "none"}, "names no log"},
		{"log export: bad", []string{"log", "export", "--state-db", "hunter2"}, "--state-db: want"},
		{"log verify: schema alone", []string{"log", "verify", "--log", "x", "--state-schema", "audit"}, "--state-schema goes with --state-db"},
		{"register verify: neither", []string{"register", "verify"}, "want --register FILE or --state-db"},
		{"register verify: both", []string{"register", "verify", "--register", "x", "--state-db", secret}, "not both"},
		{"register export: none", []string{"register", "export", "--state-db", "none"}, "names no register"},
		{"register verify: an argument", []string{"register", "verify", "--state-db", secret, "extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runMainCLI(t, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.wantStderr)
			}
			if strings.Contains(stderr+stdout, "hunter2") || strings.Contains(stderr, "Hunter2") {
				t.Errorf("a rejected value is repeated: %q", stderr)
			}
		})
	}
}

// TestStateDB_UnreachableNotQuoted: a PostgreSQL state database that does
// not answer stops the command (exit 1) without repeating the DSN's
// password.
func TestStateDB_UnreachableNotQuoted(t *testing.T) {
	for _, args := range [][]string{
		{"ask", "--state-db", "postgres://provenant:hunter2@127.0.0.1:1/none?connect_timeout=2", "q"},
		{"ask", "--state-db", "host=127.0.0.1 port=1 password=hunter2 connect_timeout=2", "q"},
		{"log", "verify", "--state-db", "postgres://provenant:hunter2@127.0.0.1:1/none?connect_timeout=2"},
		{"register", "verify", "--state-db", "postgres://provenant:hunter2@127.0.0.1:1/none?connect_timeout=2"},
		{"ask", "--state-db", "postgres://provenant:hunter2@[::1:bad/none", "q"},
		// The default place (a catalog over --postgres) says how to choose another.
		{"ask", "--catalog", "warehouse", "--postgres", "postgres://provenant:hunter2@127.0.0.1:1/none?connect_timeout=2", "q"},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, stdout, stderr := runMainCLI(t, args...)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "open state database") {
				t.Errorf("stderr = %q, want it to name the state database", stderr)
			}
			if strings.Contains(stderr+stdout, "hunter2") {
				t.Errorf("the password is repeated: %q", stderr)
			}
			if slices.Contains(args, "--postgres") && !strings.Contains(stderr, "--state-db none keeps none") {
				t.Errorf("stderr = %q, want the default explained", stderr)
			}
		})
	}
}

// TestStateDB_DuckDB: `ask --state-db duckdb:PATH` keeps its events and
// an (empty) register in a DuckDB file; two runs append to one log, which
// `log verify`, `log export` and `register verify` read back from the
// file; verifying a file that does not exist does not create it.
func TestStateDB_DuckDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.duckdb")
	for range 2 {
		if _, stderr, err := runCLI(t, "ask", "--log-level", "error", "--state-db", "duckdb:"+path,
			"What is the price of pr-007 at st-003 as of 2026-01-06T08:00:00Z?"); err != nil {
			t.Fatalf("ask --state-db duckdb: %v\n%s", err, stderr)
		}
	}
	out, _, err := runCLI(t, "log", "verify", "--state-db", "duckdb:"+path)
	if err != nil {
		t.Fatalf("log verify: %v", err)
	}
	if !strings.HasPrefix(out, "ok: ") || !strings.Contains(out, " 2 runs") {
		t.Errorf("log verify = %q, want ok over 2 runs", out)
	}
	export, stderr, err := runCLI(t, "log", "export", "--state-db", "duckdb:"+path)
	if err != nil {
		t.Fatalf("log export: %v", err)
	}
	if n := strings.Count(export, "\n"); n == 0 || !strings.Contains(stderr, "exported ") {
		t.Errorf("log export wrote %d lines, %q", n, stderr)
	}
	// The export verifies to the hash verify printed.
	file := writeFile(t, t.TempDir(), "export.jsonl", export)
	hash := out[strings.LastIndex(out, " ")+1 : len(out)-1]
	if _, _, err := runCLI(t, "log", "verify", "--log", file, "--canonical", "--want", hash); err != nil {
		t.Errorf("the export does not verify to the database's hash: %v", err)
	}
	if out, _, err := runCLI(t, "register", "verify", "--state-db", "duckdb:"+path); err != nil || !strings.HasPrefix(out, "ok: 0 records") {
		t.Errorf("register verify = %q, %v", out, err)
	}
	// A schema that holds no audit state is an error, not an empty log.
	for _, args := range [][]string{
		{"log", "verify", "--state-db", "duckdb:" + path, "--state-schema", "nosuch"},
		{"register", "verify", "--state-db", "duckdb:" + path, "--state-schema", "nosuch"},
	} {
		if out, _, err := runCLI(t, args...); err == nil || !errors.Is(err, errNoState) {
			t.Errorf("%s over a schema without audit tables = %q, %v; want errNoState", args[0], out, err)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.duckdb")
	if _, _, err := runCLI(t, "log", "verify", "--state-db", "duckdb:"+missing); err == nil {
		t.Error("log verify of a missing DuckDB file passed")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("log verify created the missing file: %v", err)
	}
}

// decision returns a valid decision record with id.
func decision(id string) register.Record {
	return register.Record{
		ID: id, Kind: register.KindDecision, Time: 7, Question: "q-12", Actor: "pipeline", Tier: register.L3,
		Decision: &register.Decision{
			Alternatives: []register.Alternative{
				{ID: "restock", Description: "restock 40 units", Change: "restock task: store 3, product 17, 40 units",
					Effect: register.Effect{Estimate: 40, Low: 40, High: 40, Unit: "quantity"}, Score: 1},
				{ID: "none", Description: "do nothing", Change: "none", Effect: register.Effect{Unit: "quantity"}},
			},
			Chosen:   "restock",
			Inputs:   []string{"res-000004"},
			Expected: "a restock task opened",
		},
		Approver: "human:alice", ModelVersion: "rules-1", PolicyVersion: "p-3", Seed: 1,
	}
}

// TestGov_RegisterFile: `--register FILE` opens a register the engine
// options carry (engine.Options.Register); what is appended through it
// is fsynced to the file, a reopened file continues the chain, `register
// verify --register` reads it, and a torn last line is refused on open.
func TestGov_RegisterFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	open := func() (engine.Options, func() error) {
		t.Helper()
		ef := engineFlags{provider: "rules"}
		ef.gov = govFlags{surface: surfaceHTTP, registerPath: path}
		if err := ef.gov.open(t.Context(), &ef); err != nil {
			t.Fatal(err)
		}
		var opts engine.Options
		ef.gov.apply(&opts)
		if opts.Register == nil {
			t.Fatal("--register opened no register on the engine options")
		}
		if opts.Events != nil {
			t.Error("--register alone opened an event log")
		}
		return opts, ef.gov.close
	}
	opts, closeGov := open()
	if _, err := opts.Register.Append(t.Context(), decision("dec-1")); err != nil {
		t.Fatal(err)
	}
	if err := closeGov(); err != nil {
		t.Fatal(err)
	}
	opts, closeGov = open() // after a restart: the chain goes on from dec-1
	if h := opts.Register.Head(); h.Len != 1 {
		t.Fatalf("reopened register holds %d records, want 1", h.Len)
	}
	if _, err := opts.Register.Append(t.Context(), decision("dec-1")); err == nil {
		t.Error("a repeated id was appended")
	}
	if _, err := opts.Register.Append(t.Context(), decision("dec-2")); err != nil {
		t.Fatal(err)
	}
	if err := closeGov(); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "register", "verify", "--register", path)
	if err != nil || !strings.HasPrefix(out, "ok: 2 records") {
		t.Fatalf("register verify = %q, %v", out, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	ef := engineFlags{provider: "rules"}
	ef.gov = govFlags{surface: surfaceHTTP, registerPath: path}
	if err := ef.gov.open(t.Context(), &ef); err == nil {
		ef.gov.close()
		t.Error("a register file with a torn last line opened")
	}
}

// FuzzParseStateDB: any --state-db value either parses into a kind whose
// place is the value's (less the duckdb: prefix) or is a usage error that
// does not repeat it.
func FuzzParseStateDB(f *testing.F) {
	for _, s := range []string{"none", "postgres://u:p@h/d", "postgresql://h/d", "host=h dbname=d", "duckdb:a.duckdb", "duckdb:", "", "x", "=", "mysql://u:p@h/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseStateDB(s)
		if err != nil {
			if !errors.Is(err, errUsage) {
				t.Fatalf("error %v is not a usage error", err)
			}
			// The message is one of two fixed texts: nothing of s is in it.
			_, other := parseStateDB("x")
			_, empty := parseStateDB(duckdbPrefix)
			if err.Error() != other.Error() && err.Error() != empty.Error() {
				t.Fatalf("the error depends on the value: %v", err)
			}
			return
		}
		switch got.kind {
		case stateNone:
			if s != stateNoneWord {
				t.Fatalf("%q parsed as none", s)
			}
		case stateDuckDB:
			if got.where == "" || duckdbPrefix+got.where != s {
				t.Fatalf("%q parsed as DuckDB file %q", s, got.where)
			}
		case statePostgres:
			if got.where != s {
				t.Fatalf("%q parsed as DSN %q", s, got.where)
			}
		default:
			t.Fatalf("%q parsed as kind %d", s, got.kind)
		}
	})
}

// TestStateDB_DuckDBOpenNotQuoted: a --state-db duckdb:PATH that DuckDB
// cannot open stops the command (exit 1) with one line naming the flag
// and the reason, not the path. Before, DuckDB's message quoted the
// file's absolute path, and the flag's other errors never repeat its
// value.
func TestStateDB_DuckDBOpenNotQuoted(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.duckdb")
	if err := os.WriteFile(text, []byte("not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no", "such.duckdb")
	// A file another process holds: a server keeping its state there.
	held := filepath.Join(dir, "held.duckdb")
	srv := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--log-level", "error", "--state-db", "duckdb:"+held)
	srv.Env = append(os.Environ(), "PROVENANT_RUN_MAIN=1")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
	})
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(held); err == nil {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatal("the server made no state file in 30 s")
		}
	}
	const q = "How many products are out of stock at store-01 as of 2026-01-06T12:00:00Z?"
	tests := []struct {
		args   []string
		reason string
	}{
		{[]string{"ask", "--log-level", "error", "--state-db", "duckdb:" + text, q}, "not a DuckDB database file"},
		{[]string{"log", "verify", "--state-db", "duckdb:" + text}, "not a DuckDB database file"},
		{[]string{"register", "verify", "--state-db", "duckdb:" + text}, "not a DuckDB database file"},
		{[]string{"ask", "--log-level", "error", "--state-db", "duckdb:" + missing, q}, "no such file or directory"},
		{[]string{"log", "verify", "--state-db", "duckdb:" + missing}, "no such file"},
		{[]string{"log", "verify", "--state-db", "duckdb:" + held}, "another process has the file open (DuckDB lets one process at a time open a file for writing)"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " ")+", "+tt.reason, func(t *testing.T) {
			code, stdout, stderr := runMainCLI(t, tt.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s", code, stderr)
			}
			if want := "provenant: open state database: --state-db: duckdb: " + tt.reason + "\n"; stderr != want {
				t.Errorf("stderr = %q, want %q", stderr, want)
			}
			if strings.Contains(stdout+stderr, dir) {
				t.Errorf("the path is repeated: %q", stderr)
			}
		})
	}
}
