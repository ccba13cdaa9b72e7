// Package sqlstore is the SQL the database-backed event log and decision
// register stores share (eventlog/postgres, eventlog/duckdb,
// register/postgres, register/duckdb). It speaks database/sql and imports
// no driver: each leaf package passes a Dialect saying how its database
// locks the head row and how to tell a conflict from a failure.
//
// Each store keeps a one-row head table and an append-only table of
// records in a named schema. An append is one transaction: lock the head
// row (SELECT ... FOR UPDATE where the database has it), check the new
// record against the head, insert it at the next position, move the head,
// commit. The head row serialises appends across processes; primary keys
// and unique constraints (position, id, (run, producer, seq) for events,
// prev for register records) are the backstop, so that even a locking
// mistake could not store two records at one position or fork the
// register's chain. Nothing here is a process-local lock but the optional
// Dialect.Serialize, which DuckDB (one process per file) uses to avoid
// retrying its own optimistic conflicts.
//
// The SQL is kept to what PostgreSQL-wire distributed engines run:
// CREATE SCHEMA/TABLE IF NOT EXISTS, PRIMARY KEY and UNIQUE constraints,
// INSERT ... ON CONFLICT DO NOTHING, SELECT ... FOR UPDATE, ORDER BY with
// LIMIT, and transactions; no triggers, stored procedures or JSON
// operators. One exception, behind Dialect.ClockSequence (PostgreSQL): the
// grant store's logical clock is a sequence, migrated from its one-row
// table under an advisory lock (clock.go), so that a tick commits no row
// that every request would otherwise wait on.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/provenant/provenant/internal/dbtx"
	"regexp"
	"sync"
	"sync/atomic"
	"time"
)

// The errors of this package; the leaf packages re-export them.
var (
	// ErrGap: a stored table is missing a position (a record deleted
	// from under the store) or holds one out of place.
	ErrGap = errors.New("stored positions not dense")
	// ErrSchema: a schema name that is not a plain lower-case SQL
	// identifier.
	ErrSchema = errors.New("invalid schema name")
	// ErrConflict: an append kept meeting concurrent appends after every
	// retry.
	ErrConflict = errors.New("append kept conflicting")
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("store closed")
)

// Kind classifies a database error.
type Kind int

// The kinds of database error a Dialect tells apart.
const (
	KindOther  Kind = iota // a failure: returned as it is
	KindUnique             // a unique or primary key violation
	KindRetry              // a serialisation failure, deadlock or write conflict: try again
	// KindLost: the connection was lost, ended by the server (a restart,
	// a failover, pg_terminate_backend) or broken. A connection used
	// less than a second before goes back to database/sql's pool
	// unchecked, so the first statement sent on it meets the loss: a
	// statement before a transaction's COMMIT, or one alone that only
	// reads or ticks the clock, is tried again on another connection.
	KindLost
)

// Dialect is what differs between databases.
type Dialect struct {
	// ForUpdate is appended to the head row's SELECT to lock it (" FOR
	// UPDATE"), or empty where the database detects the write conflict
	// on the head row's UPDATE instead.
	ForUpdate string
	// Classify tells a conflict from a failure.
	Classify func(error) Kind
	// Serialize runs one store's appends one at a time in this process,
	// for a database that only one process opens (DuckDB).
	Serialize bool
	// WritableCTE: the database runs an UPDATE inside WITH and an
	// INSERT ... ON CONFLICT DO UPDATE ... RETURNING (PostgreSQL), so the
	// grant store locks a session's row in one statement and ticks the
	// clock with the session's time in another.
	WritableCTE bool
	// ClockSequence: the grant store's logical clock is a sequence
	// (nextval), set up and migrated from the one-row table under an
	// advisory lock (PostgreSQL): see GrantStore and migrateClock.
	ClockSequence bool
}

// DefaultSchema is the schema the stores use when none is named.
const DefaultSchema = "provenant"

var schemaPattern = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CheckSchema accepts a schema name that needs no quoting: lower-case
// letters, digits and underscores, not starting with a digit, at most 63
// bytes. An empty name means DefaultSchema.
func CheckSchema(name string) (string, error) {
	if name == "" {
		return DefaultSchema, nil
	}
	if !schemaPattern.MatchString(name) {
		return "", fmt.Errorf("open store: %w: want lower-case letters, digits and underscores", ErrSchema)
	}
	return name, nil
}

// maxTries bounds the attempts of one append and of the table set-up.
const maxTries = 50

// setup runs DDL statements in order, each idempotent; it tries again
// when a concurrent set-up (another process creating the same schema)
// makes one fail with a conflict.
func setup(ctx context.Context, db *sql.DB, d Dialect, stmts []string) error {
	var err error
	for try := range maxTries {
		err = nil
		for _, q := range stmts {
			if _, err = db.ExecContext(ctx, q); err != nil {
				break
			}
		}
		if err == nil {
			return nil
		}
		if d.Classify(err) == KindOther && try > 2 {
			return err
		}
		if err := pause(ctx, try); err != nil {
			return err
		}
	}
	return err
}

