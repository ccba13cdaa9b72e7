package engine_test

import (
	"testing"

	"github.com/provenant/provenant/store/duckdb"
	"github.com/provenant/provenant/store/postgres/pgtest"
	"github.com/provenant/provenant/task/sqlstore"
	"github.com/provenant/provenant/task/tasktest"
)

// TestTaskStore_DuckDB and TestTaskStore_Postgres run the task store's
// contract (idempotence under a request key, refusal of a reused key,
// one row under concurrent appends) on both backends. PostgreSQL is
// skipped without PROVENANT_POSTGRES_DSN outside CI (pgtest).
func TestTaskStore_DuckDB(t *testing.T) {
	tasktest.Run(t, func(t *testing.T) tasktest.Store {
		db, err := duckdb.OpenMemory(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlstore.Open(t.Context(), db, "tasks")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestTaskStore_Postgres(t *testing.T) {
	tasktest.Run(t, func(t *testing.T) tasktest.Store {
		db := pgtest.Open(t)
		s, err := sqlstore.Open(t.Context(), db, "tasks")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
