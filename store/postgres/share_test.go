package postgres_test

import (
	"database/sql"
	"testing"

	"github.com/provenant/provenant/store/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

// TestSnapshotSharer: a transaction imported from another's exported
// snapshot reads what the other reads, not a row committed after the
// export; an identifier of another form is refused before it reaches
// the server.
func TestSnapshotSharer(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.Schema(t)
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (n INT); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.OpenSnapshotSharer(ctx, dsn, 1)
	if err != nil || s == nil {
		t.Fatalf("open: %v (%v)", err, s)
	}
	defer s.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	id, err := s.Export(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	twin, err := s.Import(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer twin.Rollback()
	var n int
	if err := twin.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("the imported snapshot reads %d rows, want the exporter's 1", n)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Errorf("a new transaction reads %d rows (%v), want 2", n, err)
	}
	for _, bad := range []string{"", "x", "00000003-0000001B-1'; SELECT 1; --", "0000-00 00"} {
		if tx, err := s.Import(ctx, bad); err == nil {
			tx.Rollback()
			t.Errorf("Import(%q) = nil error, want a refusal", bad)
		}
	}
}
