package duckdb_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/eventlog"
	"github.com/provenant/provenant/eventlog/duckdb"
	"github.com/provenant/provenant/eventlog/eventlogtest"
)

func TestStore_Contract(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlogtest.Opener {
		path := filepath.Join(t.TempDir(), "state.duckdb")
		return func(t *testing.T) eventlog.Store {
			s, err := duckdb.Open(t.Context(), path, &duckdb.Options{Schema: "audit"})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}

func TestStore_Options(t *testing.T) {
	if _, err := duckdb.New(t.Context(), nil, &duckdb.Options{Schema: "Audit Log"}); !errors.Is(err, duckdb.ErrSchema) {
		t.Errorf("New with a bad schema name = %v; want ErrSchema", err)
	}
	s, err := duckdb.Open(t.Context(), "", nil) // in memory, schema "provenant"
	if err != nil {
		t.Fatal(err)
	}
	e, err := eventlog.NewEvent(eventlog.Envelope{ID: eventlog.EventID(0, "r", "p", 1), Run: "r", Producer: "p", Seq: 1}, eventlogtest.Payload(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	if seq, _, err := s.Last(t.Context(), "r", "p"); err != nil || seq != 1 {
		t.Errorf("Last = %d, %v; want 1", seq, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(t.Context(), e); !errors.Is(err, duckdb.ErrClosed) {
		t.Errorf("append after close = %v; want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close = %v", err)
	}
}
