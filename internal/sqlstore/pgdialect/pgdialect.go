// Package pgdialect is the PostgreSQL side of package sqlstore: the
// dialect (the head row locked with SELECT ... FOR UPDATE; SQLSTATE
// 23505 a conflict, 40001 and 40P01 a retry, 57P01 to 57P03 and class 08
// a lost connection) and opening a pool from a
// DSN. eventlog/postgres and register/postgres share it.
package pgdialect

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/provenant/provenant/internal/sqlstore"
	"github.com/provenant/provenant/store/postgres"
)

// Dialect is PostgreSQL's.
var Dialect = sqlstore.Dialect{ForUpdate: " FOR UPDATE", Classify: classify, WritableCTE: true, ClockSequence: true}

func classify(err error) sqlstore.Kind {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return sqlstore.KindOther // no connection was made: nothing to try again on
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
			return sqlstore.KindLost // the connection broke
		}
		return sqlstore.KindOther
	}
	switch pe.Code {
	case "23505", "42P06", "42P07": // unique_violation; duplicate schema or table from a concurrent CREATE ... IF NOT EXISTS
		return sqlstore.KindUnique
	case "40001", "40P01": // serialization_failure, deadlock_detected
		return sqlstore.KindRetry
	case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now: the server ended the connection
		return sqlstore.KindLost
	}
	if strings.HasPrefix(pe.Code, "08") { // connection_exception
		return sqlstore.KindLost
	}
	return sqlstore.KindOther
}

// MaxConns bounds the connections a pool opened by Open holds.
const MaxConns = 8

// Open connects to the database dsn names (a URL or key=value string, as
// pgx parses it) with a pool of MaxConns and checks that it answers. The
// error never quotes the DSN, which may hold a password.
func Open(ctx context.Context, dsn string) (*sql.DB, error) {
	return postgres.OpenGrowingPool(ctx, dsn, MaxConns)
}