// pause waits a little longer at each try.
func pause(ctx context.Context, try int) error {
	t := time.NewTimer(time.Duration(min(try+1, 20)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// errStop aborts a transaction without retrying: the append was refused.
type errStop struct{ err error }

func (e errStop) Error() string { return e.err.Error() }

// inTx runs fn in a transaction and commits, trying again on conflicts;
// fn returns errStop to refuse. Errors are returned unwrapped from
// errStop.
func inTx(ctx context.Context, db *sql.DB, d Dialect, mu *sync.Mutex, fn func(*sql.Tx) error) error {
	if d.Serialize {
		mu.Lock()
		defer mu.Unlock()
	}
	var err error
	for try := range maxTries {
		err = once(ctx, db, fn)
		var stop errStop
		if errors.As(err, &stop) {
			return stop.err
		}
		if err == nil {
			return nil
		}
		var before errBeforeCommit
		switch d.Classify(err) {
		case KindOther:
			return err
		case KindLost:
			// Lost before COMMIT was sent, the transaction was rolled
			// back; lost at COMMIT, it may have committed.
			if !errors.As(err, &before) || ctx.Err() != nil {
				return err
			}
		}
		if perr := pause(ctx, try); perr != nil {
			return perr
		}
	}
	return fmt.Errorf("%w: %d tries: %w", ErrConflict, maxTries, err)
}

// inStmt runs fn, one statement outside any transaction (it commits on
// its own), trying again on conflicts as inTx does.
func inStmt(ctx context.Context, d Dialect, mu *sync.Mutex, fn func() error) error {
	if d.Serialize {
		mu.Lock()
		defer mu.Unlock()
	}
	var err error
	for try := range maxTries {
		if err = fn(); err == nil || d.Classify(err) == KindOther || ctx.Err() != nil {
			return err
		}
		if perr := pause(ctx, try); perr != nil {
			return perr
		}
	}
	return fmt.Errorf("%w: %d tries: %w", ErrConflict, maxTries, err)
}

func once(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := dbtx.Begin(ctx, db, nil)
	if err != nil {
		return errBeforeCommit{err}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		var stop errStop
		if errors.As(err, &stop) {
			return err
		}
		return errBeforeCommit{err}
	}
	return dbtx.Commit(ctx, tx)
}

// errBeforeCommit is an error of a transaction before its COMMIT was
// sent: whatever it was, nothing was committed.
type errBeforeCommit struct{ err error }

func (e errBeforeCommit) Error() string { return e.err.Error() }
func (e errBeforeCommit) Unwrap() error { return e.err }

// scanBatch is how many rows one query of a Scan reads.
const scanBatch = 1000

// closer is what both stores share about their end: whether Close was
// called, and whether it closes the database too (a store Open made).
type closer struct {
	closed atomic.Bool
	owns   bool
	db     *sql.DB
}

// check is ErrClosed, wrapped with what the caller was doing, once the
// store is closed.
func (c *closer) check(doing string) error {
	if c.closed.Load() {
		return fmt.Errorf("%s: %w", doing, ErrClosed)
	}
	return nil
}

// Close ends the store; later calls fail with ErrClosed. It closes the
// database when the store owns it (Open made it), and only the first
// time.
func (c *closer) Close() error {
	if !c.closed.CompareAndSwap(false, true) || !c.owns {
		return nil
	}
	if err := c.db.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// Options configures a store. nil means defaults.
type Options struct {
	// Schema names the schema the tables live in; empty means
	// "provenant". Lower-case letters, digits and underscores only.
	Schema string
}

// Opener connects to a database: a dialect's Open.
type Opener func(ctx context.Context, target string) (*sql.DB, error)

// open connects with connect (nil: db is given and stays the caller's),
// then builds the store with build, closing what it opened if that fails.
func open[S any](ctx context.Context, connect Opener, target string, db *sql.DB, what string,
	build func(db *sql.DB, owns bool) (S, error)) (S, error) {
	owns := connect != nil
	if owns {
		var err error
		if db, err = connect(ctx, target); err != nil {
			var zero S
			return zero, fmt.Errorf("open %s: %w", what, err)
		}
	}
	s, err := build(db, owns)
	if err != nil {
		if owns {
			db.Close()
		}
		var zero S
		return zero, fmt.Errorf("open %s: %w", what, err)
	}
	return s, nil
}

func schemaOf(opts *Options) string {
	if opts == nil {
		return ""
	}
	return opts.Schema
}

// OpenEvents returns an event store in the database connect reaches at
// target (the store closes it on Close), or, with a nil connect, on db
// (which Close leaves open).
func OpenEvents(ctx context.Context, connect Opener, target string, db *sql.DB, d Dialect, opts *Options) (*EventStore, error) {
	return open(ctx, connect, target, db, "event store", func(db *sql.DB, owns bool) (*EventStore, error) {
		return NewEventStore(ctx, db, d, schemaOf(opts), owns)
	})
}

// OpenRegister is OpenEvents for a register store.
func OpenRegister(ctx context.Context, connect Opener, target string, db *sql.DB, d Dialect, opts *Options) (*RegisterStore, error) {
	return open(ctx, connect, target, db, "register store", func(db *sql.DB, owns bool) (*RegisterStore, error) {
		return NewRegisterStore(ctx, db, d, schemaOf(opts), owns)
	})
}
