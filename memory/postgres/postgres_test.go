package postgres_test

import (
	"testing"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/memorytest"
	"github.com/provenant/provenant/memory/postgres"
	"github.com/provenant/provenant/store/postgres/pgtest"
)

func open(t *testing.T, entries []memory.Entry) memory.Store {
	t.Helper()
	st, err := postgres.Open(t.Context(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Load(t.Context(), entries); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestStore runs the memory store contract against PostgreSQL (skipped
// outside CI unless PROVENANT_POSTGRES_DSN is set; required when CI=true).
func TestStore(t *testing.T) { memorytest.RunStore(t, open) }

// TestJournal runs the append contract against PostgreSQL.
func TestJournal(t *testing.T) {
	memorytest.RunJournal(t, func(t *testing.T) memory.Journal { return open(t, nil).(memory.Journal) })
}
