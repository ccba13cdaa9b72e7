package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/provenant/provenant/shape"
)

// SnapshotSharer opens transactions that read what another transaction
// reads: the other exports its snapshot (pg_export_snapshot) and each
// import begins a read-only REPEATABLE READ transaction, on a pool of its
// own, whose first statement sets that snapshot (SET TRANSACTION
// SNAPSHOT). The engine runs a query_metric call's resolver on one beside
// the executor (shape.Source.Sharer). Its own pool means an import never
// waits for a connection held by a transaction that waits for it.
type SnapshotSharer struct {
	db *sql.DB
}

var _ shape.SnapshotSharer = (*SnapshotSharer)(nil)

// OpenSnapshotSharer opens a SnapshotSharer on a pool of at most conns
// connections (two at least: it tries an export and an import on two as
// it opens). A server that cannot export a snapshot (a PostgreSQL-wire
// engine without pg_export_snapshot) gets none: OpenSnapshotSharer then
// returns nil and no error, and the resolver follows the executor on the
// request's snapshot. The error never quotes the DSN.
func OpenSnapshotSharer(ctx context.Context, dsn string, conns int) (*SnapshotSharer, error) {
	db, err := openPool(ctx, dsn, max(conns, 2), nil)
	if err != nil {
		return nil, err
	}
	s := &SnapshotSharer{db: db}
	ok, err := s.works(ctx)
	if err != nil || !ok {
		db.Close()
		return nil, err
	}
	return s, nil
}

// works exports a snapshot and imports it, once.
func (s *SnapshotSharer) works(ctx context.Context) (bool, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return false, fmt.Errorf("open snapshot sharer: %w", err)
	}
	defer tx.Rollback()
	id, err := s.Export(ctx, tx)
	if unsupported(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open snapshot sharer: %w", err)
	}
	twin, err := s.Import(ctx, id)
	if unsupported(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open snapshot sharer: %w", err)
	}
	twin.Rollback()
	return true, nil
}

// unsupported reports whether err is the server's refusal of a snapshot
// export or import it does not implement (an undefined function, a
// syntax error, a feature not supported).
func unsupported(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "42883" || pe.Code == "42601" || pe.Code == "0A000")
}

// snapshotID is the form of pg_export_snapshot's identifiers
// ("00000003-0000001B-1"): the text an import interpolates, checked.
var snapshotID = regexp.MustCompile(`^[0-9A-F]+(-[0-9A-F]+)+$`)

// Export exports the snapshot of tx, a transaction at REPEATABLE READ,
// and returns its identifier. It is importable until tx ends.
func (s *SnapshotSharer) Export(ctx context.Context, tx *sql.Tx) (string, error) {
	var id string
	if err := tx.QueryRowContext(ctx, "SELECT pg_export_snapshot()").Scan(&id); err != nil {
		return "", fmt.Errorf("export snapshot: %w", err)
	}
	if !snapshotID.MatchString(id) {
		return "", errors.New("export snapshot: the server's snapshot identifier is not of the expected form")
	}
	return id, nil
}

// Import begins a read-only REPEATABLE READ transaction that reads the
// snapshot id names (Export's, of a transaction still open). The caller
// must end it.
func (s *SnapshotSharer) Import(ctx context.Context, id string) (*sql.Tx, error) {
	if !snapshotID.MatchString(id) {
		return nil, errors.New("import snapshot: not a snapshot identifier")
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("import snapshot: %w", err)
	}
	// The identifier cannot be a parameter of SET; it was checked above.
	if _, err := tx.ExecContext(ctx, "SET TRANSACTION SNAPSHOT '"+id+"'"); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("import snapshot: %w", err)
	}
	return tx, nil
}

// Close closes the sharer's pool.
func (s *SnapshotSharer) Close() error { return s.db.Close() }
