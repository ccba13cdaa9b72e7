package main

// Where the audit state lives (issue 11, shared deployments): the event
// log and the decision register of ask, serve, mcp and eval, and the
// database the log and register subcommands read.
//
//	--state-db postgres://… (or a key=value DSN)  the PostgreSQL stores (eventlog/postgres, register/postgres)
//	--state-db duckdb:PATH                         the DuckDB stores (eventlog/duckdb, register/duckdb) in the file PATH
//	--state-db none                                no audit state (not even the default below)
//	--state-schema NAME                            the schema of the state tables (default provenant)
//
// Without --state-db, --log FILE or --register FILE, ask, serve and mcp
// over a catalog whose source is PostgreSQL (--postgres DSN) keep their
// state in that database, schema provenant; any other source keeps none
// unless asked (--log FILE, --register FILE, --state-db). eval keeps
// state only when asked.

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/provenant/provenant/autonomy"
	auduckdb "github.com/provenant/provenant/autonomy/duckdb"
	aupostgres "github.com/provenant/provenant/autonomy/postgres"
	budduckdb "github.com/provenant/provenant/budget/duckdb"
	budpostgres "github.com/provenant/provenant/budget/postgres"
	"github.com/provenant/provenant/eventlog"
	evduckdb "github.com/provenant/provenant/eventlog/duckdb"
	evpostgres "github.com/provenant/provenant/eventlog/postgres"
	"github.com/provenant/provenant/internal/duckfile"
	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/internal/sqlstore/duckdialect"
	"github.com/provenant/provenant/internal/sqlstore/pgdialect"
	"github.com/provenant/provenant/register"
	regduckdb "github.com/provenant/provenant/register/duckdb"
	regpostgres "github.com/provenant/provenant/register/postgres"
)

// stateKind is the kind of database --state-db names.
type stateKind int

const (
	stateNone     stateKind = iota // no state database
	statePostgres                  // PostgreSQL: a URL or key=value DSN
	stateDuckDB                    // a DuckDB file
)

// stateDB is a parsed --state-db: the kind and where (the DSN or path).
type stateDB struct {
	kind stateKind
	// where is the DSN (PostgreSQL) or the file path (DuckDB). It may
	// hold a password: it is never printed.
	where  string
	schema string
}

// The spellings --state-db accepts.
const (
	stateNoneWord = "none"
	duckdbPrefix  = "duckdb:"
)

// keyValueDSN is the start of a key=value PostgreSQL DSN, as pgx reads
// one ("host=db user=provenant ...").
var keyValueDSN = regexp.MustCompile(`^\s*[a-z_]+\s*=`)

// errStateDB is --state-db's usage message: what it accepts, never what
// was given.
const errStateDB = "--state-db: want postgres://…, postgresql://…, a key=value DSN (host=… dbname=…), duckdb:PATH or none"

// parseStateDB reads a --state-db value. The error never repeats it (a
// DSN may carry a password).
func parseStateDB(s string) (stateDB, error) {
	switch {
	case s == stateNoneWord:
		return stateDB{kind: stateNone}, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		return stateDB{kind: statePostgres, where: s}, nil
	case strings.HasPrefix(s, duckdbPrefix):
		path := strings.TrimPrefix(s, duckdbPrefix)
		if path == "" {
			return stateDB{}, usagef("--state-db: duckdb: wants a file PATH (duckdb:audit.duckdb)")
		}
		if err := checkDBFile(path); err != nil {
			return stateDB{}, usagef("--state-db: duckdb: %v", err)
		}
		return stateDB{kind: stateDuckDB, where: path}, nil
	case keyValueDSN.MatchString(s):
		return stateDB{kind: statePostgres, where: s}, nil
	}
	return stateDB{}, usagef(errStateDB)
}

// checkStateSchema checks a --state-schema value, naming the rule and
// not the value.
func checkStateSchema(s string) error {
	if _, err := sqlstore.CheckSchema(s); err != nil || s == "" {
		return usagef("--state-schema: want 1 to 63 lower-case letters, digits and underscores, not starting with a digit")
	}
	return nil
}

// stateStores are the opened stores of a state database.
type stateStores struct {
	events eventlog.Store
	reg    register.Store
	// grants keeps the live autonomy grants and the gates' logical
	// clock (openState only; nil from openStateForReading).
	grants autonomy.Ledger
	close  func() error
}

// stateBackend opens a state database's stores, as its leaf packages
// do.
type stateBackend struct {
	events   func(context.Context, string, *sqlstore.Options) (*sqlstore.EventStore, error)
	register func(context.Context, string, *sqlstore.Options) (*sqlstore.RegisterStore, error)
	grants   func(context.Context, string, *sqlstore.Options) (*sqlstore.GrantStore, error)
	// budgets keeps the session budgets (opened only with --budget).
	budgets func(context.Context, string, *sqlstore.Options) (*sqlstore.BudgetStore, error)
}

