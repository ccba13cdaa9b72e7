package duckdb_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/memory"
	"github.com/provenant/provenant/memory/duckdb"
	"github.com/provenant/provenant/memory/memorytest"
)

func open(t *testing.T, entries []memory.Entry) memory.Store {
	t.Helper()
	st, err := duckdb.OpenMemory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Load(t.Context(), entries); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestStore runs the memory store contract against DuckDB.
func TestStore(t *testing.T) { memorytest.RunStore(t, open) }

// TestJournal runs the append contract against DuckDB.
func TestJournal(t *testing.T) {
	memorytest.RunJournal(t, func(t *testing.T) memory.Journal { return open(t, nil).(memory.Journal) })
}

// TestOpen_File: a journal written to a file is there when the file is
// opened again.
func TestOpen_File(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.duckdb")
	st, err := duckdb.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	r := memory.Record{Key: "m-1", Agent: "bot", Kind: memory.KindClaim, Text: "pr-007 is out", Subject: "pr-007", Time: 1, Valid: memory.Interval{From: 1}}
	if err := st.Append(t.Context(), r, memory.Visibility{Agent: "bot"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = duckdb.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Retrieve(t.Context(), memory.Retrieval{Cues: memory.Cues{Subject: "PR-007"}, AsOf: 5, Limit: 10})
	if err != nil || len(got) != 1 || got[0].Key != "m-1" || got[0].Text != r.Text {
		t.Fatalf("after reopening: %+v, %v", got, err)
	}
	if err := st.Append(t.Context(), r, memory.Visibility{}); !errors.Is(err, memory.ErrDuplicateKey) {
		t.Fatalf("appending the key again: %v, want ErrDuplicateKey", err)
	}
}
