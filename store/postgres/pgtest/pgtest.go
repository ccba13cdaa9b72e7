// Package pgtest connects tests to a real PostgreSQL: the DSN comes from
// PROVENANT_POSTGRES_DSN; unset, CI (CI=true) uses the local server
// .ci/run starts and fails if it does not answer, and anywhere else the
// test is skipped. Each database a test opens is a schema of its own,
// created for it and dropped after it, so tests in parallel never meet.
package pgtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// EnvDSN is the variable that names the PostgreSQL tests run against.
const EnvDSN = "PROVENANT_POSTGRES_DSN"

// CIDSN is the DSN tests use in CI when EnvDSN is unset.
const CIDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// DSN returns the DSN of the PostgreSQL server to test against, or skips
// the test (outside CI, with EnvDSN unset).
func DSN(tb testing.TB) string {
	tb.Helper()
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return dsn
	}
	if os.Getenv("CI") == "true" {
		return CIDSN
	}
	tb.Skipf("PostgreSQL tests skipped: set %s (e.g. %s) to run them", EnvDSN, CIDSN)
	return ""
}

// Schema creates a schema with a random name on the server DSN names,
// drops it (and everything in it) when the test ends, and returns a DSN
// whose connections use it (search_path). In CI an unreachable server
// fails the test.
func Schema(tb testing.TB) string {
	tb.Helper()
	dsn, _ := SchemaNamed(tb)
	return dsn
}

// SchemaNamed is Schema that also returns the schema's name, for stores
// that take the schema as an option rather than from search_path.
func SchemaNamed(tb testing.TB) (dsn, schema string) {
	tb.Helper()
	dsn = DSN(tb)
	schema = create(tb, dsn, "SCHEMA", "", " CASCADE")
	return withSearchPath(dsn, schema), schema
}

// create makes an object of the given kind (SCHEMA, DATABASE) with a
// random name and options on the server dsn names, drops it (with
// dropOptions) when the test ends, and returns its name. In CI an
// unreachable server fails the test.
func create(tb testing.TB, dsn, kind, options, dropOptions string) string {
	tb.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		tb.Fatalf("parse %s: malformed DSN", EnvDSN)
	}
	admin := stdlib.OpenDB(*cfg)
	defer admin.Close()
	if err := admin.PingContext(tb.Context()); err != nil {
		tb.Fatalf("PostgreSQL does not answer (%s, or CI's %s): %v", EnvDSN, CIDSN, err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "provenant_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(tb.Context(), "CREATE "+kind+" "+name+" "+options); err != nil {
		tb.Fatalf("create %s: %v", strings.ToLower(kind), err)
	}
	tb.Cleanup(func() {
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		if kind == "SCHEMA" {
			dropTablesOneByOne(db, name)
		}
		if _, err := db.Exec("DROP " + kind + " " + name + dropOptions); err != nil {
			tb.Errorf("drop %s: %v", strings.ToLower(kind), err)
		}
	})
	return name
}

// withSearchPath adds search_path=schema to a URL or key=value DSN.
func withSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " search_path=" + schema
}

// Open returns a database on a fresh schema (Schema), closed when the
// test ends.
func Open(tb testing.TB) *sql.DB {
	tb.Helper()
	cfg, err := pgx.ParseConfig(Schema(tb))
	if err != nil {
		tb.Fatalf("parse DSN: %v", err)
	}
	db := stdlib.OpenDB(*cfg)
	tb.Cleanup(func() { db.Close() })
	return db
}

// Database creates a database with a random name and the given CREATE
// DATABASE options (such as a locale) on the server DSN names, drops it
// when the test ends, and returns a DSN that connects to it. In CI an
// unreachable server fails the test.
func Database(tb testing.TB, options string) string {
	tb.Helper()
	dsn := DSN(tb)
	name := create(tb, dsn, "DATABASE", options, " WITH (FORCE)")
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return dsn + " dbname=" + name
}

// dropTablesOneByOne drops every table of schema, each in its own
// transaction. A property test leaves hundreds of tables and indexes in
// its schema, and DROP SCHEMA … CASCADE locks them all in one transaction:
// under load that exhausted the server's shared lock table (max_locks_per_
// transaction × max_connections) and failed whichever test asked next with
// "out of shared memory". Failures here are left to the DROP SCHEMA after.
func dropTablesOneByOne(db *sql.DB, schema string) {
	rows, err := db.Query(`SELECT tablename FROM pg_tables WHERE schemaname = $1`, schema)
	if err != nil {
		return
	}
	var tables []string
	for rows.Next() {
		var t string
		if rows.Scan(&t) == nil {
			tables = append(tables, t)
		}
	}
	rows.Close()
	for _, t := range tables {
		db.Exec(`DROP TABLE IF EXISTS ` + pgx.Identifier{schema, t}.Sanitize() + ` CASCADE`)
	}
}

// WithApplicationName adds application_name=name to a URL or key=value
// DSN, so that Terminate can find the connections opened with it.
func WithApplicationName(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("application_name", name)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " application_name=" + name
}

// Terminate ends, from the server's side (pg_terminate_backend, as an
// administrator or a server restart would), every connection opened with
// application_name name, and returns how many it ended.
func Terminate(tb testing.TB, name string) int {
	tb.Helper()
	cfg, err := pgx.ParseConfig(DSN(tb))
	if err != nil {
		tb.Fatalf("parse %s: malformed DSN", EnvDSN)
	}
	admin := stdlib.OpenDB(*cfg)
	defer admin.Close()
	var n int
	if err := admin.QueryRowContext(tb.Context(), "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()", name).Scan(&n); err != nil {
		tb.Fatalf("terminate connections: %v", err)
	}
	// The backends end on their own time: wait until they have (their
	// FATAL message written, their sockets closed).
	for deadline := time.Now().Add(10 * time.Second); ; {
		var left int
		if err := admin.QueryRowContext(tb.Context(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", name).Scan(&left); err != nil {
			tb.Fatalf("terminate connections: %v", err)
		}
		if left == 0 {
			return n
		}
		if time.Now().After(deadline) {
			tb.Fatalf("terminate connections: %d still there after 10s", left)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// AppName returns an application_name no other test uses.
func AppName() string {
	var b [6]byte
	rand.Read(b[:])
	return "provenant_test_" + hex.EncodeToString(b[:])
}