var stateBackends = map[stateKind]stateBackend{
	statePostgres: {evpostgres.Open, regpostgres.Open, aupostgres.Open, budpostgres.Open},
	stateDuckDB:   {evduckdb.Open, regduckdb.Open, auduckdb.Open, budduckdb.Open},
}

// openBudgets opens the budget store of a state database (its table
// budget_accounts created if missing). Errors name the store, never the
// DSN.
func openBudgets(ctx context.Context, db stateDB) (*sqlstore.BudgetStore, error) {
	b, ok := stateBackends[db.kind]
	if !ok {
		return nil, errors.New("open state database: no database named")
	}
	s, err := b.budgets(ctx, db.where, &sqlstore.Options{Schema: db.schema})
	if err != nil {
		return nil, db.openError(err)
	}
	return s, nil
}

// openState opens the event log, the register and the grant ledger of a
// state database, creating their tables if missing. Errors name the
// store, never the DSN.
func openState(ctx context.Context, db stateDB) (*stateStores, error) {
	b, ok := stateBackends[db.kind]
	if !ok {
		return nil, errors.New("open state database: no database named")
	}
	o := &sqlstore.Options{Schema: db.schema}
	ev, err := b.events(ctx, db.where, o)
	if err != nil {
		return nil, db.openError(err)
	}
	reg, err := b.register(ctx, db.where, o)
	if err != nil {
		ev.Close()
		return nil, db.openError(err)
	}
	gr, err := b.grants(ctx, db.where, o)
	if err != nil {
		ev.Close()
		reg.Close()
		return nil, db.openError(err)
	}
	return &stateStores{events: ev, reg: reg, grants: gr,
		close: func() error { return errors.Join(ev.Close(), reg.Close(), gr.Close()) }}, nil
}

// The tables a state database's reader looks for: the event log's and
// the register's.
const (
	tableEvents  = "eventlog_events"
	tableRecords = "register_records"
)

// errNoState: the state database has no audit tables in the schema named
// (a mistyped --state-schema, or nothing ever written there).
var errNoState = errors.New("no audit tables in that schema (check --state-schema)")

// openStateForReading opens a state database that must already hold the
// given table in its schema: a DuckDB file that does not exist, or a
// schema without the table, is an error, and nothing is created (a
// verification of the wrong place must not pass as an empty log).
func openStateForReading(ctx context.Context, sdb stateDB, table string) (*stateStores, error) {
	var (
		db  *sql.DB
		err error
	)
	switch sdb.kind {
	case statePostgres:
		db, err = pgdialect.Open(ctx, sdb.where)
	case stateDuckDB:
		if _, err = os.Stat(sdb.where); err == nil {
			db, err = duckdialect.Open(ctx, sdb.where)
		}
	default:
		err = errors.New("no database named")
	}
	if err != nil {
		return nil, sdb.openError(err)
	}
	schema := cmp.Or(sdb.schema, sqlstore.DefaultSchema)
	var n int
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2", schema, table).Scan(&n)
	if err == nil && n == 0 {
		err = errNoState
	}
	if err != nil {
		db.Close()
		return nil, sdb.openError(err)
	}
	st := &stateStores{}
	if sdb.kind == statePostgres {
		ev, err := evpostgres.New(ctx, db, &evpostgres.Options{Schema: sdb.schema})
		if err == nil {
			st.events = ev
			st.reg, err = regpostgres.New(ctx, db, &regpostgres.Options{Schema: sdb.schema})
		}
		if err != nil {
			db.Close()
			return nil, sdb.openError(err)
		}
	} else {
		ev, err := evduckdb.New(ctx, db, &evduckdb.Options{Schema: sdb.schema})
		if err == nil {
			st.events = ev
			st.reg, err = regduckdb.New(ctx, db, &regduckdb.Options{Schema: sdb.schema})
		}
		if err != nil {
			db.Close()
			return nil, sdb.openError(err)
		}
	}
	// The stores opened with New leave db open: it is closed last.
	st.close = db.Close
	return st, nil
}

// stateFlags are --state-db and --state-schema, as the log and register
// subcommands take them.
type stateFlags struct {
	db     string
	schema string
}

// register binds --state-db and --state-schema; what says what they are for.
func (s *stateFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
}, what string) {
	fs.StringVar(&s.db, "state-db", "",
		what+" in a database: `DSN` postgres://… or key=value for PostgreSQL, duckdb:PATH for a DuckDB file, none for no state")
	fs.StringVar(&s.schema, "state-schema", "", "with --state-db, or a catalog over --postgres: the `SCHEMA` of the audit tables (default provenant)")
}

// parse reads the flags: the database (kind stateNone, given false,
// when --state-db was not given) and its schema. --state-schema without
// --state-db is the caller's to judge.
func (s *stateFlags) parse() (db stateDB, given bool, err error) {
	if s.schema != "" {
		if err := checkStateSchema(s.schema); err != nil {
			return stateDB{}, false, err
		}
	}
	if !s.given() {
		return stateDB{}, false, nil
	}
	if db, err = parseStateDB(s.db); err != nil {
		return stateDB{}, false, err
	}
	if db.kind == stateNone && s.schema != "" {
		return stateDB{}, false, usagef("--state-schema goes with a --state-db database, not none")
	}
	db.schema = s.schema
	return db, true, nil
}

// given reports whether --state-db was given.
func (s *stateFlags) given() bool { return s.db != "" }

// registerFile is a register.Store in a register file (JSON Lines, one
// canonical record a line, as register verify reads it), for one
// process: the records are held in memory, and an append writes its
// line, newline included, in one write and fsyncs it before it returns
// nil. A failed write or fsync closes it for appends, as eventlog's
// FileStore does.
type registerFile struct {
	mu     sync.Mutex
	f      *os.File
	mem    *register.MemStore
	size   int64
	broken error
}

var _ register.Store = (*registerFile)(nil)

// errRegisterBroken: an earlier append to the register file failed.
var errRegisterBroken = errors.New("register file closed after a failed write")

// openRegisterFile opens (creating) a register file and loads it; a
// record that does not decode is refused with its line.
func openRegisterFile(ctx context.Context, path string) (*registerFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open register: %w", err)
	}
	mem, err := register.Load(ctx, f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open register: %w", err)
	}
	size, err := f.Seek(0, 2)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open register: %w", err)
	}
	return &registerFile{f: f, mem: mem, size: size}, nil
}

// Append implements register.Store.
func (s *registerFile) Append(ctx context.Context, r register.Record) error {
	line, err := register.Canonical(r)
	if err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return fmt.Errorf("append record: %w", s.broken)
	}
	head := register.GenesisHash
	n := s.mem.Len()
	if n > 0 {
		err := s.mem.Scan(ctx, n-1, func(_ int, last register.Record) error {
			head = last.Hash
			return errStop
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
	}
	if r.Prev != head {
		return fmt.Errorf("append record: %w", register.ErrStale)
	}
	if _, err := s.f.WriteAt(append(line, '\n'), s.size); err != nil {
		s.f.Truncate(s.size)
		s.broken = errRegisterBroken
		return fmt.Errorf("append record: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		s.broken = errRegisterBroken
		return fmt.Errorf("append record: %w", err)
	}
	s.size += int64(len(line)) + 1
	return s.mem.Append(ctx, r)
}

// errStop ends a Scan early.
var errStop = errors.New("stop")

// Scan implements register.Store.
func (s *registerFile) Scan(ctx context.Context, from int, fn func(int, register.Record) error) error {
	return s.mem.Scan(ctx, from, fn)
}

// Close closes the file.
func (s *registerFile) Close() error { return s.f.Close() }

// openError is the error of opening the state database db: for a DuckDB
// file, --state-db and the reason in one line, for DuckDB's message (and
// os.Stat's) quotes the file's path, and --state-db's errors never repeat
// its value.
func (db stateDB) openError(err error) error {
	if db.kind != stateDuckDB {
		return fmt.Errorf("open state database: %w", err)
	}
	var de *duckdb.Error
	switch {
	case errors.Is(err, duckfile.ErrNotDatabase):
		// Refused before DuckDB opened it (duckdialect.Open).
		return errors.New("open state database: --state-db: duckdb: not a DuckDB database file")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, errNoState), !errors.As(err, &de) && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("open state database: %w", err) // names no file
	}
	return fmt.Errorf("open state database: --state-db: duckdb: %s", duckdbOpenReason(err, de))
}

// duckdbOpenReason says why DuckDB (de, when not nil) or os.Stat could
// not open a database file, in words that quote neither the file's path
// nor DuckDB's message.
func duckdbOpenReason(err error, de *duckdb.Error) string {
	if de == nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "no such file"
		}
		return "cannot open the file"
	}
	switch msg := de.Msg; {
	case strings.Contains(msg, "No such file or directory"):
		return "no such file or directory"
	case strings.Contains(msg, "not a valid DuckDB database file"):
		return "not a DuckDB database file"
	case strings.Contains(msg, "Conflicting lock is held"):
		return "another process has the file open (DuckDB lets one process at a time open a file for writing)"
	case strings.Contains(msg, "Permission denied"), de.Type == duckdb.ErrorTypePermission:
		return "permission denied"
	case strings.Contains(msg, "Is a directory"):
		return errNotRegular.Error()
	}
	return "DuckDB cannot open the file"
}
